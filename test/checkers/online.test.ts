import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { HistoryEvent } from "../../sim/history.js";
import { CHECKERS } from "../../checkers/index.js";
import { runCheckers } from "../../checkers/run-all.js";
import { OnlineVerdicts } from "../../checkers/run-online.js";
import { judgeChallenge } from "../../checkers/challenge.js";
import { OnlineChallenge } from "../../checkers/challenge-online.js";
import { CHALLENGE_KINDS } from "../../checkers/challenge.js";
import type { CheckContext, CheckResult } from "../../checkers/types.js";
import { HistoryBuilder } from "../helpers/history-builder.js";

/**
 * The online checkers (checkers/run-online.ts) against the batch ones on histories built
 * the way lockstep's workload writes them: each client one op at a time, acting only
 * under its latest grant; grants lapse, stale writes land, releases fail or go
 * unanswered, clients pause and crash, servers are partitioned. The shipped scenarios
 * are compared in test/checkers/online-scenarios.test.ts.
 */
type Session = {
  acquire: "ok" | "fail" | "info";
  expired: boolean;
  writes: number;
  lapse: boolean;
  staleWrite: boolean;
  release: "freed" | "not-freed" | "info" | "none";
  writeRejected: boolean;
  durMs: number;
  gapMs: number;
  pauseMs: number;
  crash: boolean;
};

const session: fc.Arbitrary<Session> = fc.record({
  acquire: fc.constantFrom<Session["acquire"]>("ok", "ok", "ok", "fail", "info"),
  expired: fc.constantFrom(false, false, false, false, true),
  writes: fc.integer({ min: 0, max: 2 }),
  lapse: fc.boolean(),
  staleWrite: fc.boolean(),
  release: fc.constantFrom<Session["release"]>("freed", "freed", "not-freed", "info", "none"),
  writeRejected: fc.boolean(),
  durMs: fc.integer({ min: 0, max: 30 }),
  gapMs: fc.integer({ min: 0, max: 30 }),
  pauseMs: fc.constantFrom(0, 0, 0, 15, 40),
  crash: fc.constantFrom(false, false, false, false, true),
});

const world = fc.record({
  clients: fc.array(fc.array(session, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 3 }),
  partitions: fc.array(fc.record({ atMs: fc.integer({ min: 0, max: 200 }), forMs: fc.integer({ min: 1, max: 40 }) }), { maxLength: 2 }),
  tokens: fc.boolean(),
  starts: fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 3, maxLength: 3 }),
});

type World = typeof world extends fc.Arbitrary<infer T> ? T : never;

function historyOf(w: World): HistoryEvent[] {
  const b = new HistoryBuilder();
  let token = 0;
  let counter = 0;
  w.clients.forEach((sessions, ci) => {
    const c = `c${ci + 1}`;
    let t = w.starts[ci]!;
    let incarnation = 0;
    let n = 0;
    /** A read-increment-write; a stale one writes what it read before its pause (a lost update). */
    const write = (g: { grantId: string; token?: number }, rejected: boolean, readBefore?: number) => {
      const read = readBefore ?? counter;
      b.at(t).ev(c, "invoke", "read", "L", g);
      b.at(t + 1).ev(c, "ok", "read", "L", { counter: read });
      b.ev(c, "invoke", "write", "L", { ...g, counter: read + 1 });
      b.at(t + 2).ev("storage", rejected ? "fail" : "ok", "storage-write", "L", { client: c, ...g, counter: read + 1 });
      if (!rejected) counter = read + 1;
      b.ev(c, rejected ? "fail" : "ok", "write", "L", {});
      t += 3;
    };
    for (const s of sessions) {
      const grantId = incarnation === 0 ? `${c}#${++n}` : `${c}.${incarnation}#${++n}`;
      const g = { grantId, ...(w.tokens ? { token: ++token } : {}) };
      b.at(t).ev(c, "invoke", "acquire", "L", { ttlMs: 10, waitMs: 5 });
      t += 1 + (s.durMs % 4);
      if (s.acquire !== "ok") {
        b.at(t).ev(c, s.acquire, "acquire", "L", s.acquire === "fail" ? { reason: "busy" } : {});
        t += s.gapMs;
        continue;
      }
      b.at(t).ev(c, "ok", "acquire", "L", { ...g, validityMs: s.expired ? 0 : 10, ttlMs: 10 });
      const readAtGrant = counter;
      for (let i = 0; i < s.writes; i++) write(g, s.writeRejected && i === 1);
      if (s.pauseMs > 0) {
        b.at(t).ev("nemesis", "info", "pause", undefined, { phase: "start", targets: [c] });
        if (s.lapse) b.at(t + 10).ev(c, "info", "lapse", "L", { grantId });
        t += s.pauseMs;
        b.at(t).ev("nemesis", "info", "pause", undefined, { phase: "end", targets: [c] });
      } else if (s.lapse) {
        t += s.durMs;
        b.at(t).ev(c, "info", "lapse", "L", { grantId });
      }
      if (s.lapse && s.staleWrite) write(g, s.writeRejected, readAtGrant);
      if (s.crash) {
        b.at(t + 1).ev("nemesis", "info", "crash", undefined, { phase: "start", targets: [c] });
        incarnation++;
        t += 5;
        b.at(t).ev("nemesis", "info", "crash", undefined, { phase: "end", targets: [c] });
        t += 1;
        continue;
      }
      if (s.release !== "none") {
        b.at(t).ev(c, "invoke", "release", "L", { grantId });
        t += 1;
        if (s.release === "info") b.at(t).ev(c, "info", "release", "L", {});
        else b.at(t).ev(c, "ok", "release", "L", { released: s.release === "freed" });
      }
      t += s.gapMs;
    }
  });
  for (const p of w.partitions) {
    b.at(p.atMs).ev("nemesis", "info", "partition", undefined, { phase: "start", targets: ["r1"] });
    b.at(p.atMs + p.forMs).ev("nemesis", "info", "partition", undefined, { phase: "end", targets: ["r1"] });
  }
  b.finalRead("L", counter, 400);
  return b.events;
}

