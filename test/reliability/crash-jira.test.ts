import { describeCrashes } from "./crash-suite.js";

describeCrashes("jira", 9002);
