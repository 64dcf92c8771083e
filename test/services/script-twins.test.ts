/**
 * The JS twins of common lock scripts (services/redis/script-twins.ts) against fengari:
 * for every template, spelled several ways, on random stores, keys and arguments, the
 * reply, the keys written and the store after are the same as the Lua's.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { RedisStore } from "../../services/redis/store.js";
import { executeArgv, type ArgvEnv } from "../../services/redis/argv.js";
import { LuaScripting, scriptRuns } from "../../services/redis/lua.js";
import { loadScenario } from "../../scenarios/index.js";
import { withLibrary } from "../../scenarios/with-library.js";
import { runScenario } from "../../harness/runner.js";
import { luaTokens, twinOf, TWIN_TEMPLATES } from "../../services/redis/script-twins.js";

/** A template as a library might write it: names for placeholders, a command case, its own layout. */
function spell(lua: string, upper: boolean, names: string[]): string {
  let i = 0;
  const bound = new Map<string, string>();
  return lua
    .replace(/"@(\w+)"/g, (_, c: string) => (upper ? `'${c.toUpperCase()}'` : `"${c}"`))
    .replace(/\$\w+/g, (p) => {
      if (!bound.has(p)) bound.set(p, names[i++]!);
      return bound.get(p)!;
    })
    .replace(/ (then|do|end|return|local)\b/g, "\n  $1")
    .concat("\n-- done\n");
}

const NAMES = ["key", "value", "ttl", "got", "count"];

function node(useTwins: boolean) {
  const touched: string[] = [];
  const env: ArgvEnv = { store: new RedisStore(), nowMs: 1_000_000, scripts: new LuaScripting(useTwins), readonly: false, touch: (k) => touched.push(k) };
  return { env, touched, run: (...argv: string[]) => executeArgv(argv, env) };
}

const KEYS = ["k1", "k2", "k3"];
const VALUES = ["a", "b", "0", "1000", "-5", "1.5", "x y", ""];

describe("script twins", () => {
  it("every template, spelled as libraries spell it, is twinned; near misses are not", () => {
    for (const t of TWIN_TEMPLATES) {
      for (const upper of [false, true]) expect(twinOf(spell(t.lua, upper, NAMES))?.name).toBe(t.name);
    }
    const cad = TWIN_TEMPLATES.find((t) => t.name === "compare-and-delete")!;
    const plain = spell(cad.lua, false, NAMES);
    expect(twinOf(plain.replace("==", "~="))).toBeUndefined();
    expect(twinOf(plain.replace("ARGV[1]", "ARGV[2]"))).toBeUndefined();
    expect(twinOf(`redis.call("set", "x", "1") ${plain}`)).toBeUndefined();
    expect(twinOf(plain.replace('"del"', '"unlink"'))).toBeUndefined();
    expect(luaTokens("return [[long string]]")).toBeUndefined();
    expect(luaTokens('return "esc\\"aped"')).toBeUndefined();
    // Two placeholders may not name the same local: that would be another script.
    const locals = TWIN_TEMPLATES.find((t) => t.name === "compare-and-delete (locals)")!;
    expect(twinOf(spell(locals.lua, false, ["key", "key"]))).toBeUndefined();
  });

  it("each twin gives the Lua's reply, writes and store on random stores and inputs", () => {
    const arb = fc.record({
      template: fc.integer({ min: 0, max: TWIN_TEMPLATES.length - 1 }),
      upper: fc.boolean(),
      store: fc.array(fc.tuple(fc.constantFrom(...KEYS), fc.constantFrom(...VALUES), fc.option(fc.integer({ min: 1, max: 5000 }))), { maxLength: 3 }),
      keys: fc.array(fc.constantFrom(...KEYS), { maxLength: 3 }),
      args: fc.array(fc.constantFrom(...VALUES), { maxLength: 4 }),
      dbFirst: fc.boolean(),
    });
    let twinned = 0;
    fc.assert(
      fc.property(arb, (c) => {
        const source = spell(TWIN_TEMPLATES[c.template]!.lua, c.upper, NAMES);
        const args = c.dbFirst ? ["0", ...c.args] : c.args;
        const sides = [node(true), node(false)].map((n) => {
          for (const [k, v, ttl] of c.store) n.run("SET", k, v, ...(ttl === null ? [] : ["PX", String(ttl)]));
          n.touched.length = 0;
          const reply = n.run("EVAL", source, String(c.keys.length), ...c.keys, ...args);
          const after = KEYS.map((k) => [n.run("GET", k), n.run("PTTL", k)]);
          return { reply, touched: [...n.touched], after };
        });
        expect(sides[0]).toEqual(sides[1]);
        if (twinOf(source)!.twin(c.keys, args, () => null) !== undefined) twinned++;
      }),
      { seed: 11, numRuns: 600 },
    );
    // The property must have exercised the twins, not only the Lua fallback.
    expect(twinned).toBeGreaterThan(300);
  });
});

describe("the libraries' own scripts", () => {
  it("every script the shipped adapters and examples/my-lock send runs as a twin", () => {
    const runs: Record<string, { twin: number; lua: number }> = {};
    const cases: Array<[string, string]> = [
      ["redlock-gc-pause", "redlock-v4"],
      ["redlock-gc-pause", "redlock-v5"],
      ["redlock-baseline", "redis-semaphore-redlock"],
      ["naive-gc-pause", "redis-semaphore"],
      ["naive-gc-pause", "node-redis-warlock"],
      ["naive-gc-pause", "setnx-reference"],
      ["naive-gc-pause", "examples/my-lock/adapter.ts"],
    ];
    for (const [scenario, lock] of cases) {
      scriptRuns.twin = scriptRuns.lua = 0;
      runScenario(withLibrary(loadScenario(scenario), lock), 1);
      runs[lock] = { ...scriptRuns };
    }
    for (const [, lock] of cases) {
      expect(runs[lock]!.lua, lock).toBe(0);
      expect(runs[lock]!.twin, lock).toBeGreaterThan(0);
    }
  });
});
