import { dirname, join, relative } from "node:path";
import type { Attack, LockUnderTest } from "../../attacks/index.js";
import type { Scenario } from "../../scenarios/schema.js";
import { auditAttack, referenceOf, type AttackRow } from "./audit.js";
import { writeFinding } from "./counterexample.js";
import { auditOnThreads } from "./threads.js";
import { renderAuditPage, type AuditPageCause, type AuditCardRow } from "../../reports/audit-page.js";
import { writeJsonAtomic, writeTextAtomic } from "../sweep/write.js";
import { diagnoseRow, findingsByCause, type CauseFinding, type SeedDiagnosis, type UnexplainedFinding } from "./diagnose.js";
import { writeCauseCounterexample } from "./cause-counterexample.js";
import { exploreRows, type ExploreSummary } from "./explore.js";

export interface AuditResult {
  lock: string;
  reference: string;
  seeds: number;
  /** Every attack the audit was asked for, in catalogue order (a shard runs some of them). */
  attacks: string[];
  /** Which slice of `attacks` this result holds (absent: all of them). */
  shard?: AuditShard;
  rows: Array<AttackRow & { counterexample?: { file: string; report: string; replay: string }; causes?: string[] }>;
  /** Attacks whose finding is the lock's own code: the CI gate. */
  yourCode: string[];
  /** The bugs in the lock's code, one per distinct cause, with the attacks that exposed each and one counterexample. */
  causes: CauseFinding[];
  /** "Your code" findings no cause explains, each with its decisive moment (and its attack's counterexample). */
  unexplained: UnexplainedFinding[];
  /** `audit --explore N`: the generated schedules (their findings are rows "explore-k" after the attacks'). */
  explore?: ExploreSummary;
  /** An audit on real servers (real/audit.ts): `seeds` counts real runs per attack, which replay nothing. */
  real?: { note: string; runs: number; timeScale: number; stoppedBy?: { attack: string; reason: string } };
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
  /** Hears the work after the attacks (diagnosing, shrinking), one line each. */
  note?: (line: string) => void;
  /** Whether real mode can run a scenario: a cause's counterexample is then chosen among those it can (audit --confirm-real). */
  runnable?: (s: Scenario) => boolean;
  /** Also N generated schedules over the lock's whole API (harness/audit/explore.ts), from fast-check's seed. */
  explore?: { draws: number; seed: number };
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

/** A backend limit's shrunk counterexample, written under out/counterexamples/<attack>/ (in this thread). */
function withCounterexample(row: AttackRow, lock: LockUnderTest, o: AuditOptions, done: number): AuditResult["rows"][number] {
  const r: AuditResult["rows"][number] = row;
  if (o.out && row.finding === "known limit of this backend") attackCounterexample(r, lock, o.out);
  o.progress?.(done, o.attacks.length, r);
  return r;
}

function attackCounterexample(r: AuditResult["rows"][number], lock: LockUnderTest, out: string): void {
  const w = writeFinding(join(out, "counterexamples"), r, referenceOf(lock), join(out, "audit.html"));
  if (w) r.counterexample = { file: w.file, report: join(w.runDir, "report.html"), replay: w.replay };
}

/**
 * The "your code" findings by cause: their evidence runs diagnosed, grouped, and with
 * `out` one counterexample per cause (an unexplained finding keeps its attack's own).
 */
function byCause(lock: LockUnderTest, rows: AuditResult["rows"], o: AuditOptions): Pick<AuditResult, "causes" | "unexplained"> {
  const mine = rows.filter((r) => r.finding === "your code");
  if (mine.length === 0) return { causes: [], unexplained: [] };
  o.note?.(`diagnosing ${mine.reduce((n, r) => n + (r.evidenceSeeds?.length ?? 0), 0)} runs of ${mine.length} finding(s) by cause`);
  const all: SeedDiagnosis[] = mine.flatMap((r) => diagnoseRow(r));
  const { causes, unexplained, runsOf } = findingsByCause(rows, all);
  for (const r of mine) r.causes = causes.filter((c) => c.attacks.some((a) => a.attack === r.attack)).map((c) => c.id);
  if (!o.out) return { causes, unexplained };
  for (const c of causes) {
    o.note?.(`cause ${c.id}: shrinking its widest counterexample`);
    const cx = writeCauseCounterexample(join(o.out, "counterexamples"), join(o.out, "audit.html"), c, runsOf.get(c.id)!, referenceOf(lock), o.runnable);
    if (cx) c.counterexample = cx;
  }
  for (const u of unexplained)
    attackCounterexample(
      rows.find((r) => r.attack === u.attack)!,
      lock,
      o.out,
    );
  return { causes, unexplained };
}

function finish(lock: LockUnderTest, attackRows: AuditResult["rows"], o: AuditOptions): AuditResult {
  const explored = o.explore ? exploreRows(lock, { ...o.explore, ...(o.note ? { note: o.note } : {}) }) : undefined;
  if (explored)
    o.note?.(
      `explore: ${explored.summary.draws} generated schedules, ${explored.summary.judged} unsafe on their own seed, ${explored.summary.found} your code`,
    );
  const rows = explored ? [...attackRows, ...explored.rows] : attackRows;
  const result: AuditResult = {
    lock: lock.label,
    reference: referenceOf(lock).label,
    seeds: o.seeds,
    attacks: o.attacks.map((a) => a.name),
    ...(o.shard ? { shard: o.shard } : {}),
    rows,
    yourCode: rows.filter((r) => r.finding === "your code").map((r) => r.attack),
    ...byCause(lock, rows, o),
    ...(explored ? { explore: explored.summary } : {}),
  };
  if (o.out) writeAuditFiles(result, join(o.out, "audit.json"));
  return result;
}

/** audit.json at `jsonPath`, and audit.html beside it linking each counterexample's report. */
export function writeAuditFiles(result: AuditResult, jsonPath: string, write: { force?: boolean } = {}): void {
  const dir = dirname(jsonPath);
  writeJsonAtomic(jsonPath, result, write);
  const card: AuditCardRow[] = result.rows.map((r) => ({ ...r, ...(r.counterexample ? { reportHref: relative(dir, r.counterexample.report) } : {}) }));
  const causes: AuditPageCause[] = result.causes.map((c) => ({
    ...c,
    ...(c.counterexample ? { reportHref: relative(dir, c.counterexample.report), fileHref: relative(dir, c.counterexample.file) } : {}),
  }));
  writeTextAtomic(
    join(dir, "audit.html"),
    renderAuditPage({
      lock: result.lock,
      reference: result.reference,
      seeds: result.seeds,
      rows: card,
      causes,
      unexplained: result.unexplained,
      ...(result.explore ? { explore: result.explore } : {}),
      ...(result.real ? { real: result.real } : {}),
    }),
    write,
  );
}
