/**
 * The simulated Redis's generic command path and real Lua: Redis 7's option handling,
 * replies and error texts; EVAL/EVALSHA/SCRIPT with Redis's type conversions; scripts
 * can't leave globals behind; an unmodelled command stops the run.
 */
import { describe, expect, it } from "vitest";
import { RedisStore } from "../../../services/redis/store.js";
import { executeArgv, UnsupportedCommandError, type ArgvEnv } from "../../../services/redis/argv.js";
import { LuaScripting, sha1Hex } from "../../../services/redis/lua.js";

function node(nowMs = 1_000_000) {
  const touched: string[] = [];
  const env: ArgvEnv = { store: new RedisStore(), nowMs, scripts: new LuaScripting(), readonly: false, touch: (k) => touched.push(k) };
  const run = (...argv: string[]) => executeArgv(argv, env);
  return { env, run, touched };
}

describe("argv commands", () => {
  it("SET NX PX, XX, GET, KEEPTTL and their replies", () => {
    const { env, run } = node();
    expect(run("SET", "k", "a", "NX", "PX", "1000")).toEqual({ status: "OK" });
    expect(run("SET", "k", "b", "NX", "PX", "1000")).toBeNull();
    expect(run("PTTL", "k")).toBe(1000);
    expect(run("SET", "k", "c", "XX", "GET", "KEEPTTL")).toBe("a");
    expect(run("GET", "k")).toBe("c");
    expect(run("PTTL", "k")).toBe(1000);
    expect(run("SET", "missing", "x", "XX")).toBeNull();
    env.nowMs += 1000;
    expect(run("GET", "k")).toBeNull();
    expect(run("EXISTS", "k")).toBe(0);
  });

  it("SETNX, and GETSET: the old value back, the new one set without an expiry", () => {
    const { run, touched } = node();
    expect(run("SETNX", "k", "1")).toBe(1);
    expect(run("SETNX", "k", "2")).toBe(0);
    expect(run("PEXPIRE", "k", "500")).toBe(1);
    expect(run("GETSET", "k", "3")).toBe("1");
    expect(run("GET", "k")).toBe("3");
    expect(run("PTTL", "k")).toBe(-1);
    expect(run("GETSET", "new", "x")).toBeNull();
    expect(run("GETSET", "k")).toEqual({ error: "ERR wrong number of arguments for 'getset' command" });
    expect(touched).toContain("new");
  });

  it("refuses bad input with Redis's error texts", () => {
    const { run } = node();
    expect(run("SET", "k", "v", "PX", "0")).toEqual({ error: "ERR invalid expire time in 'set' command" });
    expect(run("SET", "k", "v", "PX", "soon")).toEqual({ error: "ERR value is not an integer or out of range" });
    expect(run("SET", "k", "v", "NX", "XX")).toEqual({ error: "ERR syntax error" });
    expect(run("GET")).toEqual({ error: "ERR wrong number of arguments for 'get' command" });
    run("SET", "s", "text");
    expect(run("INCR", "s")).toEqual({ error: "ERR value is not an integer or out of range" });
  });

  it("DEL, PEXPIRE, INCR/DECRBY keep Redis's counts and TTL rules; writes are reported", () => {
    const { run, touched } = node();
    run("SET", "a", "1", "PX", "500");
    expect(run("INCR", "a")).toBe(2);
    expect(run("PTTL", "a")).toBe(500); // INCR keeps the TTL
    expect(run("DECRBY", "a", "5")).toBe(-3);
    expect(run("PEXPIRE", "a", "2000")).toBe(1);
    expect(run("PEXPIRE", "nope", "2000")).toBe(0);
    expect(run("DEL", "a", "b")).toBe(1);
    expect(touched).toEqual(["a", "a", "a", "a", "a"]);
  });

  it("a command the model lacks stops the run, named", () => {
    const { run } = node();
    expect(() => run("HSET", "h", "f", "v")).toThrow(UnsupportedCommandError);
    expect(() => run("HSET", "h", "f", "v")).toThrow(/HSET/);
  });

  it("a replica refuses writes, and so does a script's write on it", () => {
    const { env, run } = node();
    env.readonly = true;
    expect(run("SET", "k", "v")).toEqual({ error: "READONLY You can't write against a read only replica." });
    expect(run("EVAL", "return redis.call('SET', KEYS[1], 'v')", "1", "k")).toEqual({ error: "READONLY You can't write against a read only replica." });
  });
});