const ctx: CheckContext = { ttlMs: 10, clockDriftPpmMax: 0 };

function online(history: readonly HistoryEvent[], c: CheckContext = ctx) {
  const v = new OnlineVerdicts(c);
  for (const e of history) v.push(e);
  return v.result();
}

/** The fields a verdict is compared on: exact checkers their whole result; linearizability its verdict (its witness is a window's). */
function comparable(r: CheckResult): unknown {
  if (r.checker === "linearizability" && r.valid !== true) return { valid: r.valid === false ? false : "not false" };
  const { stats: _s, ...rest } = r;
  return rest;
}

describe("online checkers equal the batch checkers", () => {
  it("on generated lockstep-style histories: every checker's verdict, summary and witness, and the outcome", () => {
    fc.assert(
      fc.property(world, (w) => {
        const h = historyOf(w);
        const batch = runCheckers(h, ctx);
        const on = online(h);
        for (const c of CHECKERS) {
          const b = batch.results.find((r) => r.checker === c.name)!;
          const o = on.results.find((r) => r.checker === c.name)!;
          expect(comparable(o), c.name).toEqual(comparable(b));
        }
        expect(on.outcome).toBe(batch.outcome);
      }),
      { numRuns: 2000, seed: 20261205 },
    );
  });

  it("on generated histories, every challenge kind: whether challenged, and how many times", () => {
    fc.assert(
      fc.property(world, (w) => {
        const h = historyOf(w);
        for (const kind of CHALLENGE_KINDS) {
          const spec = kind === "waiter-waited" ? { kind, waitedMsMin: 8 } : { kind };
          const oc = new OnlineChallenge(spec as never);
          for (const e of h) oc.push(e);
          const o = oc.result();
          const b = judgeChallenge(h, spec as never);
          expect({ kind, challenged: o.challenged, count: o.count, grants: o.grants, failed: o.acquiresFailed }).toEqual({
            kind,
            challenged: b.challenged,
            count: b.count,
            grants: b.grants,
            failed: b.acquiresFailed,
          });
        }
      }),
      { numRuns: 2000, seed: 4 },
    );
  });

  it("names the hold batch names when a waiter's grant comes after many other holds of its lock", () => {
    // w waits from 5 ms while a holds the lock; 100 other holds come and go before w is served.
    const b = new HistoryBuilder().section("a", "a#1", "L", 0, 10, 0);
    b.at(5).ev("w", "invoke", "acquire", "L", { ttlMs: 10_000, waitMs: 0 });
    for (let i = 0; i < 100; i++) b.section(`b${i}`, `b${i}#1`, "L", 20 + 10 * i, 8, i + 1);
    b.at(2000).ev("w", "ok", "acquire", "L", { grantId: "w#1", validityMs: 9999, ttlMs: 10_000 });
    const h = b.events;
    const online = (kind: "waiter-served" | "overlapping-belief") => {
      const oc = new OnlineChallenge({ kind });
      for (const e of h) oc.push(e);
      return oc.result();
    };
    expect(online("waiter-served")).toEqual(judgeChallenge(h, { kind: "waiter-served" }));
    expect(online("waiter-served").why).toMatch(/^w asked for L at 5 ms while a held it/);
    // No two beliefs met: not challenged either way (online says why in counts, not a story).
    const overlap = online("overlapping-belief");
    expect([overlap.challenged, overlap.count]).toEqual([false, 0]);
    expect(judgeChallenge(h, { kind: "overlapping-belief" }).challenged).toBe(false);
  });

  it("generated histories include violations, passes, lapses and crashes (the comparison is not vacuous)", () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(world, (w) => {
        const r = runCheckers(historyOf(w), ctx);
        for (const x of r.results) seen.add(`${x.checker}:${x.valid}`);
      }),
      { numRuns: 400, seed: 20261205 },
    );
    for (const k of [
      "mutual-exclusion:false",
      "mutual-exclusion:true",
      "lost-updates:false",
      "fencing:false",
      "linearizability:false",
      "linearizability:true",
      "liveness:true",
    ])
      expect(seen, k).toContain(k);
  });
});

