// The audit on real servers (`lockstep audit --real`): each attack of the catalogue that real
// mode can perform, N real runs on the lock under test and N on its backend's reference recipe
// (run the same way: real servers, its own client processes), turned into the simulated
// audit's rows by the same functions (harness/audit/audit.ts: pairsOf, rowOf), so the table,
// audit.json, audit.html and exit codes are the same. Runs are not paired by seed — nothing
// real replays — so the rates decide, as they do in the simulated audit.
//
// Each run is one `lockstep real` run (real/run.ts): fresh servers, fresh client processes (and
// lock drivers), every process stopped and its temp dir removed however it ends. A run whose
// own checks fail (real/run-checks.ts) is no evidence: counted `invalid`, neither unsafe nor
// challenged. A finding's evidence is its first unsafe run: its scenario file, its history,
// results.json and report.html under out/counterexamples/<attack>/.
import { join } from "node:path";
import type { Attack, CompiledScenario, LockUnderTest } from "../attacks/index.js";
import { emptyRow, pairsOf, planAttack, referenceOf, rowOf, type AttackRow, type RunOutcome } from "../harness/audit/audit.js";
import { writeAuditFiles, type AuditResult } from "../harness/audit/run.js";
import type { UnexplainedFinding } from "../harness/audit/diagnose.js";
import { violationsOf } from "../causes/violation.js";
import { writeJsonAtomic } from "../harness/sweep/write.js";
import type { HistoryEvent } from "../sim/history.js";
import type { Scenario } from "../scenarios/schema.js";
import { InputError } from "../sim/errors.js";
import { planReal, type RealPlan } from "./plan.js";
import { recordRealRun, rerunCommand, writeRealArtifacts, type RealRunRecord } from "./record.js";
import { REAL_NOTE, runRealOnce } from "./run.js";
import { checksHold } from "./summary.js";

export interface RealAuditOptions {
  /** Real runs per attack, on the lock and on the reference each. */
  runs: number;
  attacks: readonly Attack[];
  /** --time-scale: the attacks' times multiplied (real/time-scale.ts). */
  timeScale: number;
  /** Where audit.json, audit.html and the counterexamples go. */
  out?: string;
  /** One line per finished run and per finished attack. */
  progress?: (line: string) => void;
  /** Where a run is, each poll: for a progress ticker. */
  onTick?: (text: string) => void;
  /** Parent of each run's temp dir (tests). */
  parentDir?: string;
}

/** audit.json's `real` block: what makes a real audit's rows what they are. */
export interface RealAuditInfo {
  note: typeof REAL_NOTE;
  runs: number;
  timeScale: number;
  /** The attack (and run) that stopped the audit before its end, and why; its row is not in `rows`. */
  stoppedBy?: { attack: string; reason: string };
}

/** An attack as real mode runs it: its plans on the lock and the reference, or why real mode cannot. */
type RealAttackPlan = { refused: string } | { compiled: CompiledScenario; here: RealPlan; there: RealPlan };

/** A real run's verdict for the audit, and the run itself while it may become a finding's evidence. */
interface RealOutcome extends RunOutcome {
  kept?: { plan: RealPlan; record: RealRunRecord; history: HistoryEvent[] };
}

const UNSAFE = new Set(["unsafe", "unsafe-but-fenced"]);

/** Why real mode refuses a scenario, without the in-memory file's name. */
function refusalOf(e: InputError): string {
  return `real mode cannot run it: ${e.field}: ${e.expected.replace(/^real mode cannot run this: /, "")}`;
}

function realPlanOf(attack: Attack, lock: LockUnderTest, timeScale: number): RealAttackPlan {
  const p = planAttack(attack, lock);
  if ("refused" in p) return { refused: p.refused };
  const plan = (s: Scenario): RealPlan | { refused: string } => {
    try {
      return planReal(s, timeScale);
    } catch (e) {
      if (e instanceof InputError) return { refused: refusalOf(e) };
      throw e;
    }
  };
  const here = plan(p.here);
  if ("refused" in here) return here;
  if (!p.reference)
    return {
      refused: `the reference recipe (${referenceOf(lock).label}) cannot be attacked so; the simulated audit counts that as the backend's limit, a real audit has nothing to compare`,
    };
  const there = plan(p.reference);
  if ("refused" in there) return { refused: `on the reference recipe, ${there.refused}` };
  return { compiled: p.compiled, here, there };
}

export class RealAudit {
  /** Rows of the attacks finished so far (what a stopped audit writes). */
  readonly rows: AuditResult["rows"] = [];
  /** The attack being run (where a stopped audit stopped). */
  current: string | undefined;
  /** Each attack's first unsafe run on the lock: a finding's evidence. */
  private readonly evidence = new Map<string, { run: number; kept: NonNullable<RealOutcome["kept"]> }>();

  constructor(
    private readonly lock: LockUnderTest,
    private readonly o: RealAuditOptions,
  ) {}

  async run(): Promise<AuditResult> {
    for (const [i, attack] of this.o.attacks.entries()) {
      this.current = attack.name;
      const row = await this.attackRow(attack, `${i + 1}/${this.o.attacks.length} ${attack.name}`);
      this.rows.push(row);
      this.o.progress?.(`[${i + 1}/${this.o.attacks.length}] ${attack.name}: ${row.refused !== undefined ? `refused: ${row.refused}` : row.finding}`);
    }
    return this.result();
  }

