import { describe, it } from "vitest";
import { createRaftNode } from "../../impls/raft/node.js";
import { RAFT_TESTS } from "./suite.js";

/**
 * The Raft regression suite (6.824-style, test/raft/suite.ts) on the real Raft, each
 * test across many seeds. A failure names the seed (in the title and the message).
 */
export const REGRESSION_SEEDS = Array.from({ length: 50 }, (_, i) => `seed-${i + 1}`);

for (const [name, test] of Object.entries(RAFT_TESTS)) {
  describe(`raft ${name}`, () => {
    it.each(REGRESSION_SEEDS)(`${name} %s`, (seed) => {
      test(createRaftNode, seed);
    });
  });
}
