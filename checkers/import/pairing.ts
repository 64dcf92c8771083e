/**
 * Refuse histories whose invokes and completions do not pair up, naming the line, so
 * no checker judges a history it half understood (Jepsen's rule: a process is single-
 * threaded, so it has at most one op outstanding, and every completion follows an
 * invoke of the same :f by the same process).
 *
 * - A completion (ok/fail/info) with no open invoke by its process is refused, unless
 *   it is an annotation the format allows (in lockstep JSONL anything that is not a
 *   client op: `lapse`, `failover`, `storage-write`...) or its process is one whose
 *   events are never paired (the nemesis, lockstep's storage).
 * - A completion whose :f is not the open invoke's :f is refused.
 * - A second invoke while one is open is refused, except (lockstep JSONL only) after a
 *   nemesis crash/kill/restart of that process: a restarted client starts afresh and
 *   its earlier op's outcome is unknown.
 * - A process invoking again after an :info: Jepsen never emits this (a crashed process
 *   gets a fresh number), but it is accepted with the same id, which is the permissive
 *   reading: its later ops may act under whatever the crashed op did, so no false alarm.
 */
import { InputError } from "../../sim/errors.js";
import { NEMESIS, type HistoryEvent } from "../../sim/history.js";
import { endsLostState, losesState } from "../fault-semantics.js";

export interface PairingRules {
  /** How fields are spelled in error messages: ":type" (EDN) or "type" (JSONL). */
  fieldPrefix: string;
  /** Processes whose events are never paired or checked (nemesis, storage). */
  unpairedProcesses: ReadonlySet<string>;
  /** Whether a completion with this :f and no matching invoke is an annotation (a note), not an op. */
  isAnnotation: (f: string) => boolean;
  /** Whether a nemesis crash of a process lets it invoke again with an op still open. */
  crashReopens: boolean;
  /** An op name as the format spells it (`:acquire` in EDN, `"acquire"` in JSONL). */
  show: (f: string) => string;
}

/** A nemesis op after which its target starts afresh: one that loses its state (a crash, a :kill) or brings it back. */
const restartsTarget = (kind: string): boolean => losesState(kind) || endsLostState(kind);

function targetsOf(e: HistoryEvent): string[] {
  const t = (e.value as { targets?: unknown } | undefined)?.targets;
  return Array.isArray(t) ? t.filter((x): x is string => typeof x === "string") : [];
}

/**
 * Check the pairing of `events`; `lines[i]` is the source line of events[i]. Throws
 * an InputError naming the first offending line.
 */
export function checkPairing(events: readonly HistoryEvent[], lines: readonly number[], file: string, rules: PairingRules): void {
  const open = new Map<string, { f: string; line: number }>();
  const crashed = new Set<string>();
  const p = rules.fieldPrefix;
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    const line = lines[i] ?? i + 1;
    if (rules.unpairedProcesses.has(e.process)) {
      if (e.process === NEMESIS && restartsTarget(e.f)) for (const t of targetsOf(e)) crashed.add(t);
      continue;
    }
    const pending = open.get(e.process);
    if (e.type === "invoke") {
      if (pending && !(rules.crashReopens && crashed.has(e.process)))
        throw new InputError(
          file,
          `line ${line}: ${p}type`,
          `a completion of the ${rules.show(pending.f)} that process ${e.process} invoked on line ${pending.line} (a process has one op outstanding at a time), got another invoke`,
        );
      crashed.delete(e.process);
      open.set(e.process, { f: e.f, line });
      continue;
    }
    if (pending === undefined) {
      if (rules.isAnnotation(e.f)) continue;
      throw new InputError(
        file,
        `line ${line}: ${p}type`,
        `an invoke of ${rules.show(e.f)} by process ${e.process} before this ${e.type} (it has no op outstanding)`,
      );
    }
    if (pending.f !== e.f) {
      if (rules.isAnnotation(e.f)) continue;
      throw new InputError(
        file,
        `line ${line}: ${p}f`,
        `${rules.show(pending.f)}, the op process ${e.process} invoked on line ${pending.line}, got ${rules.show(e.f)}`,
      );
    }
    open.delete(e.process);
  }
}
