import { join, relative } from "node:path";
import type { LockUnderTest } from "../../attacks/index.js";
import type { Scenario } from "../../scenarios/schema.js";
import { faultDef } from "../../faults/index.js";
import { shrinkWidest } from "../explore/shrink.js";
import { writeCounterexample } from "../sweep/counterexample.js";
import { isUnsafe, onReference } from "./counterexample.js";
import { byWidth, causeOf, diagnoseRun, type CauseCounterexample, type CauseFinding, type SeedDiagnosis } from "./diagnose.js";
import type { EvidenceWidth } from "../../causes/index.js";

/** Candidates a shrink tries for one cause (each costs a traced run here and one on the reference). */
export const CAUSE_SHRINK_RUNS_MAX = 60;

/**
 * One counterexample per cause: the diagnosed run with the widest evidence (one real
 * mode can run, when the caller says which can), shrunk while it still shows this cause,
 * stays safe on the reference recipe, and keeps its evidence as wide as it was: the same
 * kind (a lost update, a stale write, an overlap) over at least half the span. Shrinking
 * drops fault steps and clients only, keeping the attack's times, so the counterexample
 * still happens on a real network. Titled by the cause and the faults left after
 * shrinking; its report links back to the audit.
 */
export function writeCauseCounterexample(
  dir: string,
  auditHtml: string,
  finding: CauseFinding,
  runs: readonly SeedDiagnosis[],
  ref: LockUnderTest,
  runnable: (s: Scenario) => boolean = () => true,
): CauseCounterexample | undefined {
  const ordered = byWidth(runs);
  const start = ordered.find((x) => runnable({ ...x.scenario, seed: x.seed })) ?? ordered[0];
  if (!start) return undefined;
  const floor = start.d.width;
  const score = (s: Scenario, seed: number): number | undefined => {
    const d = diagnoseRun(s, seed);
    if (!d.causes.some((x) => x.cause.name === finding.id) || !wideEnough(d.width, floor)) return undefined;
    if (isUnsafe(onReference(s, ref), seed) || !runnable(s)) return undefined;
    return d.width.rank * 1e12 + d.width.spanUs;
  };
  const shrunk = shrinkWidest({ scenario: start.scenario, seed: start.seed, runsMax: CAUSE_SHRINK_RUNS_MAX, score, numeric: false }).scenario;
  const faults = shrunk.faults.map((f) => faultDef(f.kind).describe(f));
  const d = diagnoseRun(shrunk, start.seed);
  const title = `${finding.title}: ${faults.length > 0 ? faults.join("; ") : "no fault needed"}`;
  const match = d.causes.find((x) => x.cause.name === finding.id)?.matches[0]?.sentence ?? finding.sentence;
  const story = `${causeOf(finding).meaning} In this run: ${match} What a user sees: ${d.width.label}. Found by the audit's ${start.attack} attack, seed ${start.seed}.`;
  const named: Scenario = { ...shrunk, title, story };
  const causeDir = join(dir, finding.id);
  const w = writeCounterexample(causeDir, named, start.seed, (s, seed) => isUnsafe(s, seed), {
    trace: true,
    finding: { cause: finding.id, title: finding.title, auditHref: `${relative(join(causeDir, "run"), auditHtml)}#cause-${finding.id}` },
  });
  finding.sentence = match;
  return {
    attack: start.attack,
    seed: start.seed,
    title,
    faults,
    evidence: d.width.label,
    evidenceRank: d.width.rank,
    evidenceSpanUs: d.width.spanUs,
    file: w.file,
    report: join(w.runDir, "report.html"),
    replay: w.replay,
  };
}

function wideEnough(w: EvidenceWidth, floor: EvidenceWidth): boolean {
  return w.rank >= floor.rank && (w.rank > floor.rank || w.spanUs * 2 >= floor.spanUs);
}
