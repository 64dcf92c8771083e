import { dirname, join, relative } from "node:path";
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
  /** Every attack the audit was asked for, in catalogue order (a shard runs some of them). */
  attacks: string[];
  /** Which slice of `attacks` this result holds (absent: all of them). */
  shard?: AuditShard;
  rows: Array<AttackRow & { counterexample?: { file: string; report: string; replay: string } }>;
  /** Attacks whose finding is the lock's own code: the CI gate. */
  yourCode: string[];
}

/** Shard `index` (1-based) of `count`: the attacks at positions index-1, index-1+count, ... */
export interface AuditShard {
  index: number;
  count: number;
}

type AuditOptions = {
  seeds: number;
  attacks: readonly Attack[];
  shard?: AuditShard;
  out?: string;
  progress?: (done: number, of: number, row: AttackRow) => void;
};

/** The attacks a shard runs: dealt round-robin, so long and short attacks spread over the shards. */
export function attacksOfShard<T>(attacks: readonly T[], shard: AuditShard | undefined): T[] {
  return shard === undefined ? [...attacks] : attacks.filter((_, i) => i % shard.count === shard.index - 1);
}

/**
 * Run the audit in this thread and, with `out`, write audit.json, audit.html and one
 * shrunk counterexample (scenario file + report) per finding. `progress` hears each attack done.
 */
export function runAudit(lock: LockUnderTest, o: AuditOptions): AuditResult {
  const rows: AuditResult["rows"] = [];
  const mine = { ...o, attacks: attacksOfShard(o.attacks, o.shard) };
  for (const a of mine.attacks) rows.push(withCounterexample(auditAttack(a, lock, o.seeds), lock, mine, rows.length + 1));
  return finish(lock, rows, o);
}

/** The same audit with `workers` workers (auditOnThreads); the same rows for any count. */
export async function runAuditOnThreads(lock: LockUnderTest, o: AuditOptions & { workers: number }): Promise<AuditResult> {
  let done = 0;
  const mine = { ...o, attacks: attacksOfShard(o.attacks, o.shard) };
  const rows = await auditOnThreads(lock, { ...mine, onRow: (row) => withCounterexample(row, lock, mine, ++done) });
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
    attacks: o.attacks.map((a) => a.name),
    ...(o.shard ? { shard: o.shard } : {}),
    rows,
    yourCode: rows.filter((r) => r.finding === "your code").map((r) => r.attack),
  };
  if (o.out) writeAuditFiles(result, join(o.out, "audit.json"));
  return result;
}

/** audit.json at `jsonPath`, and audit.html beside it linking each counterexample's report. */
export function writeAuditFiles(result: AuditResult, jsonPath: string, write: { force?: boolean } = {}): void {
  const dir = dirname(jsonPath);
  writeJsonAtomic(jsonPath, result, write);
  const card: AuditCardRow[] = result.rows.map((r) => ({ ...r, ...(r.counterexample ? { reportHref: relative(dir, r.counterexample.report) } : {}) }));
  writeTextAtomic(join(dir, "audit.html"), renderAuditPage(result.lock, result.seeds, card), write);
}
