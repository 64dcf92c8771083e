/**
 * Exact EDN values for histories from elsewhere, compared as Clojure's `=` compares them
 * (Knossos judges with it): maps and sets by content, whatever their order; a set never
 * equal to a vector; a list equal to a vector with the same elements; a keyword never a
 * string; a tagged literal never its untagged value; an integer of any size exact, and
 * never equal to a float. edn-data parses; what it conflates is kept apart here: a form's
 * text is first rewritten (outside strings and comments) so characters, big integers and
 * integral floats reach us marked, and the parsed value is rebuilt from the classes below.
 *
 * Equality and hashing go through one canonical text (`canonicalEdn`): EDN printed with
 * map entries and set elements sorted by their own canonical text. Equal values have the
 * same text and different values different text, so the models compare and hash states
 * as strings, computed once per value, not per search step.
 */

import { parseEDNString } from "edn-data";

const CHAR_TAG = "lockstep/char";
const FLOAT_TAG = "lockstep/float";
const NAMED_CHARS: Record<string, string> = { newline: "\n", space: " ", tab: "\t", return: "\r", backspace: "\b", formfeed: "\f" };

export class EdnKeyword {
  constructor(readonly name: string) {}
}
export class EdnSymbol {
  constructor(readonly name: string) {}
}
export class EdnChar {
  constructor(readonly char: string) {}
}
/** An integer beyond 2^53 (smaller ones are numbers: Clojure's (= 5 5N)). */
export class EdnBigInt {
  constructor(readonly digits: string) {}
}
/** A float whose value is integral (1.0): a number would make it the integer 1. */
export class EdnFloat {
  constructor(readonly value: number) {}
}
export class EdnMap {
  constructor(readonly entries: ReadonlyArray<readonly [unknown, unknown]>) {}
  /** The value under `key` (compared canonically), or undefined. */
  get(key: unknown): unknown {
    const k = canonicalEdn(key);
    return this.entries.find(([x]) => canonicalEdn(x) === k)?.[1];
  }
}
export class EdnSet {
  constructor(readonly items: readonly unknown[]) {}
}
export class EdnTagged {
  constructor(
    readonly tag: string,
    readonly value: unknown,
  ) {}
}

type EdnClass = EdnKeyword | EdnSymbol | EdnChar | EdnBigInt | EdnFloat | EdnMap | EdnSet | EdnTagged;
const CLASSES = [EdnKeyword, EdnSymbol, EdnChar, EdnBigInt, EdnFloat, EdnMap, EdnSet, EdnTagged];

export function isEdnClass(v: unknown): v is EdnClass {
  return v !== null && typeof v === "object" && CLASSES.some((c) => v instanceof c);
}

// JSON output (check --json, reports) gets the canonical text under one key: unambiguous.
for (const c of CLASSES) Object.defineProperty(c.prototype, "toJSON", { value: jsonOf, enumerable: false });
function jsonOf(this: EdnClass): { edn: string } {
  return { edn: canonicalEdn(this) };
}

const cache = new WeakMap<object, string>();

/**
 * The canonical EDN text of a value: equal values (by Clojure's `=`) give the same text,
 * others different text. Plain JSON (lockstep's own histories) reads as EDN would: an
 * object is a map with string keys, an array a vector.
 */
export function canonicalEdn(v: unknown): string {
  if (v === null || v === undefined) return "nil";
  if (typeof v === "boolean") return String(v);
  if (typeof v === "number") return numberText(v, Number.isInteger(v));
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v !== "object") return JSON.stringify(String(v));
  const hit = cache.get(v);
  if (hit !== undefined) return hit;
  const text = objectText(v);
  cache.set(v, text);
  return text;
}

function objectText(v: object): string {
  if (Array.isArray(v)) return `[${v.map(canonicalEdn).join(" ")}]`;
  if (v instanceof EdnKeyword) return `:${v.name}`;
  if (v instanceof EdnSymbol) return v.name;
  if (v instanceof EdnChar) return charText(v.char);
  if (v instanceof EdnBigInt) return v.digits;
  if (v instanceof EdnFloat) return numberText(v.value, false);
  if (v instanceof EdnSet) return `#{${v.items.map(canonicalEdn).sort().join(" ")}}`;
  if (v instanceof EdnTagged) return `#${v.tag} ${tagged(v.tag, v.value)}`;
  const entries = v instanceof EdnMap ? v.entries : Object.entries(v);
  return `{${entries
    .map(([k, x]) => `${canonicalEdn(k)} ${canonicalEdn(x)}`)
    .sort()
    .join(", ")}}`;
}

