// The random nemesis in real mode: each run's steps are the simulator's draw for that run's
// seed — the very steps runScenario performs (its meta.faults) — and a drawn step real mode
// cannot perform is listed, with the reason, never silently dropped; the real cluster has the
// simulator's members. No process starts here.
import { describe, expect, it } from "vitest";
import { loadScenario } from "../../scenarios/index.js";
import { runScenario } from "../../harness/runner.js";
import { planReal } from "../../real/plan.js";
import { nemesisLines, planRealRun } from "../../real/nemesis.js";
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
