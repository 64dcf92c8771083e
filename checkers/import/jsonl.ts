/**
 * Our JSONL history format (sim/history.ts historyToJsonl): one event per line. Strict:
 * a line that is not a well-formed event, or a client op whose invoke and completion do
 * not pair (checkPairing), is an InputError naming the line, so a checker never judges
 * a history it half understood. Blank lines are skipped.
 */
import { InputError } from "../../sim/errors.js";
import { NEMESIS, type EventType, type HistoryEvent } from "../../sim/history.js";
import { checkPairing } from "./pairing.js";

const TYPES: ReadonlySet<string> = new Set<EventType>(["invoke", "ok", "fail", "info"]);

/** Ops a client invokes; a completion of any other f with no invoke is an annotation (lapse, failover, ...). */
const CLIENT_OPS: ReadonlySet<string> = new Set(["acquire", "release", "extend", "read", "write", "cas"]);
const UNPAIRED: ReadonlySet<string> = new Set([NEMESIS, "storage"]);

export function parseJsonlHistory(text: string, file: string): HistoryEvent[] {
  return parseJsonlHistoryWithLines(text, file).events;
}

/** As parseJsonlHistory, with the source line of each event (blank lines are skipped, so index is not line). */
export function parseJsonlHistoryWithLines(text: string, file: string): { events: HistoryEvent[]; lines: number[] } {
  const events: HistoryEvent[] = [];
  const lineOf: number[] = [];
  const lines = text.split("\n");
  let lastTimeUs = -Infinity;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === "") continue;
    const e = eventOfLine(line, file, i + 1, events.length, lastTimeUs);
    lastTimeUs = e.timeUs;
    events.push(e);
    lineOf.push(i + 1);
  }
  // A restarted client (nemesis crash/kill/restart) may invoke with its old op unanswered.
  checkPairing(events, lineOf, file, {
    fieldPrefix: "",
    unpairedProcesses: UNPAIRED,
    isAnnotation: (f) => !CLIENT_OPS.has(f),
    crashReopens: true,
    show: (f) => JSON.stringify(f),
  });
  return { events, lines: lineOf };
}

const KEYS: ReadonlySet<string> = new Set(["index", "timeUs", "process", "type", "f", "lock", "value"]);

// Named on error only: a string per line was a tenth of a 1k-op check's parse.
const lineAt = (lineNo: number): string => `line ${lineNo}`;

/** One line's event, or an InputError naming the line and field (`index` is the event's position). */
function eventOfLine(line: string, file: string, lineNo: number, index: number, lastTimeUs: number): HistoryEvent {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (e) {
    throw new InputError(file, lineAt(lineNo), `a JSON object (${(e as Error).message})`);
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new InputError(file, lineAt(lineNo), "a JSON object with timeUs, process, type, f");
  const o = raw as Record<string, unknown>;
  if (o.index !== undefined && o.index !== index)
    throw new InputError(file, `${lineAt(lineNo)}: index`, `${index} (events are numbered densely from 0), got ${JSON.stringify(o.index)}`);
  if (typeof o.timeUs !== "number" || !Number.isSafeInteger(o.timeUs) || o.timeUs < 0)
    throw new InputError(file, `${lineAt(lineNo)}: timeUs`, `a non-negative integer number of microseconds, got ${JSON.stringify(o.timeUs)}`);
  if (o.timeUs < lastTimeUs) throw new InputError(file, `${lineAt(lineNo)}: timeUs`, `no earlier than the previous event's ${lastTimeUs}, got ${o.timeUs}`);
  if (typeof o.process !== "string" || o.process === "")
    throw new InputError(file, `${lineAt(lineNo)}: process`, `a non-empty string, got ${JSON.stringify(o.process)}`);
  if (typeof o.type !== "string" || !TYPES.has(o.type))
    throw new InputError(file, `${lineAt(lineNo)}: type`, `one of invoke, ok, fail, info, got ${JSON.stringify(o.type)}`);
  if (typeof o.f !== "string" || o.f === "") throw new InputError(file, `${lineAt(lineNo)}: f`, `a non-empty string, got ${JSON.stringify(o.f)}`);
  if (o.lock !== undefined && typeof o.lock !== "string")
    throw new InputError(file, `${lineAt(lineNo)}: lock`, `a string when present, got ${JSON.stringify(o.lock)}`);
  for (const k in o) if (!KEYS.has(k)) throw new InputError(file, `${lineAt(lineNo)}: ${k}`, "only index, timeUs, process, type, f, lock, value");
  const e: HistoryEvent = { index, timeUs: o.timeUs, process: o.process, type: o.type as EventType, f: o.f };
  if (o.lock !== undefined) e.lock = o.lock;
  if (o.value !== undefined) e.value = o.value;
  return e;
}
