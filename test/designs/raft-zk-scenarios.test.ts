import { describe, expect, it } from "vitest";
import { loadScenario } from "../../scenarios/index.js";
import { assertNoDoubleHolderUnderServerFaults, outcomeOf, scenariosOf } from "./raft-zk-harness.js";
import { itGivesItsExpectedVerdict } from "../helpers/scenario-sweep.js";

const SCENARIOS = scenariosOf("raft-zk");

describe("Raft-ZK scenarios give their expected verdicts", () => {
  it("has the scenarios the issue asks for", () => {
    const names = SCENARIOS.map((s) => s.name);
    for (const n of [
      "leader-crash-acquire",
      "minority-partition",
      "leader-isolated",
      "client-gc-pause",
      "client-gc-pause-fenced",
      "client-partitioned",
      "server-clock-skew",
      "follower-clock-bug",
    ]) {
      expect(names).toContain(`raft-zk-${n}`);
    }
  });

  for (const s of SCENARIOS) itGivesItsExpectedVerdict(s);
});

describe("Raft-ZK bug variant followerSessionExpiry", () => {
  const skew = loadScenario("raft-zk-server-clock-skew");
  const buggy = { ...skew, name: "skew-with-bug", designOptions: { ...(skew.designOptions as object), bugs: { followerSessionExpiry: true } } };
  it("is caught: the same runs are unsafe with it and safe without it", () => {
    for (let seed = 1; seed <= 20; seed++) {
      const bad = outcomeOf(buggy, seed);
      expect(bad.mutualExclusion, `seed ${seed}`).toBe(false);
      expect(bad.outcome, `seed ${seed}`).toBe("unsafe");
      expect(outcomeOf(skew, seed).outcome, `seed ${seed}`).toBe("safe");
    }
  });
  it("needs the clock step to bite: without server clock jumps the bug's runs are safe", () => {
    const calm = { ...buggy, name: "bug-no-jumps", faults: [] };
    for (let seed = 1; seed <= 10; seed++) expect(outcomeOf(calm, seed).outcome, `seed ${seed}`).toBe("safe");
  });
});

describe("Raft-ZK under server-side faults alone", () => {
  it("never has two holders (random schedules of server crashes, pauses, partitions, loss, clock jumps and drift)", () => {
    assertNoDoubleHolderUnderServerFaults(loadScenario("raft-zk-baseline"), 40, 42);
  });
});

describe("Raft-ZK client session semantics", () => {
  it("stops trusting a lock before the service expires it, and the fencing token grows with each grant", () => {
    const s = loadScenario("raft-zk-client-gc-pause-fenced");
    const { history } = outcomeOf(s, 1);
    const grants = history.filter((e) => e.f === "acquire" && e.type === "ok").map((e) => e.value as { token: number; validityMs: number });
    expect(grants.length).toBe(2);
    expect(grants[1]!.token).toBeGreaterThan(grants[0]!.token);
    // validity is the session timeout less the drift margin, less the time since last contact
    for (const g of grants) expect(g.validityMs).toBeLessThanOrEqual(4000 - 400);
    const lapse = history.find((e) => e.f === "lapse" && e.process === "c1");
    expect(lapse).toBeDefined();
    const rejected = history.filter((e) => e.f === "storage-write" && e.type === "fail");
    expect(rejected).toHaveLength(1);
  });
  it("a client cut off from the service fails its renewal instead of writing", () => {
    const { history } = outcomeOf(loadScenario("raft-zk-client-partitioned"), 1);
    const c1 = history.filter((e) => e.process === "c1");
    const ext = c1.find((e) => e.f === "extend" && e.type !== "invoke");
    expect(ext?.type).toBe("info");
    const firstRelease = c1.findIndex((e) => e.f === "release" && e.type === "invoke");
    expect(c1.slice(0, firstRelease).some((e) => e.f === "write")).toBe(false);
  });
});
