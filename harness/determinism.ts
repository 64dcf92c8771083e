/**
 * `--check-determinism` (as MadSim's deterministic check): run a seed a second time and
 * compare the two histories byte for byte; a difference stops with the first event
 * that differs, since everything after it follows from it.
 *
 * The second run is made to differ in what library code must not see: it starts
 * RERUN_EXTRA_FRAMES deeper on the host's stack (so a library that reads how deep it can
 * recurse, the one part of its stack the sandbox cannot make virtual, shows), after the
 * first (warm caches, a grown heap). What one process cannot vary it says (CANNOT_VARY):
 * the host's locale, time zone and install folder, which the sandbox fixes (en-US, UTC,
 * virtual paths) and the escape corpus checks across two processes and folders.
 */
import { SimulationStopError } from "../sim/errors.js";
import { historyToJsonl } from "../sim/history.js";
import type { HistoryEvent } from "../sim/history.js";
import type { Scenario } from "../scenarios/schema.js";
import { runScenario } from "./runner.js";
import { replayCommand } from "./replay-command.js";

export class NondeterminismError extends SimulationStopError {
  constructor(
    readonly seed: number,
    /** 0-based index of the first event that differs (or the shorter history's length). */
    readonly eventIndex: number,
    readonly first: string,
    readonly second: string,
  ) {
    super(`nondeterministic: seed ${seed} gave two different histories; first difference at event ${eventIndex}:\n  run 1: ${first}\n  run 2: ${second}`);
    this.name = "NondeterminismError";
  }
}

/** The first differing line of two JSONL histories, or undefined when they are the same bytes. */
export function firstDifference(a: string, b: string): { index: number; first: string; second: string } | undefined {
  if (a === b) return undefined;
  const la = a.split("\n");
  const lb = b.split("\n");
  for (let i = 0; i < Math.max(la.length, lb.length); i++) {
    if (la[i] !== lb[i]) return { index: i, first: la[i] ?? "(no event: the history ended)", second: lb[i] ?? "(no event: the history ended)" };
  }
  return { index: la.length, first: "(same events, different bytes)", second: "" };
}

/** Host stack frames the second run starts below the first. */
export const RERUN_EXTRA_FRAMES = 2000;

/** What the second run does not vary, in words for the command's output. */
export const CANNOT_VARY =
  "the second run started 2000 frames deeper on the stack; the host's locale, time zone and install folder cannot differ within one process (the sandbox fixes them: en-US, UTC, virtual paths)";

/** `fn` run `frames` calls deeper on the stack. */
function deeper<T>(frames: number, fn: () => T): T {
  return frames <= 0 ? fn() : deeper(frames - 1, fn);
}

/** Run `seed` again and throw a NondeterminismError unless its history is `history`, byte for byte. */
export function checkDeterminism(scenario: Scenario, seed: number, history: readonly HistoryEvent[]): void {
  const again = deeper(RERUN_EXTRA_FRAMES, () => runScenario(scenario, seed).history);
  const diff = firstDifference(historyToJsonl(history), historyToJsonl(again));
  if (!diff) return;
  const e = new NondeterminismError(seed, diff.index, diff.first, diff.second);
  e.replay = { scenario: scenario.name, seed, command: replayCommand(scenario, seed) };
  throw e;
}
