/**
 * Real Lua for the simulated Redis: EVAL/EVALSHA run the library's own script in
 * fengari (a Lua VM written in JS), with `redis.call`/`redis.pcall` bound to the node's
 * keyspace at the script's start time, as Redis freezes time for a script.
 *
 * Redis runs Lua 5.1; fengari is 5.3. Shimmed: `unpack`, `table.getn`, `loadstring`;
 * numbers passed to redis.call print as 5.1 prints them ("10", not "10.0"). Left out,
 * as Redis leaves them out: io, os (but os.clock), package, debug, dofile, loadfile.
 * Not provided: cjson, cmsgpack, struct, bit (a script that uses them fails loudly).
 * math.random is reseeded before every script, as Redis does, so scripts stay
 * deterministic; fengari's table.sort draws pivots from Math.random, which is made
 * seeded for the script's duration.
 *
 * Reply conversion follows the Redis docs (EVAL "Conversion between Lua and Redis
 * data types"): integer <-> number (truncated), bulk <-> string, nil bulk -> false,
 * status -> {ok=...}, error -> {err=...}, array <-> table (up to the first nil),
 * Lua true -> 1, false/nil -> nil.
 */
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import type fengariApi from "fengari";
import { isErrorReply, type ArgvReply } from "./argv-reply.js";
import { twinOf, type Twin } from "./script-twins.js";

// fengari is loaded when the first script is compiled (the engine below), not with this
// module: most runs use no Lua, and loading it costs every process and sweep thread ~45 ms.
// require() is synchronous, so SCRIPT LOAD / EVAL keep their order and replies.
let lua: typeof fengariApi.lua;
let lauxlib: typeof fengariApi.lauxlib;
let lualib: typeof fengariApi.lualib;
let to_luastring: typeof fengariApi.to_luastring;

function loadFengari(): void {
  if (lua !== undefined) return;
  const fengari = createRequire(import.meta.url)("fengari") as typeof fengariApi;
  ({ lua, lauxlib, lualib, to_luastring } = fengari);
}

/** Instructions a script may run before it is stopped (Redis would report BUSY). */
const SCRIPT_INSTRUCTIONS_MAX = 200_000_000;
const HOOK_EVERY = 100_000;

export function sha1Hex(s: string): string {
  return createHash("sha1").update(s).digest("hex");
}

type CallFn = (argv: string[]) => ArgvReply;

/**
 * One Lua VM per lockstep process, shared by every simulated node: compiling a library's
 * scripts once, not once per node per run, is most of the cost of real Lua. What each
 * node knows (its script cache, lost on restart) is a ScriptCache. Scripts cannot leave
 * state behind between calls: globals are read-only, as Redis 7 makes them.
 */
class LuaEngine {
  private readonly L: any;
  private readonly compiled = new Set<string>();
  /** Each source's sha, computed once: EVAL sends the source on every call. Bounded by the scripts seen. */
  private readonly shas = new Map<string, string>();
  private call: CallFn | null = null;
  private hooks = 0;

  constructor() {
    loadFengari();
    const L = lauxlib.luaL_newstate();
    this.L = L;
    const open = (name: string, fn: unknown): void => {
      lauxlib.luaL_requiref(L, to_luastring(name), fn, 1);
      lua.lua_pop(L, 1);
    };
    open("_G", lualib.luaopen_base);
    open("table", lualib.luaopen_table);
    open("string", lualib.luaopen_string);
    open("math", lualib.luaopen_math);
    for (const g of ["print", "dofile", "loadfile", "require"]) {
      lua.lua_pushnil(L);
      lua.lua_setglobal(L, to_luastring(g));
    }
    lua.lua_getglobal(L, to_luastring("math"));
    lua.lua_getfield(L, -1, to_luastring("randomseed"));
    lua.lua_setfield(L, lua.LUA_REGISTRYINDEX, to_luastring("reseed"));
    lua.lua_pop(L, 1);
    this.run51Shims();
    this.installRedisTable();
    this.protectGlobals();
    lua.lua_sethook(
      L,
      () => {
        if (++this.hooks * HOOK_EVERY > SCRIPT_INSTRUCTIONS_MAX) lauxlib.luaL_error(L, to_luastring("script ran too long (BUSY)"));
      },
      lua.LUA_MASKCOUNT,
      HOOK_EVERY,
    );
  }

