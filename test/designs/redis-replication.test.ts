import { describe, expect, it } from "vitest";
import { redisServer, type RedisServer } from "../../services/redis/server.js";
import { sentinelNode, type Sentinel } from "../../services/redis/sentinel.js";
import { redisCall, SentinelConnection, type RedisResult } from "../../services/redis/client.js";
import { Simulation, type BehaviorFactory } from "../../sim/simulation.js";
import type { RedisRequest } from "../../services/redis/commands.js";

/** A primary, one replica, a sentinel (down after 300 ms, ping every 50 ms) and a client. */
function world() {
  const sim = new Simulation({ seed: "repl", network: { latencyUsBase: 500, latencyUsJitter: 0 } });
  const servers = new Map<string, RedisServer>();
  const keep =
    (id: string, f: BehaviorFactory): BehaviorFactory =>
    (ctx, r) => {
      const s = f(ctx, r) as RedisServer;
      servers.set(id, s);
      return s;
    };
  const common = { sweepIntervalMs: 100, replAckIntervalMs: 100 };
  sim.addProcess("redis-primary", "server", {}, keep("redis-primary", redisServer({ ...common, role: "primary", replicaIds: ["redis-replica-1"] })));
  sim.addProcess("redis-replica-1", "server", {}, keep("redis-replica-1", redisServer({ ...common, role: "replica", primaryId: "redis-primary" })));
  let sentinel: Sentinel | undefined;
  const sf = sentinelNode({
    primaryId: "redis-primary",
    replicaIds: ["redis-replica-1"],
    downAfterMs: 300,
    pingIntervalMs: 50,
    failoverVoteMs: 0,
    infoIntervalMs: 0,
  }); // instant switch: this file tests replication, not failover timing
  sim.addProcess("sentinel", "server", {}, (ctx, r) => (sentinel = sf(ctx, r) as Sentinel));
  const client = sim.addProcess("c1", "client", {}, () => ({}));
  const conn = new SentinelConnection(client, "sentinel", 50);
  const at = (atMs: number, node: string | "via-sentinel", command: RedisRequest) => {
    const box: { result?: RedisResult; doneUs?: number } = {};
    sim.schedule(atMs * 1000, () =>
      client.spawn(node === "via-sentinel" ? conn.call(command) : redisCall(client, node, command, 50), (r) => {
        box.result = r.value;
        box.doneUs = sim.nowUs;
      }),
    );
    return box;
  };
  const peek = (id: string, key: string) => servers.get(id)!.store.effectOf(key).entry?.value ?? null;
  return { sim, at, peek, servers, sentinel: () => sentinel! };
}