/** #inst compares by instant and #uuid case-insensitively, as their Clojure types do. */
function tagged(tag: string, value: unknown): string {
  if (tag === "inst" && typeof value === "string" && Number.isFinite(Date.parse(value))) return JSON.stringify(new Date(Date.parse(value)).toISOString());
  if (tag === "uuid" && typeof value === "string") return JSON.stringify(value.toLowerCase());
  return canonicalEdn(value);
}

function numberText(n: number, integer: boolean): string {
  if (Number.isNaN(n)) return "##NaN";
  if (!Number.isFinite(n)) return n > 0 ? "##Inf" : "##-Inf";
  if (integer) return Object.is(n, -0) ? "0" : String(n);
  const s = String(n);
  return /[.eE]/.test(s) ? s : `${s}.0`;
}

function charText(c: string): string {
  return /^[\x21-\x7e]$/.test(c) ? `\\${c}` : `\\u${[...c].map((u) => u.charCodeAt(0).toString(16).padStart(4, "0")).join("")}`;
}

/** A short EDN rendering for witnesses and messages (JSON for plain data, EDN once an EDN value is inside). */
export function showValue(v: unknown): string {
  return containsEdn(v) ? canonicalEdn(v) : (JSON.stringify(v) ?? String(v));
}

function containsEdn(v: unknown): boolean {
  if (isEdnClass(v)) return true;
  return Array.isArray(v) && v.some(containsEdn);
}

/** One EDN value from text, exact (--initial-value). */
export function ednValue(text: string): unknown {
  const exact = exactEdnText(text);
  // edn-data reads an unclosed form leniently: check the brackets first.
  let depth = 0;
  for (let i = 0; i < exact.length; i++) {
    if (exact[i] === '"') i = stringEnd(exact, i) - 1;
    else if ("([{".includes(exact[i]!)) depth++;
    else if (")]}".includes(exact[i]!) && --depth < 0) break;
  }
  if (depth !== 0 || exact.trim() === "") throw new Error("unbalanced brackets or nothing to read");
  return exactValue(parseEdn(exact));
}

/** edn-data with every kind kept as an object we can tell apart. */
export function parseEdn(exactText: string): unknown {
  return parseEDNString(exactText, { mapAs: "map", keywordAs: "object", symbolAs: "object", listAs: "array", setAs: "set" });
}

/** The form's text with character literals and integral floats tagged, big integers marked N. */
export function exactEdnText(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      const end = stringEnd(text, i);
      out += text.slice(i, end);
      i = end;
    } else if (c === ";") {
      const end = text.indexOf("\n", i);
      i = end < 0 ? text.length : end;
    } else if (c === "\\") {
      const m = /^\\(newline|space|tab|return|backspace|formfeed|u[0-9a-fA-F]{4}|[\s\S])/.exec(text.slice(i))!;
      out += `#${CHAR_TAG} ${JSON.stringify(charOf(m[1]!))}`;
      i += m[0].length;
    } else if (/[-+0-9]/.test(c) && (i === 0 || /[\s,([{]/.test(text[i - 1]!))) {
      const m = /^[-+]?\d+(\.\d*)?([eE][-+]?\d+)?M?(?=[\s,)\]}]|$)/.exec(text.slice(i));
      out += m ? numberToken(m[0]) : c;
      i += m ? m[0].length : 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** An integer token beyond 2^53 gets N (edn-data reads it as BigInt); a float token is tagged with its text. */
function numberToken(t: string): string {
  if (/[.eEM]/.test(t)) return `#${FLOAT_TAG} ${JSON.stringify(t.replace(/M$/, ""))}`;
  return Number.isSafeInteger(Number(t)) ? t : `${t}N`;
}

function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
  return Math.min(i + 1, text.length);
}

function charOf(name: string): string {
  if (name in NAMED_CHARS) return NAMED_CHARS[name]!;
  if (name.length === 5 && name[0] === "u") return String.fromCharCode(parseInt(name.slice(1), 16));
  return name;
}