  private run51Shims(): void {
    const src = "unpack = table.unpack; table.getn = function(t) return #t end; loadstring = load; " + "os = { clock = function() return 0 end }";
    if (lauxlib.luaL_dostring(this.L, to_luastring(src)) !== lua.LUA_OK) throw new Error("lua shims failed");
  }

  private protectGlobals(): void {
    const src =
      "setmetatable(_G, { __newindex = function(_, k) error('Script attempted to create global variable \\'' .. tostring(k) .. '\\'', 2) end, " +
      "__index = function(_, k) error('Script attempted to access nonexistent global variable \\'' .. tostring(k) .. '\\'', 2) end })";
    if (lauxlib.luaL_dostring(this.L, to_luastring(src)) !== lua.LUA_OK) throw new Error("lua global protection failed");
  }

  private installRedisTable(): void {
    const L = this.L;
    lua.lua_createtable(L, 0, 12);
    const fn = (name: string, f: (L: unknown) => number): void => {
      lua.lua_pushjsfunction(L, f);
      lua.lua_setfield(L, -2, to_luastring(name));
    };
    fn("call", (l) => this.redisCall(l, true));
    fn("pcall", (l) => this.redisCall(l, false));
    fn("sha1hex", (l) => {
      lua.lua_pushstring(l, to_luastring(sha1Hex(lauxlib.luaL_checkstring(l, 1) ? lua.lua_tojsstring(l, 1) : "")));
      return 1;
    });
    fn("status_reply", (l) => {
      lua.lua_createtable(l, 0, 1);
      lua.lua_pushvalue(l, 1);
      lua.lua_setfield(l, -2, to_luastring("ok"));
      return 1;
    });
    fn("error_reply", (l) => {
      lua.lua_createtable(l, 0, 1);
      lua.lua_pushvalue(l, 1);
      lua.lua_setfield(l, -2, to_luastring("err"));
      return 1;
    });
    fn("log", () => 0);
    fn("setresp", () => 0);
    fn("replicate_commands", (l) => {
      lua.lua_pushboolean(l, true);
      return 1;
    });
    fn("set_repl", () => 0);
    for (const [k, v] of [
      ["LOG_DEBUG", 0],
      ["LOG_VERBOSE", 1],
      ["LOG_NOTICE", 2],
      ["LOG_WARNING", 3],
    ] as const) {
      lua.lua_pushinteger(L, v);
      lua.lua_setfield(L, -2, to_luastring(k));
    }
    lua.lua_setglobal(L, to_luastring("redis"));
  }

  private redisCall(L: unknown, raise: boolean): number {
    const n = lua.lua_gettop(L);
    if (n === 0) return lauxlib.luaL_error(L, to_luastring("Please specify at least one argument for this redis lib call"));
    const argv: string[] = [];
    for (let i = 1; i <= n; i++) {
      const t = lua.lua_type(L, i);
      if (t === lua.LUA_TSTRING) argv.push(lua.lua_tojsstring(L, i));
      else if (t === lua.LUA_TNUMBER) argv.push(lua51Number(lua.lua_tonumber(L, i)));
      else return lauxlib.luaL_error(L, to_luastring("Lua redis lib command arguments must be strings or integers"));
    }
    const reply = this.call ? this.call(argv) : { error: "ERR redis.call outside a script" };
    if (raise && isErrorReply(reply)) {
      pushReply(L, reply);
      return lua.lua_error(L);
    }
    pushReply(L, reply);
    return 1;
  }

