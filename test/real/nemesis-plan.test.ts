// The random nemesis in real mode: each run's steps are the simulator's draw for that run's
// seed — the very steps runScenario performs (its meta.faults) — and a drawn step real mode
// cannot perform is listed, with the reason, never silently dropped; the real cluster has the
// simulator's members. No process starts here.
import { describe, expect, it } from "vitest";
import { loadScenario } from "../../scenarios/index.js";
import { runScenario } from "../../harness/runner.js";
import { planReal } from "../../real/plan.js";
import { nemesisLines, nemesisRowLine, nemesisSimRow, planRealRun } from "../../real/nemesis.js";
import { runCheckers } from "../../checkers/run-all.js";
import { checkContextFor } from "../../harness/check-context.js";
import { summarize } from "../../real/summary.js";
import { formatRealSummary } from "../../terminal/real.js";
import type { RealRunRecord } from "../../real/index.js";
import { inputErrorOf } from "../helpers/input-error.js";

describe("real mode: the random nemesis is the simulator's draw", () => {
  for (const name of ["etcd-lease-nemesis", "raft-zk-nemesis"]) {
    it(`${name}: seeds 1–5 draw the simulator's steps; performed ones are planned, the rest named with a reason`, () => {
      const s = loadScenario(name);
      const kinds = new Set<string>();
      for (let seed = 1; seed <= 5; seed++) {
        const sim = runScenario(s, seed);
        const plan = planRealRun(s, 1, seed);
        const n = plan.nemesis!;
        expect(n.seed).toBe(seed);
        expect(n.drawn).toEqual(sim.meta.faults.slice(s.faults.length));
        expect(n.drawn.length).toBeGreaterThan(0);
        const performed = n.drawn.filter((_, i) => n.notPerformed[i] === undefined);
        expect(plan.faults.map((f) => f.step)).toEqual(performed);
        // The real cluster has the simulator's members, so only clock faults of a server stay undone.
        expect(plan.design.cluster!.ids).toEqual(sim.meta.serverIds);
        n.notPerformed.forEach((why, i) => {
          if (why === undefined) return;
          expect(n.drawn[i]!.kind, why).toMatch(/^clock-(jump|drift)$/);
          expect(plan.notApplied.some((l) => l.startsWith(`nemesis step ${i + 1} (`) && l.includes(`seed ${seed}: not performed: `))).toBe(true);
        });
        const lines = nemesisLines(n);
        expect(lines).toHaveLength(n.drawn.length + 1);
        expect(lines.filter((l) => l.includes("NOT performed"))).toHaveLength(n.notPerformed.filter((w) => w !== undefined).length);
        for (const st of performed) kinds.add(st.kind);
      }
      // Across these seeds the nemesis performs more than one kind of fault for real.
      expect(kinds.size).toBeGreaterThanOrEqual(2);
    });
  }

  it("a clock fault of a server is not performed for the server's own reason (etcd's Go binary, ZooKeeper's JVM), never redis-server's", () => {
    const reasons = { "etcd-lease-nemesis": /Go binary/, "raft-zk-nemesis": /JVM/ };
    for (const [name, why] of Object.entries(reasons)) {
      const s = loadScenario(name);
      const seen = new Set<string>();
      for (let seed = 1; seed <= 10; seed++) {
        const n = planRealRun(s, 1, seed).nemesis!;
        n.notPerformed.forEach((reason, i) => {
          if (reason === undefined) return;
          seen.add(n.drawn[i]!.kind);
          expect(reason, `${name} seed ${seed}`).toMatch(why);
          expect(reason, `${name} seed ${seed}`).not.toMatch(/redis-server|client's libfaketime/);
        });
      }
      // Seeds 1–10 draw both kinds of clock fault of a server (4 jumps, 2 drifts: docs/real-mode.md).
      expect([...seen].sort(), name).toEqual(["clock-drift", "clock-jump"]);
    }
  });

  it("the sim-vs-real row: the simulator's outcome for the run's seed with every drawn step, and with the performed ones alone", () => {
    const s = loadScenario("etcd-lease-nemesis");
    for (let seed = 1; seed <= 3; seed++) {
      const plan = planRealRun(s, 1, seed);
      const row = nemesisSimRow(plan)!;
      const n = plan.nemesis!;
      const performed = n.drawn.filter((_, i) => n.notPerformed[i] === undefined);
      expect(row).toMatchObject({
        seed,
        stepsDrawn: n.drawn.length,
        stepsPerformed: performed.length,
        command: `npx lockstep run etcd-lease-nemesis --seed ${seed}`,
      });
      expect(row.sim).toBe(runCheckers(runScenario(s, seed).history, checkContextFor(s)).outcome);
      if (performed.length === n.drawn.length) expect(row.simPerformed).toBeUndefined();
      else {
        const only = { ...s, nemesis: undefined, faults: performed };
        expect(row.simPerformed).toBe(runCheckers(runScenario(only, seed).history, checkContextFor(only)).outcome);
      }
      expect(nemesisRowLine(row, "safe")).toMatch(
        new RegExp(
          `^sim vs real, seed ${seed} \\(${n.drawn.length} step\\(s\\) drawn, ${performed.length} performed\\): simulator \\S+ with every step \\(npx lockstep run etcd-lease-nemesis --seed ${seed}\\).*; real safe$`,
        ),
      );
    }
    expect(nemesisSimRow(planReal(loadScenario("etcd-lease-baseline"), 1))).toBeUndefined();

    // A batch's summary.json and its terminal lines count the rows beside the real outcomes.
    const rec = (seed: number, sim: string, simPerformed: string | undefined, real: string) =>
      ({
        verdicts: { outcome: real, safety: true, results: [] },
        expectationMet: true,
        real: {
          run: seed,
          wallMs: 1,
          checks: [],
          servers: [],
          clients: [],
          load: { cores: 2, oneMinute: { min: 1, mean: 1, max: 1 } },
          nemesis: { simRow: { seed, sim, ...(simPerformed ? { simPerformed } : {}) } },
        },
      }) as unknown as RealRunRecord;
    const records = [rec(1, "safe", undefined, "safe"), rec(2, "unsafe", "safe", "safe")];
    const batch = { scenario: "etcd-lease-nemesis", design: "etcd-lease", expect: "safe", note: "", timeScale: 1, runsPlanned: 2, loadSamples: [1] };
    const summary = summarize(records, ["a", "b"], batch);
    expect(summary.simVsReal).toEqual({ sim: { safe: 1, unsafe: 1 }, simPerformedOnly: { safe: 2 }, real: { safe: 2 } });
    expect(formatRealSummary(summary, undefined, "summary.json")).toContain(
      "sim vs real (the runs' seeds, the same drawn steps): simulator safe 1/2, unsafe 1/2; with only the steps real mode performed safe 2/2; real safe 2/2",
    );
  });

  it("planReal alone still refuses a nemesis (a run's steps depend on its seed), naming the field", () => {
    const e = inputErrorOf(() => planReal(loadScenario("etcd-lease-nemesis"), 1));
    expect(e.field).toBe("nemesis");
  });
});

describe("real mode: a step aimed at @leader", () => {
  it("is planned on the cluster as the member leading when it fires; on a design with no leader it is refused by field", async () => {
    const { attackByName } = await import("../../attacks/index.js");
    const { parseScenario } = await import("../../scenarios/schema.js");
    const compiled = (design: string) => {
      const c = attackByName("leader-crash")!.compile({ design, label: design });
      if (!c.ok) throw new Error(c.refusal);
      return parseScenario(JSON.parse(JSON.stringify(c.scenario)), "leader-crash");
    };
    const plan = planReal(compiled("raft-zk"));
    expect(plan.faults).toHaveLength(1);
    expect(plan.faults[0]).toMatchObject({ targetKind: "server", leader: true });
    expect(plan.design.cluster!.ids).toContain(plan.faults[0]!.target);
    const base = compiled("raft-zk");
    const onRedis = { ...base, design: "redis-setnx", designOptions: {}, workload: { ...base.workload, fencing: false } };
    expect(inputErrorOf(() => planReal(onRedis as never)).message).toContain(`"@leader" names a Raft design's leader; this design has none`);
  });
});
