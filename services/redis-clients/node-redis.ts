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
 */
import { EventEmitter } from "node:events";
import type { ArgvReply } from "../redis/argv-reply.js";
import type { ClientHub } from "./hub.js";
import type { LinkPolicy } from "./link.js";
import { RedisLink } from "./link.js";

const ERROR_NAMES = {
  ConnectionClosed: "SocketClosedUnexpectedlyError",
  MaxRetriesPerRequest: "Error",
  CommandTimeout: "TimeoutError",
  Reply: "ErrorReply",
} as const;

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

/** The module object library code gets for `require("redis")` (and "@redis/client"). */
export function nodeRedisModule(hub: ClientHub): unknown {
  const { realm } = hub;

  const shapeReply = (r: ArgvReply): unknown => hub.toRealm(r);

  class RedisClient extends EventEmitter {
    readonly options: Record<string, unknown>;
    private link: RedisLink | undefined;
    private readonly serverId: string;
    /** node-redis v4 clients carry a `v4` marker some libraries check for (redis-lock does). */
    readonly v4 = {};

    constructor(options: Record<string, unknown> = {}) {
      super();
      this.options = options;
      const socket = (options.socket ?? {}) as Record<string, unknown>;
      let host = socket.host;
      let port = socket.port;
      if (typeof options.url === "string") {
        const u = new URL(options.url);
        host = u.hostname;
        port = Number(u.port || 6379);
      }
      this.serverId = hub.resolve(port, host);
    }

    get isOpen(): boolean {
      return this.link !== undefined && this.link.status !== "end";
    }

    get isReady(): boolean {
      return this.link?.status === "ready";
    }

    connect(): Promise<unknown> {
      return new realm.Promise((resolve, reject) => {
        if (this.link && this.link.status !== "end") {
          reject(hub.replyError("Socket already opened", "Error"));
          return;
        }
        const socket = (this.options.socket ?? {}) as Record<string, unknown>;
        const strategy = socket.reconnectStrategy;
        const policy: LinkPolicy = {
          retryDelayMs: (n) => {
            if (strategy === false) return null;
            const d =
              typeof strategy === "function" ? (strategy as (n: number) => unknown)(n) : typeof strategy === "number" ? strategy : Math.min(n * 50, 500);
            return typeof d === "number" && Number.isFinite(d) ? Math.max(0, d) : null;
          },
          maxRetriesPerRequest: null,
          offlineQueue: this.options.disableOfflineQueue !== true,
          resendUnfulfilled: false,
          connectTimeoutMs: typeof socket.connectTimeout === "number" ? socket.connectTimeout : 5000,
          commandTimeoutMs: undefined,
        };
        let first = true;
        this.link = hub.openLink(this.serverId, policy, (event, ...rest) => {
          realm.enter(`node-redis '${event}' listeners`, () => {
            if (event === "ready" && first) {
              first = false;
              resolve(this);
            }
            const name = event === "reconnecting" ? "reconnecting" : event;
            if (name === "error") {
              if (this.listenerCount("error") > 0) this.emit("error", hub.linkError(rest[0] as never, ERROR_NAMES));
            } else this.emit(name);
          });
        });
      });
    }

    /** Send argv; rejects with ClientClosedError before connect(), as node-redis does. */
    sendCommand(argv: unknown[]): Promise<unknown> {
      return this.run(argv.map(str));
    }

    private run(argv: string[]): Promise<unknown> {
      return new realm.Promise((resolve, reject) => {
        const link = this.link;
        if (!link || link.status === "end") {
          reject(hub.replyError("The client is closed", "ClientClosedError"));
          return;
        }
        link.send({ argv }, (e, r) => {
          realm.enter("a node-redis reply", () => {
            if (e) reject(hub.linkError(e, ERROR_NAMES));
            else if (r !== null && r !== undefined && typeof r === "object" && !Array.isArray(r) && "error" in r) reject(hub.replyError(r.error, "ErrorReply"));
            else resolve(shapeReply(r ?? null));
          });
        });
      });
    }

    multi(): unknown {
      const queued: string[][] = [];
      const chain: Record<string, unknown> = {
        exec: () =>
          new realm.Promise((resolve, reject) => {
            if (!this.link || this.link.status === "end") return reject(hub.replyError("The client is closed", "ClientClosedError"));
            this.link.send({ batch: queued }, (e, r) =>
              realm.enter("a node-redis EXEC reply", () => (e ? reject(hub.linkError(e, ERROR_NAMES)) : resolve(shapeReply((r ?? []) as ArgvReply)))),
            );
          }),
      };
      for (const [name, build] of Object.entries(BUILDERS)) {
        chain[name] = (...a: unknown[]) => {
          queued.push(build(...a));
          return chain;
        };
      }
      chain.addCommand = (argv: unknown[]) => {
        queued.push(argv.map(str));
        return chain;
      };
      return chain;
    }

    duplicate(override: Record<string, unknown> = {}): RedisClient {
      return new RedisClient({ ...this.options, ...override });
    }

    quit(): Promise<unknown> {
      return this.close();
    }

    close(): Promise<unknown> {
      return new realm.Promise((resolve) => {
        const link = this.link;
        if (!link) return resolve("OK");
        link.send({ argv: ["QUIT"] }, () =>
          realm.enter("node-redis quit", () => {
            link.end();
            resolve("OK");
          }),
        );
      });
    }

    disconnect(): Promise<unknown> {
      this.link?.end();
      return realm.Promise.resolve();
    }

    destroy(): void {
      this.link?.end();
    }

    subscribe(): never {
      return realm.escape("node-redis subscribe()", "pub/sub is not modelled in the simulated Redis");
    }
  }
  for (const [name, build] of Object.entries(BUILDERS)) {
    Object.defineProperty(RedisClient.prototype, name, {
      value: function (this: RedisClient, ...a: unknown[]) {
        return this.sendCommand(build(...a));
      },
      writable: true,
      configurable: true,
    });
    const upper = name.toUpperCase();
    if (upper !== name) {
      Object.defineProperty(RedisClient.prototype, upper, {
        value: function (this: RedisClient, ...a: unknown[]) {
          return this.sendCommand(build(...a));
        },
        writable: true,
        configurable: true,
      });
    }
  }
  return {
    createClient: (options?: Record<string, unknown>) => new RedisClient(options),
    RedisClient,
    ErrorReply: realm.Error,
  };
}
