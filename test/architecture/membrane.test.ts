/**
 * The sandbox membrane is one module (sim/sandbox/membrane.ts): it alone runs the prelude
 * and holds its exports; host code elsewhere treats realm values as opaque and reaches
 * library code only through it. This test reads the sources and fails on a file that
 * would touch a realm's insides some other way.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../sim/paths.js";
import { importGraph } from "./imports.js";

const ROOT = packageRoot();
const sources = [...importGraph(ROOT).keys()].filter((f) => f.endsWith(".ts"));
const text = (f: string): string => readFileSync(join(ROOT, f), "utf8");

/** The files that may contain `pattern`; every other source must not. */
function onlyIn(pattern: RegExp, allowed: readonly string[]): string[] {
  return sources.filter((f) => pattern.test(text(f)) && !allowed.includes(f));
}

describe("the sandbox membrane is one module", () => {
  it("only membrane.ts runs the prelude or names its exports", () => {
    expect(onlyIn(/from "\.\/prelude\.js"|sandbox\/prelude\.js"/, ["sim/sandbox/membrane.ts"])).toEqual([]);
    expect(onlyIn(/\bPreludeExports\b/, ["sim/sandbox/membrane.ts"])).toEqual([]);
    expect(onlyIn(/\.prelude\b/, [])).toEqual([]);
  });

  it("only the sandbox's own modules run scripts in a realm, and a script's value goes to the membrane", () => {
    expect(onlyIn(/runInContext\(/, ["sim/sandbox/membrane.ts", "sim/sandbox/realm.ts", "sim/sandbox/watchdog.ts"])).toEqual([]);
    const scripted = onlyIn(/\brunScript\(/, ["sim/sandbox/realm.ts", "sim/sandbox/module-loader.ts"]);
    expect(scripted.sort()).toEqual(["services/redis-clients/ioredis.ts", "services/redis-clients/node-redis.ts"]);
    for (const f of scripted) expect(text(f), f).toMatch(/membrane\.invoke\(build,/);
  });

  it("no host code outside the sandbox builds realm values with the realm's own constructors", () => {
    expect(onlyIn(/realm\.(Array|Error|Promise|JSON|context)\b|\.seal\b/, [])).toEqual([]);
  });
});
