import { parseScenario, type Scenario } from "../../scenarios/schema.js";
import { runScenario } from "../runner.js";
import { runCheckers } from "../../checkers/run-all.js";
import { checkContextFor } from "../check-context.js";
import { CAUSES, causeByName, diagnose, type Cause, type Diagnosis } from "../../causes/index.js";
import type { TraceRecord } from "../../sim/simulation.js";
import { DIAGNOSED_SEEDS_MAX, type AttackRow } from "./audit.js";

/**
 * The audit's findings by cause: the runs that are a "your code" finding's evidence, run
 * again with the nodes' command trace and diagnosed (causes/), then grouped: one entry
 * per distinct cause, with the attacks that exposed it, and the attacks whose violation
 * no cause explains ("unexplained", with its decisive moment).
 */

export { DIAGNOSED_SEEDS_MAX };

/** One run diagnosed: which attack (or search) and seed, the scenario it ran, what it found. */
export interface SeedDiagnosis {
  attack: string;
  seed: number;
  scenario: Scenario;
  d: Diagnosis;
}

/** One attack's numbers beside a cause it exposed. */
export interface CauseAttack {
  attack: string;
  runs: number;
  unsafeRate: number;
  unsafeCi95: [number, number];
  /** The reference recipe's rate under the same attack and seeds. */
  referenceUnsafeRate: number;
  /** Of the runs diagnosed, how many this cause explained. */
  explained: number;
  diagnosed: number;
}

/** A counterexample of a cause, as written: a scenario file and its run, titled by the cause and the faults left. */
export interface CauseCounterexample {
  attack: string;
  seed: number;
  title: string;
  /** The faults the shrunk scenario kept, in words (none: the workload alone shows the bug). */
  faults: string[];
  /** How visible the violation is: "c2's stale write accepted 407 ms into c3's hold". */
  evidence: string;
  /** The same as numbers (causes/violation.ts EvidenceWidth): which counterexample of two shards is wider. */
  evidenceRank: number;
  evidenceSpanUs: number;
  file: string;
  report: string;
  replay: string;
}

/** `audit --confirm-real`: the counterexample replayed against real redis-server, and the reference recipe beside it. */
export interface RealConfirmation {
  runs: number;
  unsafe: number;
  reference: { runs: number; unsafe: number };
  /** Why it could not run, or what the runs said besides unsafe (not challenged, ...). */
  note?: string;
}

/** One bug in the user's code: a cause the audit's findings share. */
export interface CauseFinding {
  id: string;
  title: string;
  meaning: string;
  fix: string;
  fixCode: string;
  source: string;
  attacks: CauseAttack[];
  /** Where it shows, in the counterexample's run (before one is written: the widest diagnosed run). */
  sentence: string;
  counterexample?: CauseCounterexample;
  real?: RealConfirmation;
}

/** A "your code" finding no cause explains: listed with its decisive moment, never dropped. */
export interface UnexplainedFinding {
  attack: string;
  seed: number;
  atUs: number;
  sentence: string;
}

/** Rerun a finding's evidence seeds with the command trace and diagnose each. */
export function diagnoseRow(row: AttackRow): SeedDiagnosis[] {
  if (!row.scenario || !row.evidenceSeeds) return [];
  const s = parseScenario(JSON.parse(JSON.stringify(row.scenario)), `<attack ${row.attack}>`);
  return row.evidenceSeeds.map((seed) => ({ attack: row.attack, seed, scenario: s, d: diagnoseRun(s, seed) }));
}

/** One run with the nodes' command trace, diagnosed. */
export function diagnoseRun(s: Scenario, seed: number): Diagnosis {
  const trace: TraceRecord[] = [];
  const out = runScenario(s, seed, {}, { traceSink: (r) => trace.push(r) });
  return diagnose({ history: out.history, trace, verdicts: runCheckers(out.history, checkContextFor(s)) });
}

/**
 * The causes a run names once alternatives are settled: a cause that matches alone
 * somewhere in the audit wins over the alternatives it coincides with; alternatives no
 * run tells apart go to the first in catalogue order.
 */
