/**
 * What `require("<node builtin>")` gives library code in a sandbox realm. Pure modules
 * (string_decoder, url, querystring) are the host's behind the membrane (membrane.ts:
 * their functions cross as realm functions that get copies of their arguments); path is
 * POSIX's with "/" as the working directory; util's format and inspect are the realm's
 * own (an object's [inspect.custom] sees realm values only); modules that read time or
 * randomness are virtual; fs reads only files of the virtual install, with parsed options;
 * `events` is the npm port of Node's EventEmitter, loaded into the realm so its `once()`
 * promise is the realm's; anything that reaches the outside world (sockets, processes,
 * threads, writes, files beyond node_modules and the adapter's own) throws a
 * SimulationEscapeError naming the call, as does a builtin the sandbox does not provide.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { Buffer } from "node:buffer";
import { constants as bufferConstants } from "node:buffer";
import * as stringDecoder from "node:string_decoder";
import * as nodeUrl from "node:url";
import * as querystring from "node:querystring";
import * as nodeUtil from "node:util";
import * as nodePath from "node:path";
import { isBuiltin as nodeIsBuiltin } from "node:module";
import type { Realm } from "./realm.js";
import type { VirtualInstall } from "./virtual-install.js";

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
  return realm.membrane.trust(
    new Proxy(realm.modules.freshNull(), {
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
export function builtinModule(realm: Realm, spec: string, loadEvents: () => unknown, install: VirtualInstall): unknown {
  const name = spec.startsWith("node:") ? spec.slice(5) : spec;
  const g = realm.globals;
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
      return virtualPath();
    case "assert":
      return assertModule();
    case "timers":
      return timersModule(realm, g);
    case "timers/promises":
      return realm.modules.timersPromises;
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
      return fsModule(realm, install);
    default:
      return outside(realm, name);
  }
}

/** Arguments arrive as copies: primitives compare as library code's would. */
function assertModule(): unknown {
  const assert = (v: unknown, m?: unknown): void => {
    if (!v) throw Object.assign(new Error(typeof m === "string" ? m : "assertion failed"), { name: "AssertionError", code: "ERR_ASSERTION" });
  };
  assert.ok = assert;
  assert.strictEqual = (a: unknown, b: unknown, m?: unknown) => assert(Object.is(a, b), m ?? `${String(a)} !== ${String(b)}`);
  assert.equal = (a: unknown, b: unknown, m?: unknown) => assert(a == b, m);
  return assert;
}