/** A keyword's or symbol's name, where it stands for a name (an op's keys, :type, :f, :process). */
export function nameOf(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (v instanceof EdnKeyword || v instanceof EdnSymbol) return v.name;
  if (v !== null && typeof v === "object" && "key" in v && typeof (v as { key: unknown }).key === "string") return (v as { key: string }).key;
  if (v !== null && typeof v === "object" && "sym" in v && typeof (v as { sym: unknown }).sym === "string") return (v as { sym: string }).sym;
  return undefined;
}

/** A field of a map value, by keyword or string key (`:lock`, "lock"), of EDN or plain JSON. */
export function fieldOf(v: unknown, name: string): unknown {
  if (v instanceof EdnMap) return v.get(new EdnKeyword(name)) ?? v.get(name);
  if (v !== null && typeof v === "object" && !Array.isArray(v) && !isEdnClass(v)) return (v as Record<string, unknown>)[name];
  return undefined;
}

/**
 * A parsed op map (edn-data) as a plain object. A client op's :value is exact (the models
 * compare it); elsewhere (the nemesis' values, extra keys such as :error) keywords are
 * names, as Jepsen means them.
 */
export function plainOp(parsed: Map<unknown, unknown>): Record<string, unknown> {
  const op: Record<string, unknown> = {};
  for (const [k, v] of parsed) op[nameOf(k) ?? canonicalEdn(exactValue(k))] = v;
  const exact = nameOf(op.process) !== "nemesis";
  for (const [key, v] of Object.entries(op)) {
    if (key === "type" || key === "f" || key === "process") op[key] = nameOf(v) ?? topLevel(v);
    else if (key !== "time" && key !== "index") op[key] = key === "value" && exact ? exactValue(v) : namesValue(v);
  }
  return op;
}

/** :process may be an integer (a BigInt only when huge). */
function topLevel(v: unknown): unknown {
  return typeof v === "bigint" && Number.isSafeInteger(Number(v)) ? Number(v) : v;
}

/** edn-data's parse of one value, exact: see the file's comment. */
export function exactValue(v: unknown): unknown {
  if (typeof v === "bigint") return Number.isSafeInteger(Number(v)) ? Number(v) : new EdnBigInt(v.toString());
  if (v === null || typeof v !== "object") return v;
  if (v instanceof Date) return new EdnTagged("inst", v.toISOString());
  if (Array.isArray(v)) return v.map(exactValue);
  if (v instanceof Set) return new EdnSet([...v].map(exactValue));
  if (v instanceof Map) return new EdnMap([...v].map(([k, x]) => [exactValue(k), exactValue(x)] as const));
  const o = v as Record<string, unknown>;
  if (typeof o.key === "string" && Object.keys(o).length === 1) return new EdnKeyword(o.key);
  if (typeof o.sym === "string" && Object.keys(o).length === 1) return new EdnSymbol(o.sym);
  if (o.tag === CHAR_TAG) return new EdnChar(String(o.val));
  if (o.tag === FLOAT_TAG) return floatOf(String(o.val));
  if (typeof o.tag === "string" && "val" in o) return new EdnTagged(o.tag, exactValue(o.val));
  return new EdnMap(Object.entries(o).map(([k, x]) => [k, exactValue(x)] as const));
}

function floatOf(text: string): unknown {
  const n = Number(text);
  return Number.isInteger(n) ? new EdnFloat(n) : n;
}

/** An EDN value as plain data with keywords as names (the nemesis' values, extra keys). */
export function namesValue(v: unknown): unknown {
  if (typeof v === "bigint") return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (v === null || typeof v !== "object") return v;
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.map(namesValue);
  if (v instanceof Set) return [...v].map(namesValue);
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [nameOf(k) ?? canonicalEdn(exactValue(k)), namesValue(x)]));
  const o = v as Record<string, unknown>;
  const name = nameOf(o);
  if (name !== undefined && Object.keys(o).length === 1) return name;
  if (o.tag === CHAR_TAG || o.tag === FLOAT_TAG) return o.tag === FLOAT_TAG ? Number(o.val) : o.val;
  if (typeof o.tag === "string" && "val" in o) return { tag: o.tag, value: namesValue(o.val) };
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, namesValue(x)]));
}
