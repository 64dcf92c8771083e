// Mutation testing of the services on the Raft core (issue 14): npm run mutation:services.
// The base settings are stryker.config.json's (vitest runner, per-test coverage,
// incremental, concurrency 1); what differs is what is mutated, the test set and where
// the reports go. The client libraries (raft-zk/lock.ts, etcd-lease/mutex.ts,
// raft-service/session-client.ts) are not mutated here: they are the recipes' own code,
// tested by scenario runs only.
import { readFileSync } from "node:fs";

const base = JSON.parse(readFileSync(new URL("./stryker.config.json", import.meta.url), "utf8"));
delete base.$schema;
delete base._comment;

export default {
  ...base,
  vitest: { configFile: "vitest.mutation.services.config.ts" },
  mutate: [
    "services/raft-service/host.ts",
    "services/raft-service/replica-states.ts",
    "designs/raft-zk/server.ts",
    "designs/raft-zk/tree.ts",
    "designs/etcd-lease/server.ts",
    "designs/etcd-lease/kv.ts",
  ],
  thresholds: { high: 90, low: 80, break: null },
  jsonReporter: { fileName: "mutation-report/services/mutation.json" },
  htmlReporter: { fileName: "mutation-report/services/mutation.html" },
  incrementalFile: "mutation-report/services/stryker-incremental.json",
  tempDirName: ".stryker-tmp-services",
};
