import { describe, expect, it } from "vitest";
import { loadScenario } from "../../scenarios/index.js";
import { parseRaftZkOptions } from "../../designs/raft-zk/design.js";
import { etcdLease } from "../../designs/etcd-lease/design.js";
import { suspendedAfterMs } from "../../designs/raft-zk/recipe.js";
import { ZkTree, type ZkCmd } from "../../designs/raft-zk/tree.js";
import type { Scenario } from "../../scenarios/schema.js";
import type { HistoryEvent } from "../../sim/history.js";
import { outcomeOf } from "../helpers/scenario-sweep.js";
import { inputErrorOf } from "../helpers/input-error.js";

/**
 * raft-zk's client-side recipe switches (designs/raft-zk/recipe.ts): the stories their
 * scenario pairs tell, on their own seed, and the switches' input checks. The 200-seed
 * sweeps of those scenarios run with every scenarios/raft-zk/ file in
 * raft-zk-scenarios.test.ts.
 */
const parse = (raw: unknown) => parseRaftZkOptions(raw, "s.json", "designOptions");
const find = (h: readonly HistoryEvent[], p: Partial<HistoryEvent>) =>
  h.filter((e) => Object.entries(p).every(([k, x]) => (e as unknown as Record<string, unknown>)[k] === x));
const withOptions = (s: Scenario, o: Record<string, unknown>): Scenario => ({ ...s, designOptions: { ...(s.designOptions as object), ...o } });

describe("raft-zk recipe options", () => {
  it("default to the recipe as written", () => {
    expect(parse({}).recipe).toEqual({ connectionStatePolicy: "lease", lockNodeProtection: true, waitRecipe: "predecessor" });
    expect(parse({ connectionStatePolicy: "session", lockNodeProtection: false, waitRecipe: "watch-fired-shortcut" }).recipe).toEqual({
      connectionStatePolicy: "session",
      lockNodeProtection: false,
      waitRecipe: "watch-fired-shortcut",
    });
  });

  it("bad values are refused naming the field and what was expected", () => {
    expect(inputErrorOf(() => parse({ connectionStatePolicy: "suspended" })).message).toBe(
      's.json: designOptions.connectionStatePolicy: expected one of "lease", "standard", "session", got "suspended"',
    );
    expect(inputErrorOf(() => parse({ lockNodeProtection: "yes" })).message).toBe(
      's.json: designOptions.lockNodeProtection: expected true or false, got "yes"',
    );
    expect(inputErrorOf(() => parse({ waitRecipe: "herd" })).field).toBe("designOptions.waitRecipe");
    // The shared Raft-service fields are still checked, and typos still refused.
    expect(inputErrorOf(() => parse({ nodes: 4 })).field).toBe("designOptions.nodes");
    expect(inputErrorOf(() => parse({ waitRecip: "predecessor" })).message).toMatch(/designOptions.waitRecip: unknown field/);
  });

  it("lockDelayMs: 0 (off) by default, a number >= 0", () => {
    expect(parse({}).lockDelayMs).toBe(0);
    expect(parse({ lockDelayMs: 8000 }).lockDelayMs).toBe(8000);
    expect(inputErrorOf(() => parse({ lockDelayMs: -1 })).message).toBe("s.json: designOptions.lockDelayMs: expected a number >= 0, got -1");
  });

  it("etcd-lease, which shares the Raft-service fields, does not take them", () => {
    const e = inputErrorOf(() => etcdLease.parseOptions({ connectionStatePolicy: "session" }, "s.json", "designOptions"));
    expect(e.field).toBe("designOptions.connectionStatePolicy");
    expect(e.message).toMatch(/unknown field/);
  });
});

