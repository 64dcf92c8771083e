import { InputError } from "../../sim/errors.js";
import type { Outcome } from "../../checkers/run-all.js";
import { OUTCOMES, rateCi, type RateCi, type SweepSummary } from "./summary.js";
import { rangeSize, type Shard } from "./range.js";
import { addSweepAvailability, emptySweepAvailability } from "../../reports/availability.js";

/**
 * Combine the summaries of disjoint shards of one sweep. Refuses summaries of
 * different scenarios (by content digest), ranges or lockstep versions, and shards
 * whose seed slices overlap. The merged result fields equal those of the unsharded
 * sweep: counts add up, and each shard's first-K failing seeds contain the global
 * first K that fall in its slice.
 */
export function mergeSummaries(parts: ReadonlyArray<{ file: string; summary: SweepSummary }>): SweepSummary {
  checkSameSweep(parts);
  const slices = disjointSlices(parts);
  const a = parts[0]!.summary;
  const summaries = parts.map((p) => p.summary);
  const runs = summaries.reduce((n, s) => n + s.runs, 0);
  const addRates = (get: (s: SweepSummary) => RateCi | undefined): RateCi => sumRates(summaries, runs, get);
  const checkerNames: string[] = [];
  for (const s of summaries) for (const c of Object.keys(s.checkers)) if (!checkerNames.includes(c)) checkerNames.push(c);
  const checkers: Record<string, RateCi> = {};
  for (const c of checkerNames) checkers[c] = addRates((s) => s.checkers[c]);
  const outcomes = sumOutcomes(summaries);
  const limit = Math.min(...summaries.map((s) => s.failingSeeds.limit));
  const firstOf = (get: (s: SweepSummary) => number[]): number[] =>
    summaries
      .flatMap(get)
      .sort((x, y) => x - y)
      .slice(0, limit);
  const failingFirst = firstOf((s) => s.failingSeeds.first);
  const unexpectedFirst = firstOf((s) => s.unexpectedSeeds.first);
  const matched = summaries.reduce((n, s) => n + s.expected.matched, 0);
  // The replay line names the first failing seed (else the first unexpected): take it from the shard that holds it.
  const replaySeed = failingFirst[0] ?? unexpectedFirst[0];
  const replay =
    replaySeed === undefined
      ? undefined
      : summaries.find((s) => s.failingSeeds.first[0] === replaySeed || (failingFirst.length === 0 && s.unexpectedSeeds.first[0] === replaySeed))?.replay;
  return {
    format: a.format,
    lockstep: a.lockstep,
    scenario: a.scenario,
    seeds: a.seeds,
    runs,
    complete: runs === rangeSize(a.seeds),
    safety: addRates((s) => s.safety),
    liveness: addRates((s) => s.liveness),
    checkers,
    outcomes,
    // Summed only when every shard has it (older summaries do not).
    ...(summaries.every((s) => s.availability)
      ? { availability: summaries.reduce((acc, s) => addSweepAvailability(acc, s.availability!), emptySweepAvailability()) }
      : {}),
    expected: { verdict: a.expected.verdict, matched, rate: runs === 0 ? 0 : matched / runs },
    failingSeeds: { count: summaries.reduce((n, s) => n + s.failingSeeds.count, 0), first: failingFirst, limit },
    unexpectedSeeds: { count: summaries.reduce((n, s) => n + s.unexpectedSeeds.count, 0), first: unexpectedFirst, limit },
    ...(replay !== undefined ? { replay } : {}),
    shards: slices.map((s) => s.shard).sort((x, y) => x.from - y.from || x.index - y.index),
    execution: {
      workers: summaries.flatMap((s) => s.execution.workers),
      wallMs: summaries.reduce((n, s) => n + s.execution.wallMs, 0),
      reports: summaries.flatMap((s) => s.execution.reports).sort((x, y) => x.seed - y.seed),
    },
  };
}

/** One rate over all shards: the counts added, the interval over all runs. */
function sumRates(summaries: readonly SweepSummary[], runs: number, get: (s: SweepSummary) => RateCi | undefined): RateCi {
  let v = 0;
  let u = 0;
  let na = 0;
  for (const s of summaries) {
    const r = get(s);
    v += r?.violations ?? 0;
    u += r?.unknown ?? 0;
    na += r?.notApplicable ?? 0;
  }
  return rateCi(v, u, runs, na);
}

function sumOutcomes(summaries: readonly SweepSummary[]): Partial<Record<Outcome, number>> {
  const outcomes: Partial<Record<Outcome, number>> = {};
  for (const o of OUTCOMES) {
    const n = summaries.reduce((k, s) => k + (s.outcomes[o] ?? 0), 0);
    if (n > 0) outcomes[o] = n;
  }
  return outcomes;
}

/** Refuse summaries of different scenarios, seed ranges, formats or lockstep versions. */
function checkSameSweep(parts: ReadonlyArray<{ file: string; summary: SweepSummary }>): void {
  if (parts.length === 0) throw new InputError("<arg>", "<summaries>", "expected at least one summary.json");
  const [first] = parts;
  const a = first!.summary;
  for (const { file, summary: b } of parts) {
    if (b.format !== a.format) throw new InputError(file, "format", `expected "${a.format}", got "${b.format}"`);
    if (b.scenario.name !== a.scenario.name || b.scenario.digest !== a.scenario.digest) {
      throw new InputError(
        file,
        "scenario",
        `expected shards of one scenario: ${first!.file} is ${a.scenario.name} (digest ${a.scenario.digest}), this is ${b.scenario.name} (digest ${b.scenario.digest})`,
      );
    }
    if (b.seeds.from !== a.seeds.from || b.seeds.to !== a.seeds.to) {
      throw new InputError(
        file,
        "seeds",
        `expected shards of one seed range: ${first!.file} sweeps ${a.seeds.from}..${a.seeds.to}, this sweeps ${b.seeds.from}..${b.seeds.to}`,
      );
    }
    if (b.lockstep.version !== a.lockstep.version) {
      throw new InputError(file, "lockstep.version", `expected ${a.lockstep.version} (as ${first!.file}); results of different versions may differ`);
    }
  }
}

/** Every shard of every part, refusing two that share a seed. */
function disjointSlices(parts: ReadonlyArray<{ file: string; summary: SweepSummary }>): Array<{ file: string; shard: Shard }> {
  const slices: Array<{ file: string; shard: Shard }> = [];
  for (const { file, summary } of parts) for (const shard of summary.shards) slices.push({ file, shard });
  const nonEmpty = slices.filter((s) => s.shard.from <= s.shard.to).sort((x, y) => x.shard.from - y.shard.from);
  for (let i = 1; i < nonEmpty.length; i++) {
    const p = nonEmpty[i - 1]!;
    const q = nonEmpty[i]!;
    if (q.shard.from <= p.shard.to) {
      throw new InputError(
        q.file,
        "shards",
        `expected disjoint shards: shard ${q.shard.index}/${q.shard.count} (seeds ${q.shard.from}..${q.shard.to}) overlaps shard ${p.shard.index}/${p.shard.count} (seeds ${p.shard.from}..${p.shard.to}) of ${p.file}`,
      );
    }
  }

  return slices;
}
