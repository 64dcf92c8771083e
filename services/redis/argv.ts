/**
 * The generic command path of the simulated Redis: commands as argv arrays, the way a
 * real client library sends them, executed on the node's keyspace (store.ts) with
 * Redis 7's semantics and error texts. Lockstep's own designs keep their typed
 * commands (commands.ts); real libraries run in the sandbox speak argv.
 *
 * A command real Redis has but this model does not is not answered with an error a
 * library might swallow: it stops the run with UnsupportedCommandError, naming it.
 */
import { SimulationStopError } from "../../sim/errors.js";
import { OK, type ArgvReply } from "./argv-reply.js";
import type { LuaScripting } from "./lua.js";
import { sha1Hex } from "./lua.js";
import type { Entry, RedisStore } from "./store.js";

export class UnsupportedCommandError extends SimulationStopError {
  constructor(readonly command: string) {
    super(`the simulated Redis does not implement ${command} (lockstep models the string, expiry, scripting and transaction commands lock libraries use)`);
    this.name = "UnsupportedCommandError";
  }
}

export interface ArgvEnv {
  store: RedisStore;
  /** The node's wall clock, ms; frozen for the length of a script, as Redis does. */
  nowMs: number;
  scripts: LuaScripting;
  /** A replica refuses writes. */
  readonly: boolean;
  /** Called before a key is changed (the server logs changed keys to AOF and replicas). */
  touch(key: string): void;
}

const WRITES = new Set([
  "SET",
  "SETNX",
  "SETEX",
  "PSETEX",
  "GETDEL",
  "GETSET",
  "DEL",
  "UNLINK",
  "EXPIRE",
  "PEXPIRE",
  "PEXPIREAT",
  "EXPIREAT",
  "PERSIST",
  "INCR",
  "INCRBY",
  "DECR",
  "DECRBY",
]);

const err = (m: string): ArgvReply => ({ error: m });
const SYNTAX = err("ERR syntax error");
const NOT_INT = err("ERR value is not an integer or out of range");
const wrongArgs = (name: string): ArgvReply => err(`ERR wrong number of arguments for '${name.toLowerCase()}' command`);

