/**
 * The simulated ioredis and node-redis clients over TCP-like links: a partition delays a
 * command until it heals and it runs once; a node restart resets the connection and
 * ioredis resends what had no reply while node-redis fails it; a commandTimeout rejects
 * the promise but the command still reaches the node; defineCommand falls back to EVAL.
 */
import vm from "node:vm";
import { describe, expect, it } from "vitest";
import { Simulation, type ProcessContext } from "../../../sim/simulation.js";
import { Realm } from "../../../sim/sandbox/realm.js";
import { ModuleLoader } from "../../../sim/sandbox/module-loader.js";
import { redisServer, type RedisServer } from "../../../services/redis/server.js";
import { ClientHub } from "../../../services/redis-clients/hub.js";
import { ioredisModule } from "../../../services/redis-clients/ioredis.js";
import { nodeRedisModule } from "../../../services/redis-clients/node-redis.js";

function world() {
  const sim = new Simulation({ seed: "clients-test", network: { latencyUsBase: 500, latencyUsJitter: 0 } });
  let server!: RedisServer;
  const factory = redisServer({ sweepIntervalMs: 100 });
  sim.addProcess("redis-1", "server", {}, (ctx, restarted) => {
    const b = factory(ctx, restarted);
    server = b as unknown as RedisServer;
    return b;
  });
  let ctx!: ProcessContext;
  sim.addProcess("c1", "client", {}, (c) => {
    ctx = c;
    return { onMessage: (from, msg) => void hub.onMessage(from, msg) };
  });
  const realm = new Realm({
    processId: "c1",
    wallMs: () => ctx.wallMs(),
    monoUs: () => ctx.monoUs(),
    setTimer: (us, fn) => {
      const h = ctx.setTimerUs(us, fn);
      return { cancel: () => ctx.cancelTimer(h) };
    },
    random: () => 0.5,
  });
  const hub = new ClientHub(ctx, realm, {
    nodes: ["redis-1"],
    byAddress: new Map([
      ["127.0.0.1:6379", "redis-1"],
      ["6379", "redis-1"],
    ]),
  });
  const loader = new ModuleLoader(realm, new Map(), __dirname);
  const events = loader.require("events", __filename);
  const Redis = ioredisModule(hub, events);
  const nodeRedis = nodeRedisModule(hub, events);
  /** Start an async function in the realm; returns its settled state (updated as the sim runs). */
  const start = (src: string) => {
    const out: { state: string; value?: unknown } = { state: "pending" };
    const f = realm.runScript(new vm.Script(`(${src})`)) as (...a: unknown[]) => unknown;
    const holder = realm.runScript(new vm.Script("({})")) as { f?: unknown };
    holder.f = f;
    realm.enter("test", () =>
      realm.membrane.settle(holder, "f", realm.membrane.list(Redis, nodeRedis), (ok, value) => {
        out.state = ok ? "fulfilled" : "rejected";
        out.value = ok ? value : String((value as Error).message);
      }),
    );
    return out;
  };
  return { sim, start, server: () => server };
}

