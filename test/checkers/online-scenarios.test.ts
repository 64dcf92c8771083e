import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { loadScenario } from "../../scenarios/index.js";
import { parseScenario, type Scenario } from "../../scenarios/schema.js";
import { runScenario } from "../../harness/runner.js";
import { runCheckers, type Verdicts } from "../../checkers/run-all.js";
import { OnlineVerdicts } from "../../checkers/run-online.js";
import { keptForCheckers } from "../../checkers/needed-events.js";
import { checkContextFor } from "../../harness/check-context.js";
import { ATTACKS } from "../../attacks/index.js";
import { DESIGNS } from "../../designs/index.js";
import { isScaleScenario, shippedScenarioNames } from "../helpers/history-digests.js";
import { hangBoundMs } from "../helpers/hang-bound.js";

/**
 * The online checkers judge a streamed run as the batch checkers judge the kept
 * history: every checker's verdict, summary and witness (linearizability: its verdict,
 * as its witness is a window's), the challenge (and the instance it names) and the outcome. Every shipped scenario
 * on seeds 1–20; every attack compiled for every design on seeds 1–3.
 */
function both(s: Scenario, seed: number): { batch: Verdicts; online: Verdicts } {
  const ctx = checkContextFor(s);
  const online = new OnlineVerdicts(ctx);
  const keep = keptForCheckers(s.clients.map((c) => c.id));
  const kept = runScenario(s, seed, {}, { historySink: (e) => keep(e) && online.push(e), retainHistory: keep }).history;
  return { batch: runCheckers(kept, ctx), online: online.result() };
}

function differences(s: Scenario, seed: number): string[] {
  const { batch, online } = both(s, seed);
  const out: string[] = [];
  for (const b of batch.results) {
    const o = online.results.find((r) => r.checker === b.checker)!;
    const whole = b.checker !== "linearizability" || b.valid === true;
    const same = o.valid === b.valid && (!whole || (o.summary === b.summary && JSON.stringify(o.witness) === JSON.stringify(b.witness)));
    if (!same) out.push(`${s.name} seed ${seed} ${b.checker}: batch ${b.valid} "${b.summary}", online ${o.valid} "${o.summary}"`);
  }
  // The instance a challenge names too: the online detectors drop what no later event can meet, so it must be batch's.
  const named = (v: Verdicts) => (v.challenge.challenged ? v.challenge.why : "");
  const c = (v: Verdicts) => JSON.stringify([v.outcome, v.challenge.challenged, v.challenge.count, v.challenge.grants, v.challenge.acquiresFailed, named(v)]);
  if (c(batch) !== c(online)) out.push(`${s.name} seed ${seed}: batch ${c(batch)}, online ${c(online)}`);
  return out;
}

describe("online checkers on real runs", () => {
  it("every shipped scenario, seeds 1–20: the batch checkers' verdicts", { timeout: hangBoundMs(240_000) }, () => {
    const diffs: string[] = [];
    const outcomes = new Set<string>();
    for (const name of shippedScenarioNames().filter((n) => !isScaleScenario(n))) {
      const s = loadScenario(name);
      for (let seed = 1; seed <= 20; seed++) diffs.push(...differences(s, seed));
      outcomes.add(both(s, 1).online.outcome);
    }
    expect(diffs).toEqual([]);
    expect([...outcomes].sort()).toEqual(expect.arrayContaining(["liveness-loss", "safe", "unsafe", "unsafe-but-fenced"]));
  });

  it("the scale scenarios (1000 clients on 1000 locks), their own seed: the batch checkers' verdicts", { timeout: hangBoundMs(240_000) }, () => {
    const scale = shippedScenarioNames().filter(isScaleScenario);
    expect(scale.length).toBeGreaterThan(0);
    for (const name of scale) {
      const s = loadScenario(name);
      expect(differences(s, s.seed)).toEqual([]);
    }
  });

  it("every attack on every design it compiles for, seeds 1–3", { timeout: hangBoundMs(240_000) }, () => {
    const diffs: string[] = [];
    let runs = 0;
    for (const attack of ATTACKS) {
      for (const d of DESIGNS.filter((x) => x.name !== "library")) {
        const c = attack.compile({ design: d.name, label: d.name });
        if (!c.ok) continue;
        const s = parseScenario(JSON.parse(JSON.stringify(c.scenario)), `<attack ${attack.name}>`);
        for (let seed = 1; seed <= 3; seed++, runs++) diffs.push(...differences(s, seed));
      }
    }
    expect(diffs).toEqual([]);
    expect(runs).toBeGreaterThan(300);
  });

  it("every attack on examples/my-lock and on node-redlock v4 in the sandbox, seeds 1–2", { timeout: hangBoundMs(240_000) }, () => {
    const diffs: string[] = [];
    let runs = 0;
    const locks = [
      { design: "library", designOptions: { adapter: resolve("examples/my-lock/adapter.ts"), nodes: 1 }, label: "my-lock" },
      { design: "library", designOptions: { adapter: "redlock-v4", nodes: 3 }, label: "redlock-v4" },
    ];
    for (const attack of ATTACKS) {
      for (const lock of locks) {
        const c = attack.compile(lock);
        if (!c.ok) continue;
        const s = parseScenario(JSON.parse(JSON.stringify(c.scenario)), `<attack ${attack.name}>`);
        for (let seed = 1; seed <= 2; seed++, runs++) diffs.push(...differences(s, seed));
      }
    }
    expect(diffs).toEqual([]);
    expect(runs).toBeGreaterThan(50);
  });
});
