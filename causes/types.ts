import type { HistoryEvent } from "../sim/history.js";
import type { TraceRecord } from "../sim/simulation.js";
import type { Verdicts } from "../checkers/run-all.js";
import type { Facts } from "./facts.js";

/**
 * A cause: what went wrong in a lock's code, recognised from what a run recorded (the
 * history and the nodes' command trace), with what it means in the user's code and the
 * reference recipe's fix. One file per cause in this folder, listed in causes/index.ts.
 * A recogniser is a pure function of the recorded data: the same run, the same matches.
 */
export interface Cause {
  name: string;
  /** The bug in a few words, as a finding's heading says it. */
  title: string;
  /** What it means in the user's code: which call does what, and why that breaks the lock. */
  meaning: string;
  /** The fix in words. */
  fix: string;
  /** The reference recipe's few lines that fix it. */
  fixCode: string;
  /** Where the rule comes from (a document, a paper, an issue). */
  source: string;
  recognise(facts: Facts): CauseMatch[];
}

/** One place in a run where a cause shows: who did it, to whose grant, when. */
export interface CauseMatch {
  /** True time of the act that went wrong (the command, the grant, the moment a belief outlived its key), µs. */
  atUs: number;
  /** The processes it involves: the one that acted first, then any whose grant it harmed. */
  processes: string[];
  /** One sentence a user can check in the report: who, which command, whose key, when, by how much. */
  sentence: string;
}

/** What a run recorded, as the causes read it. */
export interface Evidence {
  history: readonly HistoryEvent[];
  /** The run's trace records (run with a trace sink); only "redis-command" ones are read. */
  trace: readonly TraceRecord[];
  verdicts: Verdicts;
}
