/**
 * `require("redis")` inside the simulator: node-redis v4/v5's `createClient` API over
 * the simulated network (link.ts).
 *
 * Connection defaults, as node-redis documents them (docs/client-configuration.md):
 *   socket.reconnectStrategy  retries => Math.min(retries * 50, 500)  (v4's default)
 *   socket.connectTimeout     5000 ms
 *   disableOfflineQueue       false (commands wait while reconnecting)
 *   in-flight commands on a lost connection are rejected, not resent
 *   commands before connect() reject with ClientClosedError
 * Methods are node-redis's camelCase: set(key, value, { NX, PX, EX, XX, GET }), get,
 * del, exists, pExpire, pTTL, incr, eval / evalSha(script, { keys, arguments }),
 * scriptLoad, sendCommand(argv), multi().…exec(), duplicate, quit/close, disconnect.
 *
 * The module is built inside the library's realm (NODE_REDIS_SOURCE runs there), over
 * the hub's driver and `argv`, which builds a command's argv on the host: a client, its
 * methods and its prototype chain are the realm's, so none leads back to the host.
 */
import vm from "node:vm";
import type { ClientFlavour, ClientHub } from "./hub.js";

type SetOptions = { NX?: boolean; XX?: boolean; PX?: number; EX?: number; PXAT?: number; EXAT?: number; KEEPTTL?: boolean; GET?: boolean };
type EvalOptions = { keys?: unknown[]; arguments?: unknown[] };

const str = (x: unknown): string => (Buffer.isBuffer(x) ? x.toString() : String(x));

function setArgv(key: unknown, value: unknown, o: SetOptions = {}): string[] {
  const argv = ["SET", str(key), str(value)];
  for (const k of ["EX", "PX", "EXAT", "PXAT"] as const) if (o[k] !== undefined) argv.push(k, String(o[k]));
  if (o.KEEPTTL) argv.push("KEEPTTL");
  if (o.NX) argv.push("NX");
  if (o.XX) argv.push("XX");
  if (o.GET) argv.push("GET");
  return argv;
}

const evalArgv = (cmd: string, script: unknown, o: EvalOptions = {}): string[] => [
  cmd,
  str(script),
  String(o.keys?.length ?? 0),
  ...(o.keys ?? []).map(str),
  ...(o.arguments ?? []).map(str),
];

/** argv builders for node-redis's command methods, by method name. */
const BUILDERS: Record<string, (...a: unknown[]) => string[]> = {
  get: (k) => ["GET", str(k)],
  set: (k, v, o) => setArgv(k, v, o as SetOptions),
  setNX: (k, v) => ["SETNX", str(k), str(v)],
  del: (...keys) => ["DEL", ...keys.flat().map(str)],
  unlink: (...keys) => ["UNLINK", ...keys.flat().map(str)],
  exists: (...keys) => ["EXISTS", ...keys.flat().map(str)],
  expire: (k, s) => ["EXPIRE", str(k), String(s)],
  pExpire: (k, ms) => ["PEXPIRE", str(k), String(ms)],
  pExpireAt: (k, ms) => ["PEXPIREAT", str(k), String(ms)],
  ttl: (k) => ["TTL", str(k)],
  pTTL: (k) => ["PTTL", str(k)],
  incr: (k) => ["INCR", str(k)],
  incrBy: (k, n) => ["INCRBY", str(k), String(n)],
  decr: (k) => ["DECR", str(k)],
  getDel: (k) => ["GETDEL", str(k)],
  persist: (k) => ["PERSIST", str(k)],
  ping: () => ["PING"],
  time: () => ["TIME"],
  eval: (s, o) => evalArgv("EVAL", s, o as EvalOptions),
  evalSha: (s, o) => evalArgv("EVALSHA", s, o as EvalOptions),
  scriptLoad: (s) => ["SCRIPT", "LOAD", str(s)],
  scriptExists: (...shas) => ["SCRIPT", "EXISTS", ...shas.flat().map(str)],
};

const NODE_REDIS: ClientFlavour = {
  label: "node-redis",
  flattens: false,
  names: { ConnectionClosed: "SocketClosedUnexpectedlyError", MaxRetriesPerRequest: "Error", CommandTimeout: "TimeoutError", Reply: "ErrorReply" },
};

