/**
 * Real-time order is the history's order: a process's next call follows its previous
 * return even when both carry the same microsecond. Histories here stamp every event of
 * a critical section (and pairs of sections of different processes) with one instant,
 * so only event order says what came first. Valid executions must be judged valid; the
 * same with one op moved before its own predecessor's effect must be judged invalid, by
 * the search and by the brute-force oracle on the small ones.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pairOperations, type HistoryEvent } from "../../sim/history.js";
import { searchLinearization } from "../../checkers/linearizability/search.js";
import { bruteForceLinearizable } from "../../checkers/linearizability/brute-force.js";
import { mutexModel } from "../../checkers/linearizability/models/mutex.js";
import { registerModel } from "../../checkers/linearizability/models/register.js";
import { mutualExclusion } from "../../checkers/mutual-exclusion.js";
import type { AnyModel } from "../../checkers/linearizability/model.js";
import { leaseLockModel } from "../../checkers/linearizability/models/lease-lock.js";

const BUDGET = { statesMax: 1_000_000, memoryMbMax: 512 };
type Ev = Omit<HistoryEvent, "index">;
const indexed = (evs: Ev[]): HistoryEvent[] => evs.map((e, index) => ({ index, ...e }));

/** An op's two events, both at `timeUs`. */
const op = (timeUs: number, process: string, f: string, input: unknown, output: unknown, lock = "L"): Ev[] => [
  { timeUs, process, type: "invoke", f, lock, value: input },
  { timeUs, process, type: "ok", f, lock, value: output },
];

interface Section {
  process: string;
  writes: number;
}

/** Lock sections in turn; sections 2k and 2k+1 share the instant k, every event of a section too. */
function sections(list: readonly Section[], mutate?: "write-after-release" | "reacquire"): { events: Ev[]; mutated: boolean } {
  const events: Ev[] = [];
  let mutated = false;
  list.forEach((s, k) => {
    const t = Math.floor(k / 2) * 1000;
    const g = `${s.process}#${k}`;
    const writes = Array.from({ length: s.writes }, (_, j) => op(t, s.process, "write", { grantId: g, value: k * 10 + j }, {}));
    const release = op(t, s.process, "release", { grantId: g }, { released: true });
    events.push(...op(t, s.process, "acquire", {}, { grantId: g }));
    if (!mutated && mutate === "write-after-release" && writes.length > 0) {
      // The last write lands after the process's own release at the same instant.
      events.push(...writes.slice(0, -1).flat(), ...release, ...writes[writes.length - 1]!);
      mutated = true;
    } else if (!mutated && mutate === "reacquire") {
      // A second acquire by the holder before its own release.
      events.push(...writes.flat(), ...op(t, s.process, "acquire", {}, { grantId: `${g}b` }), ...release);
      mutated = true;
    } else events.push(...writes.flat(), ...release);
  });
  return { events, mutated };
}

/** Register ops in a sequential order, each op at instant floor(k/2); reads see the last write, or with `stale` one read misses its own process's write just before. */
function registerRun(list: ReadonlyArray<{ process: string; write: boolean }>, stale: boolean): { events: Ev[]; mutated: boolean } {
  const events: Ev[] = [];
  let value: number | null = null;
  let mutated = false;
  list.forEach((o, k) => {
    const t = Math.floor(k / 2) * 1000;
    if (o.write) {
      const before = value;
      value = k + 1;
      events.push(...op(t, o.process, "write", { value }, {}, "x"));
      // Its own read right after, at the same instant, missing the write it just made.
      if (stale && !mutated) {
        events.push(...op(t, o.process, "read", {}, { value: before }, "x"));
        mutated = true;
      }
    } else events.push(...op(t, o.process, "read", {}, { value }, "x"));
  });
  return { events, mutated };
}

function judge(model: AnyModel, events: HistoryEvent[]): { search: boolean | "unknown"; oracle?: boolean } {
  const ops = pairOperations(events).ops;
  const search = searchLinearization(model, ops, BUDGET).valid;
  return { search, ...(ops.length <= 10 ? { oracle: bruteForceLinearizable(model, ops) } : {}) };
}

const processArb = fc.constantFrom("c1", "c2", "c3");
const sectionsArb = fc.array(fc.record({ process: processArb, writes: fc.integer({ min: 0, max: 2 }) }), { minLength: 1, maxLength: 5 });
const registerArb = fc.array(fc.record({ process: processArb, write: fc.boolean() }), { minLength: 1, maxLength: 8 });

