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

/**
 * argv builders for node-redis's command methods, by method name: realm code, so a
 * library's own keys list, its map or its Array.prototype.map never meets a host function.
 */
const BUILDERS_SOURCE = String.raw`(() => {
  const str = (x) => String(x);
  const all = (list, out) => {
    for (const x of list) out[out.length] = str(x);
    return out;
  };
  const flat = (keys) => {
    const out = [];
    for (const k of keys) {
      if (Array.isArray(k)) for (const x of k) out[out.length] = str(x);
      else out[out.length] = str(k);
    }
    return out;
  };
  const setArgv = (key, value, o) => {
    const argv = ["SET", str(key), str(value)];
    const opts = o || {};
    for (const k of ["EX", "PX", "EXAT", "PXAT"]) if (opts[k] !== undefined) argv[argv.length] = k, argv[argv.length] = String(opts[k]);
    for (const k of ["KEEPTTL", "NX", "XX", "GET"]) if (opts[k]) argv[argv.length] = k;
    return argv;
  };
  const evalArgv = (cmd, script, o) => {
    const keys = o && o.keys ? [...o.keys] : [];
    const args = o && o.arguments ? [...o.arguments] : [];
    return all(args, all(keys, [cmd, str(script), String(keys.length)]));
  };
  return {
    get: (k) => ["GET", str(k)],
    set: (k, v, o) => setArgv(k, v, o),
    setNX: (k, v) => ["SETNX", str(k), str(v)],
    del: (...keys) => ["DEL", ...flat(keys)],
    unlink: (...keys) => ["UNLINK", ...flat(keys)],
    exists: (...keys) => ["EXISTS", ...flat(keys)],
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
    eval: (s, o) => evalArgv("EVAL", s, o),
    evalSha: (s, o) => evalArgv("EVALSHA", s, o),
    scriptLoad: (s) => ["SCRIPT", "LOAD", str(s)],
    scriptExists: (...shas) => ["SCRIPT", "EXISTS", ...flat(shas)],
  };
})()`;

const NODE_REDIS: ClientFlavour = {
  label: "node-redis",
  names: { ConnectionClosed: "SocketClosedUnexpectedlyError", MaxRetriesPerRequest: "Error", CommandTimeout: "TimeoutError", Reply: "ErrorReply" },
};

/** Evaluated in the realm: (driver, EventEmitter) => the node-redis module. */
const NODE_REDIS_SOURCE = `(function (driver, EventEmitter, stringify) {
  "use strict";
  // A command's argv (all strings) crosses as the prelude copies it (hub.ts); a batch as one
  // JSON string (stringify is the prelude's own).
  const send = (link, argv, done) => {
    if (!driver.send(link, argv, undefined, done)) throw new TypeError("a command's arguments must be strings");
  };
  const sendBatch = (link, commands, done) => driver.sendBatch(link, stringify(commands), done);
  const { Promise, Error, WeakMap } = globalThis;
  const BUILDERS = ${BUILDERS_SOURCE};
  const NAMES = Object.keys(BUILDERS);
  const argvOf = (name, a) => BUILDERS[name](...a);
  const strings = (argv) => {
    const out = [];
    for (let i = 0; i < argv.length; i++) out[i] = typeof argv[i] === "string" ? argv[i] : String(argv[i]);
    return out;
  };
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
      send(link, argv, (err, value) => (err ? reject(err) : resolve(value)));
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
        const retry = (n) => (strategy === false ? null : typeof strategy === "function" ? strategy(n) : typeof strategy === "number" ? strategy : Math.min(n * 50, 500));
        const policy = {
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
        }, retry));
      });
    }
    sendCommand(argv) {
      return run(this, strings(argv));
    }
    multi() {
      const queued = [];
      const chain = {
        exec: () =>
          new Promise((resolve, reject) => {
            const link = openLink(this);
            if (link === undefined) return reject(named("The client is closed", "ClientClosedError"));
            sendBatch(link, queued, (err, replies) => (err ? reject(err) : resolve(replies)));
          }),
        addCommand: (argv) => {
          queued.push(strings(argv));
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
        send(link, ["QUIT"], () => {
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
  const build = hub.realm.runScript(script) as (driver: unknown, ee: unknown) => unknown;
  const { membrane } = hub.realm;
  return membrane.invoke(build, membrane.toRealm(hub.driver(NODE_REDIS)), EventEmitter, membrane.modules.stringify);
}
