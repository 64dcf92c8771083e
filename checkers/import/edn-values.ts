/**
 * Exact EDN values. edn-data conflates what a history must keep apart: integers above
 * 2^53 lose precision, a keyword reads as the string of its name, and a character
 * literal such as \] breaks its reader. So a form's text is first rewritten (outside
 * strings and comments): characters become a private tagged literal, integers beyond
 * 2^53 get EDN's N suffix (read as BigInt); and the parsed value is made plain with its
 * kinds kept: a keyword :a is {keyword: "a"}, a symbol {symbol: "a"}, a character
 * {char: "a"}, an integer beyond 2^53 {integer: "9007199254740993"}, so none equals a
 * string or a rounded number. Map keys and an op's own fields (:type, :f, :process) are
 * names, as Jepsen writes them.
 */

import { parseEDNString } from "edn-data";

const CHAR_TAG = "lockstep/char";
const NAMED_CHARS: Record<string, string> = { newline: "\n", space: " ", tab: "\t", return: "\r", backspace: "\b", formfeed: "\f" };

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
  return plainValue(parseEDNString(exact, { mapAs: "map", keywordAs: "object", listAs: "array", setAs: "array" }));
}

/** The form's text with character literals tagged and big integers marked N. */
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
      const m = /^[-+]?\d+(?=[\s,)\]}]|$)/.exec(text.slice(i));
      if (m && !Number.isSafeInteger(Number(m[0]))) out += `${m[0]}N`;
      else if (m) out += m[0];
      i += m ? m[0].length : 1;
      if (!m) out += c;
    } else {
      out += c;
      i++;
    }
  }
  return out;
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

/** A keyword's or symbol's name, where it stands for a name (map keys, :type, :f, :process). */
export function nameOf(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (v !== null && typeof v === "object" && "key" in v && typeof (v as { key: unknown }).key === "string") return (v as { key: string }).key;
  if (v !== null && typeof v === "object" && "sym" in v && typeof (v as { sym: unknown }).sym === "string") return (v as { sym: string }).sym;
  return undefined;
}

/** A plain value's name where it is one: a string, or a keyword as plainValue keeps it ({keyword: "a"} → "a"). */
export function keywordOrString(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (v !== null && typeof v === "object" && "keyword" in v) return String((v as { keyword: unknown }).keyword);
  return undefined;
}

/**
 * A parsed op map (edn-data, mapAs "map", keywordAs "object") as a plain object. A client
 * op's :value keeps its kinds exact (the models compare it); elsewhere (the nemesis'
 * values, extra keys such as :error) keywords are names, as Jepsen means them.
 */
export function plainOp(parsed: Map<unknown, unknown>): Record<string, unknown> {
  const op: Record<string, unknown> = {};
  for (const [k, v] of parsed) op[nameOf(k) ?? JSON.stringify(plainValue(k))] = v;
  const exact = nameOf(op.process) !== "nemesis";
  for (const [key, v] of Object.entries(op)) {
    if (key === "type" || key === "f" || key === "process") op[key] = nameOf(v) ?? topLevel(v);
    else if (key !== "time" && key !== "index") op[key] = plainValue(v, key === "value" && exact);
  }
  return op;
}

/** :process may be an integer (a BigInt only when huge). */
function topLevel(v: unknown): unknown {
  return typeof v === "bigint" && Number.isSafeInteger(Number(v)) ? Number(v) : v;
}

/** An EDN value as plain data; `exact` keeps keywords and symbols apart from strings (see the file's comment). */
export function plainValue(v: unknown, exact = true): unknown {
  if (typeof v === "bigint") return Number.isSafeInteger(Number(v)) ? Number(v) : { integer: v.toString() };
  if (v === null || typeof v !== "object") return v;
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.map((x) => plainValue(x, exact));
  if (v instanceof Set) return [...v].map((x) => plainValue(x, exact));
  if (v instanceof Map) {
    const o: Record<string, unknown> = {};
    for (const [k, x] of v) o[nameOf(k) ?? JSON.stringify(plainValue(k))] = plainValue(x, exact);
    return o;
  }
  const o = v as Record<string, unknown>;
  if (typeof o.key === "string" && Object.keys(o).length === 1) return exact ? { keyword: o.key } : o.key;
  if (typeof o.sym === "string" && Object.keys(o).length === 1) return exact ? { symbol: o.sym } : o.sym;
  if (o.tag === CHAR_TAG) return exact ? { char: o.val } : o.val;
  if (typeof o.tag === "string" && "val" in o) return { tag: o.tag, value: plainValue(o.val, exact) };
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, plainValue(x, exact)]));
}
