/**
 * Every checker runs under a deterministic work budget (ctx.stepsMax): a tiny budget
 * turns a history that passes with the default into "unknown" that names the flag
 * raising it, never into "pass"; the same budget gives the same answer every time.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CHECKERS } from "../../checkers/index.js";
import { parseJsonlHistory } from "../../checkers/import/jsonl.js";
import { loadScenario } from "../../scenarios/index.js";
import { runScenario } from "../../harness/runner.js";
import { checkContextFor } from "../../harness/check-context.js";

const fixture = (name: string) => parseJsonlHistory(readFileSync(new URL(`../fixtures/histories/${name}`, import.meta.url), "utf8"), name);

describe("work budget on every checker", () => {
  const s = loadScenario("naive-baseline");
  const run = runScenario(s, s.seed);
  const ctx = checkContextFor(s);

  // replica-agreement judges only replicated designs; it gets a Raft-backed run.
  const zk = loadScenario("raft-zk-baseline");
  const zkRun = runScenario(zk, zk.seed);
  const zkCtx = checkContextFor(zk);
  const subject = (name: string) => (name === "replica-agreement" ? { run: zkRun, ctx: zkCtx } : { run, ctx });

  it.each(CHECKERS.map((c) => [c.name, c] as const))("%s: passes with the default, unknown naming --steps-max with 3 steps", (name, c) => {
    const { run, ctx } = subject(name);
    const full = c.check(run.history, ctx);
    expect(full.valid).toBe(true);
    expect(full.skipped).toBeUndefined();
    const cut = c.check(run.history, { ...ctx, stepsMax: 3 });
    expect(cut.valid).toBe("unknown");
    expect(cut.summary).toMatch(/work budget of 3 steps|work bound of 3 steps|budget hit/);
    expect(cut.summary).toContain("--steps-max");
    // Deterministic: the same budget, the same words.
    expect(c.check(run.history, { ...ctx, stepsMax: 3 }).summary).toBe(cut.summary);
  });

  it("a budget just big enough gives the full verdict", () => {
    for (const c of CHECKERS) {
      const { run, ctx } = subject(c.name);
      const steps = c.check(run.history, ctx).stats?.steps;
      if (steps === undefined) continue;
      expect(c.check(run.history, { ...ctx, stepsMax: Math.max(1, steps) }).valid).toBe(true);
    }
  });

  it("a violated history under a tiny budget is never a pass", () => {
    const h = fixture("mutex-double-grant.jsonl");
    for (const stepsMax of [1, 2, 3, 5, 8]) {
      for (const name of ["mutual-exclusion", "linearizability"]) {
        const c = CHECKERS.find((x) => x.name === name)!;
        expect([false, "unknown"]).toContain(c.check(h, { model: "mutex", stepsMax }).valid);
      }
    }
  });
});

describe("every linearizability model honours --steps-max, a state's walks counted", () => {
  // Concurrent writes and reads by 8 clients, each op overlapping the next ones: many orders to try.
  const rows = (f: (i: number) => [string, unknown, unknown]): string =>
    Array.from({ length: 400 }, (_, i) => {
      const [op, input, output] = f(i);
      const p = `c${i % 8}`;
      return [
        JSON.stringify({ timeUs: 2 * i, process: p, type: "invoke", f: op, lock: "x", ...(input !== undefined ? { value: input } : {}) }),
        JSON.stringify({ timeUs: 2 * i + 15, process: p, type: "ok", f: op, lock: "x", ...(output !== undefined ? { value: output } : {}) }),
      ];
    })
      .flat()
      .sort((a, b) => JSON.parse(a).timeUs - JSON.parse(b).timeUs)
      .join("\n");
  const cases: Array<[string, string]> = [
    ["register", rows((i) => (i % 2 === 0 ? ["write", { value: i }, undefined] : ["read", undefined, { value: i - 1 }]))],
    ["cas-register", rows((i) => (i % 2 === 0 ? ["write", { value: i }, undefined] : ["read", undefined, { value: i - 1 }]))],
    ["multi-register", rows((i) => ["txn", [["w", "x", i]], [["w", "x", i]]])],
  ];
  for (const [model, text] of cases) {
    it(`${model}: unknown at 50 steps, naming the flag`, () => {
      const r = CHECKERS.find((c) => c.name === "linearizability")!.check(parseJsonlHistory(text, "h.jsonl"), { model, stepsMax: 50 });
      expect(r.valid).toBe("unknown");
      expect(r.summary).toMatch(/--steps-max/);
      expect(r.stats?.steps).toBeLessThanOrEqual(50 + 1000);
    });
  }
});
