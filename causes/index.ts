/**
 * The cause catalogue: what went wrong in a lock's code, one file each in this folder,
 * and `diagnose`, which says which of them explain a run's violation. The CLI, the
 * audit and the reports refer to causes only through this list.
 */
import type { Cause, CauseMatch, Evidence } from "./types.js";
import { factsOf, s3, type Facts } from "./facts.js";
import { evidenceWidth, violationsOf, type EvidenceWidth, type Violation } from "./violation.js";
import { foreignDelete } from "./foreign-delete.js";
import { checkThenDelete } from "./check-then-delete.js";
import { foreignExtend } from "./foreign-extend.js";
import { foreignOverwrite } from "./foreign-overwrite.js";
import { refusedAcquireGranted } from "./refused-acquire-granted.js";
import { sharedSecret } from "./shared-secret.js";
import { renewalUnconfirmed } from "./renewal-unconfirmed.js";
import { wallClockValidity } from "./wall-clock-validity.js";
import { trustsPastValidity } from "./trusts-past-validity.js";
import { validityCountedLate } from "./validity-counted-late.js";

export type { Cause, CauseMatch, Evidence } from "./types.js";
export type { EvidenceWidth, Violation } from "./violation.js";
export type { Facts } from "./facts.js";

export const CAUSES: readonly Cause[] = [
  foreignDelete,
  checkThenDelete,
  foreignExtend,
  foreignOverwrite,
  refusedAcquireGranted,
  sharedSecret,
  renewalUnconfirmed,
  wallClockValidity,
  trustsPastValidity,
  validityCountedLate,
];

export function causeByName(name: string): Cause | undefined {
  return CAUSES.find((c) => c.name === name);
}

/** A cause that explains the run's violation, with the places it shows. */
export interface Explained {
  cause: Cause;
  matches: CauseMatch[];
  /**
   * Other causes that match at every one of these places (the same moment, the same
   * client): the records cannot tell them apart in this run (a lease trusted forever and
   * one on a stepped wall clock look alike). Whoever reads many runs decides.
   */
  alternatives: string[];
}

/** What went wrong in one run, by cause. */
export interface Diagnosis {
  /** The run's violations (none: the run was safe), earliest end first. */
  violations: Violation[];
  /** The causes that explain the first, in catalogue order. */
  causes: Explained[];
  /** Set when a violation happened and no cause explains it: its decisive moment. */
  unexplained?: { atUs: number; sentence: string };
  /** How visible the violation is (what shrinking keeps). */
  width: EvidenceWidth;
}

/**
 * Which causes explain the run's first violation (the one that ends first: the harm
 * the rest follow from). A match explains it when it happened before the violation was
 * over and involves one of its processes: a command on a key, a grant or a belief that
 * precedes the harm it did. Matches after it, or among other clients, are left out; a
 * violation nothing explains is reported as unexplained, with its decisive moment —
 * never dropped.
 */
export function diagnose(e: Evidence): Diagnosis {
  const facts = factsOf(e.history, e.trace);
  const violations = violationsOf(e.history, e.verdicts);
  const width = evidenceWidth(facts, e.verdicts, violations);
  const first = violations[0];
  if (!first) return { violations, causes: [], width };
  const found = CAUSES.map((cause) => ({ cause, matches: cause.recognise(facts).filter((m) => explains(m, first)) })).filter((x) => x.matches.length > 0);
  const causes = found.map((x) => ({ ...x, alternatives: found.filter((y) => y !== x && covers(y.matches, x.matches)).map((y) => y.cause.name) }));
  if (causes.length > 0) return { violations, causes, width };
  return { violations, causes, width, unexplained: { atUs: first.endUs === Infinity ? first.startUs : first.endUs, sentence: decisive(first) } };
}

/** Whether every match in `mine` has one in `theirs` at the same moment, by the same client. */
function covers(theirs: readonly CauseMatch[], mine: readonly CauseMatch[]): boolean {
  return mine.every((m) => theirs.some((t) => t.atUs === m.atUs && t.processes[0] === m.processes[0]));
}

function explains(m: CauseMatch, v: Violation): boolean {
  return m.atUs <= v.endUs && (v.processes.length === 0 || m.processes.some((p) => v.processes.includes(p)));
}

function decisive(v: Violation): string {
  const at = v.endUs === Infinity ? "" : ` (decisive moment ${s3(v.endUs)})`;
  return `${v.checker}: ${v.sentence}${at}`;
}

/** The facts a diagnosis was made from, for callers that draw them (reports). */
export function factsOfEvidence(e: Pick<Evidence, "history" | "trace">): Facts {
  return factsOf(e.history, e.trace);
}
