/**
 * The challenge a scenario is held to when it names none: derived from what the run did
 * (checkers/challenge-derived.ts). Scenarios written as a user would, with no `challenge`
 * line, for correct locks under each fault family from the literature
 * (test/fixtures/scenarios-derived/): safe and challenged, the derived rule named; a run
 * whose fault never reached a holder or waiter stays not challenged. And every shipped
 * scenario expected safe keeps its outcome with its `challenge` line removed.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { allScenarios, loadScenarioFile } from "../../scenarios/index.js";
import { runScenario } from "../../harness/runner.js";
import { runCheckers } from "../../checkers/run-all.js";
import { checkContextFor } from "../../harness/check-context.js";
import type { Scenario } from "../../scenarios/schema.js";

const DIR = join(import.meta.dirname, "../fixtures/scenarios-derived");
const SEEDS = [1, 2, 3];

function judge(s: Scenario, seed: number) {
  const { history } = runScenario(s, seed);
  return runCheckers(history, checkContextFor(s));
}

/** The rule each literature scenario must be held to, and why (its fault family). */
const RULES: Record<string, string> = {
  "zk-partitioned-past-session": "client-fault-contended",
  "zk-partition-misses-holder": "client-fault-contended",
  "chubby-lock-delay-gc-pause": "client-fault-contended",
  "etcd-waiter-lease-expired-fixed": "client-fault-contended",
  "raft-leader-isolated-during-hold": "client-fault-contended",
  "redis-failover-replicated": "server-fault-during-hold",
  "redis-crash-before-any-hold": "server-fault-during-hold",
  "redlock-drift-within-allowance": "waiter-served",
  "fault-free-waiters": "waiter-served",
};

/** Runs whose fault reached no holder or waiter: safe by every checker, and not challenged. */
const UNREACHED = new Set(["zk-partition-misses-holder", "redis-crash-before-any-hold"]);

describe("a default challenge a correct lock can meet", () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith(".json"));

  it("covers every fault family, with a run the fault never reached", () => {
    expect(new Set(Object.values(RULES))).toEqual(new Set(["client-fault-contended", "server-fault-during-hold", "waiter-served"]));
    expect(files.map((f) => f.replace(/\.json$/, "")).sort()).toEqual(Object.keys(RULES).sort());
  });

  for (const file of files) {
    const s = loadScenarioFile(join(DIR, file));
    const want = UNREACHED.has(s.name) ? "not-challenged" : "safe";
    it(`${s.name}: ${want} on seeds ${SEEDS.join(", ")}, by the derived rule ${RULES[s.name]}`, () => {
      expect(s.challenge).toBeUndefined();
      for (const seed of SEEDS) {
        const v = judge(s, seed);
        expect({ seed, outcome: v.outcome, why: v.challenge.why }).toMatchObject({ seed, outcome: want });
        expect(v.challenge.derived?.rule).toBe(RULES[s.name]);
        expect(v.challenge.challenged).toBe(want === "safe");
        expect(v.challenge.derived?.why).toMatch(/so the run must show/);
      }
    });
  }

  it("every shipped scenario expected safe is safe and challenged with its challenge line removed", () => {
    const safe = allScenarios().filter((s) => s.expect === "safe");
    expect(safe.length).toBeGreaterThan(40);
    const rules = new Map<string, number>();
    for (const s of safe) {
      const { challenge: _named, ...bare } = s;
      const v = judge(bare as Scenario, s.seed ?? 1);
      expect({ name: s.name, outcome: v.outcome }).toEqual({ name: s.name, outcome: "safe" });
      rules.set(v.challenge.kind, (rules.get(v.challenge.kind) ?? 0) + 1);
    }
    // Each family is met somewhere among them.
    expect([...rules.keys()].filter((k) => k !== "expiry-handover").sort()).toEqual(["client-fault-contended", "server-fault-during-hold", "waiter-served"]);
  });
});
