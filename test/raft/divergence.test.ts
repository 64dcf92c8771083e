import { describe, expect, it } from "vitest";
import seedrandom from "seedrandom";
import type { Entry } from "../../services/raft/core/types.js";
import { createRaftNode } from "../../services/raft/node.js";
import { CoreNet, type Cmd } from "./core-net.js";
import { withBatch } from "./harness.js";
import { RAFT_TESTS } from "./suite.js";

/**
 * Divergence at scale, through the core API: logs that differ from the leader's by
 * more than one AppendEntries batch (entriesPerAppendMax shrunk to 1, 2 or 3), in
 * clusters of 1 to 7 servers, even sizes included. A leader must bring every
 * follower's log to its own, batch by batch, never sending more than a batch at once,
 * and never losing an applied entry (checked by CoreNet on every apply).
 */

const commonPrefix = (a: readonly Entry<Cmd>[], b: readonly Entry<Cmd>[]): number => {
  let i = 0;
  while (i < a.length && i < b.length && a[i]!.term === b[i]!.term && a[i]!.cmd === b[i]!.cmd) i++;
  return i;
};

/** Everyone up and connected: elect one leader of the newest term, commit one entry, and require identical logs. */
function converge(net: CoreNet, cmd: Cmd): Entry<Cmd>[] {
  net.heal();
  for (const id of net.ids) if (!net.isAlive(id)) net.restart(id);
  const settled = (): boolean => {
    const ls = net.leaders();
    const termMax = Math.max(...net.ids.map((id) => net.node(id).term));
    return ls.length === 1 && net.node(ls[0]!).term === termMax;
  };
  for (let round = 0; round < 3 * net.ids.length && !settled(); round++) {
    net.timeout(net.ids[round % net.ids.length]!);
    net.deliverAll();
  }
  const [leader] = net.leaders();
  if (leader === undefined || !settled()) return net.fail("converge", `leaders: ${net.leaders().join(", ") || "none"}`);
  net.propose(leader, cmd);
  net.deliverAll();
  // A follower learns the commit index from the append after the one that committed:
  // one heartbeat brings everyone up (the catch-up chain runs within a delivery round).
  net.heartbeat(leader);
  net.deliverAll();
  const log = net.node(leader).log;
  for (const id of net.ids) {
    const l = net.node(id).log;
    if (l.length !== log.length || commonPrefix(l, log) !== log.length) {
      net.fail("converge", `${id} has ${l.length} entries (${commonPrefix(l, log)} agreeing) where leader ${leader} has ${log.length}`);
    }
    if (net.node(id).commitIndex !== log.length) net.fail("converge", `${id} committed ${net.node(id).commitIndex} of ${log.length}`);
  }
  net.committedLog().forEach((e, i) => {
    if (log[i]?.term !== e.term || log[i]?.cmd !== e.cmd) net.fail("leader completeness", `applied (${e.term}, ${e.cmd}) at ${i + 1} is not in the final log`);
  });
  return log;
}

interface Spread {
  /** Most entries a server held that the final log overwrote. */
  conflictMax: number;
  /** Most entries a server lacked of the final log when the network healed. */
  lagMax: number;
}

/**
 * Rounds of random partitions: in every group a random member times out, and every
 * leader (of a majority or not) appends 1 to 4 batches' worth of entries; now and then
 * a server crashes and comes back. Then the network heals and the logs must converge.
 */
function randomDivergence(n: number, batch: number, seed: number): Spread {
  const label = `divergence n=${n} batch=${batch} seed=${seed}`;
  const rnd = seedrandom(label);
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const net = new CoreNet({ n, label, entriesPerAppendMax: batch });
  let v = 0;
  for (let round = 0; round < 6; round++) {
    let groups: string[][];
    const leaders = net.leaders();
    if (leaders.length > 0 && rnd() < 0.6) {
      // Strand a leader in a minority of at most n/2 (it keeps appending entries only that minority holds).
      const leader = leaders[int(0, leaders.length - 1)]!;
      const others = net.ids.filter((id) => id !== leader);
      const minority = [leader, ...others.filter(() => rnd() < 0.5).slice(0, Math.floor(n / 2) - 1)];
      groups = [minority, net.ids.filter((id) => !minority.includes(id))];
    } else {
      const groupCount = int(1, Math.min(3, n));
      groups = Array.from({ length: groupCount }, () => []);
      for (const id of net.ids) groups[int(0, groupCount - 1)]!.push(id);
    }
    groups = groups.filter((g) => g.length > 0);
    net.partition(groups);
    for (const g of groups) {
      if (g.length === 0) continue;
      net.timeout(g[int(0, g.length - 1)]!);
      net.deliverAll();
    }
    for (const leader of net.leaders()) {
      const k = int(batch, 4 * batch);
      for (let j = 0; j < k; j++) net.propose(leader, `v${v++}`);
      net.deliverAll();
      net.heartbeat(leader);
      net.deliverAll();
    }
    if (rnd() < 0.3) {
      const id = net.ids[int(0, n - 1)]!;
      net.crash(id);
      net.restart(id);
    }
  }
  // Where each server stands against the final log, measured once it is known.
  const before = net.ids.map((id) => [...net.node(id).log]);
  const final = converge(net, "final");
  const spread: Spread = { conflictMax: 0, lagMax: 0 };
  for (const l of before) {
    const p = commonPrefix(l, final);
    spread.conflictMax = Math.max(spread.conflictMax, l.length - p);
    spread.lagMax = Math.max(spread.lagMax, final.length - 1 - p);
  }
  // No AppendEntries carried more than a batch.
  for (const t of net.trace) {
    const e = t.effect;
    if (e.kind === "send" && e.msg.type === "raft-append" && e.msg.entries.length > batch) {
      net.fail("batch bound", `${t.id} sent ${e.msg.entries.length} entries with entriesPerAppendMax ${batch}`);
    }
  }
  return spread;
}

