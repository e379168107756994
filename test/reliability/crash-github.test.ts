import { describeCrashes } from "./crash-suite.js";

describeCrashes("github", 9001);