  /** The result over the finished attacks; with `stoppedBy`, the audit ended early. Written to out when given. */
  result(stoppedBy?: RealAuditInfo["stoppedBy"]): AuditResult {
    const rows = [...this.rows];
    const real: RealAuditInfo = { note: REAL_NOTE, runs: this.o.runs, timeScale: this.o.timeScale, ...(stoppedBy ? { stoppedBy } : {}) };
    const result: AuditResult = {
      lock: this.lock.label,
      reference: referenceOf(this.lock).label,
      seeds: this.o.runs,
      attacks: this.o.attacks.map((a) => a.name),
      rows,
      yourCode: rows.filter((r) => r.finding === "your code").map((r) => r.attack),
      // A real run keeps no command trace: its findings are listed by their decisive moment, not by cause.
      causes: [],
      unexplained: rows.filter((r) => r.finding === "your code").flatMap((r) => this.unexplainedOf(r.attack)),
      real,
    };
    if (this.o.out) writeAuditFiles(result, join(this.o.out, "audit.json"));
    return result;
  }

  private async attackRow(attack: Attack, label: string): Promise<AuditResult["rows"][number]> {
    const p = realPlanOf(attack, this.lock, this.o.timeScale);
    if ("refused" in p) return { ...emptyRow(attack.name, this.lock), refused: p.refused };
    const here: RealOutcome[] = [];
    const there: RealOutcome[] = [];
    // Alternating, so a change of the machine's load falls on both alike.
    for (let i = 1; i <= this.o.runs; i++) {
      here.push(await this.runOnce(p.here, i, `${label}: run ${i}/${this.o.runs} on the lock`, here));
      there.push(await this.runOnce(p.there, i, `${label}: run ${i}/${this.o.runs} on the reference`, []));
    }
    const row: AuditResult["rows"][number] = rowOf(attack.name, this.lock, p.compiled, pairsOf(here, there));
    return this.withEvidence(row, here);
  }

  /** One real run and its verdict; the first unsafe run on the lock is kept as evidence. */
  private async runOnce(plan: RealPlan, i: number, what: string, kept: readonly RealOutcome[]): Promise<RealOutcome> {
    const started = performance.now();
    const out = await runRealOnce(plan, { run: i, runs: this.o.runs, seed: i, ...this.runOpts(what) });
    const record = recordRealRun(plan, out);
    const valid = checksHold(record);
    const outcome = valid ? record.verdicts.outcome : "invalid";
    const why = valid
      ? ""
      : ` (its run checks failed: ${record.real.checks
          .filter((c) => !c.ok)
          .map((c) => c.name)
          .join(", ")})`;
    this.o.progress?.(`${what}: ${outcome}${why}, ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const first = UNSAFE.has(outcome) && !kept.some((k) => k.kept);
    return { outcome, challenged: valid && record.verdicts.challenge.challenged, ...(first ? { kept: { plan, record, history: out.history } } : {}) };
  }

  private runOpts(what: string): { onTick?: (t: string) => void; parentDir?: string } {
    const { onTick, parentDir } = this.o;
    const tick = onTick ? { onTick: (t: string) => onTick(`${what}: ${t.replace(/^run \d+\/\d+: /, "")}`) } : {};
    return { ...tick, ...(parentDir ? { parentDir } : {}) };
  }

  /** A "your code" finding as its first unsafe run shows it: the first violation's end and what it was. */
  private unexplainedOf(attack: string): UnexplainedFinding[] {
    const ev = this.evidence.get(attack);
    if (!ev) return [];
    const v = violationsOf(ev.kept.history, ev.kept.record.verdicts)[0];
    const where = this.o.out ? `; its report is under counterexamples/${attack}/run/` : "";
    return [
      { attack, seed: ev.run, atUs: v?.endUs ?? 0, sentence: `${v?.sentence ?? "unsafe"} (a real run keeps no command trace, so no cause is named${where})` },
    ];
  }

  /** A finding's evidence: the first unsafe run on the lock, with the scenario file that runs it again. */
  private withEvidence(row: AttackRow, here: readonly RealOutcome[]): AuditResult["rows"][number] {
    const first = here.findIndex((r) => r.kept);
    const kept = here[first]?.kept;
    if (kept) this.evidence.set(row.attack, { run: first + 1, kept });
    if (!kept || !this.o.out || (row.finding !== "your code" && row.finding !== "known limit of this backend")) return row;
    const dir = join(this.o.out, "counterexamples", row.attack);
    const file = join(dir, "scenario.json");
    const scenario = { ...row.scenario!, seed: first + 1, expect: "unsafe" as const };
    writeJsonAtomic(file, scenario);
    writeRealArtifacts(join(dir, "run"), kept.record, kept.history);
    const rerun = rerunCommand({ ...kept.plan, original: { ...kept.plan.original, file, name: scenario.name } });
    return { ...row, counterexampleSeed: first + 1, scenario, counterexample: { file, report: join(dir, "run", "report.html"), replay: rerun } };
  }
}
