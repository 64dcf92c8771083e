/**
 * What `require("<node builtin>")` gives library code in a sandbox realm. Pure modules
 * (string_decoder, url, querystring, path) are the host's behind the seal (seal.ts: their
 * functions cross as realm functions); modules that read time or randomness are virtual;
 * `events` is the npm port of Node's EventEmitter, loaded into the realm so its `once()`
 * promise is the realm's; anything that reaches the outside world (sockets, processes,
 * threads, writes, files beyond node_modules and the adapter's own) throws a
 * SimulationEscapeError naming the call, as does a builtin the sandbox does not provide.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { constants as bufferConstants } from "node:buffer";
import * as stringDecoder from "node:string_decoder";
import * as nodeUrl from "node:url";
import * as querystring from "node:querystring";
import * as nodeUtil from "node:util";
import * as nodePath from "node:path";
import { isBuiltin as nodeIsBuiltin } from "node:module";
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
  return realm.seal.trust(
    new Proxy(realm.prelude.freshNull(), {
      get: (_t, prop) => {
        if (prop === "__esModule" || typeof prop === "symbol") return undefined;
        return realm.escape(`require("${name}").${String(prop)}`);
      },
    }),
  );
}

export function isBuiltin(spec: string): boolean {
  const name = spec.startsWith("node:") ? spec.slice(5) : spec;
  return BUILTIN_NAMES.has(name);
}

/** A Node builtin (require("sys"), require("module")) the sandbox does not provide: named, never a file lookup. */
export function isUnprovidedBuiltin(spec: string): boolean {
  return !isBuiltin(spec) && nodeIsBuiltin(spec);
}

/** Whether library code may read `file`: a package's own files, or the adapter's directory. */
function readable(file: string, roots: readonly string[]): boolean {
  const abs = nodePath.resolve(file);
  if (abs.split(nodePath.sep).includes("node_modules")) return true;
  return roots.some((r) => abs === r || abs.startsWith(r + nodePath.sep));
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
export function builtinModule(realm: Realm, spec: string, loadEvents: () => unknown, roots: readonly string[] = []): unknown {
  const name = spec.startsWith("node:") ? spec.slice(5) : spec;
  const g = realm.context as Record<string, unknown>;
  switch (name) {
    case "events":
      return loadEvents();
    case "util":
      return utilModule(realm, g);
    case "crypto":
      return cryptoModule(realm, g);
    case "buffer":
      return {
        Buffer: g.Buffer,
        constants: bufferConstants,
        kMaxLength: bufferConstants.MAX_LENGTH,
        atob: g.atob,
        btoa: g.btoa,
      };
    case "string_decoder":
      return stringDecoder;
    case "url":
      return { ...nodeUrl, URL: g.URL, URLSearchParams: g.URLSearchParams };
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
      return osModule(realm);
    case "fs":
      return fsModule(realm, roots);
    default:
      return outside(realm, name);
  }
}

function utilModule(realm: Realm, g: Record<string, unknown>): unknown {
  const inherits = (ctor: { prototype: object }, superCtor: { prototype: object }): void => {
    Object.defineProperty(ctor, "super_", {
      value: superCtor,
      writable: true,
      configurable: true,
    });
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
    TextEncoder: g.TextEncoder,
    TextDecoder: g.TextDecoder,
    isArray: Array.isArray,
  };
}

function cryptoModule(realm: Realm, g: Record<string, unknown>): unknown {
  return {
    randomBytes: (n: number, cb?: (e: Error | null, b: Uint8Array) => void) => {
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
}

/** Fixed values, and the process's clock: nothing of the host machine. */
function osModule(realm: Realm): unknown {
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
    loadavg: () => [0, 0, 0],
    availableParallelism: () => 1,
    constants: {},
    uptime: () => realm.host.monoUs() / 1e6,
    networkInterfaces: () => realm.escape('require("os").networkInterfaces()'),
    tmpdir: () => realm.escape('require("os").tmpdir()'),
    homedir: () => realm.escape('require("os").homedir()'),
    userInfo: () => realm.escape('require("os").userInfo()'),
  };
}

/** Reading a package's own files (a Lua script beside it) is deterministic; the rest is not. */
function fsModule(realm: Realm, roots: readonly string[]): unknown {
  const check = (call: string, file: unknown): string => {
    const f = String(file);
    if (!readable(f, roots)) realm.escape(`require("fs").${call}(${JSON.stringify(f)})`, "a file outside node_modules and the adapter's directory");
    return f;
  };
  const fs: Record<string, unknown> = {
    readFileSync: (file: unknown, opts?: unknown) => readFileSync(check("readFileSync", file), opts as BufferEncoding),
    existsSync: (file: unknown) => existsSync(check("existsSync", file)),
    statSync: (file: unknown) => statSync(check("statSync", file)),
  };
  return realm.seal.trust(
    new Proxy(realm.seal.toRealm(fs) as Record<string, unknown>, {
      get: (t, prop) => {
        if (typeof prop === "symbol" || prop === "__esModule") return undefined;
        if (prop in t) return t[prop];
        return realm.escape(`require("fs").${prop}`);
      },
    }),
  );
}
