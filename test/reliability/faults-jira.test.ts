import { describeFaults } from "./fault-suite.js";

describeFaults("jira");
