// Mutation testing of the Raft adapter services/raft/node.ts (issue 14): npm run mutation:node.
// Base settings from stryker.config.json; its own test set, reports and incremental file.
import { readFileSync } from "node:fs";

const base = JSON.parse(readFileSync(new URL("./stryker.config.json", import.meta.url), "utf8"));
delete base.$schema;
delete base._comment;

export default {
  ...base,
  vitest: { configFile: "vitest.mutation.node.config.ts" },
  mutate: ["services/raft/node.ts"],
  jsonReporter: { fileName: "mutation-report/node/mutation.json" },
  htmlReporter: { fileName: "mutation-report/node/mutation.html" },
  incrementalFile: "mutation-report/node/stryker-incremental.json",
  tempDirName: ".stryker-tmp-node",
};