/** Evaluated in the realm: (driver, argv, EventEmitter, commandNames) => the node-redis module. */
const NODE_REDIS_SOURCE = String.raw`(function (driver, argvOf, EventEmitter, NAMES) {
  "use strict";
  const { Promise, Error, WeakMap } = globalThis;
  const links = new WeakMap();
  const named = (message, name) => {
    const e = new Error(message);
    e.name = name;
    return e;
  };
  const openLink = (client) => {
    const link = links.get(client);
    return link !== undefined && driver.status(link) !== "end" ? link : undefined;
  };
  // Rejects with ClientClosedError before connect(), as node-redis does.
  const run = (client, argv) =>
    new Promise((resolve, reject) => {
      const link = openLink(client);
      if (link === undefined) return reject(named("The client is closed", "ClientClosedError"));
      driver.send(link, argv, (err, value) => (err ? reject(err) : resolve(value)));
    });

  class RedisClient extends EventEmitter {
    constructor(options = {}) {
      super();
      this.options = options;
      // node-redis v4 clients carry a v4 marker some libraries check for (redis-lock does).
      this.v4 = {};
      const socket = options.socket ?? {};
      let host = socket.host;
      let port = socket.port;
      if (typeof options.url === "string") {
        const u = new URL(options.url);
        host = u.hostname;
        port = Number(u.port || 6379);
      }
      servers.set(this, driver.resolve(port, host));
    }
    get isOpen() {
      return openLink(this) !== undefined;
    }
    get isReady() {
      const link = links.get(this);
      return link !== undefined && driver.status(link) === "ready";
    }
    connect() {
      return new Promise((resolve, reject) => {
        if (openLink(this) !== undefined) return reject(named("Socket already opened", "Error"));
        const socket = this.options.socket ?? {};
        const strategy = socket.reconnectStrategy;
        const policy = {
          retryDelayMs: (n) => (strategy === false ? null : typeof strategy === "function" ? strategy(n) : typeof strategy === "number" ? strategy : Math.min(n * 50, 500)),
          maxRetriesPerRequest: null,
          offlineQueue: this.options.disableOfflineQueue !== true,
          resendUnfulfilled: false,
          connectTimeoutMs: typeof socket.connectTimeout === "number" ? socket.connectTimeout : 5000,
          commandTimeoutMs: undefined,
        };
        let first = true;
        links.set(this, driver.open(servers.get(this), policy, (event, arg) => {
          if (event === "ready" && first) {
            first = false;
            resolve(this);
          }
          if (event !== "error") this.emit(event);
          else if (this.listenerCount("error") > 0) this.emit("error", arg);
        }));
      });
    }
    sendCommand(argv) {
      return run(this, argv);
    }
    multi() {
      const queued = [];
      const chain = {
        exec: () =>
          new Promise((resolve, reject) => {
            const link = openLink(this);
            if (link === undefined) return reject(named("The client is closed", "ClientClosedError"));
            driver.sendBatch(link, queued, (err, replies) => (err ? reject(err) : resolve(replies)));
          }),
        addCommand: (argv) => {
          queued.push(argv);
          return chain;
        },
      };
      for (const name of NAMES) {
        chain[name] = (...a) => {
          queued.push(argvOf(name, a));
          return chain;
        };
      }
      return chain;
    }
    duplicate(override = {}) {
      return new RedisClient({ ...this.options, ...override });
    }
    quit() {
      return this.close();
    }
    close() {
      return new Promise((resolve) => {
        const link = links.get(this);
        if (link === undefined) return resolve("OK");
        driver.send(link, ["QUIT"], () => {
          driver.end(link);
          resolve("OK");
        });
      });
    }
    disconnect() {
      this.destroy();
      return Promise.resolve();
    }
    destroy() {
      const link = links.get(this);
      if (link !== undefined) driver.end(link);
    }
    subscribe() {
      driver.escape("node-redis subscribe()", "pub/sub is not modelled in the simulated Redis");
    }
  }
  const servers = new WeakMap();
  for (const name of NAMES) {
    const method = { value: function (...a) { return run(this, argvOf(name, a)); }, writable: true, configurable: true };
    Object.defineProperty(RedisClient.prototype, name, method);
    const upper = name.toUpperCase();
    if (upper !== name) Object.defineProperty(RedisClient.prototype, upper, method);
  }
  return {
    createClient: (options) => new RedisClient(options),
    RedisClient,
    ErrorReply: Error,
  };
})`;
let script: vm.Script | undefined;

/** The module object library code gets for `require("redis")` (and "@redis/client"); EventEmitter is the realm's `events`. */
export function nodeRedisModule(hub: ClientHub, EventEmitter: unknown): unknown {
  script ??= new vm.Script(NODE_REDIS_SOURCE, { filename: "lockstep:node-redis" });
  const build = hub.realm.runScript(script) as (driver: unknown, argv: unknown, ee: unknown, names: unknown) => unknown;
  const argvOf = (name: string, args: unknown[]): string[] => {
    const b = BUILDERS[name];
    if (!b) throw new TypeError(`node-redis has no command method ${name}`);
    return b(...args);
  };
  const { seal } = hub.realm;
  return build(seal.toRealm(hub.driver(NODE_REDIS)), seal.toRealm(argvOf), EventEmitter, hub.realm.fromJson(Object.keys(BUILDERS)));
}
