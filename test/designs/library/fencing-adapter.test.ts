import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { loadScenario } from "../../../scenarios/index.js";
import { runScenario } from "../../../harness/runner.js";
import { runCheckers } from "../../../checkers/run-all.js";
import { checkContextFor } from "../../../harness/check-context.js";
import { InputError } from "../../../sim/errors.js";

const adapter = (name: string): string => join(import.meta.dirname, "..", "..", "fixtures", "adapters", name);

describe("fencing scenarios on a user's adapter", () => {
  it("run an adapter that returns a token: the paused holder's stale write is refused by its token, no update lost", () => {
    const s = loadScenario(`redis-fenced-gc-pause@${adapter("fenced-lock.cjs")}`);
    expect(s.workload.fencing).toBe(true);
    const run = runScenario(s, 1);
    expect(run.meta.fencingTokens).toBe(true);
    const grants = run.history.filter((e) => e.f === "acquire" && e.type === "ok");
    expect(grants.length).toBeGreaterThan(2);
    expect(grants.every((e) => typeof (e.value as { token?: unknown }).token === "number")).toBe(true);
    const v = runCheckers(run.history, checkContextFor(s));
    // Two holders, as on the built-in redis-fenced design; the token keeps the data whole.
    expect(v.outcome).toBe("unsafe-but-fenced");
    expect(v.outcome).toBe(s.expect);
    expect(v.results.find((r) => r.checker === "lost-updates")!.valid).toBe(true);
    expect(run.history.some((e) => e.f === "storage-write" && e.type === "fail" && (e.value as { reason?: string }).reason === "stale-token")).toBe(true);
  });

  it("refuse, at the first grant, an adapter that returns no token, naming the adapter and what it must return", () => {
    const file = adapter("tokenless-lock.cjs");
    const s = loadScenario(`redis-fenced-gc-pause@${file}`);
    let err: unknown;
    try {
      runScenario(s, 1);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).message).toBe(
      `${file}: acquire() result: a fencing token (a number, { handle, token }) on every grant: this scenario's workload.fencing checks one on each write, and this adapter returned none; run a scenario without fencing, or return the token your lock issues`,
    );
    // The same adapter without fencing runs (and the built-in token-less designs are still refused up front).
    const plain = loadScenario(`naive-gc-pause@${file}`);
    expect(runScenario(plain, 1).meta.fencingTokens).toBe(false);
    const builtin = { ...loadScenario("naive-gc-pause"), workload: { ...loadScenario("naive-gc-pause").workload, fencing: true } };
    expect(() => runScenario(builtin, 1)).toThrow(/workload\.fencing: design "redis-setnx" issues no fencing token/);
  });
});
