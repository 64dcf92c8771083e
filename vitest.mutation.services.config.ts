import { defineConfig } from "vitest/config";

/**
 * The test set StrykerJS runs against each mutant of the Raft-backed services
 * (stryker.services.config.mjs, `npm run mutation:services`): unit tests that call the
 * state machines' apply directly (ZkTree, EtcdKv) and drive one server or a small
 * cluster in a bare Simulation with a scripted client (test/services/), milliseconds
 * each. Scenario runs and 200-seed sweeps are left to npm test: minutes per mutant here.
 */
export default defineConfig({
  test: {
    include: ["test/designs/raft-zk-tree.test.ts", "test/designs/etcd-lease-kv.test.ts", "test/services/*.test.ts"],
    // Scenario runs over seeds (seconds each) are for npm test.
    exclude: ["test/services/renewal-faults.test.ts"],
    testTimeout: 60_000,
  },
});
