// Fault targets named by role ("@leader"): resolved when the step fires from the servers'
// own role notes; skipped, and noted, when no server holds the role; an unknown role is an
// input error naming the field.
import { describe, expect, it } from "vitest";
import { Simulation } from "../../sim/simulation.js";
import { NEMESIS } from "../../sim/history.js";
import { FaultSchedule } from "../../faults/apply.js";
import type { FaultStep } from "../../faults/types.js";
import { MINIMAL_SCENARIO, scenarioErrorOf } from "../helpers/input-error.js";

/** Three servers; s2 notes it leads at 10 ms, s3 at 50 ms; a crash of @leader at `atMs`. */
function run(atMs: number): { nemesis: Array<Record<string, unknown>>; crashed: string[] } {
  const sim = new Simulation({ seed: "roles" });
  const crashed: string[] = [];
  for (const id of ["s1", "s2", "s3"]) sim.addProcess(id, "server", {}, () => ({ onMessage() {}, onCrash: () => void crashed.push(id) }));
  const role = (id: string, role: string) => sim.record({ process: id, type: "info", f: "raft-role", value: { role, term: 1 } });
  sim.schedule(10_000, () => role("s2", "leader"));
  sim.schedule(40_000, () => role("s2", "follower"));
  sim.schedule(50_000, () => role("s3", "leader"));
  const step: FaultStep = { kind: "crash", atMs, delayMs: 0, target: "@leader", durationMs: 5 };
  new FaultSchedule(sim, [step]).install();
  sim.run(100_000);
  return { nemesis: sim.history.filter((e) => e.process === NEMESIS).map((e) => e.value as Record<string, unknown>), crashed };
}

describe("role targets", () => {
  it("@leader is the server leading when the step fires, named in the note", () => {
    expect(run(20).nemesis[0]).toMatchObject({ phase: "start", targets: ["s2"], note: "@leader was s2" });
    expect(run(60).nemesis[0]).toMatchObject({ phase: "start", targets: ["s3"], note: "@leader was s3" });
  });

  it("with no leader at that moment the step is skipped and says so", () => {
    const r = run(45);
    expect(r.nemesis).toEqual([{ phase: "skipped", step: 0, targets: [], note: "no leader at this time" }]);
    expect(r.crashed).toEqual([]);
  });

  it("an unknown role is an input error naming faults[0].target", () => {
    const e = scenarioErrorOf({ ...MINIMAL_SCENARIO, faults: [{ kind: "crash", atMs: 10, target: "@primary" }] });
    expect(e.message).toContain("faults[0].target");
    expect(e.message).toContain("a process id or a role (@leader)");
  });
});