describe("online checkers' own limits", () => {
  const feed = (checker: { push(e: HistoryEvent): void; result(): CheckResult }, h: readonly HistoryEvent[]) => {
    for (const e of h) checker.push(e);
    return checker.result();
  };
  const lin = () => CHECKERS.find((c) => c.name === "linearizability")!;
  const mutex = () => CHECKERS.find((c) => c.name === "mutual-exclusion")!;

  it("linearizability is searched window by window, and still finds a double grant after a thousand windows", () => {
    const b = new HistoryBuilder();
    for (let i = 0; i < 1000; i++) b.section(i % 2 ? "c2" : "c1", `g${i}`, "L", i * 10, 5, i);
    b.section("c1", "late1", "L", 20_000, 8, 0).section("c2", "late2", "L", 20_003, 8, 0);
    const on = feed(lin().online!(ctx), b.events);
    expect(on.valid).toBe(false);
    expect(lin().check(b.events, ctx).valid).toBe(false);
    expect(on.stats!.windows).toBeGreaterThan(900);
    const fine = new HistoryBuilder();
    for (let i = 0; i < 1000; i++) fine.section(i % 2 ? "c2" : "c1", `g${i}`, "L", i * 10, 5, i);
    expect(feed(lin().online!(ctx), fine.events)).toMatchObject({ valid: true, summary: expect.stringMatching(/4000 ops on 1 lock/) });
  });

  it("linearizability says unknown when a client acts without a grant id after its unknown-outcome acquire was left behind", () => {
    const b = new HistoryBuilder();
    b.at(0).ev("c1", "invoke", "acquire", "L", {}).at(1).ev("c1", "info", "acquire", "L", {});
    b.section("c2", "g2", "L", 2, 5, 0);
    b.at(20).ev("c1", "invoke", "write", "L", {}).at(21).ev("c1", "ok", "write", "L", {});
    const on = feed(lin().online!({}), b.events);
    expect(on.valid).toBe("unknown");
    expect(on.summary).toMatch(/c1 acted without a grant id/);
  });

  it("mutual exclusion says unknown, not pass, for an act under a grant its client had moved on from", () => {
    const b = new HistoryBuilder();
    b.section("c1", "g1", "L", 0, 5, 0).section("c1", "g2", "L", 10, 5, 1);
    b.at(30).ev("c1", "invoke", "write", "L", { grantId: "g1" }).at(31).ev("c1", "ok", "write", "L", {});
    const on = feed(mutex().online!(ctx), b.events);
    expect(on.valid).toBe("unknown");
    expect(on.summary).toMatch(/under a grant whose client had asked for the lock again/);
  });

  it("a checker fed in batch past its bound says unknown and names the bound", async () => {
    const { BufferedChecker } = await import("../../checkers/buffered.js");
    const h = new HistoryBuilder().section("c1", "g1", "L", 0, 5, 0).events;
    const small = new BufferedChecker("mutual-exclusion", mutex().check, ctx, 3);
    expect(feed(small, h)).toMatchObject({ valid: "unknown", summary: expect.stringMatching(/passed the 3 it may hold/) });
    expect(feed(new BufferedChecker("mutual-exclusion", mutex().check, ctx, 100), h).valid).toBe(true);
  });
});
