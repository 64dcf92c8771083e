/**
 * Jepsen EDN histories → HistoryEvent[]. Accepts one op map per line (Jepsen's
 * history.edn) or one vector of maps (Knossos' examples), e.g.
 *   {:process 0, :type :invoke, :f :acquire, :value nil, :time 123456789}
 * Jepsen's conventions (jepsen-io/history README), as Jepsen emits them:
 * - File order is the history order. `:time` (ns since the test began) is informational:
 *   each process stamps its own, so it may go backwards between processes. timeUs is
 *   :time in µs, raised where needed to 1 µs after the previous op's, so the times keep
 *   file order (a history with no :time at all, as Knossos' hand-written ones, gets
 *   timeUs = position). `:index`, where given, must ascend (it may be sparse).
 * - `:process` becomes a string ("0", "nemesis"). Every process but the nemesis is
 *   single-threaded: completions pair with its open invoke, which checkPairing enforces,
 *   naming the line. The nemesis' ops (:info on both ends) are annotations.
 * - `:value nil` is left out, so a read that returned nil reads nothing, as Knossos'
 *   register models take it (see docs/checkers.md).
 * - the lock is :lock of the op, else :lock or :key of a map value, else "lock".
 * - keywords in :type, :f, :process and the op map's keys are names; a client op's
 *   :value is exact (edn-values.ts: maps, sets, keywords, tags, big integers as
 *   Clojure's = tells them apart). Unknown keys are kept under `extra`.
 * edn-data's parser is lenient (malformed input can come back as null), so the text is
 * first split into top-level forms here, checking brackets and strings, which is also
 * how every error gets its line number.
 */
import { InputError } from "../../sim/errors.js";
import { NEMESIS, type EventType, type HistoryEvent } from "../../sim/history.js";
import { checkPairing } from "./pairing.js";
import { canonicalEdn, EdnKeyword, exactEdnText, fieldOf, parseEdn, plainOp } from "./edn-values.js";

/**
 * clampedFromUs: on a completion whose own :time (µs, kept here) is before its invoke's;
 * its timeUs was raised to keep file order, so invoke → completion measures no latency.
 */
export type ImportedEvent = HistoryEvent & { extra?: Record<string, unknown>; clampedFromUs?: number };

const TYPES: ReadonlySet<string> = new Set<EventType>(["invoke", "ok", "fail", "info"]);
const KNOWN = new Set(["process", "type", "f", "value", "time", "index", "lock"]);
const CLOSE: Record<string, string> = { "(": ")", "[": "]", "{": "}" };
/** :time bound: about 31 years in ns, so timeUs (≤ 1e15) stays an exact integer. */
const TIME_NS_MAX = 1e18;

interface Form {
  text: string;
  line: number;
}

/** A cursor over EDN text that reads whole forms, checking brackets and strings, counting lines. */
class FormReader {
  i = 0;
  line = 1;
  constructor(
    readonly text: string,
    readonly file: string,
  ) {}

  skipSpace(): void {
    while (this.i < this.text.length) {
      const c = this.text[this.i];
      if (c === "\n") this.line++;
      if (c === ";") {
        while (this.i < this.text.length && this.text[this.i] !== "\n") this.i++;
        continue;
      }
      if (c === "#" && this.text[this.i + 1] === "_") {
        // #_ discards the next form: read it and drop it.
        this.i += 2;
        this.skipSpace();
        this.readForm();
        continue;
      }
      if (c !== "," && c.trim() !== "") return;
      this.i++;
    }
  }

