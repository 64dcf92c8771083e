import { describe, expect, it } from "vitest";
import { mutualExclusion, mutualExclusionWith, type Overlap } from "../../checkers/mutual-exclusion.js";
import { computeHolds, type Hold } from "../../checkers/holds.js";
import type { HistoryEvent } from "../../sim/history.js";
import { HistoryBuilder } from "../helpers/history-builder.js";

/** The plain quadratic sweep, in the history's order (the reference for count and witnesses). */
function reference(history: readonly HistoryEvent[]): { count: number; pairs: Array<[string, string, number, number]> } {
  const byLock = new Map<string, Hold[]>();
  for (const h of computeHolds(history)) byLock.set(h.lock, [...(byLock.get(h.lock) ?? []), h]);
  const pairs: Array<[string, string, number, number]> = [];
  let count = 0;
  for (const [, hs] of [...byLock].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    hs.sort((a, b) => a.acquireIndex - b.acquireIndex);
    let active: Hold[] = [];
    for (const h of hs) {
      // In the history's order; a grant that came expired, ended at once, nothing done, is never held.
      if (!h.validAtGrant && !h.acted && h.endedBy !== "end-of-history" && h.endUs <= h.startUs) continue;
      active = active.filter((a) => a.endIndex > h.acquireIndex);
      for (const a of active) {
        if (a.process === h.process) continue;
        count++;
        if (pairs.length < 20) pairs.push([a.grantId, h.grantId, h.startUs, Math.min(a.endUs, h.endUs)]);
      }
      active.push(h);
    }
  }
  return { count, pairs };
}

/** Deterministic random histories: clients doing sections on a few locks, some lapsing, some overlapping. */
function randomHistory(seed: number, clients: number, sectionsPerClient: number, locks: number): HistoryEvent[] {
  let x = seed >>> 0 || 1;
  const rnd = (n: number) => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x % n;
  };
  const evs: Array<Omit<HistoryEvent, "index"> & { seq: number }> = [];
  let seq = 0;
  const ev = (timeUs: number, process: string, type: HistoryEvent["type"], f: string, lock: string, value?: unknown) =>
    evs.push({ timeUs, process, type, f, lock, value, seq: seq++ });
  for (let c = 0; c < clients; c++) {
    let t = rnd(50);
    for (let s = 0; s < sectionsPerClient; s++) {
      const p = `c${c}`;
      const lock = `L${rnd(locks)}`;
      const g = `${p}#${s}`;
      ev(t * 1000, p, "invoke", "acquire", lock, { ttlMs: 100 });
      t += 1 + rnd(3);
      ev(t * 1000, p, "ok", "acquire", lock, { grantId: g, validityMs: 100, ttlMs: 100 });
      const dur = 1 + rnd(30);
      if (rnd(4) === 0) {
        // Lapses, then maybe writes late (a stretched hold).
        ev((t + dur) * 1000, p, "info", "lapse", lock, { grantId: g });
        if (rnd(2) === 0) {
          ev((t + dur + 5) * 1000, p, "invoke", "write", lock, { grantId: g, counter: 1 });
          ev((t + dur + 6) * 1000, p, "ok", "write", lock, {});
        }
        t += dur + 7;
      } else {
        t += dur;
      }
      ev(t * 1000, p, "invoke", "release", lock, { grantId: g });
      ev(t * 1000 + 1, p, "ok", "release", lock, { released: true });
      t += rnd(20);
    }
  }
  evs.sort((a, b) => a.timeUs - b.timeUs || a.seq - b.seq);
  return evs.map(({ seq: _seq, ...e }, index) => ({ index, ...e }));
}

