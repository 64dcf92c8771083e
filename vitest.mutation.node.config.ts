import { defineConfig } from "vitest/config";

/**
 * The test set StrykerJS runs against each mutant of the Raft adapter, services/raft/node.ts
 * (stryker.node.config.mjs, `npm run mutation:node`): its unit tests (test/raft/node.test.ts)
 * and the 6.824-style regression suite on its first seed (the whole suite drives the
 * core through this adapter). `npm test` does not use it.
 */
export default defineConfig({
  test: {
    include: ["test/raft/node.test.ts", "test/raft/regression.test.ts"],
    // Regression cases are titled "<test> seed-N": keep seed 1.
    testNamePattern: /^(?!.*(?:\bseed-(?:[2-9]|\d\d+)\b|raft determinism))/,
    testTimeout: 60_000,
  },
});
