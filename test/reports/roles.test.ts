import { describe, expect, it } from "vitest";
import { loadScenario } from "../../scenarios/index.js";
import { buildRoles, buildRunView } from "../../reports/run-view.js";
import type { HistoryEvent } from "../../sim/history.js";
import { runFixture } from "./fixtures.js";

const role = (index: number, process: string, timeUs: number, value: Record<string, unknown>): HistoryEvent =>
  ({ index, process, timeUs, type: "info", f: "raft-role", value }) as unknown as HistoryEvent;

describe("role bands", () => {
  it("a band runs to the server's next role note, to its crash, or to the end", () => {
    const laneOf = new Map([
      ["s1", 0],
      ["s2", 1],
    ]);
    const history = [
      role(0, "s1", 100, { role: "leader", term: 1 }),
      role(1, "s2", 100, { role: "follower", term: 1, leader: "s1" }),
      role(2, "s2", 900, { role: "leader", term: 2 }),
    ];
    const crash = { kind: "crash", step: 0, s: 500, e: 700, lanes: [0] };
    const bands = buildRoles(history, laneOf, [crash], 1000);
    expect(bands).toEqual([
      { lane: 0, s: 100, e: 500, role: "leader", term: 1 },
      { lane: 1, s: 100, e: 900, role: "follower", term: 1, leader: "s1" },
      { lane: 1, s: 900, e: 1000, role: "leader", term: 2 },
    ]);
  });

  it("raft-zk-leader-crash-acquire: zk-1 leads term 1 until its crash, then another server leads term 2", () => {
    const f = runFixture(loadScenario("raft-zk-leader-crash-acquire"));
    const v = buildRunView(f.record, f.history);
    const crash = v.faults.find((x) => x.kind === "crash")!;
    const leaders = v.roles.filter((r) => r.role === "leader").map((r) => ({ id: v.lanes[r.lane]!.id, term: r.term, s: r.s, e: r.e }));
    expect(leaders.length).toBe(2);
    expect(leaders[0]).toMatchObject({ id: "zk-1", term: 1, e: crash.s });
    expect(leaders[1]!.id).not.toBe("zk-1");
    expect(leaders[1]!.term).toBe(2);
    expect(leaders[1]!.s).toBeGreaterThan(crash.s);
  });
});
