/**
 * Double grants hidden behind unknown-outcome ops (bench/checker.ts hiddenPairHistory):
 * 50 clients, 20% of replies lost, ~1k ops; two clients whose acquires never answered
 * write under their grants in a quiet stretch, overlapping (must fail) or with the first
 * one's release of unknown outcome between (the twin, must pass). Then the budget: the
 * search is cut at every size of step budget below what it needs, and a cut search says
 * "unknown" naming the flag, never a verdict it did not reach; `check` then exits
 * unknown, never safe.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hiddenPairHistory } from "../../bench/checker.js";
import { linearizability } from "../../checkers/linearizability/index.js";
import { checkHistoryFile, exitCodeForVerdicts } from "../../cli/commands/check.js";
import { EXIT } from "../../harness/exit-codes.js";
import { historyToJsonl } from "../../sim/history.js";

const base = { ops: 1_000, clients: 50, infoFraction: 0.2 };
const SEEDS = ["1", "2", "3"];

describe("hidden double grants: found, and the twin passes", () => {
  for (const grantIds of [true, false])
    for (const model of ["mutex", "lease-lock"])
      it(`${grantIds ? "grant ids" : "no grant ids"}, ${model}: every doubled history fails, every twin passes`, () => {
        for (const seed of SEEDS) {
          const doubled = linearizability(hiddenPairHistory({ ...base, seed, grantIds, doubled: true }), { model, ttlMs: 10_000 });
          const twin = linearizability(hiddenPairHistory({ ...base, seed, grantIds, doubled: false }), { model, ttlMs: 10_000 });
          expect(doubled.valid, `seed ${seed}: ${doubled.summary}`).toBe(false);
          expect(twin.valid, `seed ${seed}: ${twin.summary}`).toBe(true);
        }
      });

  it("the history is what it says: ~1k ops, 50 clients and the two hidden ones, a fifth of acquires unanswered", () => {
    const h = hiddenPairHistory({ ...base, seed: "1", grantIds: true, doubled: true });
    const invokes = h.filter((e) => e.type === "invoke");
    expect(invokes.length).toBeGreaterThan(900);
    expect(invokes.length).toBeLessThan(1_300);
    expect(new Set(h.map((e) => e.process)).size).toBe(52);
    const acquires = invokes.filter((e) => e.f === "acquire").length;
    const lost = h.filter((e) => e.type === "info" && e.f === "acquire").length;
    expect(lost / acquires).toBeGreaterThan(0.1);
    // Neither hidden grant is ever answered: only the writes under them show they were made.
    expect(h.filter((e) => e.process.startsWith("x") && e.f === "acquire" && e.type === "ok")).toHaveLength(0);
  });
});

describe("hidden double grants: a cut search is unknown, never a verdict", () => {
  for (const doubled of [true, false])
    it(`${doubled ? "doubled" : "twin"}: a step budget well below the need gives unknown naming --steps-max; no budget gives the wrong verdict`, () => {
      const h = hiddenPairHistory({ ...base, seed: "1", grantIds: false, doubled });
      const full = linearizability(h, { model: "mutex" });
      expect(full.valid).toBe(!doubled);
      const need = full.stats!.steps!;
      for (const stepsMax of [1, 10, 100, 1_000, 10_000, Math.floor(need / 2)]) {
        const cut = linearizability(h, { model: "mutex", stepsMax });
        expect(cut.valid, `stepsMax ${stepsMax}`).toBe("unknown");
        expect(cut.summary).toContain("--steps-max");
        expect(cut.stats!.steps).toBeLessThanOrEqual(stepsMax);
      }
      // Near the need the search may finish (a state's last walks are counted after the
      // check): then with the right verdict, never the other.
      for (const stepsMax of [need - 1_000, need - 1, need]) expect([!doubled, "unknown"]).toContain(linearizability(h, { model: "mutex", stepsMax }).valid);
      expect(linearizability(h, { model: "mutex", stepsMax: need }).valid).toBe(!doubled);
    });

  const dir = mkdtempSync(join(tmpdir(), "lockstep-hidden-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (doubled: boolean): string => {
    const f = join(dir, `${doubled ? "doubled" : "twin"}.jsonl`);
    writeFileSync(f, historyToJsonl(hiddenPairHistory({ ...base, seed: "2", grantIds: true, doubled })));
    return f;
  };

  it("check: the doubled history is unsafe with the default budget, and unknown (exit 5), never safe, when cut", async () => {
    const f = file(true);
    const full = await checkHistoryFile(f, {});
    expect(full.verdicts.outcome).toBe("unsafe");
    expect(exitCodeForVerdicts(full.verdicts)).toBe(EXIT.safetyViolation);
    for (const stepsMax of ["100", "10000"]) {
      const cut = await checkHistoryFile(f, { stepsMax });
      expect(cut.verdicts.outcome, `--steps-max ${stepsMax}`).toBe("unknown");
      expect(exitCodeForVerdicts(cut.verdicts)).toBe(EXIT.unknown);
    }
  });

  it("check: the twin is not unsafe with the default budget, and unknown when cut", async () => {
    const f = file(false);
    const full = await checkHistoryFile(f, {});
    expect(full.verdicts.safety).toBe(true);
    const cut = await checkHistoryFile(f, { stepsMax: "100" });
    expect(cut.verdicts.outcome).toBe("unknown");
    expect(exitCodeForVerdicts(cut.verdicts)).toBe(EXIT.unknown);
  });
});