describe("mutual-exclusion sweep", () => {
  it("counts the same overlaps and gives the same witnesses, in the same order, as the quadratic sweep", () => {
    let violating = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const h = randomHistory(seed, 1 + (seed % 6), 1 + (seed % 9), 1 + (seed % 3));
      const ref = reference(h);
      const r = mutualExclusion(h, {});
      expect(r.stats!.overlaps, `seed ${seed}`).toBe(ref.count);
      expect(r.valid, `seed ${seed}`).toBe(ref.count === 0);
      const w = (r.witness ?? []) as Overlap[];
      expect(
        w.map((o) => [o.first.grantId, o.second.grantId, o.overlapStartUs, o.overlapEndUs]),
        `seed ${seed}`,
      ).toEqual(ref.pairs);
      if (ref.count > 0) violating++;
    }
    expect(violating).toBeGreaterThan(10);
  });

  it("keeps more than 20 overlapping pairs to a count, with the first 20 as witnesses", () => {
    const h = randomHistory(7, 30, 20, 1);
    const ref = reference(h);
    expect(ref.count).toBeGreaterThan(20);
    const r = mutualExclusion(h, {});
    expect(r.stats!.overlaps).toBe(ref.count);
    expect((r.witness as Overlap[]).length).toBe(20);
    expect(r.summary).toMatch(new RegExp(`^${ref.count} pairs of overlapping holds; first: `));
  });

  it("one process's own overlapping holds (an imported history without releases) are no violation, and cost no scan", () => {
    const b = new HistoryBuilder();
    for (let i = 0; i < 2000; i++)
      b.at(i)
        .ev("1", "invoke", "acquire", "L")
        .at(i + 0.5)
        .ev("1", "ok", "acquire", "L");
    const r = mutualExclusion(b.events, {});
    expect(r.valid).toBe(true);
    // All are still held when the history ends (open holds never end): one push per hold,
    // no pop and no scan (the quadratic sweep compared 2M pairs).
    expect(r.stats).toMatchObject({ holds: 2000, overlaps: 0, steps: 2000 });
  });

  it("a grant taken at the history's last instant, while another is still held, is a double holder (not an empty hold)", () => {
    const b = new HistoryBuilder();
    b.at(0).ev("c1", "invoke", "acquire", "L").at(1).ev("c1", "ok", "acquire", "L");
    b.at(5).ev("c2", "invoke", "acquire", "L").at(9).ev("c2", "ok", "acquire", "L");
    expect(mutualExclusion(b.events, {}).valid).toBe(false);
  });

  it("stops at the work bound: unknown with what was explored, or false if an overlap was already found", () => {
    const safe = randomHistory(3, 1, 50, 2);
    expect(mutualExclusion(safe, {}).valid).toBe(true);
    const cut = mutualExclusionWith({ stepsMax: 10 })(safe, {});
    expect(cut.valid).toBe("unknown");
    expect(cut.stats).toMatchObject({ holds: 50, overlaps: 0, steps: 10, stepsMax: 10 });
    expect(cut.stats!.holdsSwept).toBeLessThan(50);
    expect(cut.summary).toMatch(/no overlapping holds found, but swept \d+ of 50 holds \(\d of 2 lock\(s\) complete\) before the work bound of 10 steps/);

    const b = new HistoryBuilder().section("c1", "a", "L", 0, 10, 0).section("c2", "b", "L", 5, 10, 0);
    for (let i = 0; i < 20; i++) b.section("c3", `c3#${i}`, "L", 100 + 20 * i, 10, 0);
    const early = mutualExclusionWith({ stepsMax: 5 })(b.events, {});
    expect(early.valid).toBe(false);
    expect(early.summary).toMatch(/^1 or more pairs of overlapping holds; first: c1 held L .*before the work bound of 5 steps; raise it with --steps-max N\)$/);
    // A bound that is not reached changes nothing.
    const whole = mutualExclusionWith({ stepsMax: 1000 })(b.events, {});
    expect(whole).toEqual(mutualExclusion(b.events, {}));
    expect(whole.valid).toBe(false);
  });

  it("is deterministic: the same history gives the same steps", () => {
    const h = randomHistory(11, 5, 40, 2);
    expect(mutualExclusion(h, {}).stats).toEqual(mutualExclusion(h, {}).stats);
  });
});

describe("holds", () => {
  it("an extend the server accepted after the lapse note stretches the hold; a refused one does not", () => {
    const base = () => {
      const b = new HistoryBuilder();
      b.at(0).ev("c1", "invoke", "acquire", "L").at(1).ev("c1", "ok", "acquire", "L", { grantId: "g1", validityMs: 10, ttlMs: 10 });
      b.at(11).ev("c1", "info", "lapse", "L", { grantId: "g1" });
      b.at(12).ev("c1", "invoke", "extend", "L", { grantId: "g1", ttlMs: 10 });
      return b;
    };
    const refused = base();
    refused.at(13).ev("c1", "fail", "extend", "L", { reason: "the key is no longer ours" });
    expect(computeHolds(refused.events)[0]).toMatchObject({ endUs: 11_000, endedBy: "lapse", stretched: false });
    const accepted = base();
    accepted.at(13).ev("c1", "ok", "extend", "L", { validityMs: 9 });
    expect(computeHolds(accepted.events)[0]).toMatchObject({ endUs: 13_000, endedBy: "lapse", stretched: true });
  });

  it("matches ops to holds by process and lock in imported histories (the latest hold started before the op)", () => {
    const b = new HistoryBuilder();
    b.at(0).ev("1", "invoke", "acquire", "L").at(1).ev("1", "ok", "acquire", "L");
    b.at(2).ev("1", "info", "lapse", "L");
    b.at(3).ev("1", "invoke", "acquire", "L").at(4).ev("1", "ok", "acquire", "L");
    b.at(5).ev("1", "info", "lapse", "L");
    b.at(9).ev("1", "invoke", "write", "L").at(10).ev("1", "ok", "write", "L");
    const [first, second] = computeHolds(b.events);
    expect(first).toMatchObject({ endUs: 2000, stretched: false });
    expect(second).toMatchObject({ endUs: 10_000, stretched: true });
  });
});