function int(s: string | undefined): number | undefined {
  if (s === undefined || !/^-?\d+$/.test(s)) return undefined;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Whether argv changes the data set (for the replica check and the write log). */
export function isWriteArgv(argv: readonly string[]): boolean {
  return WRITES.has((argv[0] ?? "").toUpperCase());
}

/** One command's surroundings: the node, its frozen clock, and how a key is written. */
interface Call {
  env: ArgvEnv;
  store: RedisStore;
  now: number;
  put(key: string, entry: Entry | null): void;
  inScript: boolean;
}

/** Execute one command. `inScript`: called by redis.call (no scripting commands there). */
export function executeArgv(argv: readonly string[], env: ArgvEnv, inScript = false): ArgvReply {
  if (argv.length === 0) return err("ERR empty command");
  const name = argv[0].toUpperCase();
  const a = argv.slice(1);
  if (env.readonly && WRITES.has(name)) return err("READONLY You can't write against a read only replica.");
  const { store } = env;
  const c: Call = {
    env,
    store,
    now: env.nowMs,
    put: (key, entry) => {
      env.touch(key);
      store.write(key, entry);
    },
    inScript,
  };
  switch (name) {
    case "PING":
      return a.length === 0 ? { status: "PONG" } : a[0];
    case "ECHO":
      return a.length === 1 ? a[0] : wrongArgs(name);
    case "SELECT":
      return a[0] === "0" ? OK : err("ERR DB index is out of range");
    case "CLIENT":
    case "READONLY":
    case "QUIT":
      return OK;
    case "TIME": {
      const us = Math.floor(c.now * 1000);
      return [String(Math.floor(us / 1e6)), String(us % 1e6)];
    }
    case "GET":
      return a.length === 1 ? (store.read(a[0], c.now)?.value ?? null) : wrongArgs(name);
    case "EXISTS":
      return a.length === 0 ? wrongArgs(name) : a.filter((k) => store.read(k, c.now) !== undefined).length;
    case "DBSIZE":
      return store.liveCount(c.now);
    default:
      return executeWrite(name, a, c);
  }
}

/** The commands that write keys or run scripts (SCRIPT, EVAL and friends). */
function executeWrite(name: string, a: string[], c: Call): ArgvReply {
  const { env, inScript } = c;
  switch (name) {
    case "SET":
      return set(a, env, c.put);
    case "SETNX":
      return setnx(a, c);
    case "SETEX":
    case "PSETEX":
      return setex(name, a, c);
    case "GETSET":
      return getset(a, c);
    case "GETDEL":
      return getdel(a, c);
    case "DEL":
    case "UNLINK":
      return del(name, a, c);
    case "EXPIRE":
    case "PEXPIRE":
    case "EXPIREAT":
    case "PEXPIREAT":
      return expire(name, a, c);
    case "PERSIST":
      return persist(a, c);
    case "TTL":
    case "PTTL":
      return ttl(name, a, c);
    case "INCR":
    case "DECR":
    case "INCRBY":
    case "DECRBY":
      return incr(name, a, c);
    case "SCRIPT":
      return inScript ? err("ERR This Redis command is not allowed from script") : script(a, env);
    case "EVAL":
    case "EVALSHA":
    case "EVAL_RO":
    case "EVALSHA_RO":
      return evalScript(name, a, c);
    default:
      throw new UnsupportedCommandError(name);
  }
}

function setnx(a: string[], c: Call): ArgvReply {
  if (a.length !== 2) return wrongArgs("SETNX");
  if (c.store.read(a[0], c.now)) return 0;
  c.put(a[0], { value: a[1] });
  return 1;
}

function setex(name: string, a: string[], c: Call): ArgvReply {
  if (a.length !== 3) return wrongArgs(name);
  const t = int(a[1]);
  if (t === undefined) return NOT_INT;
  if (t <= 0) return err(`ERR invalid expire time in '${name.toLowerCase()}' command`);
  c.put(a[0], { value: a[2], expireAtMs: c.now + (name === "SETEX" ? t * 1000 : t) });
  return OK;
}

/** GETSET key value: the old value (nil if none); the new value has no expiry, as SET without PX. */
function getset(a: string[], c: Call): ArgvReply {
  if (a.length !== 2) return wrongArgs("GETSET");
  const e = c.store.read(a[0], c.now);
  c.put(a[0], { value: a[1] });
  return e ? e.value : null;
}

function getdel(a: string[], c: Call): ArgvReply {
  if (a.length !== 1) return wrongArgs("GETDEL");
  const e = c.store.read(a[0], c.now);
  if (!e) return null;
  c.put(a[0], null);
  return e.value;
}

function del(name: string, a: string[], c: Call): ArgvReply {
  if (a.length === 0) return wrongArgs(name);
  let n = 0;
  for (const k of a) {
    if (c.store.read(k, c.now)) {
      c.put(k, null);
      n++;
    }
  }
  return n;
}

/** EXPIRE / PEXPIRE / EXPIREAT / PEXPIREAT key t [NX|XX|GT|LT] */
function expire(name: string, a: string[], c: Call): ArgvReply {
  if (a.length < 2) return wrongArgs(name);
  const t = int(a[1]);
  if (t === undefined) return NOT_INT;
  const e = c.store.read(a[0], c.now);
  if (!e) return 0;
  const cond = (a[2] ?? "").toUpperCase();
  const at = name === "EXPIRE" ? c.now + t * 1000 : name === "PEXPIRE" ? c.now + t : name === "EXPIREAT" ? t * 1000 : t;
  if (cond === "NX" && e.expireAtMs !== undefined) return 0;
  if (cond === "XX" && e.expireAtMs === undefined) return 0;
  if (cond === "GT" && (e.expireAtMs === undefined || at <= e.expireAtMs)) return 0;
  if (cond === "LT" && e.expireAtMs !== undefined && at >= e.expireAtMs) return 0;
  if (cond !== "" && !["NX", "XX", "GT", "LT"].includes(cond)) return err(`ERR Unsupported option ${a[2]}`);
  c.put(a[0], at <= c.now ? null : { value: e.value, expireAtMs: at });
  return 1;
}

function persist(a: string[], c: Call): ArgvReply {
  const e = a.length === 1 ? c.store.read(a[0], c.now) : undefined;
  if (!e || e.expireAtMs === undefined) return 0;
  c.put(a[0], { value: e.value });
  return 1;
}

function ttl(name: string, a: string[], c: Call): ArgvReply {
  if (a.length !== 1) return wrongArgs(name);
  const e = c.store.read(a[0], c.now);
  if (!e) return -2;
  if (e.expireAtMs === undefined) return -1;
  const ms = e.expireAtMs - c.now;
  return name === "PTTL" ? Math.round(ms) : Math.round(ms / 1000);
}

function incr(name: string, a: string[], c: Call): ArgvReply {
  const by = name === "INCR" || name === "DECR" ? 1 : int(a[1]);
  if (a.length !== (name.endsWith("BY") ? 2 : 1)) return wrongArgs(name);
  if (by === undefined) return NOT_INT;
  const e = c.store.read(a[0], c.now);
  const cur = e ? int(e.value) : 0;
  if (cur === undefined) return NOT_INT;
  const v = name.startsWith("DECR") ? cur - by : cur + by;
  c.put(a[0], { value: String(v), expireAtMs: e?.expireAtMs });
  return v;
}

/** EVAL / EVALSHA (and their _RO forms) script numkeys key... arg... */
function evalScript(name: string, a: string[], c: Call): ArgvReply {
  if (c.inScript) return err("ERR This Redis command is not allowed from script");
  if (a.length < 2) return wrongArgs(name);
  const numKeys = int(a[1]);
  if (numKeys === undefined) return NOT_INT;
  if (numKeys < 0) return err("ERR Number of keys can't be negative");
  if (numKeys > a.length - 2) return err("ERR Number of keys can't be greater than number of args");
  let sha: string;
  if (name.startsWith("EVALSHA")) sha = a[0].toLowerCase();
  else {
    const loaded = c.env.scripts.load(a[0]);
    if ("error" in loaded) return { error: loaded.error };
    sha = loaded.sha;
  }
  const readOnly = name.endsWith("_RO");
  return c.env.scripts.run(sha, a.slice(2, 2 + numKeys), a.slice(2 + numKeys), (inner) => {
    if (readOnly && isWriteArgv(inner)) return err("ERR Write commands are not allowed from read-only scripts.");
    return executeArgv(inner, c.env, true);
  });
}

/** SET key value [NX|XX] [GET] [EX s|PX ms|EXAT s|PXAT ms|KEEPTTL] */
function set(a: string[], env: ArgvEnv, put: (k: string, e: Entry | null) => void): ArgvReply {
  if (a.length < 2) return wrongArgs("SET");
  const [key, value] = a;
  let nx = false;
  let xx = false;
  let get = false;
  let keepTtl = false;
  let expireAtMs: number | undefined;
  let expirySeen = false;
  for (let i = 2; i < a.length; i++) {
    const opt = a[i].toUpperCase();
    if (opt === "NX" && !xx) nx = true;
    else if (opt === "XX" && !nx) xx = true;
    else if (opt === "GET") get = true;
    else if (opt === "KEEPTTL" && !expirySeen) keepTtl = expirySeen = true;
    else if ((opt === "EX" || opt === "PX" || opt === "EXAT" || opt === "PXAT") && !expirySeen && i + 1 < a.length) {
      const t = int(a[++i]);
      if (t === undefined) return NOT_INT;
      if (t <= 0) return err("ERR invalid expire time in 'set' command");
      expireAtMs = opt === "EX" ? env.nowMs + t * 1000 : opt === "PX" ? env.nowMs + t : opt === "EXAT" ? t * 1000 : t;
      expirySeen = true;
    } else return SYNTAX;
  }
  const old = env.store.read(key, env.nowMs);
  const reply = (ok: boolean): ArgvReply => (get ? (old?.value ?? null) : ok ? OK : null);
  if ((nx && old) || (xx && !old)) return reply(false);
  put(key, { value, expireAtMs: keepTtl ? old?.expireAtMs : expireAtMs });
  return reply(true);
}

function script(a: string[], env: ArgvEnv): ArgvReply {
  const sub = (a[0] ?? "").toUpperCase();
  switch (sub) {
    case "LOAD": {
      if (a.length !== 2) return wrongArgs("SCRIPT|LOAD");
      const r = env.scripts.load(a[1]);
      return "error" in r ? { error: r.error } : r.sha;
    }
    case "EXISTS":
      return a.slice(1).map((sha) => (env.scripts.has(sha.toLowerCase()) ? 1 : 0));
    case "FLUSH":
      env.scripts.flush();
      return OK;
    default:
      throw new UnsupportedCommandError(`SCRIPT ${sub}`);
  }
}

/** MULTI ... EXEC as one atomic batch: every command's reply, errors in place (Redis does not roll back). */
export function executeBatch(batch: readonly (readonly string[])[], env: ArgvEnv): ArgvReply {
  return batch.map((argv) => executeArgv(argv, env));
}

export { sha1Hex };
