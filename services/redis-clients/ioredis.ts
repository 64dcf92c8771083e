/**
 * `require("ioredis")` inside the simulator: a client with ioredis 5/6's API whose
 * commands travel over the simulated network (link.ts) to a simulated Redis node.
 *
 * Connection defaults, as ioredis documents them (README "Connection Events" and
 * "Auto-reconnect"; lib/redis/RedisOptions.ts DEFAULT_REDIS_OPTIONS):
 *   retryStrategy          times => Math.min(times * 50, 2000)
 *   maxRetriesPerRequest   20 (a queued command fails after 20 reconnect attempts)
 *   enableOfflineQueue     true
 *   autoResendUnfulfilledCommands  true (in-flight commands are resent after a reconnect)
 *   connectTimeout         10000 ms
 *   commandTimeout         none (a command waits as long as TCP does)
 * Replies: status -> "OK", bulk -> string, integer -> number, nil -> null, error ->
 * ReplyError. Every command returns a promise and takes an optional node-style callback.
 * Covered: the string, expiry and scripting commands, defineCommand (EVALSHA, EVAL on
 * NOSCRIPT, as ioredis's Script does), multi/pipeline, duplicate, quit, disconnect.
 * Cluster and pub/sub are not: they stop the run, named.
 *
 * The module is built inside the library's realm (IOREDIS_SOURCE runs there), over the
 * hub's driver: a client, its methods and its prototype chain are the realm's, so none
 * leads back to the host.
 */
import vm from "node:vm";
import type { ClientFlavour, ClientHub } from "./hub.js";

const COMMANDS = [
  "get",
  "set",
  "setnx",
  "setex",
  "psetex",
  "getdel",
  "getset",
  "del",
  "unlink",
  "exists",
  "expire",
  "pexpire",
  "expireat",
  "pexpireat",
  "persist",
  "ttl",
  "pttl",
  "incr",
  "incrby",
  "decr",
  "decrby",
  "ping",
  "echo",
  "time",
  "dbsize",
  "eval",
  "evalsha",
  "eval_ro",
  "evalsha_ro",
  "script",
  "select",
  "client",
  // Real ioredis has every command; these reach the simulated node, which names what it lacks.
  "hset",
  "hget",
  "hdel",
  "hgetall",
  "zadd",
  "zrem",
  "zrange",
  "zcard",
  "lpush",
  "rpush",
  "lpop",
  "brpop",
  "publish",
  "mget",
  "mset",
  "keys",
  "scan",
  "type",
  "watch",
  "unwatch",
];

const IOREDIS: ClientFlavour = {
  label: "ioredis",
  names: { ConnectionClosed: "Error", MaxRetriesPerRequest: "MaxRetriesPerRequestError", CommandTimeout: "Error", Reply: "ReplyError" },
};

