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
 */
import { EventEmitter } from "node:events";
import { sha1Hex } from "../redis/lua.js";
import type { ArgvReply } from "../redis/argv-reply.js";
import type { ClientHub } from "./hub.js";
import type { LinkError, LinkPolicy } from "./link.js";
import { RedisLink } from "./link.js";

const COMMANDS = [
  "get",
  "set",
  "setnx",
  "setex",
  "psetex",
  "getdel",
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

const ERROR_NAMES = { ConnectionClosed: "Error", MaxRetriesPerRequest: "MaxRetriesPerRequestError", CommandTimeout: "Error", Reply: "ReplyError" } as const;

type Callback = (err: Error | null, value?: unknown) => void;

function flatten(args: unknown[]): string[] {
  const out: string[] = [];
  const walk = (x: unknown): void => {
    if (Array.isArray(x)) x.forEach(walk);
    else if (Buffer.isBuffer(x)) out.push(x.toString());
    else out.push(x === undefined || x === null ? "" : String(x));
  };
  args.forEach(walk);
  return out;
}

function splitCallback(args: unknown[]): { args: unknown[]; cb?: Callback } {
  const last = args[args.length - 1];
  return typeof last === "function" ? { args: args.slice(0, -1), cb: last as Callback } : { args };
}

interface ScriptDef {
  lua: string;
  sha: string;
  numberOfKeys?: number;
}

/** The module object library code gets for `require("ioredis")`. */
export function ioredisModule(hub: ClientHub): unknown {
  const { realm } = hub;

  const settle = (run: (done: (err: Error | null, value?: unknown) => void) => void, cb?: Callback): Promise<unknown> =>
    new realm.Promise((resolve, reject) => {
      run((err, value) => {
        realm.enter("an ioredis reply", () => {
          if (err) reject(err);
          else resolve(value);
          if (cb) {
            if (err) cb(err);
            else cb(null, value);
          }
        });
      });
    });

  class Redis extends EventEmitter {
    readonly options: Record<string, unknown>;
    private readonly link: RedisLink;
    private readonly scripts = new Map<string, ScriptDef>();
    readonly serverId: string;

    constructor(...args: unknown[]) {
      super();
      const opts: Record<string, unknown> = {};
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
      if (opts.lazyConnect) realm.escape("new Redis({ lazyConnect: true })", "lazy connections are not modelled; connect eagerly");
      this.options = opts;
      this.serverId = hub.resolve(opts.port, opts.host);
      const retry = typeof opts.retryStrategy === "function" ? (opts.retryStrategy as (n: number) => unknown) : (n: number) => Math.min(n * 50, 2000);
      const policy: LinkPolicy = {
        retryDelayMs: (n) => {
          const d = retry(n);
          return typeof d === "number" && Number.isFinite(d) ? Math.max(0, d) : null;
        },
        maxRetriesPerRequest: opts.maxRetriesPerRequest === null ? null : typeof opts.maxRetriesPerRequest === "number" ? opts.maxRetriesPerRequest : 20,
        offlineQueue: opts.enableOfflineQueue !== false,
        resendUnfulfilled: opts.autoResendUnfulfilledCommands !== false,
        connectTimeoutMs: typeof opts.connectTimeout === "number" ? opts.connectTimeout : 10_000,
        commandTimeoutMs: typeof opts.commandTimeout === "number" ? opts.commandTimeout : undefined,
      };
      this.link = hub.openLink(this.serverId, policy, (event, ...rest) => {
        realm.enter(`ioredis '${event}' listeners`, () => {
          if (event === "error") {
            // ioredis emits 'error' only to listeners it has (silentEmit), never as an uncaught throw.
            if (this.listenerCount("error") > 0) this.emit("error", hub.linkError(rest[0] as LinkError, ERROR_NAMES));
          } else this.emit(event, ...rest);
        });
      });
    }

    get status(): string {
      return this.link.status;
    }

    /** Send argv; the reply as ioredis shapes it. */
    private command(argv: string[], cb?: Callback, shape: (r: ArgvReply) => unknown = (r) => hub.toRealm(r)): Promise<unknown> {
      return settle((done) => {
        this.link.send({ argv }, (e, r) => {
          if (e) return done(hub.linkError(e, ERROR_NAMES));
          if (r !== null && r !== undefined && typeof r === "object" && !Array.isArray(r) && "error" in r) return done(hub.replyError(r.error));
          done(null, shape(r ?? null));
        });
      }, cb);
    }

    call(name: string, ...rest: unknown[]): Promise<unknown> {
      const { args, cb } = splitCallback(rest);
      return this.command([name, ...flatten(args)], cb);
    }

    send_command(name: string, ...rest: unknown[]): Promise<unknown> {
      return this.call(name, ...rest);
    }

    defineCommand(name: string, def: { lua: string; numberOfKeys?: number; readOnly?: boolean }): void {
      const script: ScriptDef = { lua: def.lua, sha: sha1Hex(def.lua), numberOfKeys: def.numberOfKeys };
      this.scripts.set(name, script);
      const run = (rest: unknown[]): Promise<unknown> => {
        const { args, cb } = splitCallback(rest);
        const flat = flatten(args);
        const tail = script.numberOfKeys === undefined ? flat : [String(script.numberOfKeys), ...flat];
        return settle((done) => {
          const finish = (e: LinkError | null, r?: ArgvReply): void => {
            if (e) return done(hub.linkError(e, ERROR_NAMES));
            if (r !== null && r !== undefined && typeof r === "object" && !Array.isArray(r) && "error" in r) return done(hub.replyError(r.error));
            done(null, hub.toRealm(r ?? null));
          };
          this.link.send({ argv: ["EVALSHA", script.sha, ...tail] }, (e, r) => {
            const noScript = !e && r && typeof r === "object" && !Array.isArray(r) && "error" in r && r.error.startsWith("NOSCRIPT");
            if (noScript) this.link.send({ argv: ["EVAL", script.lua, ...tail] }, finish);
            else finish(e, r);
          });
        }, cb);
      };
      (this as unknown as Record<string, unknown>)[name] = (...rest: unknown[]) => run(rest);
      (this as unknown as Record<string, unknown>)[`${name}Buffer`] = (...rest: unknown[]) => run(rest);
    }

    multi(commands?: unknown[][]): Batch {
      return new Batch(this.link, true, commands);
    }

    pipeline(commands?: unknown[][]): Batch {
      return new Batch(this.link, false, commands);
    }

    duplicate(override: Record<string, unknown> = {}): Redis {
      return new Redis({ ...this.options, ...override });
    }

    connect(cb?: Callback): Promise<unknown> {
      return settle((done) => done(null), cb);
    }

    quit(cb?: Callback): Promise<unknown> {
      return settle((done) => {
        this.link.send({ argv: ["QUIT"] }, () => {
          this.link.end();
          done(null, "OK");
        });
      }, cb);
    }

    disconnect(): void {
      this.link.end();
    }

    subscribe(): never {
      return realm.escape("ioredis subscribe()", "pub/sub is not modelled in the simulated Redis");
    }
  }
  for (const name of COMMANDS) {
    Object.defineProperty(Redis.prototype, name, {
      value: function (this: Redis, ...rest: unknown[]) {
        return this.call(name, ...rest);
      },
      writable: true,
      configurable: true,
    });
  }

  /** multi() / pipeline(): queued commands; a multi runs as one atomic batch on the node. */
  class Batch {
    private readonly queued: string[][] = [];
    constructor(
      private readonly link: RedisLink,
      private readonly atomic: boolean,
      commands?: unknown[][],
    ) {
      for (const c of commands ?? []) this.queued.push(flatten(c));
      for (const name of COMMANDS) {
        (this as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
          this.queued.push([name, ...flatten(args)]);
          return this;
        };
      }
    }

    exec(cb?: Callback): Promise<unknown> {
      const toPairs = (replies: ArgvReply[]): unknown => {
        const out = new realm.Array<unknown>();
        for (const r of replies) {
          const isErr = r !== null && typeof r === "object" && !Array.isArray(r) && "error" in r;
          const pair = new realm.Array<unknown>();
          pair.push(isErr ? hub.replyError((r as { error: string }).error) : null, isErr ? undefined : hub.toRealm(r));
          out.push(pair);
        }
        return out;
      };
      return settle((done) => {
        if (this.atomic) {
          this.link.send({ batch: this.queued }, (e, r) => (e ? done(hub.linkError(e, ERROR_NAMES)) : done(null, toPairs((r ?? []) as ArgvReply[]))));
          return;
        }
        const replies: ArgvReply[] = new Array(this.queued.length);
        let left = this.queued.length;
        if (left === 0) return done(null, toPairs([]));
        this.queued.forEach((argv, i) =>
          this.link.send({ argv }, (e, r) => {
            replies[i] = e ? { error: e.message } : (r ?? null);
            if (--left === 0) done(null, toPairs(replies));
          }),
        );
      }, cb);
    }
  }

  const Cluster = function Cluster(): never {
    return realm.escape("new Redis.Cluster()", "Redis Cluster is not modelled; give the library one client per node");
  };
  const mod = Redis as unknown as Record<string, unknown>;
  mod.default = Redis;
  mod.Redis = Redis;
  mod.Cluster = Cluster;
  mod.ReplyError = realm.Error;
  return Redis;
}