describe("connectionStatePolicy: a holder cut off from the service", () => {
  const T = 4000;

  it("session policy: c1 still trusts its lock after the service expired its session, and writes while c2 holds it", () => {
    const r = outcomeOf(loadScenario("raft-zk-suspended-session-policy"), 1);
    expect(r.outcome).toBe("unsafe");
    const h = r.history;
    const c2ok = find(h, { process: "c2", f: "acquire", type: "ok" })[0]!;
    const c1check = find(h, { process: "c1", f: "extend", type: "ok" })[0]!;
    const c1write = find(h, { process: "c1", f: "write", type: "ok" })[0]!;
    expect(c1check.timeUs).toBeGreaterThan(c2ok.timeUs);
    expect(c1write.timeUs).toBeGreaterThan(c2ok.timeUs);
    // LOST comes a session timeout after SUSPENDED: the check still had time left.
    expect((c1check.value as { validityMs: number }).validityMs).toBeGreaterThan(0);
    expect((c1check.value as { validityMs: number }).validityMs).toBeLessThan(suspendedAfterMs(T) + T);
  });

  it("standard policy: c1 stops at SUSPENDED, 2/3 of the session timeout after it last heard from the service, and does not write", () => {
    const r = outcomeOf(loadScenario("raft-zk-suspended-standard-policy"), 1);
    expect(r.outcome).toBe("safe");
    const h = r.history;
    const readOk = find(h, { process: "c1", f: "read", type: "ok" })[0]!;
    const lapse = find(h, { process: "c1", f: "lapse" })[0]!;
    // Last heard is at most one ping interval (T/8) before the partition.
    const sinceReadMs = (lapse.timeUs - readOk.timeUs) / 1000;
    expect(sinceReadMs).toBeLessThanOrEqual(suspendedAfterMs(T));
    expect(sinceReadMs).toBeGreaterThan(suspendedAfterMs(T) - T / 8 - 1);
    const check = find(h, { process: "c1", f: "extend" }).find((e) => e.type !== "invoke")!;
    expect(check.type).toBe("fail");
    expect(check.value).toMatchObject({ reason: "connection SUSPENDED" });
    const c1writes = find(h, { process: "c1", f: "write" }).filter((e) => e.timeUs < find(h, { process: "c1", f: "release", type: "invoke" })[0]!.timeUs);
    expect(c1writes).toHaveLength(0);
  });

  it("the default lease policy is safe on the same runs (its check is a round trip the partition blocks)", () => {
    // Challenged as its safe sibling raft-zk-suspended-standard-policy is: the lock passed on by the session's expiry.
    const s = {
      ...withOptions(loadScenario("raft-zk-suspended-session-policy"), { connectionStatePolicy: "lease" }),
      challenge: { kind: "expiry-handover" as const },
    };
    for (let seed = 1; seed <= 10; seed++) expect(outcomeOf(s, seed).outcome, `seed ${seed}`).toBe("safe");
  });
});

describe("lockNodeProtection: a create whose reply is lost", () => {
  it("without the GUID, no one gets the lock again after the lost reply: c1 waits behind its own orphan node", () => {
    const r = outcomeOf(loadScenario("raft-zk-create-unprotected"), 1);
    expect(r.outcome).toBe("liveness-loss");
    const h = r.history;
    const cut = find(h, { process: "nemesis" })[0]!;
    expect(find(h, { f: "acquire", type: "ok" }).filter((e) => e.timeUs > cut.timeUs)).toHaveLength(0);
    expect(find(h, { f: "acquire", type: "fail" }).filter((e) => e.timeUs > cut.timeUs).length).toBeGreaterThanOrEqual(4);
  });

  it("with it, c1 finds its node and the clients keep taking turns", () => {
    const r = outcomeOf(loadScenario("raft-zk-create-protected"), 1);
    expect(r.outcome).toBe("safe");
    const h = r.history;
    const cut = find(h, { process: "nemesis" })[0]!;
    const after = find(h, { f: "acquire", type: "ok" }).filter((e) => e.timeUs > cut.timeUs);
    expect(after.length).toBeGreaterThan(20);
    expect(new Set(after.map((e) => e.process))).toEqual(new Set(["c1", "c2"]));
  });
});

