import type { AuditResult } from "../harness/audit/run.js";
import type { CauseFinding } from "../harness/audit/diagnose.js";

const pct = (x: number): string => `${(x * 100).toFixed(0)}%`.padStart(4);
const rate = (x: number): string => `${(x * 100).toFixed(0)}%`;

/** The terminal report: one line per attack, the finding last; then the bugs by cause; then the gate's line. */
export function formatAudit(r: AuditResult): string {
  const w = Math.max(...r.rows.map((x) => x.attack.length), 6);
  const lines = [
    `audit of ${r.lock} (reference: ${r.reference}), ${r.real ? `${r.seeds} real run(s) per attack on each (${r.real.note})` : `${r.seeds} seeds per attack`}${r.shard ? `; shard ${r.shard.index}/${r.shard.count}: ${r.rows.length} of ${r.attacks.length} attacks` : ""}`,
    `${"attack".padEnd(w)}  unsafe  95% CI        challenged  finding`,
  ];
  for (const x of r.rows) {
    if (x.refused !== undefined) {
      lines.push(`${x.attack.padEnd(w)}  refused: ${x.refused}`);
      continue;
    }
    const ci = `[${pct(x.unsafeCi95[0])},${pct(x.unsafeCi95[1])}]`;
    const run = r.real ? "run" : "seed";
    const why =
      x.causes && x.causes.length > 0 ? `: ${x.causes.join(", ")}` : x.counterexample ? `  (${run} ${x.counterexampleSeed}: ${x.counterexample.file})` : "";
    const invalid = x.counts.invalid ? `  (${x.counts.invalid} run(s) invalid: their run checks failed)` : "";
    lines.push(`${x.attack.padEnd(w)}  ${pct(x.unsafeRate)}    ${ci.padEnd(12)}  ${pct(x.challengedShare)}        ${x.finding}${why}${invalid}`);
  }
  if (r.real?.stoppedBy) lines.push(`STOPPED at ${r.real.stoppedBy.attack}: ${r.real.stoppedBy.reason}; the rows above are the attacks that finished`);
  if (r.explore) {
    const x = r.explore;
    lines.push(
      `explore: ${x.draws} generated schedules (fast-check seed ${x.seed}): ${x.judged} unsafe on their own seed, judged against the reference on paired seeds; ${x.found} your code`,
    );
  }
  lines.push(...byCause(r));
  lines.push(r.yourCode.length === 0 ? "no finding attributed to your code" : `attributed to your code: ${r.yourCode.join(", ")}`);
  return lines.join("\n") + "\n";
}

/** "2 bugs in your code", each with its attacks, what happened, the fix, the counterexample and the real-Redis result. */
function byCause(r: AuditResult): string[] {
  const causes = r.causes ?? [];
  const unexplained = r.unexplained ?? [];
  if (causes.length === 0 && unexplained.length === 0) return [];
  const lines = [
    "",
    `${causes.length} bug${causes.length === 1 ? "" : "s"} in your code${unexplained.length > 0 ? `, and ${unexplained.length} finding(s) no cause explains` : ""}:`,
  ];
  causes.forEach((c, i) => lines.push(...causeLines(c, i + 1)));
  for (const u of unexplained)
    lines.push(`  unexplained: ${u.attack}, ${r.real ? "run" : "seed"} ${u.seed}, decisive moment ${(u.atUs / 1e6).toFixed(3)} s: ${u.sentence}`);
  lines.push("");
  return lines;
}

function causeLines(c: CauseFinding, n: number): string[] {
  const x = c.counterexample;
  return [
    `  ${n}. ${c.title} (${c.id})`,
    `     exposed by: ${c.attacks.map((a) => `${a.attack} ${rate(a.unsafeRate)} (reference ${rate(a.referenceUnsafeRate)})`).join(", ")}`,
    `     what happened: ${c.sentence}`,
    `     fix: ${c.fix}`,
    ...(x
      ? [
          `     counterexample: ${x.file}`,
          `       ${x.evidence}; faults left: ${x.faults.length > 0 ? x.faults.join("; ") : "none"}`,
          `       replay: ${x.replay}`,
        ]
      : []),
    ...(c.real ? [`     real Redis: ${realLine(c.real)}`] : []),
  ];
}

function realLine(r: NonNullable<CauseFinding["real"]>): string {
  if (r.runs === 0) return `not run: ${r.note ?? ""}`;
  const head = r.unsafe > 0 ? `reproduced ${r.unsafe}/${r.runs}` : `did not reproduce (0/${r.runs})`;
  return `${head}; reference recipe unsafe ${r.reference.unsafe}/${r.reference.runs}${r.note ? ` (${r.note})` : ""}`;
}