  /** Compile once per lockstep process; the sha or a compile error. */
  compile(source: string): { sha: string } | { error: string } {
    const sha = this.shaOf(source);
    if (this.compiled.has(sha)) return { sha };
    const L = this.L;
    const status = lauxlib.luaL_loadbuffer(L, to_luastring(source), null, to_luastring("@user_script"));
    if (status !== lua.LUA_OK) {
      const msg = lua.lua_tojsstring(L, -1);
      lua.lua_settop(L, 0);
      return { error: `ERR Error compiling script (new function): ${msg}` };
    }
    lua.lua_setfield(L, lua.LUA_REGISTRYINDEX, to_luastring(`f_${sha}`));
    this.compiled.add(sha);
    return { sha };
  }

  private shaOf(source: string): string {
    let sha = this.shas.get(source);
    if (sha === undefined) {
      sha = sha1Hex(source);
      this.shas.set(source, sha);
    }
    return sha;
  }

  /** Run a compiled script with KEYS and ARGV; `call` executes redis.call's commands. */
  run(sha: string, keys: string[], args: string[], call: CallFn): ArgvReply {
    const L = this.L;
    lua.lua_settop(L, 0);
    lua.lua_getfield(L, lua.LUA_REGISTRYINDEX, luaKey(`f_${sha}`));
    setArrayGlobal(L, "KEYS", keys);
    setArrayGlobal(L, "ARGV", args);
    // The script's function was compiled with _G as its environment; KEYS/ARGV are set raw.
    lua.lua_getfield(L, lua.LUA_REGISTRYINDEX, luaKey("reseed"));
    lua.lua_pushinteger(L, 0);
    lua.lua_call(L, 1, 0);
    this.call = call;
    this.hooks = 0;
    // fengari's math.random reads Math.random: for the script's run it is the seeded
    // pivot (Redis 5's deterministic random for scripts), and the host's is put back after.
    /* eslint-disable no-restricted-properties */
    const hostRandom = Math.random;
    Math.random = pivotRandom(sha);
    let status: number;
    try {
      status = lua.lua_pcall(L, 0, 1, 0);
    } finally {
      Math.random = hostRandom;
      /* eslint-enable no-restricted-properties */
      this.call = null;
    }
    let reply: ArgvReply;
    if (status !== lua.LUA_OK) {
      // A redis.call error is re-raised as its {err=...} table; a Lua runtime error is a string.
      const e = toReply(L, -1);
      reply = isErrorReply(e) ? e : { error: `ERR ${typeof e === "string" ? e : "script error"} script: ${sha}` };
    } else {
      reply = toReply(L, -1);
    }
    lua.lua_settop(L, 0);
    return reply;
  }
}