describe("simulated ioredis", () => {
  it("commands before the connection is up wait in the offline queue, then run", () => {
    const { sim, start, server } = world();
    const r = start("async (Redis) => { const c = new Redis(); return [c.status, await c.set('k', 'v', 'PX', 1000, 'NX'), await c.get('k'), c.status]; }");
    sim.run(50_000);
    expect(r).toEqual({ state: "fulfilled", value: ["connecting", "OK", "v", "ready"] });
    expect(server().store.read("k", 0)?.value).toBe("v");
  });

  it("a request sent into a partition is delivered after it heals, and runs once", () => {
    const { sim, start, server } = world();
    const r = start("async (Redis) => { const c = new Redis(); await c.ping(); globalThis.c = c; return 'up'; }");
    sim.run(20_000);
    expect(r.state).toBe("fulfilled");
    sim.network.cutLink("c1", "redis-1");
    sim.network.cutLink("redis-1", "c1");
    const incr = start("async () => [await globalThis.c.incr('n'), performance.now()]");
    sim.run(1_000_000);
    expect(incr.state).toBe("pending");
    sim.network.healAll();
    sim.run(10_000_000);
    expect(incr.state).toBe("fulfilled");
    expect((incr.value as number[])[0]).toBe(1);
    expect(server().store.read("n", 0)?.value).toBe("1");
    // Retransmission by TCP's backoff: the reply came after the heal, not at it.
    expect((incr.value as number[])[1]).toBeGreaterThan(1000);
  });

  it("commandTimeout rejects the promise, but the command is still in the stream and runs on the node", () => {
    const { sim, start, server } = world();
    start("async (Redis) => { globalThis.c = new Redis({ commandTimeout: 50 }); await globalThis.c.ping(); }");
    sim.run(20_000);
    sim.network.cutLink("c1", "redis-1");
    sim.network.cutLink("redis-1", "c1");
    const r = start("async () => globalThis.c.set('late', 'yes')");
    sim.run(200_000);
    expect(r).toEqual({ state: "rejected", value: "Command timed out" });
    expect(server().store.read("late", 0)).toBeUndefined();
    sim.network.healAll();
    sim.run(5_000_000);
    expect(server().store.read("late", 0)?.value).toBe("yes");
  });

  it("a node restart resets the connection; ioredis reconnects and resends the unanswered command", () => {
    const { sim, start, server } = world();
    start("async (Redis) => { globalThis.c = new Redis(); await globalThis.c.ping(); }");
    sim.run(20_000);
    sim.crash("redis-1");
    const r = start("async () => globalThis.c.incr('n')");
    sim.run(100_000);
    sim.restart("redis-1");
    sim.run(10_000_000);
    expect(r).toEqual({ state: "fulfilled", value: 1 });
    expect(server().store.read("n", 0)?.value).toBe("1");
  });

  it("defineCommand: EVALSHA first, EVAL on NOSCRIPT, then EVALSHA hits the node's cache", () => {
    const { sim, start } = world();
    const r = start(`async (Redis) => {
      const c = new Redis();
      c.defineCommand('cad', { numberOfKeys: 1, lua: "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end" });
      await c.set('lock', 'me');
      const first = await c.cad('lock', 'you');
      const second = await c.cad('lock', 'me');
      let err = null; try { await c.evalsha('0'.repeat(40), 0); } catch (e) { err = e.message; }
      return [first, second, err];
    }`);
    sim.run(100_000);
    expect(r).toEqual({ state: "fulfilled", value: [0, 1, "NOSCRIPT No matching script. Please use EVAL."] });
  });

  it("multi() runs atomically and replies with [err, result] pairs; callbacks get (null, value)", () => {
    const { sim, start } = world();
    const r = start(`async (Redis) => {
      const c = new Redis();
      const pairs = await c.multi().set('a', '1').incr('a').get('a').exec();
      const viaCb = await new Promise((res) => c.get('a', (err, v) => res([err, v])));
      return [pairs, viaCb];
    }`);
    sim.run(100_000);
    expect(r).toEqual({
      state: "fulfilled",
      value: [
        [
          [null, "OK"],
          [null, 2],
          [null, "2"],
        ],
        [null, "2"],
      ],
    });
  });
});

describe("simulated node-redis", () => {
  it("rejects commands before connect(); set with options; a restart fails the in-flight command", () => {
    const { sim, start } = world();
    const r = start(`async (_, redis) => {
      const c = redis.createClient({ url: 'redis://127.0.0.1:6379' });
      let before = null; try { await c.get('k'); } catch (e) { before = e.name; }
      await c.connect();
      const set = await c.set('k', 'v', { NX: true, PX: 1000 });
      const again = await c.set('k', 'v', { NX: true, PX: 1000 });
      globalThis.c = c;
      const ttl = await c.pTTL('k');
      return [before, set, again, ttl > 990 && ttl <= 1000, await c.eval("return ARGV[1]", { keys: [], arguments: ['x'] })];
    }`);
    sim.run(50_000);
    expect(r).toEqual({ state: "fulfilled", value: ["ClientClosedError", "OK", null, true, "x"] });
    sim.crash("redis-1");
    const lost = start("async () => globalThis.c.incr('n')");
    sim.run(100_000);
    sim.restart("redis-1");
    sim.run(5_000_000);
    expect(lost).toEqual({ state: "rejected", value: "Socket closed unexpectedly" });
  });
});