  /** Read one form starting at i; returns it, leaves i after it. */
  readForm(): Form {
    const start = this.i;
    const startLine = this.line;
    const opensForm = this.text[this.i] in CLOSE || this.text[this.i] === '"' || (this.text[this.i] === "#" && this.text[this.i + 1] === "{");
    if (!opensForm) {
      // A bare token (number, keyword, symbol) ends at whitespace, a comma or a bracket.
      while (this.i < this.text.length && !/[\s,()[\]{}";]/.test(this.text[this.i])) this.i++;
      if (this.i === start) throw new InputError(this.file, `line ${this.line}`, `an EDN form, got an unmatched "${this.text[this.i]}"`);
      return { text: this.text.slice(start, this.i), line: startLine };
    }
    const stack: { close: string; line: number }[] = [];
    do {
      const c = this.text[this.i];
      if (c === '"') {
        const strLine = this.line;
        this.i++;
        while (this.i < this.text.length && this.text[this.i] !== '"') {
          if (this.text[this.i] === "\\") this.i++;
          if (this.text[this.i] === "\n") this.line++;
          this.i++;
        }
        if (this.i >= this.text.length) throw new InputError(this.file, `line ${strLine}`, 'a closing " for the string opened here');
        this.i++;
      } else if (c === "\\") {
        this.i += 2; // a character literal such as \a or \(
        while (this.i < this.text.length && /[a-z0-9]/i.test(this.text[this.i])) this.i++;
      } else if (c === ";") {
        while (this.i < this.text.length && this.text[this.i] !== "\n") this.i++;
      } else if (c === "#" && this.text[this.i + 1] === "{") {
        stack.push({ close: "}", line: this.line });
        this.i += 2;
      } else if (c in CLOSE) {
        stack.push({ close: CLOSE[c], line: this.line });
        this.i++;
      } else if (c === ")" || c === "]" || c === "}") {
        const top = stack.pop();
        if (!top) throw new InputError(this.file, `line ${this.line}`, `no unmatched "${c}" here`);
        if (top.close !== c) throw new InputError(this.file, `line ${this.line}`, `"${top.close}" to close what line ${top.line} opened, got "${c}"`);
        this.i++;
      } else {
        if (c === "\n") this.line++;
        this.i++;
      }
      if (this.i >= this.text.length && stack.length > 0) {
        const top = stack[stack.length - 1];
        throw new InputError(this.file, `line ${top.line}`, `a closing "${top.close}" for what is opened here (the file ends first)`);
      }
    } while (stack.length > 0);
    return { text: this.text.slice(start, this.i), line: startLine };
  }
}

/** Split EDN text into top-level forms (or the elements of one top-level vector). */
function splitForms(text: string, file: string): Form[] {
  const r = new FormReader(text, file);
  r.skipSpace();
  const forms: Form[] = [];
  if (r.text[r.i] === "[" || r.text[r.i] === "(") {
    // One vector (or list) of op maps: split its elements.
    const close = CLOSE[r.text[r.i]];
    const openLine = r.line;
    r.i++;
    for (;;) {
      r.skipSpace();
      if (r.i >= r.text.length) throw new InputError(file, `line ${openLine}`, `a closing "${close}" for the history opened here`);
      if (r.text[r.i] === close) {
        r.i++;
        break;
      }
      forms.push(r.readForm());
    }
    r.skipSpace();
    if (r.i < r.text.length) throw new InputError(file, `line ${r.line}`, "nothing after the history's closing bracket");
    return forms;
  }
  while (r.i < r.text.length) {
    forms.push(r.readForm());
    r.skipSpace();
  }
  return forms;
}

function asString(v: unknown): string | undefined {
  const name = v instanceof EdnKeyword ? v.name : typeof v === "string" ? v : undefined;
  if (name !== undefined && name !== "") return name;
  if (typeof v === "number" && Number.isInteger(v)) return String(v);
  if (typeof v === "bigint") return v.toString();
  return undefined;
}

function lockOf(op: Record<string, unknown>): string {
  const own = asString(op.lock);
  if (own !== undefined) return own;
  return asString(fieldOf(op.value, "lock")) ?? asString(fieldOf(op.value, "key")) ?? "lock";
}

export interface EdnOptions {
  /**
   * jepsen.independent histories: every client op's :value is a [key value] tuple, and
   * each key is its own register (or lock). The key becomes the event's lock and the
   * value its value, so the checkers split the history by key.
   */
  independent?: boolean;
}

export function parseEdnHistory(text: string, file: string, opts: EdnOptions = {}): ImportedEvent[] {
  return parseEdnHistoryWithLines(text, file, opts).events;
}

/** The key of an independent tuple as a lock name: its canonical EDN text, so :x, "x" and 1 are three keys and equal maps one. */
function keyName(k: unknown): string {
  return canonicalEdn(k);
}

const UNPAIRED: ReadonlySet<string> = new Set([NEMESIS]);

/** Events, their lines, completions raised to keep file order, and whether the file had :time at all. */
export type ParsedEdn = { events: ImportedEvent[]; lines: number[]; raised: RaisedTimes; timed: boolean };

type OpMap = { op: Record<string, unknown>; line: number };

/** The file's op maps with their lines; either every op has a :time or none has. */
function readOpMaps(text: string, file: string): { maps: OpMap[]; timed: number } {
  const forms = splitForms(text, file);
  const maps: OpMap[] = [];
  for (const form of forms) {
    let parsed: unknown;
    try {
      parsed = parseEdn(exactEdnText(form.text));
    } catch (e) {
      throw new InputError(file, `line ${form.line}`, `an EDN map (${(e as Error).message})`);
    }
    if (!(parsed instanceof Map))
      throw new InputError(file, `line ${form.line}`, `an op map such as {:process 0, :type :invoke, :f :acquire, :value nil}, got ${form.text.slice(0, 40)}`);
    maps.push({ op: plainOp(parsed), line: form.line });
  }
  const timed = maps.filter((m) => m.op.time !== undefined).length;
  if (timed > 0 && timed < maps.length) {
    const missing = maps.find((m) => m.op.time === undefined)!;
    throw new InputError(file, `line ${missing.line}: :time`, "a :time in nanoseconds, as the other ops have");
  }
  return { maps, timed };
}

/** As parseEdnHistory, with the source line of each event (for errors found later, e.g. an op the model lacks). */
export function parseEdnHistoryWithLines(text: string, file: string, opts: EdnOptions = {}): ParsedEdn {
  const { maps, timed } = readOpMaps(text, file);
  const events: ImportedEvent[] = [];
  const lines: number[] = [];
  const clock = new FileOrderClock();
  let lastIndex: { index: number; line: number } | undefined;
  for (const { op, line } of maps) {
    const where = `line ${line}`;
    const process = asString(op.process);
    if (process === undefined) throw new InputError(file, `${where}: :process`, `an integer or keyword, got ${JSON.stringify(op.process)}`);
    if (typeof op.type !== "string" || !TYPES.has(op.type))
      throw new InputError(file, `${where}: :type`, `one of :invoke, :ok, :fail, :info, got ${JSON.stringify(op.type)}`);
    const f = asString(op.f);
    if (f === undefined) throw new InputError(file, `${where}: :f`, `a keyword such as :acquire, got ${JSON.stringify(op.f)}`);
    if (op.index !== undefined) lastIndex = checkedIndex(op.index, line, lastIndex, file);
    let timeUs = events.length;
    let clampedFromUs: number | undefined;
    if (timed > 0) {
      const ns = typeof op.time === "bigint" ? Number(op.time) : op.time;
      if (typeof ns !== "number" || !Number.isFinite(ns) || ns < 0 || ns > TIME_NS_MAX)
        throw new InputError(file, `${where}: :time`, `a number of nanoseconds from 0 to ${TIME_NS_MAX}, got ${JSON.stringify(op.time)}`);
      timeUs = clock.stamp(Math.floor(ns / 1000), process, op.type === "invoke", line);
      if (clock.clamped) clampedFromUs = Math.floor(ns / 1000);
    }
    const extra: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(op)) if (!KNOWN.has(k)) extra[k] = v;
    let lock = lockOf(op);
    let value = op.value;
    if (opts.independent && process !== NEMESIS) {
      if (!Array.isArray(value) || value.length !== 2)
        throw new InputError(file, `${where}: :value`, `a [key value] tuple (--independent), got ${canonicalEdn(value).slice(0, 40)}`);
      lock = keyName(value[0]);
      value = value[1];
    }
    events.push({
      index: events.length,
      timeUs,
      process,
      type: op.type as EventType,
      f,
      lock,
      ...(value !== undefined && value !== null ? { value } : {}),
      ...(Object.keys(extra).length > 0 ? { extra } : {}),
      ...(clampedFromUs !== undefined ? { clampedFromUs } : {}),
    });
    lines.push(line);
  }
  checkPairing(events, lines, file, {
    fieldPrefix: ":",
    unpairedProcesses: UNPAIRED,
    isAnnotation: () => false,
    crashReopens: false,
    show: (name) => `:${name}`,
  });
  return { events, lines, raised: clock.raised, timed: timed > 0 };
}

/** An op's :index: a non-negative integer above the one before it in the file. */
function checkedIndex(raw: unknown, line: number, lastIndex: { index: number; line: number } | undefined, file: string): { index: number; line: number } {
  const where = `line ${line}`;
  const index = typeof raw === "bigint" ? Number(raw) : raw;
  if (typeof index !== "number" || !Number.isSafeInteger(index) || index < 0)
    throw new InputError(file, `${where}: :index`, `a non-negative integer, got ${JSON.stringify(raw)}`);
  if (lastIndex !== undefined && index <= lastIndex.index)
    throw new InputError(file, `${where}: :index`, `greater than ${lastIndex.index} (line ${lastIndex.line}): indices ascend in file order, got ${index}`);
  return { index, line };
}

/**
 * timeUs in file order: File order is the order; :time only spaces the events out, and
 * between processes it may run backwards (each stamps its own), so each event is raised
 * to 1 µs after the one before where needed. A completion stamped before its own invoke
 * is counted for a note: its latency is the file order's, not its stamps'.
 */
class FileOrderClock {
  readonly raised: RaisedTimes = { count: 0 };
  /** Whether the last stamp was a completion stamped before its own invoke. */
  clamped = false;
  private lastUs = -1;
  private readonly invokedAtUs = new Map<string, number>();

