import { describe, expect, it } from "vitest";
import { loadScenario } from "../../scenarios/index.js";
import { assertNoDoubleHolderUnderServerFaults, outcomeOf, scenariosOf } from "./raft-zk-harness.js";
import { itGivesItsExpectedVerdict } from "../helpers/scenario-sweep.js";

const SCENARIOS = scenariosOf("etcd-lease");

describe("etcd-lease scenarios give their expected verdicts", () => {
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
    ]) {
      expect(names).toContain(`etcd-lease-${n}`);
    }
  });

  for (const s of SCENARIOS) itGivesItsExpectedVerdict(s);
});

describe("etcd-lease under server-side faults alone", () => {
  it("never has two holders (random schedules of server crashes, pauses, partitions, loss, clock jumps and drift)", () => {
    assertNoDoubleHolderUnderServerFaults(loadScenario("etcd-lease-baseline"), 40, 7);
  });
});

describe("etcd-lease mutex", () => {
  it("uses the key's create revision as the token, increasing from grant to grant", () => {
    const { history } = outcomeOf(loadScenario("etcd-lease-baseline"), 3);
    const tokens = history.filter((e) => e.f === "acquire" && e.type === "ok").map((e) => (e.value as { token: number }).token);
    expect(tokens.length).toBeGreaterThan(5);
    for (let i = 1; i < tokens.length; i++) expect(tokens[i]!).toBeGreaterThan(tokens[i - 1]!);
  });
  it("a paused client's lease is revoked and the waiter's lock is granted only after the revocation", () => {
    const { history } = outcomeOf(loadScenario("etcd-lease-client-gc-pause"), 1);
    const oks = history.filter((e) => e.f === "acquire" && e.type === "ok");
    expect(oks.map((e) => e.process)).toEqual(["c1", "c2"]);
    const pause = history.find((e) => e.process === "nemesis" && e.f === "pause")!;
    // c2 waits a whole TTL (4 s) after c1 was last heard from, which is before the pause.
    expect(oks[1]!.timeUs - pause.timeUs).toBeGreaterThan(3_400_000);
  });
});
