import { describe, expect, it } from "vitest";
import { redisServer, type RedisServer } from "../../services/redis/server.js";
import { redisCall, type RedisResult } from "../../services/redis/client.js";
import { Simulation, type ProcessContext } from "../../sim/simulation.js";
import type { RedisCommand } from "../../services/redis/commands.js";
import type { PersistenceMode } from "../../services/redis/aof.js";

/** One Redis node and one client process; commands run as fibers at chosen true times. */
function world(persistence: PersistenceMode) {
  const sim = new Simulation({ seed: "persist", network: { latencyUsBase: 500, latencyUsJitter: 0 } });
  let server: RedisServer | undefined;
  const factory = redisServer({ sweepIntervalMs: 100, persistence });
  sim.addProcess("redis-1", "server", {}, (ctx, restarted) => (server = factory(ctx, restarted) as RedisServer));
  const client = sim.addProcess("c1", "client", {}, () => ({}));
  const call = (atMs: number, command: RedisCommand): { result?: RedisResult } => {
    const box: { result?: RedisResult } = {};
    sim.schedule(atMs * 1000, () => client.spawn(redisCall(client, "redis-1", command, 50), (r) => (box.result = r.value)));
    return box;
  };
  return { sim, call, server: () => server!, client: client as ProcessContext };
}

function crashRestartAt(w: ReturnType<typeof world>, atMs: number, downMs: number): void {
  w.sim.schedule(atMs * 1000, () => w.sim.crash("redis-1"));
  w.sim.schedule((atMs + downMs) * 1000, () => w.sim.restart("redis-1"));
}

describe("Redis persistence modes", () => {
  it("none: an immediate restart comes back empty", () => {
    const w = world("none");
    w.call(0, { cmd: "SET", key: "lock", value: "c1", nx: true, pxMs: 10_000 });
    crashRestartAt(w, 100, 0);
    const get = w.call(200, { cmd: "GET", key: "lock" });
    w.sim.run(300_000);
    expect(get.result).toEqual({ ok: true, reply: null });
  });

  it("always: every acknowledged write survives a crash, with its absolute expiry", () => {
    const w = world("always");
    const set = w.call(0, { cmd: "SET", key: "lock", value: "c1", nx: true, pxMs: 1_000 });
    w.call(1, { cmd: "INCR", key: "fence" });
    crashRestartAt(w, 2, 0);
    const get = w.call(10, { cmd: "GET", key: "lock" });
    const fence = w.call(10, { cmd: "GET", key: "fence" });
    const pttl = w.call(20, { cmd: "PTTL", key: "lock" });
    const later = w.call(1_100, { cmd: "GET", key: "lock" });
    w.sim.run(2_000_000);
    expect(set.result).toEqual({ ok: true, reply: "OK" });
    expect(get.result).toEqual({ ok: true, reply: "c1" });
    expect(fence.result).toEqual({ ok: true, reply: "1" });
    // Set at ~0.5 ms for 1000 ms; read at ~20.5 ms: ~980 ms left, not a fresh 1000.
    expect((pttl.result as { reply: number }).reply).toBe(980);
    expect(later.result).toEqual({ ok: true, reply: null });
  });

  it("everysec: a crash loses the writes since the last fsync, and keeps the earlier ones", () => {
    const w = world("everysec");
    w.call(500, { cmd: "SET", key: "before", value: "x" }); // fsynced at 1000 ms
    w.call(1_200, { cmd: "SET", key: "after", value: "y" }); // next fsync would be at 2000 ms
    crashRestartAt(w, 1_900, 0);
    const a = w.call(1_950, { cmd: "GET", key: "before" });
    const b = w.call(1_950, { cmd: "GET", key: "after" });
    w.sim.run(3_000_000);
    expect(a.result).toEqual({ ok: true, reply: "x" });
    expect(b.result).toEqual({ ok: true, reply: null });
  });

  it("everysec: a write older than a second has been fsynced", () => {
    const w = world("everysec");
    w.call(1_200, { cmd: "SET", key: "k", value: "y" });
    crashRestartAt(w, 2_100, 0);
    const b = w.call(2_200, { cmd: "GET", key: "k" });
    w.sim.run(3_000_000);
    expect(b.result).toEqual({ ok: true, reply: "y" });
  });

  it("a delayed restart keeps the node unreachable, then it answers again", () => {
    const w = world("none");
    crashRestartAt(w, 10, 1_000);
    const during = w.call(500, { cmd: "GET", key: "k" });
    const after = w.call(1_100, { cmd: "GET", key: "k" });
    w.sim.run(2_000_000);
    expect(during.result).toEqual({ ok: false, error: "timeout" });
    expect(after.result).toEqual({ ok: true, reply: null });
  });
});
