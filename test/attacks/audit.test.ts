import { describe, expect, it } from "vitest";
import { resolve } from "node:path";
import { audit, findingOf, referenceOf } from "../../harness/audit/audit.js";
import { attackByName } from "../../attacks/index.js";

const SEEDS = 3;

describe("audit: the differential against the backend's reference recipe", () => {
  it("picks compare-and-delete SET NX PX for one node, Redlock for N, a Raft design's own recipe", () => {
    // A library is judged against a reference library over the same simulated client.
    const mine = resolve("test/fixtures/adapters/checked-retry-lock.cjs");
    const one = referenceOf({ design: "library", designOptions: { adapter: mine, nodes: 1, persistence: "always" }, label: "x" });
    expect(one.label).toBe("setnx-reference (reference)");
    expect(one.designOptions).toMatchObject({ nodes: 1, persistence: "always" });
    expect(String(one.designOptions!.adapter)).toMatch(/setnx-reference\.cjs$/);
    const five = referenceOf({ design: "library", designOptions: { adapter: mine, nodes: 5, options: { redlock: {} } }, label: "x" });
    expect(five.label).toBe("redlock-v5 (reference)");
    expect(five.designOptions).not.toHaveProperty("options");
    expect(referenceOf({ design: "redlock", designOptions: { nodes: 5 }, label: "x" })).toEqual({
      design: "redlock",
      designOptions: { nodes: 5 },
      label: "redlock (reference)",
    });
    expect(referenceOf({ design: "redis-fenced", label: "x" }).design).toBe("redis-setnx");
    expect(referenceOf({ design: "raft-zk", label: "x" }).design).toBe("raft-zk");
  });

  it("judges by rates: a reference unsafe as often is the backend's limit, one unsafe far less often leaves it to your code", () => {
    const pairs = (unsafe: number[], referenceUnsafe: number[]) => ({ counts: {}, challenged: 50, unsafe, referenceUnsafe });
    const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
    // Unsafe on different seeds, at the same rate: timing, not code.
    expect(findingOf(pairs(range(1, 15), range(16, 30)), 50)).toBe("known limit of this backend");
    expect(findingOf(pairs(range(1, 50), range(1, 3)), 50)).toBe("your code");
    expect(findingOf(pairs([7], []), 50)).toBe("your code");
    expect(findingOf(pairs([], range(1, 50)), 50)).toBe("safe");
    expect(findingOf({ ...pairs([], []), challenged: 0 }, 50)).toBe("not challenged");
  });

  it("flags a plain-DEL release as your code on late-release, with a counterexample seed", () => {
    const [row] = audit(
      { design: "redis-setnx", designOptions: { release: "del" }, label: "plain-del" },
      { seeds: SEEDS, attacks: [attackByName("late-release")!] },
    );
    expect(row!.finding).toBe("your code");
    expect(row!.counterexampleSeed).toBe(1);
    expect(row!.scenario?.designOptions).toEqual({ release: "del" });
    expect(row!.referenceUnsafe).toBe(0);
  });

  it("lists single Redis's pause, clock-jump and slow-clock failures as backend limits, never as your code", () => {
    const rows = audit({ design: "redis-setnx", label: "redis-setnx" }, { seeds: SEEDS });
    const by = Object.fromEntries(rows.map((r) => [r.attack, r.finding]));
    expect(by).toEqual({
      "holder-pause-before-write": "known limit of this backend",
      "late-release": "safe",
      "extend-after-lapse": "safe",
      "waiter-deadline": "safe",
      "slow-acquire": "not challenged",
      "server-clock-jump": "known limit of this backend",
      "lost-acquire-reply": "safe",
      "holder-partitioned": "safe",
      "client-clock-jump": "safe",
      "async-failover": "refused",
      "crash-restart-no-fsync": "known limit of this backend",
      "delayed-release": "safe",
      "lossy-network": "safe",
      "client-clock-slow": "known limit of this backend",
      "leader-crash": "refused",
      "leader-isolated": "refused",
      "leader-crash-during-acquire": "refused",
      "holder-pause-during-release": "safe",
      "slow-holder-link": "safe",
      "long-hold-renewal": "safe",
      "acquire-reply-delayed": "not challenged",
      "waiter-clock-jump": "safe",
      "release-reply-delayed": "safe",
    });
    // The challenged share is the real one: slow-acquire's late grant is refused, nothing overlaps.
    expect(Object.fromEntries(rows.map((r) => [r.attack, r.challengedShare]))).toEqual({
      "holder-pause-before-write": 1,
      "late-release": 1,
      "extend-after-lapse": 1,
      "waiter-deadline": 1,
      "slow-acquire": 0,
      "server-clock-jump": 1,
      "lost-acquire-reply": 1,
      "holder-partitioned": 1,
      "client-clock-jump": 1,
      "async-failover": 0,
      "crash-restart-no-fsync": 1,
      "delayed-release": 1,
      "lossy-network": 1,
      "client-clock-slow": 1,
      "leader-crash": 0,
      "leader-isolated": 0,
      "leader-crash-during-acquire": 0,
      "holder-pause-during-release": 1,
      "slow-holder-link": 1,
      "long-hold-renewal": 1,
      "acquire-reply-delayed": 0,
      "waiter-clock-jump": 1,
      "release-reply-delayed": 1,
    });
  });

  it("carries a refusal instead of runs where the attack does not apply", () => {
    const [row] = audit({ design: "raft-zk", label: "raft-zk" }, { seeds: SEEDS, attacks: [attackByName("server-clock-jump")!] });
    expect(row!.refused).toMatch(/no single node holds the key/);
    expect(row!.runs).toBe(0);
  });
});
