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
    expect(w).toMatchObject({ client: "c2", lock: "L", boundMs: 2000, judgedFromUs: 3_000_000 });
    expect(w.gapMs).toBeGreaterThan(2000);
  });

  it("a looser bound accepts the same history", () => {
    expect(liveness(load("liveness-stuck.jsonl"), { ttlMs: 1000, livenessBoundMs: 60_000 }).valid).toBe(true);
  });

  it("the session timeout replaces the TTL when given; a wait nobody served is judged from its invoke and said so", () => {
    // With a 20 s session timeout the calm point is past the end of the history, but c2's
    // wait from 3 s to 12 s saw no grant to anyone: judged from its invoke, within 40 s.
    const r = liveness(load("liveness-stuck.jsonl"), { ttlMs: 1000, sessionTimeoutMs: 20_000 });
    expect(r.valid).toBe(true);
    expect(r.stats).toMatchObject({ waitsJudged: 1, waitsNeverGranted: 1, boundMs: 40_000 });
    expect(r.summary).toMatch(/c2 waited 9\.0 s and was never granted/);
    expect(r.summary).not.toMatch(/saw a grant/);
  });

  it("no client ever gets the lock in a run barely past the bound: a violation, however late the calm point", () => {
    // Session 4 s: bound 8 s, calm from 6 s (partition healed at 2 s). Judged only from the
    // calm point c2's 6 s would pass; from its invoke at 3 s it waited 9 s with no grant.
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
    expect(r.summary).toBe("no waits to judge after the calm point");
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
