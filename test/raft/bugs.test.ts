import { describe, expect, it } from "vitest";
import type { RaftBug } from "../../services/raft/api.js";
import { createRaftNode } from "../../services/raft/node.js";
import { RaftCheckError, withBugs } from "./harness.js";
import { RAFT_TESTS } from "./suite.js";

/**
 * Every bug variant of the Raft core is caught by the regression suite: for each row
 * of the table in docs/raft-bugs.md, the named test fails with the named check on at
 * least `caughtMin` of the seeds, and the same test passes on the real Raft on every
 * one of those seeds (so the check can fail, and fails only for the bug).
 */
interface CatchRow {
  bug: RaftBug;
  test: keyof typeof RAFT_TESTS;
  /** The harness check that fires (RaftCheckError.check). */
  check: string;
  seedsMax: number;
  caughtMin: number;
}

export const CATCH_TABLE: CatchRow[] = [
  { bug: "voteWithoutUpToDateCheck", test: "backup", check: "state machine safety", seedsMax: 20, caughtMin: 15 },
  { bug: "voteWithoutUpToDateCheck", test: "failAgree", check: "state machine safety", seedsMax: 20, caughtMin: 10 },
  { bug: "voteWithoutUpToDateCheck", test: "figure8Paper", check: "figure 8", seedsMax: 20, caughtMin: 10 },
  { bug: "commitPreviousTermByCounting", test: "figure8Paper", check: "state machine safety", seedsMax: 20, caughtMin: 15 },
  { bug: "votedForNotPersisted", test: "persistVotes", check: "election safety", seedsMax: 20, caughtMin: 15 },
  { bug: "acceptStaleTermAppendEntries", test: "rejoin", check: "state machine safety", seedsMax: 20, caughtMin: 5 },
];

/** Exhaustive over RaftBug: adding a bug to api.ts without a catching row fails to compile here. */
const EVERY_BUG: Record<RaftBug, true> = {
  voteWithoutUpToDateCheck: true,
  commitPreviousTermByCounting: true,
  votedForNotPersisted: true,
  acceptStaleTermAppendEntries: true,
};

const seedsOf = (n: number): string[] => Array.from({ length: n }, (_, i) => `seed-${i + 1}`);

describe("raft bug variants are caught", () => {
  it("every bug variant has a catching row", () => {
    for (const bug of Object.keys(EVERY_BUG) as RaftBug[]) {
      expect(
        CATCH_TABLE.some((r) => r.bug === bug),
        bug,
      ).toBe(true);
    }
  });

  for (const row of CATCH_TABLE) {
    it(`${row.bug} is caught by ${row.test} (${row.check}) on >= ${row.caughtMin} of seeds 1..${row.seedsMax}`, () => {
      const test = RAFT_TESTS[row.test]!;
      const buggy = withBugs(createRaftNode, { [row.bug]: true });
      const caught: string[] = [];
      for (const seed of seedsOf(row.seedsMax)) {
        // The real Raft passes this very run...
        test(createRaftNode, seed);
        // ...and the bug variant fails it, for the documented reason.
        try {
          test(buggy, seed);
        } catch (e) {
          if (!(e instanceof RaftCheckError)) throw e;
          if (e.check === row.check) caught.push(seed);
        }
      }
      expect(caught.length, `caught on ${caught.join(", ") || "no seed"}`).toBeGreaterThanOrEqual(row.caughtMin);
    });
  }

  it("a bug switched off is the real Raft", () => {
    const off = withBugs(createRaftNode, { voteWithoutUpToDateCheck: false, commitPreviousTermByCounting: false });
    for (const seed of seedsOf(5)) RAFT_TESTS.figure8Paper!(off, seed);
  });
});
