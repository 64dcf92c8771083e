/**
 * Twins of the few Lua scripts lock libraries send on every acquire, release and
 * extend (compare-and-delete, compare-and-pexpire, node-redlock's multi-key scripts):
 * the same redis.call sequence, argument spellings and reply, in JS. Running them in
 * fengari costs most of a library run. A script is twinned only when its tokens match
 * a template exactly (names of locals and the case of command names may differ); a twin
 * answers `undefined` for an input it does not cover (a missing KEYS/ARGV entry, a
 * non-canonical number), and the Lua runs instead. test/services/script-twins.test.ts
 * checks every template against fengari on random stores and inputs.
 */
import { isErrorReply, type ArgvReply } from "./argv-reply.js";

type CallFn = (argv: string[]) => ArgvReply;
/** Spellings captured from the script: command names as written, by template placeholder. */
type Spelled = Record<string, string>;
export type Twin = (keys: string[], args: string[], call: CallFn) => ArgvReply | undefined;

/** A Lua source as tokens: comments dropped, `;` dropped, strings as "text"; undefined for what this lexer does not read. */
export function luaTokens(source: string): string[] | undefined {
  const out: string[] = [];
  const re = /\s+|--\[=*\[|--[^\n]*|\[=*\[|"([^"\\\n]*)"|'([^'\\\n]*)'|["']|([A-Za-z_$]\w*)|(\d+(?:\.\d+)?)|(==|~=|<=|>=|\.\.\.|\.\.|[-+*/%^#<>=(){}[\];:,.])/y;
  for (let at = 0; at < source.length; at = re.lastIndex) {
    re.lastIndex = at;
    const m = re.exec(source);
    if (m === null) return undefined;
    const t = m[0];
    if (/^(--)?\[=*\[$/.test(t) || t === '"' || t === "'") return undefined; // long strings and comments, escapes
    if (/^\s/.test(t) || t.startsWith("--") || t === ";") continue;
    out.push(m[1] !== undefined || m[2] !== undefined ? `"${m[1] ?? m[2]}"` : t);
  }
  return out;
}

/**
 * Match tokens against a template: `"@x"` matches any string whose lower case is x and
 * records its spelling under x; `$n` matches a name, the same name each time, distinct
 * placeholders distinct names. Everything else must be equal.
 */
function match(tokens: readonly string[], template: readonly string[]): Spelled | undefined {
  if (tokens.length !== template.length) return undefined;
  const spelled: Spelled = {};
  const names = new Map<string, string>();
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const p = template[i]!;
    if (p.startsWith('"@')) {
      const want = p.slice(2, -1);
      if (!t.startsWith('"') || t.slice(1, -1).toLowerCase() !== want) return undefined;
      if (spelled[want] !== undefined && spelled[want] !== t.slice(1, -1)) return undefined;
      spelled[want] = t.slice(1, -1);
    } else if (p.startsWith("$")) {
      if (!/^[A-Za-z_]\w*$/.test(t) || LUA_WORDS.has(t)) return undefined;
      const bound = names.get(p);
      if (bound === undefined && [...names.values()].includes(t)) return undefined;
      if (bound !== undefined && bound !== t) return undefined;
      names.set(p, t);
    } else if (t !== p) return undefined;
  }
  return spelled;
}

const LUA_WORDS = new Set(
  "and break do else elseif end false for function goto if in local nil not or repeat return then true until while KEYS ARGV redis".split(" "),
);

/** `redis.call("get", k) == v`: GET's reply is a string or nil (false in Lua), never equal to a missing ARGV. */
const equals = (reply: ArgvReply, value: string | undefined): boolean => value !== undefined && reply === value;

/** SELECT's argument as tonumber() then Lua's tostring give it, when that is the text itself. */
const canonicalInt = (s: string | undefined): s is string => s !== undefined && /^(0|-?[1-9]\d{0,14})$/.test(s);

function compareAndDelete(w: Spelled): Twin {
  return (keys, args, call) => {
    if (keys.length < 1) return undefined;
    const got = call([w.get!, keys[0]!]);
    if (isErrorReply(got)) return got;
    return equals(got, args[0]) ? call([w.del!, keys[0]!]) : 0;
  };
}

function compareAndPexpire(w: Spelled, replyOne: boolean): Twin {
  return (keys, args, call) => {
    if (keys.length < 1 || args.length < 2) return undefined;
    const got = call([w.get!, keys[0]!]);
    if (isErrorReply(got)) return got;
    if (!equals(got, args[0])) return 0;
    const r = call([w.pexpire!, keys[0]!, args[1]!]);
    return replyOne && !isErrorReply(r) ? 1 : r;
  };
}

/** node-redlock's scripts; `at` is where the value and TTL sit in ARGV (v5 puts a db index first). */
function redlockAcquire(w: Spelled, at: number): Twin {
  return (keys, args, call) => {
    if (args.length < at + 2 || (at === 1 && !canonicalInt(args[0]))) return undefined;
    if (at === 1) call([w.select!, args[0]!]);
    for (const k of keys) {
      const r = call([w.exists!, k]);
      if (isErrorReply(r)) return r;
      if (r === 1) return 0;
    }
    return setEach(w, keys, args, at, call);
  };
}

/** node-redlock's second loop: SET each key to the value with the TTL; #KEYS, or the first error. */
function setEach(w: Spelled, keys: string[], args: string[], at: number, call: CallFn): ArgvReply {
  for (const k of keys) {
    const r = call([w.set!, k, args[at]!, w.px!, args[at + 1]!]);
    if (isErrorReply(r)) return r;
  }
  return keys.length;
}

function redlockExtend(w: Spelled, at: number): Twin {
  return (keys, args, call) => {
    if (args.length < at + 2 || (at === 1 && !canonicalInt(args[0]))) return undefined;
    if (at === 1) call([w.select!, args[0]!]);
    for (const k of keys) {
      const r = call([w.get!, k]);
      if (isErrorReply(r)) return r;
      if (!equals(r, args[at])) return 0;
    }
    return setEach(w, keys, args, at, call);
  };
}

function redlockRelease(w: Spelled, at: number): Twin {
  return (keys, args, call) => {
    if (at === 1 && !canonicalInt(args[0])) return undefined;
    if (at === 1) call([w.select!, args[0]!]);
    let count = 0;
    for (const k of keys) {
      const r = call([w.get!, k]);
      if (isErrorReply(r)) return r;
      if (equals(r, args[at])) {
        call([w.del!, k]);
        count++;
      }
    }
    return count;
  };
}

const SELECT = `redis.pcall("@select", tonumber(ARGV[1]))`;
const v4Acquire = (v: number, ttl: number) =>
  `for $i, $k in ipairs(KEYS) do if redis.call("@exists", $k) == 1 then return 0 end end for $i, $k in ipairs(KEYS) do redis.call("@set", $k, ARGV[${v}], "@px", ARGV[${ttl}]) end return #KEYS`;
const v4Extend = (v: number, ttl: number) =>
  `for $i, $k in ipairs(KEYS) do if redis.call("@get", $k) ~= ARGV[${v}] then return 0 end end for $i, $k in ipairs(KEYS) do redis.call("@set", $k, ARGV[${v}], "@px", ARGV[${ttl}]) end return #KEYS`;
const v4Release = (v: number) =>
  `local $c = 0 for $i, $k in ipairs(KEYS) do if redis.call("@get", $k) == ARGV[${v}] then redis.pcall("@del", $k) $c = $c + 1 end end return $c`;

/** The templates, in Lua with placeholders (see match), and the twin each stands for. */
const TEMPLATES: Array<{ name: string; lua: string; twin: (w: Spelled) => Twin }> = [
  {
    name: "compare-and-delete",
    lua: `if redis.call("@get", KEYS[1]) == ARGV[1] then return redis.call("@del", KEYS[1]) else return 0 end`,
    twin: compareAndDelete,
  },
  {
    name: "compare-and-delete (locals)",
    lua: `local $k = KEYS[1] local $v = ARGV[1] if redis.call("@get", $k) == $v then return redis.call("@del", $k) end return 0`,
    twin: compareAndDelete,
  },
  {
    name: "compare-and-delete (locals, value first)",
    lua: `local $k = KEYS[1] local $v = ARGV[1] local $g = redis.call("@get", $k) if $g == $v then return redis.call("@del", $k) end return 0`,
    twin: compareAndDelete,
  },
  {
    name: "compare-and-pexpire",
    lua: `if redis.call("@get", KEYS[1]) == ARGV[1] then return redis.call("@pexpire", KEYS[1], ARGV[2]) else return 0 end`,
    twin: (w) => compareAndPexpire(w, false),
  },
  {
    name: "compare-and-pexpire (locals, reply 1)",
    lua: `local $k = KEYS[1] local $v = ARGV[1] local $t = ARGV[2] local $g = redis.call("@get", $k) if $g == $v then redis.call("@pexpire", $k, $t) return 1 end return 0`,
    twin: (w) => compareAndPexpire(w, true),
  },
  { name: "node-redlock v4 acquire", lua: v4Acquire(1, 2), twin: (w) => redlockAcquire(w, 0) },
  { name: "node-redlock v4 extend", lua: v4Extend(1, 2), twin: (w) => redlockExtend(w, 0) },
  { name: "node-redlock v4 release", lua: v4Release(1), twin: (w) => redlockRelease(w, 0) },
  { name: "node-redlock v5 acquire", lua: `${SELECT} ${v4Acquire(2, 3)}`, twin: (w) => redlockAcquire(w, 1) },
  { name: "node-redlock v5 extend", lua: `${SELECT} ${v4Extend(2, 3)}`, twin: (w) => redlockExtend(w, 1) },
  { name: "node-redlock v5 release", lua: `${SELECT} ${v4Release(2)}`, twin: (w) => redlockRelease(w, 1) },
];

const COMPILED = TEMPLATES.map((t) => ({ ...t, tokens: luaTokens(t.lua)! }));

/** The twin of a script's source, with the template's name, or undefined: run the Lua. */
export function twinOf(source: string): { name: string; twin: Twin } | undefined {
  const tokens = luaTokens(source);
  if (tokens === undefined) return undefined;
  for (const t of COMPILED) {
    const spelled = match(tokens, t.tokens);
    if (spelled) return { name: t.name, twin: t.twin(spelled) };
  }
  return undefined;
}

/** The templates' own Lua (for tests that hold each twin against fengari). */
export const TWIN_TEMPLATES: ReadonlyArray<{ name: string; lua: string }> = TEMPLATES.map(({ name, lua }) => ({ name, lua }));