const SEEDS = 12;

describe("logs diverging by more than one AppendEntries batch converge, clusters of 1 to 7", () => {
  for (const n of [1, 2, 3, 4, 5, 6, 7]) {
    for (const batch of [1, 2, 3]) {
      it(`n=${n} entriesPerAppendMax=${batch}, seeds 1..${SEEDS}`, () => {
        const spreads: Spread[] = [];
        for (let seed = 1; seed <= SEEDS; seed++) spreads.push(randomDivergence(n, batch, seed));
        const conflictMax = Math.max(...spreads.map((s) => s.conflictMax));
        const lagMax = Math.max(...spreads.map((s) => s.lagMax));
        if (n === 1) {
          // One server is its own majority: nothing to diverge from.
          expect(conflictMax + lagMax).toBe(0);
        } else {
          // The runs did reach logs more than a batch behind...
          expect(lagMax).toBeGreaterThan(batch);
          // ...and, where a minority leader can exist beside a majority one, more than a batch in conflict.
          if (n >= 3) expect(conflictMax).toBeGreaterThan(batch);
        }
      });
    }
  }
});

describe("a scripted divergence of several batches", () => {
  it("a 5-server cluster overwrites 10 conflicting entries in batches of 2", () => {
    const net = new CoreNet({ n: 5, label: "scripted", entriesPerAppendMax: 2 });
    net.elect("n1");
    net.propose("n1", "a");
    net.deliverAll();
    net.partition([
      ["n1", "n2"],
      ["n3", "n4", "n5"],
    ]);
    for (let i = 0; i < 10; i++) net.propose("n1", `minority${i}`);
    net.deliverAll();
    expect(net.node("n2").log).toHaveLength(11);
    net.elect("n3");
    for (let i = 0; i < 7; i++) net.propose("n3", `majority${i}`);
    net.deliverAll();
    const tracePos = net.trace.length;
    net.heal();
    net.heartbeat("n3");
    net.deliverAll();
    const logOf = (id: string) => net.node(id).log.map((e) => e.cmd);
    expect(logOf("n2")).toEqual(logOf("n3"));
    expect(logOf("n1")).toEqual(logOf("n3"));
    expect(logOf("n1")).toEqual(["a", ...Array.from({ length: 7 }, (_, i) => `majority${i}`)]);
    expect(net.node("n1").role).toBe("follower");
    // The catch-up went in batches of at most 2, and needed more than one.
    const appendsToN1 = net.trace
      .slice(tracePos)
      .flatMap((t) => (t.effect.kind === "send" && t.effect.to === "n1" && t.effect.msg.type === "raft-append" ? [t.effect.msg] : []));
    expect(Math.max(...appendsToN1.map((m) => m.entries.length))).toBe(2);
    expect(appendsToN1.filter((m) => m.entries.length > 0).length).toBeGreaterThanOrEqual(4);
    // Fast backup: the conflicting term is skipped at once, not one entry per round trip.
    expect(appendsToN1.length).toBeLessThanOrEqual(8);
    expect(net.node("n1").commitIndex).toBe(8);
  });
});

describe("the 6.824 suite with a shrunk batch", () => {
  for (const name of ["backup", "figure8Unreliable", "churn"] as const) {
    it(`${name} passes with entriesPerAppendMax 1 (seeds 1..5)`, () => {
      for (let seed = 1; seed <= 5; seed++) RAFT_TESTS[name]!(withBatch(createRaftNode, 1), `batch1-seed-${seed}`);
    });
  }
});
