/**
 * What `require("<node builtin>")` gives library code in a sandbox realm. Pure modules
 * (buffer, string_decoder, url, querystring) are the host's; modules that read time or
 * randomness are virtual; `events` is the npm port of Node's EventEmitter, loaded into
 * the realm so its `once()` promise is the realm's; anything that reaches the outside
 * world (sockets, processes, threads, the file system beyond reading) throws a
 * SimulationEscapeError naming the call.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import * as nodeBuffer from "node:buffer";
import * as stringDecoder from "node:string_decoder";
import * as nodeUrl from "node:url";
import * as querystring from "node:querystring";
import * as nodeUtil from "node:util";
import * as nodePath from "node:path";
import type { Realm } from "./realm.js";

/** Builtins whose every function would leave the simulation. */
const OUTSIDE = [
  "net",
  "tls",
  "dgram",
  "http",
  "https",
  "http2",
  "child_process",
  "cluster",
  "worker_threads",
  "dns",
  "dns/promises",
  "readline",
  "inspector",
  "v8",
  "vm",
  "stream",
  "stream/promises",
  "fs/promises",
  "zlib",
  "repl",
  "async_hooks",
  "diagnostics_channel",
];

/** A module whose every property access is an escape, named by module and property. */
function outside(realm: Realm, name: string): unknown {
  return new Proxy(
    {},
    {
      get: (_t, prop) => {
        if (prop === "__esModule" || typeof prop === "symbol") return undefined;
        return realm.escape(`require("${name}").${String(prop)}`);
      },
    },
  );
}

export function isBuiltin(spec: string): boolean {
  const name = spec.startsWith("node:") ? spec.slice(5) : spec;
  return BUILTIN_NAMES.has(name);
}

const BUILTIN_NAMES = new Set([
  ...OUTSIDE,
  "events",
  "util",
  "crypto",
  "buffer",
  "string_decoder",
  "url",
  "querystring",
  "assert",
  "timers",
  "timers/promises",
  "perf_hooks",
  "os",
  "fs",
  "path",
  "process",
  "tty",
]);

/**
 * Build builtin `spec` for a realm. `loadEvents` loads the npm `events` package into
 * the realm (the loader's job, since it resolves files).
 */
export function builtinModule(realm: Realm, spec: string, loadEvents: () => unknown): unknown {
  const name = spec.startsWith("node:") ? spec.slice(5) : spec;
  const g = realm.context as Record<string, unknown>;
  switch (name) {
    case "events":
      return loadEvents();
    case "util": {
      const inherits = (ctor: { prototype: object }, superCtor: { prototype: object }): void => {
        Object.defineProperty(ctor, "super_", { value: superCtor, writable: true, configurable: true });
        Object.setPrototypeOf(ctor.prototype, superCtor.prototype);
      };
      return {
        inherits,
        promisify: realm.prelude.promisify,
        callbackify: realm.prelude.callbackify,
        format: nodeUtil.format,
        inspect: nodeUtil.inspect,
        isDeepStrictEqual: nodeUtil.isDeepStrictEqual,
        deprecate: (fn: unknown) => fn,
        debuglog: () => () => undefined,
        types: nodeUtil.types,
        TextEncoder,
        TextDecoder,
        isArray: Array.isArray,
      };
    }
    case "crypto":
      return {
        randomBytes: (n: number, cb?: (e: Error | null, b: Buffer) => void) => {
          const b = realm.randomBytes(n);
          if (typeof cb === "function") {
            (g.process as { nextTick(f: () => void): void }).nextTick(() => cb(null, b));
            return undefined;
          }
          return b;
        },
        randomUUID: () => realm.randomUUID(),
        getRandomValues: (a: ArrayBufferView) => realm.fillRandom(a),
        randomInt: (a: number, b?: number) => {
          const [lo, hi] = b === undefined ? [0, a] : [a, b];
          return lo + Math.floor(realm.host.random() * (hi - lo));
        },
        randomFillSync: (a: ArrayBufferView) => realm.fillRandom(a),
        createHash,
        createHmac,
        timingSafeEqual,
        webcrypto: g.crypto,
      };
    case "buffer":
      return nodeBuffer;
    case "string_decoder":
      return stringDecoder;
    case "url":
      return nodeUrl;
    case "querystring":
      return querystring;
    case "path":
      return nodePath;
    case "assert": {
      const assert = (v: unknown, m?: string): void => {
        if (!v) throw new realm.Error(m ?? "assertion failed");
      };
      assert.ok = assert;
      assert.strictEqual = (a: unknown, b: unknown, m?: string) => assert(Object.is(a, b), m ?? `${String(a)} !== ${String(b)}`);
      assert.equal = (a: unknown, b: unknown, m?: string) => assert(a == b, m);
      return assert;
    }
    case "timers":
      return {
        setTimeout: g.setTimeout,
        clearTimeout: g.clearTimeout,
        setInterval: g.setInterval,
        clearInterval: g.clearInterval,
        setImmediate: g.setImmediate,
        clearImmediate: g.clearImmediate,
        promises: realm.prelude.timersPromises,
      };
    case "timers/promises":
      return realm.prelude.timersPromises;
    case "perf_hooks":
      return { performance: g.performance };
    case "process":
      return g.process;
    case "tty":
      // Libraries ask only whether to colour their logs (debug does): never a terminal here.
      return { isatty: () => false };
    case "os":
      return {
        EOL: "\n",
        hostname: () => `sim-${realm.host.processId}`,
        platform: () => "linux",
        type: () => "Linux",
        arch: () => "x64",
        release: () => "sim",
        endianness: () => "LE",
        cpus: () => [],
        totalmem: () => 0,
        freemem: () => 0,
        uptime: () => realm.host.monoUs() / 1e6,
        networkInterfaces: () => realm.escape('require("os").networkInterfaces()'),
        tmpdir: () => realm.escape('require("os").tmpdir()'),
        homedir: () => realm.escape('require("os").homedir()'),
        userInfo: () => realm.escape('require("os").userInfo()'),
      };
    case "fs":
      // Reading the library's own files (a Lua script beside it) is deterministic; the rest is not.
      return new Proxy(
        { readFileSync, existsSync, statSync },
        {
          get: (t, prop) => {
            if (typeof prop === "symbol" || prop === "__esModule") return undefined;
            if (prop in t) return (t as Record<string, unknown>)[prop];
            return realm.escape(`require("fs").${prop}`);
          },
        },
      );
    default:
      return outside(realm, name);
  }
}
