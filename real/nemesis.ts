// The random nemesis in real mode: the steps are drawn from the run's seed by the
// simulator's own function (harness/runner.ts nemesisSteps: the same seed string, stream and
// server ids), then performed on the real servers as written steps are. A drawn step real
// mode cannot perform (a clock fault of an etcd/ZooKeeper server, a member only the
// simulator's larger cluster has) is not performed, and said so in `notApplied` and on the
// printed schedule — never dropped silently.
import { InputError } from "../sim/errors.js";
import { runCheckers } from "../checkers/run-all.js";
import { checkContextFor } from "../harness/check-context.js";
import { replayCommand } from "../harness/replay-command.js";
import { nemesisSteps, runScenario } from "../harness/runner.js";
import type { FaultStep, Scenario } from "../scenarios/schema.js";
import { planReal, type RealNemesis, type RealPlan } from "./plan.js";
import { designByName } from "../designs/index.js";

export type { RealNemesis };

function describe(st: FaultStep): string {
  const what =
    st.groups !== undefined
      ? `${st.kind} ${JSON.stringify(st.groups)}`
      : st.links !== undefined
        ? `${st.kind} ${JSON.stringify(st.links)}`
        : `${st.kind} ${st.target ?? ""}`.trim();
  return `${what} at ${st.atMs} ms${st.durationMs !== undefined ? ` for ${st.durationMs} ms` : ""}`;
}

/** The plan of one real run: the scenario's own plan, plus, with a nemesis, the steps drawn from `seed`. */
export function planRealRun(original: Scenario, timeScale: number, seed: number): RealPlan {
  if (!original.nemesis) return planReal(original, timeScale);
  const { steps: drawn, serverIds } = nemesisSteps(original, seed);
  // The real cluster has the simulator's size, so every member a step names exists and majorities count the same.
  const clustered =
    designByName(original.design)?.real?.sizedByNodes === true && (original.designOptions as { nodes?: unknown } | undefined)?.nodes === undefined;
  const designOptions = clustered ? { ...(original.designOptions ?? {}), nodes: serverIds.length } : original.designOptions;
  const base = { ...original, designOptions, nemesis: undefined };
  const accepted: FaultStep[] = [];
  const notPerformed: Array<string | undefined> = [];
  for (const step of drawn) {
    try {
      planReal({ ...base, faults: [...original.faults, ...accepted, step] }, timeScale);
      accepted.push(step);
      notPerformed.push(undefined);
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      notPerformed.push(e.expected.replace(/^real mode cannot run this: /, ""));
    }
  }
  const plan = planReal({ ...base, faults: [...original.faults, ...accepted] }, timeScale);
  drawn.forEach((st, i) => {
    const why = notPerformed[i];
    if (why !== undefined) plan.notApplied.push(`nemesis step ${i + 1} (${describe(st)}), drawn by the simulator for seed ${seed}: not performed: ${why}`);
  });
  return { ...plan, original, nemesis: { seed, drawn, notPerformed } };
}

/** The schedule as printed before the run: every drawn step, and which are performed. */
export function nemesisLines(n: RealNemesis): string[] {
  return [
    `nemesis for seed ${n.seed}: ${n.drawn.length} step(s) drawn as the simulator draws them`,
    ...n.drawn.map((st, i) => `  ${i + 1}. ${describe(st)}${n.notPerformed[i] === undefined ? "" : ` — NOT performed: ${n.notPerformed[i]}`}`),
  ];
}

/**
 * The simulator's side of a nemesis run, for the sim-vs-real row: the outcome of the same
 * seed with every drawn step (what `lockstep run <s> --seed <seed>` gives), and, when real
 * mode could not perform some, with the performed steps alone — the like-for-like comparison.
 */
export interface NemesisSimRow {
  seed: number;
  stepsDrawn: number;
  stepsPerformed: number;
  /** The simulator's outcome with every drawn step. */
  sim: string;
  /** The simulator's outcome with only the steps real mode performed (when it left some out). */
  simPerformed?: string;
  /** The command that gives `sim`. */
  command: string;
}

const simOutcome = (s: Scenario, seed: number): string => runCheckers(runScenario(s, seed).history, checkContextFor(s)).outcome;

/** The row for a run planned by planRealRun with a nemesis, or undefined for a scenario without one. */
export function nemesisSimRow(plan: RealPlan): NemesisSimRow | undefined {
  const n = plan.nemesis;
  if (!n) return undefined;
  const performed = n.drawn.filter((_, i) => n.notPerformed[i] === undefined);
  const row: NemesisSimRow = {
    seed: n.seed,
    stepsDrawn: n.drawn.length,
    stepsPerformed: performed.length,
    sim: simOutcome(plan.original, n.seed),
    command: replayCommand(plan.original, n.seed),
  };
  if (performed.length < n.drawn.length) {
    const only = { ...plan.original, nemesis: undefined, faults: [...plan.original.faults, ...performed] };
    row.simPerformed = simOutcome(only, n.seed);
  }
  return row;
}

/** "sim vs real, seed 3 (4 steps drawn, 3 performed): simulator safe with every step (npx …), unsafe with the 3 performed; real safe". */
export function nemesisRowLine(row: NemesisSimRow, realOutcome: string): string {
  const performed = row.simPerformed !== undefined ? `, ${row.simPerformed} with the ${row.stepsPerformed} performed` : "";
  return `sim vs real, seed ${row.seed} (${row.stepsDrawn} step(s) drawn, ${row.stepsPerformed} performed): simulator ${row.sim} with every step (${row.command})${performed}; real ${realOutcome}`;
}