  stamp(ownUs: number, process: string, invoke: boolean, line: number): number {
    const timeUs = Math.max(ownUs, this.lastUs + 1);
    this.lastUs = timeUs;
    const invokedUs = this.invokedAtUs.get(process);
    this.clamped = false;
    if (invoke) this.invokedAtUs.set(process, ownUs);
    else if (invokedUs !== undefined) {
      this.invokedAtUs.delete(process);
      if (ownUs < invokedUs) {
        this.clamped = true;
        this.raised.count++;
        this.raised.first ??= { line, process, invokeUs: invokedUs, completionUs: ownUs };
      }
    }
    return timeUs;
  }
}

/** Completions whose :time is before their own invoke's (a note for the user: the file's order wins). */
export interface RaisedTimes {
  count: number;
  first?: { line: number; process: string; invokeUs: number; completionUs: number };
}

/** The note `check` prints for completions stamped before their invokes, or undefined when none was. */
export function raisedTimesNote(r: RaisedTimes): string | undefined {
  if (r.count === 0 || r.first === undefined) return undefined;
  const f = r.first;
  return `${r.count} completion${r.count === 1 ? " is" : "s are"} stamped before ${r.count === 1 ? "its" : "their"} own invoke (first: line ${f.line}, process ${f.process}: invoked at ${f.invokeUs} µs, completed at ${f.completionUs} µs); the file's order is kept, so ${r.count === 1 ? "its time was" : "their times were"} raised to 1 µs after the event before it`;
}
