import { describe, expect, it } from "vitest";
import { replicaAgreement } from "../../checkers/replica-agreement.js";
import { checkerByName } from "../../checkers/index.js";
import { runCheckers } from "../../checkers/run-all.js";
import { DESIGNS } from "../../designs/index.js";
import type { CreateRaftNode } from "../../services/raft/api.js";
import { createRaftNode } from "../../services/raft/node.js";
import { raftZkDesign } from "../../designs/raft-zk/design.js";
import { etcdLeaseDesign } from "../../designs/etcd-lease/design.js";
import type { ZkCmd } from "../../designs/raft-zk/tree.js";
import type { EtcdCmd } from "../../designs/etcd-lease/kv.js";
import { canonicalForm, stateDigest } from "../../services/raft-service/replica-states.js";
import { allScenarios, loadScenario } from "../../scenarios/index.js";
import type { Scenario } from "../../scenarios/schema.js";
import type { HistoryEvent } from "../../sim/history.js";
import { runScenario } from "../../harness/runner.js";

/**
 * The replica-agreement checker on hand-made histories that must pass and must fail,
 * and on real runs: every Raft-backed scenario agrees, and a hand-corrupted replica
 * (one server applies a command with one field changed) is caught.
 */

let index = 0;
function state(process: string, incarnation: number, states: Array<[number, string]>): HistoryEvent {
  return { index: index++, timeUs: 1000, process, type: "info", f: "replica-state", value: { incarnation, states } };
}
const check = (h: HistoryEvent[]) => replicaAgreement(h, {});

describe("replica-agreement on hand-made histories", () => {
  it("passes replicas that agree wherever they overlap, at different lengths and with gaps", () => {
    const r = check([
      state("zk-1", 1, [
        [1, "a"],
        [2, "b"],
        [4, "d"],
      ]),
      state("zk-2", 1, [
        [1, "a"],
        [2, "b"],
      ]),
      state("zk-2", 2, [
        [1, "a"],
        [2, "b"],
        [4, "d"],
        [5, "e"],
      ]),
      state("zk-3", 1, [[1, "a"]]),
    ]);
    expect(r.valid).toBe(true);
    expect(r.skipped).toBeUndefined();
    // Index 5 is held by one incarnation only: nothing to compare there.
    expect(r.stats).toEqual({ incarnations: 4, indexesCompared: 3, comparisons: 3 + 2 + 1, disagreements: 0 });
  });

  it("fails two replicas with different states at one index, naming both", () => {
    const r = check([
      state("zk-1", 1, [
        [1, "a"],
        [2, "b"],
        [3, "c"],
      ]),
      state("zk-2", 1, [
        [1, "a"],
        [2, "X"],
        [3, "c"],
      ]),
    ]);
    expect(r.valid).toBe(false);
    expect(r.summary).toBe("replicas disagree at 1 applied index(es); first at index 2: zk-1#1 hold b; zk-2#1 hold X");
    expect(r.witness).toEqual({ first: { index: 2, states: { b: ["zk-1#1"], X: ["zk-2#1"] } }, indexes: [2] });
  });

  it("fails a server that disagrees with its own earlier incarnation", () => {
    const r = check([
      state("etcd-1", 1, [
        [1, "a"],
        [2, "b"],
      ]),
      state("etcd-1", 2, [
        [1, "a"],
        [2, "c"],
      ]),
    ]);
    expect(r.valid).toBe(false);
    expect(r.stats?.disagreements).toBe(1);
  });

  it("skips a history with no replica states (a design with no replicated state machine)", () => {
    const r = check([{ index: 0, timeUs: 0, process: "c1", type: "invoke", f: "acquire", lock: "x" }]);
    expect(r.valid).toBe(true);
    expect(r.skipped).toMatch(/no replica-state events/);
  });

  it("says it cannot decide on malformed replica states, naming the event and field", () => {
    const bad = (value: unknown) => check([{ index: 7, timeUs: 0, process: "zk-1", type: "info", f: "replica-state", value }]);
    expect(bad(undefined)).toMatchObject({
      valid: "unknown",
      summary: "cannot read the replica states: event #7 (zk-1): value is not an object; expected { incarnation, states }",
    });
    expect(bad({ incarnation: 0, states: [] }).summary).toMatch(/value.incarnation is not a positive integer/);
    expect(bad({ incarnation: 1, states: {} }).summary).toMatch(/value.states is not an array/);
    expect(bad({ incarnation: 1, states: [[1, 2]] }).summary).toMatch(/value.states\[0\] is not an \[index, digest\] pair/);
    expect(
      bad({
        incarnation: 1,
        states: [
          [2, "a"],
          [2, "b"],
        ],
      }).summary,
    ).toMatch(/value.states\[1\] has index 2 after index 2/);
  });

  it("is registered, as a safety checker, and its failure makes a run unsafe", () => {
    expect(checkerByName("replica-agreement")?.kind).toBe("safety");
    const v = runCheckers([state("zk-1", 1, [[1, "a"]]), state("zk-2", 1, [[1, "b"]])], {});
    expect(v.results.find((r) => r.checker === "replica-agreement")?.valid).toBe(false);
    expect(v.safety).toBe(false);
  });
});

