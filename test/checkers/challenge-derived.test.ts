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
import { allScenarios, loadScenario, loadScenarioFile } from "../../scenarios/index.js";
import { runScenario } from "../../harness/runner.js";
import { runCheckers } from "../../checkers/run-all.js";
import { checkContextFor } from "../../harness/check-context.js";
import type { Scenario } from "../../scenarios/schema.js";
import type { HistoryEvent } from "../../sim/history.js";
import { hangBoundMs } from "../helpers/hang-bound.js";

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

  it("every shipped scenario expected safe is safe and challenged with its challenge line removed", { timeout: hangBoundMs(240_000) }, () => {
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

  it("a pause on the holder that ends inside its lease is no challenge, though the waiter is served after it", () => {
    // naive-gc-pause (TTL 10 s, c2 polling from 1 s) with its pause cut to 8 s: no checker fails, and
    // nothing could have: the line says what happened first (the holds, the pause that ended early), the rule after.
    const s = loadScenario("naive-gc-pause");
    const short = { ...s, faults: [{ ...s.faults[0]!, durationMs: 8000 }] } as Scenario;
    const v = judge(short, 1);
    expect(v.outcome).toBe("not-challenged");
    expect(v.challenge.why).toMatch(
      /^no grant met another client's hold: 2 grants to 2 clients, each after the previous holder released it; a pause reached c1 while it held or wanted order:123, from 1\.1 ms to 8 s: it ended before a whole lease \(10 s\) had passed\. The rule derived from the run \(client-fault-contended\) was not met: /,
    );
    // Longer than the lease, the same pause challenges the lock (and shows it unsafe).
    const long = judge({ ...s, faults: [{ ...s.faults[0]!, durationMs: 12000 }] } as Scenario, 1);
    expect({ outcome: long.outcome, challenged: long.challenge.challenged }).toEqual({ outcome: "unsafe", challenged: true });
  });

  it("tells when a fault outlasted a lease by the lease's end, whatever other events the history holds", () => {
    // raft-zk-client-gc-pause-lock-delay: c1 paused from 508 ms with a 4 s session; c2 waits throughout.
    const s = allScenarios().find((x) => x.name === "raft-zk-client-gc-pause-lock-delay")!;
    const { challenge: _named, ...bare } = s;
    const { history } = runScenario(bare as Scenario, 1);
    const clientsOnly = history.filter((e: HistoryEvent) => e.type !== "info" || e.process === "nemesis" || e.process.startsWith("c"));
    const whole = runCheckers(history, checkContextFor(bare as Scenario)).challenge.why;
    expect(whole).toMatch(
      /^a pause reached c1 while it held or wanted order:123 \(from 508\.2 ms\) and outlasted its lease, while c2 held or wanted it \(at 4\.5 s\)$/,
    );
    expect(clientsOnly.length).toBeLessThan(history.length);
    expect(runCheckers(clientsOnly, checkContextFor(bare as Scenario)).challenge.why).toBe(whole);
  });
});