describe("Redis asynchronous replication", () => {
  it("acknowledges before the replica has the write; the replica lags by its link's latency", () => {
    const w = world();
    // The replica sits behind a slower link (5 ms): replication lag comes from the network.
    w.sim.network.setLink("redis-primary", "redis-replica-1", { latencyUsBase: 5_000 });
    const set = w.at(0, "redis-primary", { cmd: "SET", key: "lock", value: "c1", nx: true, pxMs: 5_000 });
    w.sim.run(1_000); // the OK is back at the client at 1 ms
    expect(set.result).toEqual({ ok: true, reply: "OK" });
    expect(w.peek("redis-replica-1", "lock")).toBe(null);
    w.sim.run(5_600); // sent at 0.5 ms, arrives at 5.5 ms
    expect(w.peek("redis-replica-1", "lock")).toBe("c1");
  });

  it("a replica refuses writes (READONLY)", () => {
    const w = world();
    const r = w.at(0, "redis-replica-1", { cmd: "SET", key: "k", value: "v" });
    w.sim.run(10_000);
    expect(r.result).toEqual({ ok: true, reply: { error: expect.stringMatching(/^READONLY/) } });
  });

  it("an effect dropped on a cut link is resent from the backlog after the replica's ACK shows the gap", () => {
    const w = world();
    w.sim.schedule(0, () => w.sim.network.cutLink("redis-primary", "redis-replica-1"));
    w.at(1, "redis-primary", { cmd: "SET", key: "k", value: "v" });
    w.sim.schedule(150_000, () => w.sim.network.healLink("redis-primary", "redis-replica-1"));
    w.sim.run(140_000);
    expect(w.peek("redis-replica-1", "k")).toBe(null);
    w.sim.run(400_000);
    expect(w.peek("redis-replica-1", "k")).toBe("v");
    expect(w.servers.get("redis-replica-1")!.offset).toBe(w.servers.get("redis-primary")!.offset);
  });

  it("failover: the sentinel promotes the replica; the unreplicated write is lost; the old primary rejoins as a replica", () => {
    const w = world();
    w.at(0, "via-sentinel", { cmd: "SET", key: "replicated", value: "a" });
    w.sim.schedule(10_000, () => w.sim.network.cutLink("redis-primary", "redis-replica-1"));
    const lost = w.at(11, "via-sentinel", { cmd: "SET", key: "lock", value: "c1", nx: true, pxMs: 10_000 });
    w.sim.schedule(13_000, () => w.sim.crash("redis-primary"));
    // Before the promotion the client times out against the dead primary.
    const before = w.at(100, "via-sentinel", { cmd: "SET", key: "lock", value: "c2", nx: true, pxMs: 10_000 });
    const after = w.at(500, "via-sentinel", { cmd: "SET", key: "lock", value: "c2", nx: true, pxMs: 10_000 });
    w.sim.schedule(600_000, () => {
      w.sim.network.healAll();
      w.sim.restart("redis-primary");
    });
    w.sim.run(1_500_000);
    expect(lost.result).toEqual({ ok: true, reply: "OK" });
    expect(before.result).toEqual({ ok: false, error: "timeout" });
    expect(w.sentinel().primaryId).toBe("redis-replica-1");
    expect(after.result).toEqual({ ok: true, reply: "OK" }); // the second holder
    expect(w.peek("redis-replica-1", "replicated")).toBe("a");
    const old = w.servers.get("redis-primary")!;
    expect(old.role).toBe("replica");
    expect(old.primaryId).toBe("redis-replica-1");
    // Full resync: the old primary now has the new primary's data set.
    expect(w.peek("redis-primary", "lock")).toBe("c2");
    expect(w.sim.history.filter((e) => e.f === "failover")).toHaveLength(1);
  });
});

describe("WAIT numreplicas timeout", () => {
  it("answers once the replica has acknowledged the last write, asking it at once (GETACK) rather than at its next periodic ACK", () => {
    const w = world();
    w.at(0, "redis-primary", { cmd: "SET", key: "lock", value: "c1", nx: true, pxMs: 5_000 });
    const wait = w.at(2, "redis-primary", { cmd: "WAIT", numReplicas: 1, timeoutMs: 40 });
    w.sim.run(10_000);
    expect(wait.result).toEqual({ ok: true, reply: 1 });
    // Sent at 2 ms; GETACK and its ACK take a round trip: well before the 100 ms ACK period or the timeout.
    expect(wait.doneUs! / 1000).toBeLessThan(5);
  });

  it("answers with the count reached at its timeout when the replica is cut off: the write is not replicated", () => {
    const w = world();
    w.sim.network.cutLink("redis-primary", "redis-replica-1");
    w.at(0, "redis-primary", { cmd: "SET", key: "lock", value: "c1", nx: true, pxMs: 5_000 });
    const wait = w.at(2, "redis-primary", { cmd: "WAIT", numReplicas: 1, timeoutMs: 40 });
    w.sim.run(60_000);
    expect(wait.result).toEqual({ ok: true, reply: 0 });
    expect(wait.doneUs! / 1000).toBeGreaterThanOrEqual(42);
    expect(w.peek("redis-replica-1", "lock")).toBe(null);
  });

  it("WAIT 0 answers at once, counting the replicas already up to date (no write yet: every one)", () => {
    const w = world();
    const wait = w.at(0, "redis-primary", { cmd: "WAIT", numReplicas: 0, timeoutMs: 40 });
    w.sim.run(5_000);
    expect(wait.result).toEqual({ ok: true, reply: 1 });
    expect(wait.doneUs! / 1000).toBeLessThan(2);
  });

  it("a replica refuses WAIT, as Redis does", () => {
    const w = world();
    const wait = w.at(0, "redis-replica-1", { cmd: "WAIT", numReplicas: 1, timeoutMs: 40 });
    w.sim.run(5_000);
    expect(wait.result).toEqual({ ok: true, reply: { error: "ERR WAIT cannot be used with replica instances" } });
  });
});
