import { describe, expect, it } from "vitest";
import type { CreateRaftNode } from "../../services/raft/api.js";
import { createRaftNode } from "../../services/raft/node.js";
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

describe("raft determinism", () => {
  it("the same seed gives the same run, event for event", () => {
    const fingerprint = (seed: string): string => {
      const events: string[] = [];
      const create: CreateRaftNode = (ctx, opts, restarted) =>
        createRaftNode(
          ctx,
          { ...opts, apply: (cmd, at) => (events.push(`${ctx.id}@${ctx.monoUs()}:${at.index}=${String(cmd)}`), opts.apply(cmd, at)) },
          restarted,
        );
      RAFT_TESTS.churn!(create, seed);
      return events.join(";");
    };
    const a = fingerprint("det-1");
    expect(a.length).toBeGreaterThan(0);
    expect(fingerprint("det-1")).toBe(a);
    expect(fingerprint("det-2")).not.toBe(a);
  });
});