/** A cheap seeded stream (mulberry32) for fengari's sort pivots: same script, same pivots. */
function pivotRandom(sha: string): () => number {
  let a = parseInt(sha.slice(0, 8), 16) >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let engine: LuaEngine | undefined;
/** Scripts with a JS twin (script-twins.ts), by sha; shared like the engine. */
const twins = new Map<string, Twin | null>();
/** How many script runs each path served, in this lockstep process (for tests and benches). */
export const scriptRuns = { twin: 0, lua: 0 };

/** A node's script cache (SCRIPT LOAD / EVAL): volatile, per node. */
export class LuaScripting {
  private readonly loaded = new Set<string>();

  /** `useTwins: false` runs every script in Lua (tests hold the twins against it). */
  constructor(private readonly useTwins = true) {}

  has(sha: string): boolean {
    return this.loaded.has(sha);
  }

  /** SCRIPT LOAD: compile (shared) and remember on this node. */
  load(source: string): { sha: string } | { error: string } {
    const r = (engine ??= new LuaEngine()).compile(source);
    if ("sha" in r) {
      this.loaded.add(r.sha);
      if (!twins.has(r.sha)) twins.set(r.sha, twinOf(source)?.twin ?? null);
    }
    return r;
  }

  flush(): void {
    this.loaded.clear();
  }

  run(sha: string, keys: string[], args: string[], call: CallFn): ArgvReply {
    if (!this.loaded.has(sha) || !engine) return { error: "NOSCRIPT No matching script. Please use EVAL." };
    const twin = this.useTwins ? twins.get(sha)?.(keys, args, call) : undefined;
    if (twin !== undefined) {
      scriptRuns.twin++;
      return twin;
    }
    scriptRuns.lua++;
    return engine.run(sha, keys, args, call);
  }
}

/** A Lua number as Lua 5.1's tostring prints it (%.14g). */
function lua51Number(x: number): string {
  if (Number.isInteger(x)) return String(x);
  return String(Number(x.toPrecision(14)));
}

/**
 * Lua strings for the engine's fixed names (registry keys, KEYS/ARGV, ok/err), encoded
 * once: encoding them on every script call was a visible part of a library run. Bounded
 * by the names used and the scripts compiled.
 */
const luaKeys = new Map<string, Uint8Array>();

function luaKey(name: string): Uint8Array {
  let k = luaKeys.get(name);
  if (!k) {
    k = to_luastring(name);
    luaKeys.set(name, k);
  }
  return k;
}

function setArrayGlobal(L: unknown, name: string, items: string[]): void {
  lua.lua_pushglobaltable(L);
  lua.lua_pushstring(L, luaKey(name));
  lua.lua_createtable(L, items.length, 0);
  items.forEach((s, i) => {
    lua.lua_pushstring(L, to_luastring(s));
    lua.lua_rawseti(L, -2, i + 1);
  });
  lua.lua_rawset(L, -3);
  lua.lua_pop(L, 1);
}

function pushReply(L: unknown, r: ArgvReply): void {
  if (r === null) lua.lua_pushboolean(L, false);
  else if (typeof r === "number") lua.lua_pushinteger(L, r);
  else if (typeof r === "string") lua.lua_pushstring(L, to_luastring(r));
  else if (Array.isArray(r)) {
    lua.lua_createtable(L, r.length, 0);
    r.forEach((x, i) => {
      pushReply(L, x);
      lua.lua_rawseti(L, -2, i + 1);
    });
  } else if ("status" in r) {
    lua.lua_createtable(L, 0, 1);
    lua.lua_pushstring(L, to_luastring(r.status));
    lua.lua_setfield(L, -2, luaKey("ok"));
  } else {
    lua.lua_createtable(L, 0, 1);
    lua.lua_pushstring(L, to_luastring(r.error));
    lua.lua_setfield(L, -2, luaKey("err"));
  }
}

function toReply(L: unknown, idx: number): ArgvReply {
  const i = lua.lua_absindex(L, idx);
  switch (lua.lua_type(L, i)) {
    case lua.LUA_TNUMBER:
      return Math.trunc(lua.lua_tonumber(L, i));
    case lua.LUA_TSTRING:
      return lua.lua_tojsstring(L, i);
    case lua.LUA_TBOOLEAN:
      return lua.lua_toboolean(L, i) ? 1 : null;
    case lua.LUA_TTABLE: {
      lua.lua_getfield(L, i, luaKey("err"));
      if (lua.lua_type(L, -1) === lua.LUA_TSTRING) {
        const error = lua.lua_tojsstring(L, -1);
        lua.lua_pop(L, 1);
        return { error };
      }
      lua.lua_pop(L, 1);
      lua.lua_getfield(L, i, luaKey("ok"));
      if (lua.lua_type(L, -1) === lua.LUA_TSTRING) {
        const status = lua.lua_tojsstring(L, -1);
        lua.lua_pop(L, 1);
        return { status };
      }
      lua.lua_pop(L, 1);
      const out: ArgvReply[] = [];
      for (let k = 1; ; k++) {
        lua.lua_rawgeti(L, i, k);
        if (lua.lua_type(L, -1) === lua.LUA_TNIL) {
          lua.lua_pop(L, 1);
          break;
        }
        out.push(toReply(L, -1));
        lua.lua_pop(L, 1);
      }
      return out;
    }
    default:
      return null;
  }
}