/** The realm's own (virtual) timers. */
function timersModule(realm: Realm, g: Record<string, unknown>): unknown {
  return {
    setTimeout: g.setTimeout,
    clearTimeout: g.clearTimeout,
    setInterval: g.setInterval,
    clearInterval: g.clearInterval,
    setImmediate: g.setImmediate,
    clearImmediate: g.clearImmediate,
    promises: realm.modules.timersPromises,
  };
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
    promisify: realm.modules.promisify,
    callbackify: realm.modules.callbackify,
    format: realm.modules.format,
    inspect: realm.modules.inspect,
    // Arguments arrive as copies: equal data compares equal, as it would.
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
    // A callback is library code's: the host only hands it back, on the realm's own tick queue.
    randomBytes: (n: number, cb?: unknown) => {
      const b = realm.randomBytes(n);
      if (typeof cb === "function") {
        realm.nextTickCall(cb, null, b);
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

/** path as on POSIX with "/" as the working directory (the sandbox's process.cwd()): never the host's. */
function virtualPath(): unknown {
  const { posix } = nodePath;
  const abs = (p: unknown): unknown => (typeof p === "string" ? posix.resolve("/", p) : p);
  const resolve = (...a: unknown[]): string => posix.resolve("/", ...(a as string[]));
  return { ...posix, resolve, relative: (from: unknown, to: unknown) => posix.relative(abs(from) as string, abs(to) as string), posix: { ...posix, resolve } };
}

/** The fs options library code may pass, as Node reads them; anything that writes or is not modelled stops the run, named. */
function readOptions(call: string, opts: unknown, realm: Realm): BufferEncoding | undefined {
  const o = typeof opts === "string" ? { encoding: opts } : opts === undefined || opts === null ? {} : opts;
  if (typeof o !== "object") throw new TypeError(`The "options" argument must be of type string or an instance of Object. Received type ${typeof o}`);
  const { encoding, flag, ...rest } = o as Record<string, unknown>;
  if (flag !== undefined && flag !== "r" && flag !== "rs")
    realm.escape(`require("fs").${call}(…, { flag ${JSON.stringify(String(flag))} })`, "a flag that writes or creates files (the sandbox only reads)");
  const extra = Object.keys(rest).filter((k) => rest[k] !== undefined);
  if (extra.length > 0)
    realm.escape(`require("fs").${call}(…, { ${extra.join(", ")} })`, 'options the sandbox does not model (it takes encoding and flag "r")');
  if (encoding !== undefined && encoding !== null && (typeof encoding !== "string" || !Buffer.isEncoding(encoding)))
    throw Object.assign(new TypeError(`The argument 'encoding' is invalid encoding. Received ${JSON.stringify(encoding)}`), { code: "ERR_INVALID_ARG_VALUE" });
  return (encoding ?? undefined) as BufferEncoding | undefined;
}

/** An fs error as Node words it, naming the virtual path library code gave. */
function virtualError(e: unknown, syscall: string, f: unknown): never {
  const io = e as NodeJS.ErrnoException;
  if (typeof io?.code !== "string") throw e;
  const what = io.code === "ENOENT" ? "no such file or directory" : io.code === "EISDIR" ? "illegal operation on a directory" : "cannot read";
  throw Object.assign(new Error(`${io.code}: ${what}, ${syscall} '${String(f)}'`), { code: io.code, syscall, path: String(f), errno: io.errno });
}

/**
 * Reading a package's own files (a Lua script beside it) is deterministic; the rest is
 * not. A path is virtual (as __dirname gives it) and read where it really leads, only if
 * that lies in a loaded package or the adapter's folder.
 */
function fsModule(realm: Realm, install: VirtualInstall): unknown {
  const target = (call: string, file: unknown): string => {
    const f = Buffer.isBuffer(file) ? file.toString() : file;
    if (typeof f !== "string") throw new TypeError(`The "path" argument must be of type string or an instance of Buffer or URL. Received ${typeof f}`);
    const { real, target } = install.readableTarget(f);
    if (target === undefined)
      realm.escape(
        `require("fs").${call}(${JSON.stringify(f)})`,
        `a file outside the adapter's folder and its packages${real ? ` (it leads to ${realOrSelf(real)})` : ""}`,
      );
    return target!;
  };
  const fs: Record<string, unknown> = {
    readFileSync: (file: unknown, opts?: unknown) => {
      const encoding = readOptions("readFileSync", opts, realm);
      const t = target("readFileSync", file);
      try {
        return readFileSync(t, { encoding });
      } catch (e) {
        return virtualError(e, "open", file);
      }
    },
    existsSync: (file: unknown) => existsSync(target("existsSync", file)),
    statSync: (file: unknown, opts?: unknown) => {
      const noThrow = opts !== null && typeof opts === "object" && (opts as { throwIfNoEntry?: unknown }).throwIfNoEntry === false;
      try {
        return statSync(target("statSync", file));
      } catch (e) {
        if (noThrow && (e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        return virtualError(e, "stat", file);
      }
    },
  };
  return realm.membrane.trust(
    new Proxy(realm.membrane.toRealm(fs) as Record<string, unknown>, {
      get: (t, prop) => {
        if (typeof prop === "symbol" || prop === "__esModule") return undefined;
        if (Object.prototype.hasOwnProperty.call(fs, prop)) return t[prop];
        return realm.escape(`require("fs").${prop}`);
      },
    }),
  );
}

function realOrSelf(p: string): string {
  try {
    return realpathSync.native(p);
  } catch {
    return p;
  }
}