describe("state digests", () => {
  it("do not depend on the order maps, sets and objects were built in", () => {
    const a = {
      m: new Map([
        ["x", 1],
        ["y", 2],
      ]),
      s: new Set([3, 1]),
      o: { p: 1, q: [1, 2] },
    };
    const b = {
      o: { q: [1, 2], p: 1 },
      s: new Set([1, 3]),
      m: new Map([
        ["y", 2],
        ["x", 1],
      ]),
    };
    expect(canonicalForm(a)).toBe(canonicalForm(b));
    expect(stateDigest(a)).toBe(stateDigest(b));
    expect(stateDigest(a)).toMatch(/^[0-9a-f]{16}$/);
  });
  it("differ when any value differs, array order included", () => {
    const base = { m: new Map([["x", 1]]), l: [1, 2] };
    expect(stateDigest(base)).not.toBe(stateDigest({ m: new Map([["x", 2]]), l: [1, 2] }));
    expect(stateDigest(base)).not.toBe(stateDigest({ m: new Map([["x", 1]]), l: [2, 1] }));
    expect(stateDigest({ s: new Set(["a"]) })).not.toBe(stateDigest({ s: new Set(["a", "b"]) }));
    expect(stateDigest({ v: "1" })).not.toBe(stateDigest({ v: 1 }));
  });
});

const RAFT_DESIGNS = new Set(["raft-zk", "etcd-lease"]);
const raftScenarios = (): Scenario[] => allScenarios().filter((s) => RAFT_DESIGNS.has(s.design));

describe("replica-agreement on every Raft-backed scenario", () => {
  const scenarios = raftScenarios();
  it("there are Raft-backed scenarios of both services", () => {
    expect(scenarios.some((s) => s.design === "raft-zk")).toBe(true);
    expect(scenarios.some((s) => s.design === "etcd-lease")).toBe(true);
  });
  for (const s of scenarios) {
    it(`${s.name} (seed 1): every replica agrees, and there was something to compare`, () => {
      const { history, meta } = runScenario(s, 1);
      const r = replicaAgreement(history, {});
      expect(r.valid, r.summary).toBe(true);
      expect(r.skipped).toBeUndefined();
      // Every server wrote its states, and at least two overlapped on most of the log.
      const writers = new Set(history.filter((e) => e.f === "replica-state").map((e) => e.process));
      expect([...writers].sort()).toEqual([...meta.serverIds].sort());
      expect(r.stats!.indexesCompared).toBeGreaterThan(2);
    });
  }
});

/** A design that differs from `base` only in that server `victim` applies every command through `corrupt`. */
function withCorruptReplica<Cmd>(victim: string, corrupt: (cmd: Cmd) => Cmd): CreateRaftNode {
  return (ctx, opts, restarted) =>
    createRaftNode(ctx, ctx.id === victim ? { ...opts, apply: (cmd, at) => opts.apply(corrupt(cmd as unknown as Cmd) as never, at) } : opts, restarted);
}

describe("replica-agreement catches a hand-corrupted replica in a real run", () => {
  const cases = [
    {
      name: "raft-zk",
      scenario: "raft-zk-baseline",
      victim: "zk-2",
      // The session's timeout is one ms longer on one replica: no client can see it, the states differ.
      design: raftZkDesign(withCorruptReplica<ZkCmd>("zk-2", (c) => (c.kind === "createSession" ? { ...c, timeoutMs: c.timeoutMs + 1 } : c))),
    },
    {
      name: "etcd-lease",
      scenario: "etcd-lease-baseline",
      victim: "etcd-3",
      design: etcdLeaseDesign(withCorruptReplica<EtcdCmd>("etcd-3", (c) => (c.kind === "leaseGrant" ? { ...c, ttlMs: c.ttlMs + 1 } : c))),
    },
  ];
  for (const c of cases) {
    it(`${c.name}: the corrupted ${c.victim} is named, and the same run without the corruption passes`, () => {
      const base = loadScenario(c.scenario);
      const corruptName = `${c.name}-corrupt-replica`;
      DESIGNS.push({ ...c.design, name: corruptName });
      try {
        const { history } = runScenario({ ...base, name: `${base.name}-corrupt`, design: corruptName }, 1);
        const r = replicaAgreement(history, {});
        expect(r.valid).toBe(false);
        expect(r.summary).toContain(`${c.victim}#1 hold`);
        // The other checkers see nothing: the corruption is invisible to the clients.
        expect(
          runCheckers(history, { ttlMs: base.workload.ttlMs })
            .results.filter((x) => x.valid === false)
            .map((x) => x.checker),
        ).toEqual(["replica-agreement"]);
      } finally {
        DESIGNS.splice(
          DESIGNS.findIndex((d) => d.name === corruptName),
          1,
        );
      }
      expect(replicaAgreement(runScenario(base, 1).history, {}).valid).toBe(true);
    });
  }
});
