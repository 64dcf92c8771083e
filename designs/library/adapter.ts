/**
 * The adapter contract: a small CommonJS module, run inside the simulated client
 * process, that drives one lock library the way an application would.
 *
 *   module.exports = {
 *     create({ addresses, options, processId }) {
 *       // require("ioredis") / require("redis") here are the simulated clients;
 *       // `addresses` are the simulated Redis nodes, "127.0.0.1:<port>".
 *       return {
 *         async acquire(lock, { ttlMs, waitMs }) { ... return { handle, validityMs?, token?, secret? } or null },
 *         async release(handle) { ... return true (released) / false (was not ours) },
 *         async extend(handle, ttlMs) { ... return { validityMs?, handle? } or null },   // optional
 *         holds(handle) { ... return true while the library believes it holds },       // optional, synchronous
 *       };
 *     },
 *   };
 *
 * acquire resolving null = definitely not acquired; rejecting = unknown. The grant's
 * belief is holds() where given, else the reported validityMs from the moment acquire or
 * extend resolved; neither is an input error (designs/library/client.ts, believe()). The built-in
 * adapters (adapters/*.cjs) are registered below by name; a path to a user's file
 * works the same way.
 */
import { existsSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { InputError } from "../../sim/errors.js";
import { packageRoot } from "../../sim/paths.js";
import { LibraryError } from "../../sim/sandbox/errors.js";
import { nearestNames } from "../../sim/suggest.js";

export interface AdapterInstance {
  acquire(lock: string, opts: { ttlMs: number; waitMs: number }): unknown;
  release(handle: unknown): unknown;
  extend?(handle: unknown, ttlMs: number): unknown;
  holds?(handle: unknown): unknown;
}

export interface AdapterModule {
  create(env: { addresses: string[]; options: Record<string, unknown>; processId: string }): AdapterInstance;
}

/** Built-in adapters: the lock libraries people ship, each pinned by its package version. */
export const BUILTIN_ADAPTERS: Record<string, { file: string; description: string; nodesDefault: number }> = {
  "redlock-v4": { file: "redlock-v4.cjs", description: "redlock@4.2.0 (npm `latest`), callback-style over ioredis; Redlock over N nodes", nodesDefault: 5 },
  "redlock-v5": { file: "redlock-v5.cjs", description: "@sesamecare-oss/redlock@1.4.0, the maintained node-redlock v5 line, over ioredis", nodesDefault: 5 },
  "redis-semaphore": {
    file: "redis-semaphore.cjs",
    description: "redis-semaphore@5.8.0 Mutex over one ioredis client (SET NX PX, Lua release)",
    nodesDefault: 1,
  },
  "redis-semaphore-redlock": {
    file: "redis-semaphore-redlock.cjs",
    description: "redis-semaphore@5.8.0 RedlockMutex: the Mutex on a quorum of N ioredis clients",
    nodesDefault: 5,
  },
  "redlock-universal": {
    file: "redlock-universal.cjs",
    description: "redlock-universal@0.8.5 createRedlock over ioredis adapters (3 retries, 200 ms apart)",
    nodesDefault: 5,
  },
  "node-redis-warlock": {
    file: "node-redis-warlock.cjs",
    description: "node-redis-warlock@1.0.2 over ioredis: SET NX PX with a uuid v1, optimistic retries, Lua release",
    nodesDefault: 1,
  },
  "setnx-reference": {
    file: "setnx-reference.cjs",
    description: "the seeds' single-node recipe over ioredis: SET NX PX, compare-and-delete, compare-and-pexpire (the audit's reference)",
    nodesDefault: 1,
  },
  "redis-lock": {
    file: "redis-lock.cjs",
    description: "redis-lock@1.0.0 over node-redis: SET NX PX, release by plain DEL guarded by its own clock",
    nodesDefault: 1,
  },
};

export function adapterPath(name: string, file: string, field: string): string {
  const builtin = BUILTIN_ADAPTERS[name];
  if (builtin) return join(packageRoot(), "designs", "library", "adapters", builtin.file);
  if (!/[/\\]|\.[cm]?[jt]s$/.test(name)) {
    const near = nearestNames(name, Object.keys(BUILTIN_ADAPTERS));
    throw new InputError(
      file,
      field,
      `a built-in adapter (${Object.keys(BUILTIN_ADAPTERS).join(", ")}) or a path to an adapter module (.js, .cjs, .mjs or .ts); got "${name}"${near.length > 0 ? `; did you mean ${near.join(", ")}?` : ""}`,
    );
  }
  // Relative to the scenario file that names it, or to the working directory for a flag.
  const base = existsSync(file) ? dirname(resolve(file)) : process.cwd();
  const p = isAbsolute(name) ? name : resolve(base, name);
  if (!existsSync(p)) throw new InputError(file, field, `an adapter module that exists (no file at ${p})`);
  if (statSync(p).isDirectory())
    throw new InputError(file, field, `an adapter module file, not a folder (${p}: name the module in it, e.g. ${join(name, "adapter.ts")})`);
  return p;
}

function record(v: unknown, what: string, adapter: string): Record<string, unknown> {
  if (v === null || typeof v !== "object") throw new LibraryError("adapter", `${adapter}.${what}`, new Error(`expected an object, got ${typeof v}`));
  return v as Record<string, unknown>;
}

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/** The fields of an acquire() and an extend() result lockstep reads (in the realm, membrane.readFields). */
export const ACQUIRED_FIELDS = ["handle", "validityMs", "token", "secret"] as const;
export const EXTENDED_FIELDS = ["validityMs", "handle"] as const;

/** An acquire() result's fields, as the membrane read them: primitives, and the handle as an opaque realm value. */
export function readAcquired(v: unknown, adapter: string): { handle: unknown; validityMs?: number; token?: number; secret?: string } {
  const r = record(v, "acquire() result", adapter);
  return { handle: r.handle, validityMs: num(r.validityMs), token: num(r.token), secret: typeof r.secret === "string" ? r.secret : undefined };
}

export function readExtended(v: unknown, adapter: string): { validityMs?: number; handle?: unknown } {
  if (v === true) return {};
  const r = record(v, "extend() result", adapter);
  return { validityMs: num(r.validityMs), handle: r.handle };
}