/** Evaluated in the realm: (driver, EventEmitter, commands) => the ioredis module. */
const IOREDIS_SOURCE = String.raw`(function (driver, EventEmitter, COMMANDS, stringify) {
  "use strict";
  // A command crosses as a head this module made and the library's argument list as the tail;
  // the host takes them when all are strings or numbers (hub.ts), else says false and the
  // argv is flattened here. A batch crosses as one JSON string (stringify is the prelude's own).
  const sendArgs = (link, head, tail, done) => {
    if (driver.send(link, head, tail, done)) return;
    const argv = flatten(head, []);
    driver.send(link, tail === undefined ? argv : flatten(tail, argv), undefined, done);
  };
  const send = (link, argv, done) => sendArgs(link, argv, undefined, done);
  const sendBatch = (link, commands, done) => driver.sendBatch(link, stringify(commands), done);
  const { Promise, Error, Map, Array } = globalThis;
  const links = new WeakMap();
  const { isArray } = Array;
  // A command's argv as ioredis sends it: nested arrays flattened, null and undefined as "",
  // the rest as strings; the driver takes strings only.
  const flatten = (args, out) => {
    for (let i = 0; i < args.length; i++) {
      const x = args[i];
      if (typeof x === "string") out[out.length] = x;
      else if (isArray(x)) flatten(x, out);
      else out[out.length] = x === undefined || x === null ? "" : String(x);
    }
    return out;
  };
  const splitCallback = (args) => {
    const last = args[args.length - 1];
    return typeof last === "function" ? { args: args.slice(0, -1), cb: last } : { args };
  };
  const replyError = (message) => {
    const e = new Error(message);
    e.name = "ReplyError";
    return e;
  };
  // A promise, and the node-style callback if one was given.
  const settle = (run, cb) => {
    const p = new Promise((resolve, reject) => {
      run((err, value) => {
        if (err) reject(err);
        else resolve(value);
        if (cb) {
          if (err) cb(err);
          else cb(null, value);
        }
      });
    });
    // With a callback, ioredis handles its own promise's rejection (standard-as-callback).
    if (cb) p.catch(() => {});
    return p;
  };
  const parse = (args) => {
    const opts = {};
    for (const a of args) {
      if (typeof a === "number") opts.port = a;
      else if (typeof a === "string") {
        if (/^rediss?:\/\//.test(a)) {
          const u = new URL(a);
          opts.host = u.hostname;
          opts.port = Number(u.port || 6379);
        } else opts.host = a;
      } else if (a && typeof a === "object") Object.assign(opts, a);
    }
    return opts;
  };

  class Redis extends EventEmitter {
    constructor(...args) {
      super();
      const opts = parse(args);
      if (opts.lazyConnect) driver.escape("new Redis({ lazyConnect: true })", "lazy connections are not modelled; connect eagerly");
      this.options = opts;
      const retry = typeof opts.retryStrategy === "function" ? opts.retryStrategy : (n) => Math.min(n * 50, 2000);
      const policy = {
        maxRetriesPerRequest: opts.maxRetriesPerRequest === null ? null : typeof opts.maxRetriesPerRequest === "number" ? opts.maxRetriesPerRequest : 20,
        offlineQueue: opts.enableOfflineQueue !== false,
        resendUnfulfilled: opts.autoResendUnfulfilledCommands !== false,
        connectTimeoutMs: typeof opts.connectTimeout === "number" ? opts.connectTimeout : 10000,
        commandTimeoutMs: typeof opts.commandTimeout === "number" ? opts.commandTimeout : undefined,
      };
      links.set(this, driver.open(driver.resolve(opts.port, opts.host), policy, (event, arg) => {
        // ioredis emits 'error' only to listeners it has (silentEmit), never as an uncaught throw.
        if (event === "error") {
          if (this.listenerCount("error") > 0) this.emit("error", arg);
        } else if (arg === undefined) this.emit(event);
        else this.emit(event, arg);
      }, (n) => retry(n)));
    }
    get status() {
      return driver.status(links.get(this));
    }
    call(name, ...rest) {
      const { args, cb } = splitCallback(rest);
      return settle((done) => sendArgs(links.get(this), [name], args, done), cb);
    }
    send_command(name, ...rest) {
      return this.call(name, ...rest);
    }
    // EVALSHA, and EVAL on NOSCRIPT, as ioredis's Script does.
    defineCommand(name, def) {
      const lua = String(def.lua);
      const sha = driver.sha1(lua);
      const keys = def.numberOfKeys;
      const run = (rest) => {
        const { args, cb } = splitCallback(rest);
        const link = links.get(this);
        const head = (name, body) => (keys === undefined ? [name, body] : [name, body, String(keys)]);
        return settle((done) => {
          sendArgs(link, head("EVALSHA", sha), args, (err, value) => {
            if (err && err.name === "ReplyError" && String(err.message).startsWith("NOSCRIPT")) sendArgs(link, head("EVAL", lua), args, done);
            else done(err, value);
          });
        }, cb);
      };
      this[name] = (...rest) => run(rest);
      this[name + "Buffer"] = (...rest) => run(rest);
    }
    multi(commands) {
      return new Batch(links.get(this), true, commands);
    }
    pipeline(commands) {
      return new Batch(links.get(this), false, commands);
    }
    duplicate(override = {}) {
      return new Redis({ ...this.options, ...override });
    }
    connect(cb) {
      return settle((done) => done(null), cb);
    }
    quit(cb) {
      const link = links.get(this);
      return settle((done) => {
        send(link, ["QUIT"], () => {
          driver.end(link);
          done(null, "OK");
        });
      }, cb);
    }
    disconnect() {
      driver.end(links.get(this));
    }
    subscribe() {
      driver.escape("ioredis subscribe()", "pub/sub is not modelled in the simulated Redis");
    }
  }
  for (const name of COMMANDS) {
    Object.defineProperty(Redis.prototype, name, {
      value: function (...rest) { return this.call(name, ...rest); },
      writable: true,
      configurable: true,
    });
  }

  // multi() / pipeline(): queued commands; a multi runs as one atomic batch on the node.
  const queues = new WeakMap();
  class Batch {
    constructor(link, atomic, commands) {
      const queued = [];
      queues.set(this, { link, atomic, queued });
      for (const c of commands || []) queued.push(c);
      for (const name of COMMANDS) {
        this[name] = (...args) => {
          queued.push([name, args]);
          return this;
        };
      }
    }
    exec(cb) {
      const { link, atomic, queued } = queues.get(this);
      return settle((done) => {
        if (atomic) {
          sendBatch(link, queued.map((c) => flatten(c, [])), (err, replies) => (err ? done(err) : done(null, replies.map((r) => (r instanceof Error ? [r, undefined] : [null, r])))));
          return;
        }
        const pairs = new Array(queued.length);
        let left = queued.length;
        if (left === 0) return done(null, pairs);
        queued.forEach((c, i) =>
          send(link, flatten(c, []), (err, value) => {
            pairs[i] = err ? [replyError(err.message), undefined] : [null, value];
            if (--left === 0) done(null, pairs);
          }),
        );
      }, cb);
    }
  }

  function Cluster() {
    driver.escape("new Redis.Cluster()", "Redis Cluster is not modelled; give the library one client per node");
  }
  Redis.default = Redis;
  Redis.Redis = Redis;
  Redis.Cluster = Cluster;
  Redis.ReplyError = Error;
  return Redis;
})`;
let script: vm.Script | undefined;

/** The module object library code gets for `require("ioredis")`; EventEmitter is the realm's `events`. */
export function ioredisModule(hub: ClientHub, EventEmitter: unknown): unknown {
  script ??= new vm.Script(IOREDIS_SOURCE, { filename: "lockstep:ioredis" });
  const build = hub.realm.runScript(script) as (driver: unknown, ee: unknown, commands: unknown) => unknown;
  const { membrane } = hub.realm;
  return membrane.invoke(build, membrane.toRealm(hub.driver(IOREDIS)), EventEmitter, membrane.fromJson(COMMANDS), membrane.modules.stringify);
}
