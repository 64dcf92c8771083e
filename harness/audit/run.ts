import { join, relative } from "node:path";
import type { Attack, LockUnderTest } from "../../attacks/index.js";
import { auditAttack, referenceOf, type AttackRow } from "./audit.js";
import { writeFinding } from "./counterexample.js";
import { auditOnThreads } from "./threads.js";
import { renderAuditPage, type AuditCardRow } from "../../reports/audit-page.js";
import { writeJsonAtomic, writeTextAtomic } from "../sweep/write.js";

export interface AuditResult {
  lock: string;
  reference: string;
  seeds: number;
  rows: Array<AttackRow & { counterexample?: { file: string; report: string; replay: string } }>;
  /** Attacks whose finding is the lock's own code: the CI gate. */
  yourCode: string[];
}

type AuditOptions = { seeds: number; attacks: readonly Attack[]; out?: string; progress?: (done: number, of: number, row: AttackRow) => void };

/**
 * Run the audit in this thread and, with `out`, write audit.json, audit.html and one
 * shrunk counterexample (scenario file + report) per finding. `progress` hears each attack done.
 */
export function runAudit(lock: LockUnderTest, o: AuditOptions): AuditResult {
  const rows: AuditResult["rows"] = [];
  for (const a of o.attacks) rows.push(withCounterexample(auditAttack(a, lock, o.seeds), lock, o, rows.length + 1));
  return finish(lock, rows, o);
}

/** The same audit with `workers` workers (auditOnThreads); the same rows for any count. */
export async function runAuditOnThreads(lock: LockUnderTest, o: AuditOptions & { workers: number }): Promise<AuditResult> {
  let done = 0;
  const rows = await auditOnThreads(lock, { ...o, onRow: (row) => withCounterexample(row, lock, o, ++done) });
  return finish(lock, rows, o);
}

/** A finding's shrunk counterexample, written under out/counterexamples/ (in this thread). */
function withCounterexample(row: AttackRow, lock: LockUnderTest, o: AuditOptions, done: number): AuditResult["rows"][number] {
  const r: AuditResult["rows"][number] = row;
  if (o.out && (row.finding === "your code" || row.finding === "known limit of this backend")) {
    const w = writeFinding(join(o.out, "counterexamples"), row, referenceOf(lock));
    if (w) r.counterexample = { file: w.file, report: join(w.runDir, "report.html"), replay: w.replay };
  }
  o.progress?.(done, o.attacks.length, r);
  return r;
}

function finish(lock: LockUnderTest, rows: AuditResult["rows"], o: AuditOptions): AuditResult {
  const result: AuditResult = {
    lock: lock.label,
    reference: referenceOf(lock).label,
    seeds: o.seeds,
    rows,
    yourCode: rows.filter((r) => r.finding === "your code").map((r) => r.attack),
  };
  if (o.out) {
    writeJsonAtomic(join(o.out, "audit.json"), result);
    const card: AuditCardRow[] = rows.map((r) => ({ ...r, ...(r.counterexample ? { reportHref: relative(o.out!, r.counterexample.report) } : {}) }));
    writeTextAtomic(join(o.out, "audit.html"), renderAuditPage(lock.label, o.seeds, card));
  }
  return result;
}

const pct = (x: number): string => `${(x * 100).toFixed(0)}%`.padStart(4);

/** The terminal table: one line per attack, the finding last, then the gate's line. */
export function formatAudit(r: AuditResult): string {
  const w = Math.max(...r.rows.map((x) => x.attack.length), 6);
  const lines = [
    `audit of ${r.lock} (reference: ${r.reference}), ${r.seeds} seeds per attack`,
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
