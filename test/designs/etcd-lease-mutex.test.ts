import { describe, expect, it } from "vitest";
import { loadScenario } from "../../scenarios/index.js";
import { parseEtcdLeaseOptions } from "../../designs/etcd-lease/design.js";
import type { Scenario } from "../../scenarios/schema.js";
import type { HistoryEvent } from "../../sim/history.js";
import { outcomeOf } from "../helpers/scenario-sweep.js";
import { inputErrorOf } from "../helpers/input-error.js";

/**
 * etcd-lease's Mutex switches (designs/etcd-lease/mutex.ts): mutexVersion (3.4 lacks the
 * #11456 fix) and holderCheck. The stories of etcd-lease-waiter-expired-3-4 / -3-5 on
 * their own seed; their 200-seed sweeps run with every scenarios/etcd-lease/ file in
 * etcd-lease-scenarios.test.ts.
 */
const parse = (raw: unknown) => parseEtcdLeaseOptions(raw, "s.json", "designOptions");
const find = (h: readonly HistoryEvent[], p: Partial<HistoryEvent>) =>
  h.filter((e) => Object.entries(p).every(([k, x]) => (e as unknown as Record<string, unknown>)[k] === x));
const withOptions = (s: Scenario, o: Record<string, unknown>): Scenario => ({ ...s, designOptions: { ...(s.designOptions as object), ...o } });

describe("etcd-lease Mutex options", () => {
  it("default to the fixed Mutex and a client that checks its session", () => {
    expect(parse({})).toMatchObject({ mutexVersion: "3.5", holderCheck: "session" });
    expect(parse({ mutexVersion: "3.4", holderCheck: "none" })).toMatchObject({ mutexVersion: "3.4", holderCheck: "none" });
  });

  it("bad values are refused naming the field", () => {
    expect(inputErrorOf(() => parse({ mutexVersion: 3.4 })).message).toBe('s.json: designOptions.mutexVersion: expected one of "3.5", "3.4", got 3.4');
    expect(inputErrorOf(() => parse({ holderCheck: "always" })).field).toBe("designOptions.holderCheck");
    expect(inputErrorOf(() => parse({ waitRecipe: "predecessor" })).message).toMatch(/designOptions.waitRecipe: unknown field/);
  });
});

describe("mutexVersion: a waiter whose lease expires while it waits (etcd #11456)", () => {
  it("3.4: c2 is told it holds the lock after its key is gone, while c3 holds it", () => {
    const r = outcomeOf(loadScenario("etcd-lease-waiter-expired-3-4"), 1);
    expect(r.outcome).toBe("unsafe");
    const h = r.history;
    const c2ok = find(h, { process: "c2", f: "acquire", type: "ok" })[0]!;
    const c3ok = find(h, { process: "c3", f: "acquire", type: "ok" })[0]!;
    const c3release = find(h, { process: "c3", f: "release", type: "invoke" })[0]!;
    const wake = find(h, { process: "nemesis" }).find((e) => (e.value as { phase: string }).phase === "end")!;
    expect(c2ok.timeUs).toBeGreaterThanOrEqual(wake.timeUs);
    expect(c3ok.timeUs).toBeLessThan(c2ok.timeUs);
    expect(c3release.timeUs).toBeGreaterThan(c2ok.timeUs);
    // c2's grant is the older one: a fencing storage would have refused its write.
    expect((c2ok.value as { token: number }).token).toBeLessThan((c3ok.value as { token: number }).token);
    expect(find(h, { process: "c2", f: "write", type: "ok" })).toHaveLength(1);
  });

  it("3.5: the Get of its own key comes back empty and c2 does not take the lock", () => {
    const r = outcomeOf(loadScenario("etcd-lease-waiter-expired-3-5"), 1);
    expect(r.outcome).toBe("safe");
    const fail = find(r.history, { process: "c2", f: "acquire", type: "fail" })[0]!;
    expect(fail.value).toMatchObject({ reason: "ErrSessionExpired: our key is gone" });
    expect(find(r.history, { process: "c2", f: "acquire", type: "ok" })).toHaveLength(0);
  });

  it("3.4 with a client that checks its session: the Mutex still grants, but the client knows its lease is gone and does not work", () => {
    const s = withOptions(loadScenario("etcd-lease-waiter-expired-3-4"), { holderCheck: "session" });
    for (let seed = 1; seed <= 5; seed++) {
      const h = outcomeOf(s, seed).history;
      expect(find(h, { process: "c2", f: "acquire", type: "ok" }), `seed ${seed}`).toHaveLength(1);
      expect(find(h, { process: "c2", f: "read" }), `seed ${seed}`).toHaveLength(0);
      // Its check before the critical section fails at once: it releases at the instant it was granted.
      expect(find(h, { process: "c2", f: "release", type: "invoke" })[0]!.timeUs, `seed ${seed}`).toBe(
        find(h, { process: "c2", f: "acquire", type: "ok" })[0]!.timeUs,
      );
    }
  });

  it("holderCheck none alone does not make the fixed Mutex unsafe: the baseline stays safe", () => {
    const s = withOptions(loadScenario("etcd-lease-baseline"), { holderCheck: "none" });
    for (let seed = 1; seed <= 5; seed++) expect(outcomeOf(s, seed).outcome, `seed ${seed}`).toBe("safe");
  });
});