describe("waitRecipe: a waiter ahead of c3 dies", () => {
  it("the shortcut gives c3 the lock while c1 still holds it; re-listing makes c3 wait for c1's release", () => {
    for (const [name, early] of [
      ["raft-zk-watch-shortcut", true],
      ["raft-zk-watch-relist", false],
    ] as const) {
      const h = outcomeOf(loadScenario(name), 1).history;
      const c1release = find(h, { process: "c1", f: "release", type: "invoke" })[0]!;
      const c3ok = find(h, { process: "c3", f: "acquire", type: "ok" })[0]!;
      // c1 held first and c2 never got the lock: the queue was c1, c2, c3.
      expect(find(h, { process: "c1", f: "acquire", type: "ok" })[0]!.timeUs, name).toBeLessThan(500_000);
      expect(find(h, { process: "c2", f: "acquire", type: "ok" }), name).toHaveLength(0);
      if (early) expect(c3ok.timeUs, name).toBeLessThan(c1release.timeUs);
      else expect(c3ok.timeUs, name).toBeGreaterThan(c1release.timeUs);
    }
  });

  it("the shortcut is right when every predecessor goes by releasing: the baseline is safe with it", () => {
    const s = withOptions(loadScenario("raft-zk-baseline"), { waitRecipe: "watch-fired-shortcut" });
    for (let seed = 1; seed <= 10; seed++) expect(outcomeOf(s, seed).outcome, `seed ${seed}`).toBe("safe");
  });
});

describe("lockDelayMs: Chubby's lock-delay after a session expiry", () => {
  const apply = (t: ZkTree, cmds: ZkCmd[]) => cmds.map((c) => t.apply(c, t.lastZxid + 1));
  const lockNode = (sessionId: number): ZkCmd => ({
    kind: "create",
    sessionId,
    path: "/locks/a/n-",
    data: "",
    ephemeral: true,
    sequential: true,
    parents: true,
  });

  it("the tree keeps an expired session's nodes until endLockDelay; a close frees at once", () => {
    const t = new ZkTree();
    apply(t, [{ kind: "createSession", timeoutMs: 4000, owner: "c1" }, { kind: "createSession", timeoutMs: 4000, owner: "c2" }, lockNode(1), lockNode(2)]);
    const [exp] = apply(t, [{ kind: "expireSession", sessionId: 1, lingerEphemerals: true }]);
    expect(exp).toMatchObject({ ok: true, events: [] });
    expect(t.getChildren("/locks/a")).toEqual(["n-0000000000", "n-0000000001"]);
    expect(t.sessions.has(1)).toBe(false);
    const [close] = apply(t, [{ kind: "closeSession", sessionId: 2 }]);
    expect(close!.events).toEqual([{ type: "deleted", path: "/locks/a/n-0000000001" }]);
    const [end] = apply(t, [{ kind: "endLockDelay", sessionId: 1 }]);
    expect(end!.events).toEqual([{ type: "deleted", path: "/locks/a/n-0000000000" }]);
    expect(t.getChildren("/locks/a")).toEqual([]);
    // Ending it twice (a retried proposal) changes nothing.
    expect(apply(t, [{ kind: "endLockDelay", sessionId: 1 }])[0]).toMatchObject({ ok: false });
  });

  it("8 s: c2 gets the lock only after the paused c1 woke and wrote; 2 s: c2 gets it while c1 is still frozen", () => {
    for (const [name, after] of [
      ["raft-zk-client-gc-pause-lock-delay", true],
      ["raft-zk-client-gc-pause-lock-delay-short", false],
    ] as const) {
      const h = outcomeOf(loadScenario(name), 1).history;
      const c1write = find(h, { process: "c1", f: "write", type: "ok" })[0]!;
      const c2ok = find(h, { process: "c2", f: "acquire", type: "ok" })[0]!;
      if (after) expect(c2ok.timeUs, name).toBeGreaterThan(c1write.timeUs);
      else expect(c2ok.timeUs, name).toBeLessThan(c1write.timeUs);
      // The lock-delay is counted from the expiry: c2 waits at least that long past c1's session timeout.
      const delayMs = (loadScenario(name).designOptions as { lockDelayMs: number }).lockDelayMs;
      expect(c2ok.timeUs, name).toBeGreaterThan((500 + 4000 + delayMs) * 1000);
    }
  });

  it("normal releases are not delayed: the baseline with an 8 s lock-delay is as live as without", () => {
    const base = loadScenario("raft-zk-baseline");
    const grants = (s: Scenario) => find(outcomeOf(s, 1).history, { f: "acquire", type: "ok" }).length;
    const delayed = withOptions(base, { lockDelayMs: 8000 });
    expect(outcomeOf(delayed, 1).outcome).toBe("safe");
    expect(grants(delayed)).toBe(grants(base));
  });
});