describe("Lua scripting (fengari)", () => {
  it("converts replies as Redis does: integers, bulk, nil -> false, status, arrays, booleans", () => {
    const { run } = node();
    run("SET", "k", "v");
    expect(run("EVAL", "return 7.9", "0")).toBe(7);
    expect(run("EVAL", "return redis.call('GET', KEYS[1])", "1", "k")).toBe("v");
    expect(run("EVAL", "return redis.call('GET', 'nothing') == false", "0")).toBe(1);
    expect(run("EVAL", "return redis.call('SET', 'x', 'y')", "0")).toEqual({ status: "OK" });
    expect(run("EVAL", "return {1, 'two', {3}, nil, 5}", "0")).toEqual([1, "two", [3]]);
    expect(run("EVAL", "return false", "0")).toBeNull();
    expect(run("EVAL", "return redis.status_reply('PONG')", "0")).toEqual({ status: "PONG" });
    expect(run("EVAL", "return redis.error_reply('MY error')", "0")).toEqual({ error: "MY error" });
  });

  it("runs the seeds' compare-and-delete with KEYS/ARGV, numbers printed as Lua 5.1 prints them", () => {
    const { run } = node();
    const cad = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
    run("SET", "lock", "me", "PX", "1000");
    expect(run("EVAL", cad, "1", "lock", "you")).toBe(0);
    expect(run("EVAL", cad, "1", "lock", "me")).toBe(1);
    expect(run("EVAL", "redis.call('SET', 'n', 10); redis.call('PEXPIRE', 'n', 2.0 * 500); return redis.call('GET', 'n')", "0")).toBe("10");
    expect(run("PTTL", "n")).toBe(1000);
    expect(run("EVAL", "return unpack({4, 5})", "0")).toBe(4);
  });

  it("EVALSHA answers NOSCRIPT until the script is loaded on this node; SCRIPT LOAD/EXISTS/FLUSH", () => {
    const a = node();
    const b = node();
    const src = "return ARGV[1]";
    const sha = sha1Hex(src);
    expect(a.run("EVALSHA", sha, "0", "x")).toEqual({ error: "NOSCRIPT No matching script. Please use EVAL." });
    expect(a.run("SCRIPT", "LOAD", src)).toBe(sha);
    expect(a.run("EVALSHA", sha, "0", "x")).toBe("x");
    expect(a.run("SCRIPT", "EXISTS", sha, "0".repeat(40))).toEqual([1, 0]);
    // Another node (or this one after a restart: a new cache) has not seen it.
    expect(b.run("EVALSHA", sha, "0", "x")).toEqual({ error: "NOSCRIPT No matching script. Please use EVAL." });
    a.run("SCRIPT", "FLUSH");
    expect(a.run("EVALSHA", sha, "0", "x")).toEqual({ error: "NOSCRIPT No matching script. Please use EVAL." });
  });

  it("errors: redis.call raises, redis.pcall returns the error; compile and runtime errors are ERR replies", () => {
    const { run } = node();
    run("SET", "s", "text");
    expect(run("EVAL", "return redis.call('INCR', 's')", "0")).toEqual({ error: "ERR value is not an integer or out of range" });
    expect(run("EVAL", "local r = redis.pcall('INCR', 's'); return r['err']", "0")).toBe("ERR value is not an integer or out of range");
    expect(run("EVAL", "return (", "0")).toMatchObject({ error: expect.stringMatching(/^ERR Error compiling script/) });
    expect(run("EVAL", "local t = nil; return t.x", "0")).toMatchObject({ error: expect.stringMatching(/^ERR .*attempt to index/) });
    expect(run("EVAL", "return redis.call('EVAL', 'return 1', '0')", "0")).toEqual({ error: "ERR This Redis command is not allowed from script" });
  });

  it("scripts cannot leave globals behind (the VM is shared by every node), and math.random is reseeded per script", () => {
    const { run } = node();
    expect(run("EVAL", "leak = 1; return 1", "0")).toMatchObject({ error: expect.stringContaining("Script attempted to create global variable 'leak'") });
    expect(run("EVAL", "return type(leak)", "0")).toMatchObject({ error: expect.stringContaining("nonexistent global variable 'leak'") });
    const r1 = run("EVAL", "return tostring(math.random())", "0");
    const r2 = run("EVAL", "return tostring(math.random())", "0");
    expect(r1).toBe(r2);
    expect(typeof r1).toBe("string");
  });
});