describe("real-time order is the history's order", () => {
  it("lock histories: valid ones pass; write-after-own-release and re-acquire-before-release fail", () => {
    const counts = { valid: 0, invalid: 0, oracle: 0 };
    fc.assert(
      fc.property(sectionsArb, fc.constantFrom<"write-after-release" | "reacquire">("write-after-release", "reacquire"), (list, how) => {
        const good = judge(mutexModel, indexed(sections(list).events));
        expect(good.search).toBe(true);
        if (good.oracle !== undefined) expect(good.oracle).toBe(true);
        counts.valid++;
        const bad = sections(list, how);
        if (!bad.mutated) return;
        const events = indexed(bad.events);
        const r = judge(mutexModel, events);
        expect(r.search).toBe(false);
        if (r.oracle !== undefined) {
          expect(r.oracle).toBe(false);
          counts.oracle++;
        }
        counts.invalid++;
      }),
      { seed: 5, numRuns: 400 },
    );
    console.log(`lock histories: ${counts.valid} valid, ${counts.invalid} invalid (${counts.oracle} also by brute force)`);
    expect(counts.valid).toBeGreaterThan(100);
    expect(counts.invalid).toBeGreaterThan(100);
    expect(counts.oracle).toBeGreaterThan(30);
  });

  it("register histories: valid ones pass; a read missing its own process's write just before fails", () => {
    const counts = { valid: 0, invalid: 0, oracle: 0 };
    fc.assert(
      fc.property(registerArb, (list) => {
        const good = judge(registerModel, indexed(registerRun(list, false).events));
        expect(good.search).toBe(true);
        if (good.oracle !== undefined) expect(good.oracle).toBe(true);
        counts.valid++;
        const bad = registerRun(list, true);
        if (!bad.mutated) return;
        const r = judge(registerModel, indexed(bad.events));
        expect(r.search).toBe(false);
        if (r.oracle !== undefined) {
          expect(r.oracle).toBe(false);
          counts.oracle++;
        }
        counts.invalid++;
      }),
      { seed: 6, numRuns: 400 },
    );
    console.log(`register histories: ${counts.valid} valid, ${counts.invalid} invalid (${counts.oracle} also by brute force)`);
    expect(counts.invalid).toBeGreaterThan(100);
    expect(counts.oracle).toBeGreaterThan(30);
  });

  it("mutual exclusion: a write after the holder's own release, once another client holds, at one instant", () => {
    const events = indexed([
      ...op(0, "c1", "acquire", {}, { grantId: "g1" }),
      ...op(0, "c1", "release", { grantId: "g1" }, { released: true }),
      ...op(0, "c2", "acquire", {}, { grantId: "g2" }),
      ...op(0, "c1", "write", { grantId: "g1", value: 1 }, {}),
      ...op(0, "c2", "release", { grantId: "g2" }, { released: true }),
    ]);
    const r = mutualExclusion(events, {});
    expect(r.valid).toBe(false);
    expect(r.summary).toMatch(/c2 held it \(grant g2\)|c1 held L/);
    // Without the late write, the same instants are a clean hand-over.
    const clean = events.filter((e) => e.f !== "write").map((e, index) => ({ ...e, index }));
    expect(mutualExclusion(clean, {}).valid).toBe(true);
  });

  it("lease-lock: a holder's own 'not released' right after its grant keeps the lock held until it may lapse", () => {
    // etcd's recipe answers released:false for a session it judged expired, without the server.
    const grant = [
      ...op(5000, "c2", "acquire", { ttlMs: 4 }, { grantId: "g2", validityMs: 0 }),
      ...op(5000, "c2", "release", { grantId: "g2" }, { released: false }),
    ];
    const lease = leaseLockModel();
    expect(judge(lease, indexed(grant))).toEqual({ search: true, oracle: true });
    // Another client granted before the lease may lapse is still a double grant.
    const early = indexed([...grant, ...op(6000, "c3", "acquire", { ttlMs: 4 }, { grantId: "g3" })]);
    expect(judge(lease, early)).toEqual({ search: false, oracle: false });
    const late = indexed([...grant, ...op(9100, "c3", "acquire", { ttlMs: 4 }, { grantId: "g3" })]);
    expect(judge(lease, late)).toEqual({ search: true, oracle: true });
  });

  it("lease-lock: a 'not released' keeps the search and the oracle in agreement when an info extend lengthened the lease", () => {
    // Found by hunting the WGL property with other seeds: with 'not released' freeing a
    // lapsed lease, an info extend that only lengthens the lease was wrongly pruned.
    const ev = (timeUs: number, process: string, type: "invoke" | "ok", f: string, value: unknown): Ev => ({ timeUs, process, type, f, lock: "L", value });
    const events = indexed([
      ev(0, "c2", "invoke", "acquire", { grantId: "c2#1", ttlMs: 0.004 }),
      ev(0, "c1", "invoke", "extend", { grantId: "c2#1", ttlMs: 0.02 }),
      ev(0, "c2", "ok", "acquire", {}),
      ev(2, "c3", "invoke", "release", { grantId: "c2#1" }),
      ev(4, "c3", "ok", "release", { released: false }),
      ev(5, "c4", "invoke", "write", { grantId: "c2#1", value: 0 }),
      ev(5, "c4", "ok", "write", {}),
      ev(16, "c1", "invoke", "acquire", { grantId: "c1#1", ttlMs: 0.004 }),
      ev(20, "c1", "ok", "acquire", {}),
    ]);
    expect(judge(leaseLockModel(), events)).toEqual({ search: true, oracle: true });
  });
});
