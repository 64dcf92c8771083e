import type { RateCi, SweepSummary } from "../harness/sweep/summary.js";
import { printable } from "./printable.js";

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/** A checker's row: violations of the runs it judged, rate and interval; n/a where it had nothing to judge. */
function row(name: string, r: RateCi, runs: number): string {
  const na = r.notApplicable ?? 0;
  const judged = runs - na;
  if (runs > 0 && judged === 0) return `  ${name.padEnd(20)} ${"n/a".padStart(11)}  ${"n/a".padStart(6)}  nothing to judge in any run`;
  const unknown = r.unknown > 0 ? `  (${r.unknown} unknown)` : "";
  const skipped = na > 0 ? `  (n/a in ${na} of ${runs} runs: nothing to judge)` : "";
  return `  ${name.padEnd(20)} ${`${r.violations}/${judged}`.padStart(11)}  ${pct(r.rate).padStart(6)}  [${pct(r.ci95[0])}, ${pct(r.ci95[1])}]${unknown}${skipped}`;
}

/** The human summary of a sweep (or of merged shards); `wrote` lists files written. */
export function formatSweepSummary(s: SweepSummary, wrote: string[] = []): string {
  const out: string[] = [];
  const range = `${s.seeds.from}..${s.seeds.to}`;
  const sharded =
    s.shards.length === 1 && s.shards[0]!.count > 1
      ? `, shard ${s.shards[0]!.index}/${s.shards[0]!.count} (seeds ${s.shards[0]!.from}..${s.shards[0]!.to})`
      : "";
  out.push(
    `lockstep sweep ${s.scenario.name} — design ${s.scenario.design}, seeds ${range}${sharded}: ${s.runs} runs${s.complete ? "" : " (INCOMPLETE: not every seed of the range)"}`,
  );
  out.push(`  ${"checker".padEnd(20)} ${"violations".padStart(11)}  ${"rate".padStart(6)}  95% CI (Wilson)`);
  for (const [name, r] of Object.entries(s.checkers)) out.push(row(name, r, s.runs));
  out.push(row("safety (any)", s.safety, s.runs));
  out.push(row("liveness (any)", s.liveness, s.runs));
  out.push(
    `outcomes: ${
      Object.entries(s.outcomes)
        .map(([o, n]) => `${o} ${n}`)
        .join(", ") || "none"
    }`,
  );
  if (s.availability)
    out.push(
      `challenged: ${s.availability.challengedRuns}/${s.runs} runs (${pct(s.runs === 0 ? 0 : s.availability.challengedRuns / s.runs)}); a safe run that was not challenged counts as not-challenged, not safe`,
    );
  out.push(`expected ${s.expected.verdict}: ${s.expected.matched}/${s.runs} runs matched (${pct(s.expected.rate)})`);
  if (s.failingSeeds.count > 0) {
    const more = s.failingSeeds.count > s.failingSeeds.first.length ? ` … (${s.failingSeeds.count} in all)` : "";
    out.push(`failing seeds: ${s.failingSeeds.first.join(", ")}${more}`);
  } else out.push("failing seeds: none");
  if (s.unexpectedSeeds.count > 0 && s.unexpectedSeeds.count !== s.failingSeeds.count) {
    const more = s.unexpectedSeeds.count > s.unexpectedSeeds.first.length ? ` … (${s.unexpectedSeeds.count} in all)` : "";
    out.push(`seeds not as expected: ${s.unexpectedSeeds.first.join(", ")}${more}`);
  }
  if (s.replay) {
    const seed = s.failingSeeds.first[0] ?? s.unexpectedSeeds.first[0];
    out.push(`seed: ${seed}`);
    out.push(`replay: ${s.replay}`);
  }
  if (wrote.length > 0) out.push(`wrote ${wrote.join(", ")}`);
  // Names, paths and the replay line come from data (a summary file for merge): one plain line each.
  return out.map(printable).join("\n") + "\n";
}
