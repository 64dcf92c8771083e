/**
 * `library`: a real lock library, unmodified, run inside the simulator. N simulated
 * Redis nodes redis-1..redis-N (the same ids as the redlock design, so its fault
 * scenarios apply), each reachable by library code at 127.0.0.1:<basePort + i - 1>;
 * each client process runs the adapter (adapter.ts) in its own sandbox realm
 * (sim/sandbox/), where `require("ioredis")` and `require("redis")` are the
 * simulated clients and time, timers and randomness are the process's own.
 *
 * Options:
 *   adapter      a built-in adapter name (adapter.ts BUILTIN_ADAPTERS) or a path to one
 *   lockCmd      instead of an adapter: the command of a lock driver of any language
 *                (docs/lock-protocol.md); real mode only. lockCmdCwd: where it runs
 *                (default: the scenario file's folder)
 *   nodes        number of Redis nodes (default: the adapter's, else 1)
 *   basePort     6379
 *   options      an object handed to the adapter's create() (library settings)
 *   persistence, fsyncIntervalMs, sweepIntervalMs   the nodes' settings, as in redlock
 */
import type { DesignEntry } from "../types.js";
import { InputError } from "../../sim/errors.js";
import type { ProcessContext } from "../../sim/simulation.js";
import { redisServer } from "../../services/redis/server.js";
import { Realm, installRejectionHook } from "../../sim/sandbox/realm.js";
import { LibraryError } from "../../sim/sandbox/errors.js";
import { guarded, SLICE_EVENTS } from "../../sim/sandbox/watchdog.js";
import { ModuleLoader } from "../../sim/sandbox/module-loader.js";
import { ClientHub } from "../../services/redis-clients/hub.js";
import { ioredisModule } from "../../services/redis-clients/ioredis.js";
import { nodeRedisModule } from "../../services/redis-clients/node-redis.js";
import { BUILTIN_ADAPTERS, adapterPath, type AdapterModule } from "./adapter.js";
import { LibraryLockClient } from "./client.js";
import { picked, REDIS_NODE_OPTIONS, type DesignProfile } from "../profile.js";
import { REDIS_CLOCK_WHY } from "../real-plan.js";
import { libraryPlan } from "./real-plan.js";
import { basename, dirname } from "node:path";
import { libraryNodeId, parseLibraryOptions, type LibraryDesignOptions } from "./options.js";

/**
 * A library over N independent nodes. It is judged against a reference library over the
 * same simulated client (the seeds' SET NX PX recipe on one node, node-redlock on N), so
 * both runs share the client's timing; it keeps its own options on another's scenario.
 */
function libraryProfile(o: LibraryDesignOptions): DesignProfile {
  const nodes = Array.from({ length: o.nodes }, (_, i) => libraryNodeId(i + 1));
  const adapter = o.nodes > 1 ? "redlock-v5" : "setnx-reference";
  const { nodes: count, basePort, persistence, fsyncIntervalMs, sweepIntervalMs } = o;
  const node = { nodes: count, basePort, persistence, fsyncIntervalMs, sweepIntervalMs };
  return {
    servers: nodes,
    lockServers: nodes,
    keyNodes: nodes,
    requestTimeoutMs: Infinity,
    fencing: false,
    renewsItself: false,
    leader: { none: "its Redis nodes are independent" },
    failover: { none: "talks to Redis nodes directly" },
    reference: { design: "library", designOptions: { ...node, adapter: adapterPath(adapter, "<audit>", "reference") }, label: `${adapter} (reference)` },
    onLibrary: { nodes: o.nodes, options: (given) => ({ ...picked(given, REDIS_NODE_OPTIONS), ...given }) },
  };
}

/** The simulator runs code it can sandbox; a lock driver is a process of its own, on the host's clock. */
function refuseLockDriver(o: LibraryDesignOptions): void {
  if (!o.lockCmd) return;
  throw new InputError(
    o.lockCmd.file,
    "designOptions.lockCmd",
    "a lock driver is a process of its own, on the host's clock: it runs in real mode only (lockstep real, lockstep audit --real), not in the simulator",
  );
}

