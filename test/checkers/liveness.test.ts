import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseJsonlHistory } from "../../checkers/import/jsonl.js";
import { liveness, type CrashedHolder, type SlowWait } from "../../checkers/liveness.js";
import type { HistoryEvent } from "../../sim/history.js";
import { loadScenario } from "../../scenarios/index.js";
import { runScenario } from "../../harness/runner.js";
import type { FaultStep } from "../../scenarios/schema.js";

const load = (name: string): HistoryEvent[] => parseJsonlHistory(readFileSync(new URL(`../fixtures/histories/${name}`, import.meta.url), "utf8"), name);

describe("liveness", () => {
  it("passes when a waiter is granted soon after the partition heals", () => {
    const r = liveness(load("liveness-ok.jsonl"), { ttlMs: 1000 });
    expect(r.valid).toBe(true);
    expect(r.stats?.waitsJudged).toBeGreaterThan(0);
  });

  it("fails when, after the heal plus one TTL, nobody is granted for longer than the bound", () => {
    const r = liveness(load("liveness-stuck.jsonl"), { ttlMs: 1000 });
    expect(r.valid).toBe(false);
    const w = (r.witness as { slowWaits: SlowWait[] }).slowWaits[0];
    // The partition (1-2 s) covers until 2 s + a quarter TTL of retry slack; c2's wait begins at 3 s.
    expect(w).toMatchObject({ client: "c2", lock: "L", boundMs: 2000, judgedFromUs: 3_000_000, gapMs: 8999 });
    expect(w.gapMs).toBeGreaterThan(2000);
  });

  it("a looser bound accepts the same history", () => {
    expect(liveness(load("liveness-stuck.jsonl"), { ttlMs: 1000, livenessBoundMs: 60_000 }).valid).toBe(true);
  });

  it("the session timeout replaces the TTL when given; a wait nobody served is said so", () => {
    // With a 20 s session timeout the partition covers the whole wait; c2's wait from 3 s
    // to 12 s saw no grant to anyone, and the summary says so.
    const r = liveness(load("liveness-stuck.jsonl"), { ttlMs: 1000, sessionTimeoutMs: 20_000 });
    expect(r.valid).toBe(true);
    expect(r.stats).toMatchObject({ waitsJudged: 2, waitsNeverGranted: 1, boundMs: 40_000 });
    expect(r.summary).toMatch(/c2 waited 9\.0 s and was never granted/);
    expect(r.summary).not.toMatch(/saw a grant/);
  });

  it("a fault covers its own window and a retry's slack: past that, a free lock nobody gets fails, however long the TTL", () => {
    // Session 4 s: the partition (1-2 s) covers until 3 s (a quarter of 4 s after); c2
    // then waits 3-12 s with the lock free and nobody holding: 9 s against an 8 s bound.
    const r = liveness(load("liveness-stuck.jsonl"), { ttlMs: 1000, sessionTimeoutMs: 4000 });
    expect(r.valid).toBe(false);
    expect((r.witness as { slowWaits: SlowWait[] }).slowWaits[0]).toMatchObject({ client: "c2", judgedFromUs: 3_000_000, outcome: "gave-up" });
  });

  it("says n/a, not ok, when there is no wait to judge", () => {
    const h = load("liveness-stuck.jsonl")
      .filter((e) => e.process === "nemesis")
      .map((e, index) => ({ ...e, index }));
    const r = liveness(h, { ttlMs: 1000 });
    expect(r.skipped).toBe("no waits to judge");
    expect(r.summary).toBe("no waits to judge");
  });

  it("a crashed holder's lock is re-granted within its TTL: ok", () => {
    const r = liveness(load("liveness-crash-ok.jsonl"), { ttlMs: 1000 });
    expect(r.valid).toBe(true);
    expect(r.stats?.crashedHoldersJudged).toBe(1);
  });

  it("a crashed holder's lock never re-granted while someone waits: violation", () => {
    const r = liveness(load("liveness-crash-stuck.jsonl"), { ttlMs: 1000 });
    expect(r.valid).toBe(false);
    const c = (r.witness as { crashedHolders: CrashedHolder[] }).crashedHolders[0];
    expect(c).toMatchObject({ client: "c1", grantId: "c1#1", crashUs: 5000, waiters: ["c2"] });
  });

  it("faults that never heal leave waits undecided", () => {
    const h = load("liveness-stuck.jsonl").filter((e) => !(e.process === "nemesis" && (e.value as { phase: string }).phase === "end"));
    const r = liveness(
      h.map((e, index) => ({ ...e, index })),
      { ttlMs: 1000 },
    );
    expect(r.valid).toBe("unknown");
  });

  it("without a TTL or bound it cannot judge", () => {
    const h = load("liveness-ok.jsonl").map((e) => (e.f === "acquire" ? { ...e, value: undefined } : e));
    expect(liveness(h, {}).valid).toBe("unknown");
  });

  it("a slow network as a standing condition is judged; the same slowness as a never-healing delay fault is not", () => {
    const s = loadScenario("split-vote-redlock-no-jitter");
    const judged = liveness(runScenario(s, 1).history, { ttlMs: s.workload.ttlMs });
    expect(judged.valid).toBe(false);
    expect(judged.stats?.waitsJudged).toBeGreaterThan(0);
    // The same split vote with the latency as delay faults without durationMs: they never heal.
    const delay = (links: Array<[string, string]>, extraMs: number): FaultStep => ({ kind: "delay", atMs: 0, delayMs: 0, links, extraMs });
    const both = (a: string, bs: string[]): Array<[string, string]> =>
      bs.flatMap(
        (b) =>
          [
            [a, b],
            [b, a],
          ] as Array<[string, string]>,
      );
    const faulted = {
      ...s,
      network: { ...s.network, latencyUsJitter: 0, links: [] },
      faults: [
        delay([...both("c1", ["redis-4", "redis-5"]), ...both("c2", ["redis-1", "redis-2"])], 9.5),
        delay([...both("c1", ["redis-3"]), ...both("c2", ["redis-3"])], 39.5),
      ],
    };
    const r = liveness(runScenario(faulted, 1).history, { ttlMs: s.workload.ttlMs });
    expect(r.valid).toBe("unknown");
    expect(r.stats?.waitsUnjudged).toBeGreaterThan(0);
  });
});