export function resolvedCauses(d: Diagnosis, seenAlone: ReadonlySet<string>): Cause[] {
  const order = (n: string): number => CAUSES.findIndex((c) => c.name === n);
  return d.causes
    .filter((x) => {
      if (x.alternatives.length === 0 || seenAlone.has(x.cause.name)) return true;
      if (x.alternatives.some((a) => seenAlone.has(a))) return false;
      return x.alternatives.every((a) => order(a) > order(x.cause.name));
    })
    .map((x) => x.cause);
}

/** The causes that match with no alternative in some run. */
export function causesSeenAlone(all: readonly SeedDiagnosis[]): Set<string> {
  return new Set(all.flatMap((x) => x.d.causes.filter((c) => c.alternatives.length === 0).map((c) => c.cause.name)));
}

/**
 * Group the diagnosed runs by cause: one finding per cause (catalogue order), with the
 * attacks that exposed it; each attack none of whose runs any cause explains is
 * unexplained, with its first run's decisive moment.
 */
export function findingsByCause(
  rows: readonly AttackRow[],
  all: readonly SeedDiagnosis[],
): { causes: CauseFinding[]; unexplained: UnexplainedFinding[]; runsOf: Map<string, SeedDiagnosis[]> } {
  const alone = causesSeenAlone(all);
  const byCause = new Map<string, SeedDiagnosis[]>();
  for (const x of all) for (const c of resolvedCauses(x.d, alone)) byCause.set(c.name, [...(byCause.get(c.name) ?? []), x]);
  const causes = CAUSES.filter((c) => byCause.has(c.name)).map((c) => causeFinding(c, rows, all, byCause.get(c.name)!));
  const unexplained: UnexplainedFinding[] = [];
  for (const attack of new Set(all.map((x) => x.attack))) {
    const mine = all.filter((x) => x.attack === attack);
    if (mine.some((x) => x.d.causes.length > 0)) continue;
    const first = mine.find((x) => x.d.unexplained);
    if (first) unexplained.push({ attack, seed: first.seed, atUs: first.d.unexplained!.atUs, sentence: first.d.unexplained!.sentence });
  }
  return { causes, unexplained, runsOf: byCause };
}

function causeFinding(c: Cause, rows: readonly AttackRow[], all: readonly SeedDiagnosis[], mine: readonly SeedDiagnosis[]): CauseFinding {
  const attacks = [...new Set(mine.map((x) => x.attack))].map((attack): CauseAttack => {
    const row = rows.find((r) => r.attack === attack);
    return {
      attack,
      runs: row?.runs ?? 0,
      unsafeRate: row?.unsafeRate ?? 0,
      unsafeCi95: row?.unsafeCi95 ?? [0, 0],
      referenceUnsafeRate: row && row.runs > 0 ? row.referenceUnsafe / row.runs : 0,
      explained: mine.filter((x) => x.attack === attack).length,
      diagnosed: all.filter((x) => x.attack === attack).length,
    };
  });
  const widest = widestOf(mine)!;
  const sentence = widest.d.causes.find((x) => x.cause.name === c.name)!.matches[0]!.sentence;
  return { id: c.name, title: c.title, meaning: c.meaning, fix: c.fix, fixCode: c.fixCode, source: c.source, attacks, sentence };
}

/** Runs ordered widest evidence first (a lost update, a stale write, an overlap; then the longer), ties by attack order. */
export function byWidth(runs: readonly SeedDiagnosis[]): SeedDiagnosis[] {
  return [...runs].sort((a, b) => b.d.width.rank - a.d.width.rank || b.d.width.spanUs - a.d.width.spanUs);
}

export function widestOf(runs: readonly SeedDiagnosis[]): SeedDiagnosis | undefined {
  return byWidth(runs)[0];
}

/** The catalogue entry of a finding. */
export function causeOf(f: CauseFinding): Cause {
  return causeByName(f.id)!;
}
