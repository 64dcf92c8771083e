import type { AuditResult } from "../harness/audit/run.js";

const pct = (x: number): string => `${(x * 100).toFixed(0)}%`.padStart(4);

/** The terminal table: one line per attack, the finding last, then the gate's line. */
export function formatAudit(r: AuditResult): string {
  const w = Math.max(...r.rows.map((x) => x.attack.length), 6);
  const lines = [
    `audit of ${r.lock} (reference: ${r.reference}), ${r.seeds} seeds per attack${r.shard ? `; shard ${r.shard.index}/${r.shard.count}: ${r.rows.length} of ${r.attacks.length} attacks` : ""}`,
    `${"attack".padEnd(w)}  unsafe  95% CI        challenged  finding`,
  ];
  for (const x of r.rows) {
    if (x.refused !== undefined) {
      lines.push(`${x.attack.padEnd(w)}  refused: ${x.refused}`);
      continue;
    }
    const ci = `[${pct(x.unsafeCi95[0])},${pct(x.unsafeCi95[1])}]`;
    const cx = x.counterexample ? `  (seed ${x.counterexampleSeed}: ${x.counterexample.file})` : "";
    lines.push(`${x.attack.padEnd(w)}  ${pct(x.unsafeRate)}    ${ci.padEnd(12)}  ${pct(x.challengedShare)}        ${x.finding}${cx}`);
  }
  lines.push(r.yourCode.length === 0 ? "no finding attributed to your code" : `attributed to your code: ${r.yourCode.join(", ")}`);
  return lines.join("\n") + "\n";
}