/** A lockstep-style history from compact steps: [timeMs, process, type, f, value?] (lock "L"). */
function hist(steps: Array<[number, string, string, string, unknown?]>): HistoryEvent[] {
  return steps.map(([ms, process, type, f, value], index) => ({
    index,
    timeUs: Math.round(ms * 1000),
    process,
    type: type as HistoryEvent["type"],
    f,
    ...(process === "nemesis" ? {} : { lock: "L" }),
    ...(value !== undefined ? { value } : {}),
  }));
}

/** c2's failed attempts every 500 ms from `fromMs` to `toMs` (exclusive), each answered 1 ms before the next. */
function polls(client: string, fromMs: number, toMs: number): Array<[number, string, string, string, unknown?]> {
  const out: Array<[number, string, string, string, unknown?]> = [];
  for (let t = fromMs; t < toMs; t += 500) out.push([t, client, "invoke", "acquire", { ttlMs: 1000 }], [t + 499, client, "fail", "acquire"]);
  return out;
}

describe("liveness per wait", () => {
  it("a lock free and unserved for 7.9 s fails, though a fault comes later in the run", () => {
    const h = hist([
      [0, "c1", "invoke", "acquire", { ttlMs: 1000 }],
      [1, "c1", "ok", "acquire", { grantId: "c1#1", ttlMs: 1000 }],
      [100, "c1", "invoke", "release", { grantId: "c1#1" }],
      [101, "c1", "ok", "release", { released: true }],
      ...polls("c2", 1000, 9000),
      [9000, "c2", "invoke", "acquire", { ttlMs: 1000 }],
      [9001, "c2", "ok", "acquire", { grantId: "c2#1", ttlMs: 1000 }],
      [9100, "c2", "invoke", "release", { grantId: "c2#1" }],
      [9101, "c2", "ok", "release", { released: true }],
      [10_000, "nemesis", "info", "partition", { phase: "start", targets: ["n1"] }],
      [10_500, "nemesis", "info", "partition", { phase: "end", targets: ["n1"] }],
    ]);
    const r = liveness(h, { ttlMs: 1000 });
    expect(r.valid).toBe(false);
    const w = (r.witness as { slowWaits: SlowWait[] }).slowWaits[0]!;
    expect(w).toMatchObject({ client: "c2", outcome: "granted", waitFromUs: 1_000_000 });
    // Free from c2's first attempt (c1 released at 0.1 s) to its grant at 9.001 s.
    expect(w).toMatchObject({ judgedFromUs: 1_000_000, gapMs: 8001 });
    expect(r.summary).toMatch(/no fault and no live holder/);
  });

  it("a waiter behind a holder that keeps extending its lease passes, and the hold is reported as long", () => {
    const steps: Array<[number, string, string, string, unknown?]> = [
      [0, "c1", "invoke", "acquire", { ttlMs: 1000 }],
      [1, "c1", "ok", "acquire", { grantId: "c1#1", ttlMs: 1000 }],
    ];
    for (let t = 500; t < 10_000; t += 500)
      steps.push([t, "c1", "invoke", "extend", { grantId: "c1#1", ttlMs: 1000 }], [t + 2, "c1", "ok", "extend", { validityMs: 998 }]);
    steps.push(...polls("c2", 501, 10_001).map(([t, ...rest]) => [t + 1, ...rest] as [number, string, string, string, unknown?]));
    steps.sort((a, b) => a[0] - b[0]);
    steps.push(
      [10_010, "c1", "invoke", "release", { grantId: "c1#1" }],
      [10_011, "c1", "ok", "release", { released: true }],
      [10_100, "c2", "invoke", "acquire", { ttlMs: 1000 }],
      [10_101, "c2", "ok", "acquire", { grantId: "c2#1", ttlMs: 1000 }],
    );
    const r = liveness(hist(steps), { ttlMs: 1000 });
    expect(r.valid).toBe(true);
    expect(r.stats).toMatchObject({ slowWaits: 0, longHolds: 1 });
    expect(r.summary).toMatch(/1 long hold\(s\), not failures: c1 held "L" 10\.0 s \(extended 19 times\) while c2 waited/);
  });

  it("a soak judges the waits between its nemesis windows: a free lock between two faults fails; one inside a fault's cover does not", () => {
    const fault = (startMs: number, endMs: number): Array<[number, string, string, string, unknown?]> => [
      [startMs, "nemesis", "info", "partition", { phase: "start", targets: ["n1"] }],
      [endMs, "nemesis", "info", "partition", { phase: "end", targets: ["n1"] }],
    ];
    const base: Array<[number, string, string, string, unknown?]> = [
      [0, "c1", "invoke", "acquire", { ttlMs: 1000 }],
      [1, "c1", "ok", "acquire", { grantId: "c1#1", ttlMs: 1000 }],
      [50, "c1", "invoke", "release", { grantId: "c1#1" }],
      [51, "c1", "ok", "release", { released: true }],
      ...fault(2000, 3000),
      ...fault(20_000, 21_000),
    ];
    const between = [...base, ...polls("c2", 8000, 15_000)].sort((a, b) => a[0] - b[0]);
    const r = liveness(hist(between), { ttlMs: 1000 });
    expect(r.valid).toBe(false);
    expect((r.witness as { slowWaits: SlowWait[] }).slowWaits[0]).toMatchObject({ client: "c2", judgedFromUs: 8_000_000, outcome: "gave-up" });
    // The same waiting inside the first fault and its one-TTL cover is not judged a failure.
    const inside = [...base, ...polls("c2", 2000, 4000)].sort((a, b) => a[0] - b[0]);
    const ok = liveness(hist(inside), { ttlMs: 1000 });
    expect(ok.valid).toBe(true);
    expect(ok.stats?.waitsJudged).toBe(2); // c1's, granted at once, and c2's
  });

  it("an acquire whose answer was lost covers the lock for one TTL after: no false alarm", () => {
    const h = hist([
      [0, "c1", "invoke", "acquire", { ttlMs: 1000 }],
      [1500, "c1", "info", "acquire", { reason: "timeout" }],
      ...polls("c2", 100, 3000),
      [3000, "c2", "invoke", "acquire", { ttlMs: 1000 }],
      [3001, "c2", "ok", "acquire", { grantId: "c2#1", ttlMs: 1000 }],
    ]);
    expect(liveness(h, { ttlMs: 1000 }).valid).toBe(true);
  });

  it("imported lease holds: a holder that never releases covers only until its lease ends", () => {
    const h = hist([[0, "c1", "invoke", "acquire", { ttlMs: 1000 }], [1, "c1", "ok", "acquire", { ttlMs: 1000 }], ...polls("c2", 100, 6000)]);
    expect(liveness(h, { ttlMs: 1000, holdsEndAtLease: true }).valid).toBe(false);
    // Where the history records beliefs, a holder that never released still holds.
    expect(liveness(h, { ttlMs: 1000 }).valid).toBe(true);
  });
});