export const library: DesignEntry<LibraryDesignOptions> = {
  name: "library",
  description: "a real lock library (redlock, redis-semaphore, redis-lock, or your own adapter) run unmodified in the simulator over N simulated Redis nodes",
  family: "redis-nodes",
  runs: "adapter",
  parseOptions: parseLibraryOptions,
  profile: libraryProfile,
  real: { plan: libraryPlan, serverClocksWhy: REDIS_CLOCK_WHY },
  setup({ sim, processOptions, fencing: requireToken }, o) {
    refuseLockDriver(o);
    const nodes = Array.from({ length: o.nodes }, (_, i) => libraryNodeId(i + 1));
    for (const n of nodes) {
      sim.addProcess(
        n,
        "server",
        processOptions(n),
        redisServer({ sweepIntervalMs: o.sweepIntervalMs, persistence: o.persistence, fsyncIntervalMs: o.fsyncIntervalMs }),
      );
    }
    const addresses = nodes.map((_, i) => `127.0.0.1:${o.basePort + i}`);
    const byAddress = new Map<string, string>();
    nodes.forEach((n, i) => {
      byAddress.set(addresses[i], n);
      byAddress.set(String(o.basePort + i), n);
    });
    installRejectionHook();
    // Library code runs in every client's events: the watchdog stops any that never returns.
    sim.guardEvents(guarded, SLICE_EVENTS);
    return {
      serverIds: nodes,
      fencing: false,
      tokensFromGrants: true,
      createClient: (ctx) => {
        const realm = clientRealm(ctx);
        const hub = new ClientHub(ctx, realm, { nodes, byAddress });
        const loader = new ModuleLoader(
          realm,
          new Map([
            ["ioredis", (req) => ioredisModule(hub, req("events"))],
            ["redis", (req) => nodeRedisModule(hub, req("events"))],
            ["@redis/client", (req) => nodeRedisModule(hub, req("events"))],
          ]),
          dirname(o.adapterFile),
        );
        const instance = loadingAdapter(loader, o, () =>
          realm.enter(`loading adapter ${BUILTIN_ADAPTERS[o.adapter] ? o.adapter : o.adapterFile}`, () =>
            createAdapter(realm, loader, o, { addresses, options: o.options, processId: ctx.id }),
          ),
        );
        const { membrane } = realm;
        const methods = membrane.readFields(instance, membrane.names("acquire", "release", "extend", "holds"));
        if (typeof methods.acquire !== "function" || typeof methods.release !== "function") {
          throw new InputError(o.adapterFile, "create()", "an object with acquire(lock, { ttlMs, waitMs }) and release(handle)");
        }
        const offers = { extend: typeof methods.extend === "function", holds: typeof methods.holds === "function" };
        // A built-in adapter by its name, a user's by its file name: never a folder of this machine.
        const name = BUILTIN_ADAPTERS[o.adapter] ? o.adapter : basename(o.adapterFile);
        return new LibraryLockClient(ctx, realm, hub, instance, offers, { name, file: o.adapterFile, tokenRequired: requireToken === true });
      },
    };
  },
};

/** A client's sandbox realm: the process's virtual clocks and timers, its own random stream per incarnation. */
function clientRealm(ctx: ProcessContext): Realm {
  const rng = ctx.rng.fork(`sandbox/${ctx.proc.incarnation}`);
  const realm = new Realm({
    processId: ctx.id,
    wallMs: () => ctx.wallMs(),
    monoUs: () => ctx.monoUs(),
    setTimer: (delayUs, fn) => {
      const h = ctx.setTimerUs(delayUs, fn);
      return { cancel: () => ctx.cancelTimer(h) };
    },
    random: () => rng.float(),
  });
  return realm;
}

/**
 * The stop line of an adapter that threw while loading names the user's own files, as
 * real mode does: library code saw virtual paths, the user reads the real ones.
 */
function loadingAdapter<T>(loader: ModuleLoader, o: LibraryDesignOptions, load: () => T): T {
  try {
    return load();
  } catch (err) {
    if (err instanceof LibraryError && !BUILTIN_ADAPTERS[o.adapter]) {
      err.message = err.message.replace(/\/app\/[^\s():]+/g, (v) => loader.install.realOf(v) ?? v);
    }
    throw err;
  }
}

/** Load the adapter module in the realm and call its create(); the instance, a realm value. */
function createAdapter(realm: Realm, loader: ModuleLoader, o: LibraryDesignOptions, env: Parameters<AdapterModule["create"]>[0]): unknown {
  const { membrane } = realm;
  const loaded = loader.load(o.adapterFile);
  const fields = membrane.names("create", "default");
  // An ES module's `export default { create }` arrives as exports.default.
  const top = membrane.readFields(loaded, fields);
  const mod = typeof top.create === "function" ? loaded : (top.default ?? loaded);
  if (typeof membrane.readFields(mod, fields).create !== "function")
    throw new InputError(o.adapterFile, "module.exports.create", "a function create({ addresses, options, processId })");
  return membrane.invokeMethod(mod, "create", membrane.list(membrane.fromJson(env)));
}

export { libraryNodeId, parseLibraryOptions, type LibraryDesignOptions } from "./options.js";
