/**
 * The history: every client operation's invoke and completion, every fault's start
 * and end, in true time. This is the one format every checker reads; a history
 * imported from elsewhere (Jepsen EDN, hand-written JSONL) is converted to it.
 *
 * Pairing rule (as Jepsen's): a process has at most one operation outstanding. An
 * `invoke` is completed by the next `ok` | `fail` | `info` event of the same process
 * with the same `f`. `info` means the outcome is unknown: the operation may have taken
 * effect at any time after its invocation, or never. An `ok`/`fail`/`info` event with
 * no outstanding invoke of that `f` is an annotation (e.g. a client's `lapse` note,
 * or a fault event of the `nemesis` process) and is not an operation.
 */
export type EventType = "invoke" | "ok" | "fail" | "info";

/** Operation names recorded by lockstep's workloads. Other names may appear in imported histories. */
export type OpName =
  | "acquire" // value on ok: AcquireOkValue
  | "release" // value on invoke: { grantId }
  | "extend" // value on invoke: { grantId, ttlMs }; on ok: { validityMs }
  | "read" // value on invoke: { grantId, token? }; on ok: { counter }
  | "write" // value on invoke: { grantId, token?, counter }; on fail: { reason: "stale-token" | ... }
  | "lapse" // annotation: the client's own clock says its grant has expired (value: { grantId })
  | "final-read" // annotation by the storage process at the end of a run: { counter, maxToken }
  | string;

export interface HistoryEvent {
  /** Position in the history, 0-based, dense (a run that keeps only some events, RunOptions.retainHistory, keeps their own). */
  index: number;
  /** True (simulator) time in integer microseconds. */
  timeUs: number;
  /** Who: a client id ("c1"), "nemesis" for faults, "storage" for the protected resource. */
  process: string;
  type: EventType;
  f: OpName;
  /** The lock (key) the operation is about, where it has one. */
  lock?: string;
  value?: unknown;
}

/** Value of an `acquire` ok event. */
export interface AcquireOkValue {
  /** Unique id of this grant within the run, e.g. "c1#3". */
  grantId: string;
  /** Fencing token, where the design issues one. */
  token?: number;
  /** How long the client believes the grant is valid, as measured at acquire-ok on its own clock. */
  validityMs: number;
  ttlMs: number;
}

/** A fault event of the nemesis: type "info", f = fault kind, value = { phase: "start"|"end", ... }. */
export interface FaultValue {
  phase: "start" | "end";
  /** Processes or links it acts on, for reports. */
  targets?: string[];
  [k: string]: unknown;
}

export const NEMESIS = "nemesis";

/** Serialise as JSONL with a fixed key order so histories compare byte for byte. */
export function historyToJsonl(events: readonly HistoryEvent[]): string {
  let out = "";
  for (const e of events) out += eventToJsonl(e);
  return out;
}

/** One event's JSONL line, newline included: the fixed key order, absent lock/value left out. */
export function eventToJsonl(e: HistoryEvent): string {
  const o: Record<string, unknown> = {
    index: e.index,
    timeUs: e.timeUs,
    process: e.process,
    type: e.type,
    f: e.f,
  };
  if (e.lock !== undefined) o.lock = e.lock;
  if (e.value !== undefined) o.value = e.value;
  return JSON.stringify(o) + "\n";
}

/** An operation: an invoke paired with its completion (or none, if the history ended first). */
export interface Operation {
  process: string;
  f: string;
  lock?: string;
  invoke: HistoryEvent;
  /** undefined when the history ended with the operation outstanding (treated like info). */
  complete?: HistoryEvent;
  /** ok | fail | info; "info" also when there is no completion. */
  outcome: "ok" | "fail" | "info";
  /** Invoke time, µs. */
  startUs: number;
  /** Completion time, µs; Infinity for info (may take effect any time later). */
  endUs: number;
}

/** Pair invokes with completions by the rule above. Annotations are returned separately. */
export function pairOperations(events: readonly HistoryEvent[]): {
  ops: Operation[];
  annotations: HistoryEvent[];
} {
  const open = new Map<string, Operation>();
  const ops: Operation[] = [];
  const annotations: HistoryEvent[] = [];
  for (const e of events) {
    if (e.type === "invoke") {
      const prev = open.get(e.process);
      if (prev) {
        // A new invoke while one is outstanding: the earlier one's fate is unknown.
        open.delete(e.process);
      }
      // Every key in the literal (complete too, filled in later): one hidden class for every op.
      const op: Operation = {
        process: e.process,
        f: e.f,
        lock: e.lock,
        invoke: e,
        complete: undefined,
        outcome: "info",
        startUs: e.timeUs,
        endUs: Infinity,
      };
      open.set(e.process, op);
      ops.push(op);
      continue;
    }
    const op = open.get(e.process);
    if (op && op.f === e.f) {
      op.complete = e;
      op.outcome = e.type;
      op.endUs = e.type === "info" ? Infinity : e.timeUs;
      open.delete(e.process);
    } else {
      annotations.push(e);
    }
  }
  return { ops, annotations };
}
