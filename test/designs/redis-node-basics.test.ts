import { describe, expect, it } from "vitest";
import { RedisStore } from "../../services/redis/store.js";
import { redisServer } from "../../services/redis/server.js";
import { redisCall } from "../../services/redis/client.js";
import { Simulation } from "../../sim/simulation.js";
import type { RedisCommand } from "../../services/redis/commands.js";

describe("RedisStore commands", () => {
  it("SET NX PX sets only when absent, and the key expires by the wall clock", () => {
    const s = new RedisStore();
    expect(s.execute({ cmd: "SET", key: "k", value: "a", nx: true, pxMs: 100 }, 1000)).toBe("OK");
    expect(s.execute({ cmd: "SET", key: "k", value: "b", nx: true, pxMs: 100 }, 1050)).toBe(null);
    expect(s.execute({ cmd: "GET", key: "k" }, 1099)).toBe("a");
    expect(s.execute({ cmd: "PTTL", key: "k" }, 1060)).toBe(40);
    expect(s.execute({ cmd: "GET", key: "k" }, 1100)).toBe(null); // expired at 1000 + 100
    expect(s.execute({ cmd: "SET", key: "k", value: "b", nx: true, pxMs: 100 }, 1100)).toBe("OK");
    expect(s.execute({ cmd: "SET", key: "k", value: "c" }, 1101)).toBe("OK"); // plain SET overwrites
    expect(s.execute({ cmd: "PTTL", key: "k" }, 1101)).toBe(-1);
    expect(s.execute({ cmd: "PTTL", key: "nope" }, 1101)).toBe(-2);
  });

  it("rejects a non-positive PX as Redis does", () => {
    const s = new RedisStore();
    expect(s.execute({ cmd: "SET", key: "k", value: "a", pxMs: 0 }, 0)).toEqual({ error: expect.stringMatching(/invalid expire/) });
  });

  it("DEL, PEXPIRE and INCR", () => {
    const s = new RedisStore();
    expect(s.execute({ cmd: "DEL", key: "k" }, 0)).toBe(0);
    expect(s.execute({ cmd: "INCR", key: "fence" }, 0)).toBe(1);
    expect(s.execute({ cmd: "INCR", key: "fence" }, 0)).toBe(2);
    s.execute({ cmd: "SET", key: "k", value: "v" }, 0);
    expect(s.execute({ cmd: "INCR", key: "k" }, 0)).toEqual({ error: expect.stringMatching(/not an integer/) });
    expect(s.execute({ cmd: "PEXPIRE", key: "k", ms: 10 }, 0)).toBe(1);
    expect(s.execute({ cmd: "GET", key: "k" }, 10)).toBe(null);
    expect(s.execute({ cmd: "PEXPIRE", key: "k", ms: 10 }, 10)).toBe(0);
    s.execute({ cmd: "SET", key: "k", value: "v" }, 0);
    expect(s.execute({ cmd: "DEL", key: "k" }, 0)).toBe(1);
  });

  it("compare-and-delete and compare-and-pexpire act only for the holder's value", () => {
    const s = new RedisStore();
    s.execute({ cmd: "SET", key: "lock", value: "mine", nx: true, pxMs: 100 }, 0);
    expect(s.execute({ cmd: "CAD", key: "lock", value: "theirs" }, 10)).toBe(0);
    expect(s.execute({ cmd: "CAPEXPIRE", key: "lock", value: "theirs", ms: 1000 }, 10)).toBe(0);
    expect(s.execute({ cmd: "PTTL", key: "lock" }, 10)).toBe(90);
    expect(s.execute({ cmd: "CAPEXPIRE", key: "lock", value: "mine", ms: 1000 }, 10)).toBe(1);
    expect(s.execute({ cmd: "PTTL", key: "lock" }, 10)).toBe(1000);
    expect(s.execute({ cmd: "CAD", key: "lock", value: "mine" }, 20)).toBe(1);
    expect(s.execute({ cmd: "GET", key: "lock" }, 20)).toBe(null);
    // After expiry, the old holder's release must not delete a new holder's key.
    s.execute({ cmd: "SET", key: "lock", value: "old", nx: true, pxMs: 5 }, 100);
    s.execute({ cmd: "SET", key: "lock", value: "new", nx: true, pxMs: 100 }, 105);
    expect(s.execute({ cmd: "CAD", key: "lock", value: "old" }, 106)).toBe(0);
    expect(s.execute({ cmd: "GET", key: "lock" }, 106)).toBe("new");
  });

  it("the active sweep removes expired keys without an access", () => {
    const s = new RedisStore();
    s.execute({ cmd: "SET", key: "a", value: "1", pxMs: 10 }, 0);
    s.execute({ cmd: "SET", key: "b", value: "1", pxMs: 50 }, 0);
    s.execute({ cmd: "SET", key: "c", value: "1" }, 0);
    expect(s.sweep(20)).toBe(1);
    expect(s.size).toBe(2);
    expect(s.sweep(60)).toBe(1);
    expect(s.size).toBe(1);
  });
});

describe("Redis server node in the simulator", () => {
  function world() {
    const sim = new Simulation({ seed: "r", network: { latencyUsBase: 500, latencyUsJitter: 0 } });
    sim.addProcess("redis-1", "server", {}, redisServer());
    const c = sim.addProcess("c", "client", {}, () => ({}));
    return { sim, c };
  }

  it("answers commands over the network", () => {
    const { sim, c } = world();
    const replies: unknown[] = [];
    const cmds: RedisCommand[] = [
      { cmd: "SET", key: "k", value: "v", nx: true, pxMs: 1000 },
      { cmd: "SET", key: "k", value: "w", nx: true, pxMs: 1000 },
      { cmd: "GET", key: "k" },
    ];
    c.spawn(
      (function* () {
        for (const cmd of cmds) {
          const r = yield* redisCall(c, "redis-1", cmd, 50);
          replies.push(r.ok ? r.reply : r.error);
        }
      })(),
    );
    sim.run(1_000_000);
    expect(replies).toEqual(["OK", null, "v"]);
  });

  it("a forward jump of the node's wall clock expires a key early (the Redlock clock-jump premise)", () => {
    const { sim, c } = world();
    const seen: unknown[] = [];
    c.spawn(
      (function* () {
        yield* redisCall(c, "redis-1", { cmd: "SET", key: "k", value: "v", nx: true, pxMs: 10_000 }, 50);
        sim.process("redis-1").wall.jump(sim.nowUs, 20_000_000);
        yield* c.sleep(200); // past a sweep
        const r = yield* redisCall(c, "redis-1", { cmd: "GET", key: "k" }, 50);
        seen.push(r.ok ? r.reply : r.error);
      })(),
    );
    sim.run(2_000_000);
    expect(seen).toEqual([null]);
  });

  it("without persistence a crash and restart forget every key", () => {
    const { sim, c } = world();
    const seen: unknown[] = [];
    c.spawn(
      (function* () {
        yield* redisCall(c, "redis-1", { cmd: "SET", key: "k", value: "v" }, 50);
        sim.crash("redis-1");
        const during = yield* redisCall(c, "redis-1", { cmd: "GET", key: "k" }, 50);
        seen.push(during.ok ? during.reply : during.error);
        sim.restart("redis-1");
        const after = yield* redisCall(c, "redis-1", { cmd: "GET", key: "k" }, 50);
        seen.push(after.ok ? after.reply : after.error);
      })(),
    );
    sim.run(2_000_000);
    expect(seen).toEqual(["timeout", null]);
  });
});
