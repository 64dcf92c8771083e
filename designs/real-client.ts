// What a client recipe offers the workload loop: the real counterpart of designs/types.ts's
// LockClient, async and timed on the run clock (µs since the run's t0).
// Its results are the simulator's (designs/types.ts AcquireResult, ReleaseResult, ExtendResult).
// Real mode only: the host's clock and timers here are the point, not a leak (only real/ and
// the designs' real-* files import this; the simulator never loads it).
import type { RecipeConfig } from "./real-recipe.js";
import type { AcquireResult, ExtendResult, ReleaseResult } from "./types.js";

export interface RealGrant {
  lock: string;
  /** The random value identifying this holder at the servers. */
  secret: string;
  token?: number;
  ttlMs: number;
  validityMs: number;
  /** Run time (µs) from which the library no longer believes it holds the lock. */
  expiresAtUs: number;
  /** The library's own lock object, where it has one. */
  data?: unknown;
  /** The workload's grant id (set once the acquire is recorded), for expiry reports. */
  id?: string;
}

export interface RealLockClient {
  /** Connect to the servers; resolves when every connection is ready (bounded by the caller). */
  connect(): Promise<void>;
  acquire(lock: string, o: { ttlMs: number; waitMs: number }): Promise<AcquireResult<RealGrant>>;
  release(grant: RealGrant): Promise<ReleaseResult>;
  /** On ok, updates grant.validityMs and grant.expiresAtUs. */
  extend(grant: RealGrant, ttlMs: number): Promise<ExtendResult>;
  /** Whether the library still believes it holds the grant, by its own clock (a lock driver is asked: async). */
  holds(grant: RealGrant): boolean | Promise<boolean>;
  /** The npm packages (name → version) this recipe runs on, as loaded by this process. */
  packages(): Record<string, string>;
  /**
   * Set by the client's main: called whenever the recipe moves a held grant's expiry by
   * itself (a session keepalive answered, a session lost), so the driver can place the lapse.
   */
  onRefresh?: (g: RealGrant) => void;
  /**
   * Set by the client's main: called when the client fails on its own, between requests
   * (a lock driver process that died); the run stops with the error's own words.
   */
  onFailure?: (err: Error) => void;
  /** Facts about this client's sessions worth recording with the run (e.g. a negotiated timeout). */
  notes?(): string[];
  /**
   * Process groups this client started that are part of it (a lock driver and its children):
   * the driver stops and resumes them with the client process, and kills them with it.
   */
  processGroups?(): number[];
  /** The wall clock the lock runs on when it is not this process's own (a lock driver's), ms since the epoch. */
  wallClockMs?(): Promise<number>;
  close(): void;
}

/** What a client process hands a recipe's module besides its config. */
export interface RealClientEnv {
  /** The run clock, µs since t0. */
  nowUs: () => number;
  clientId: string;
  /** A bound in ms, stretched for this machine's load (real/servers/deadlines.ts). */
  loadTolerantMs(ms: number): number;
}

/** A recipe module's entry: its client for a config its design's real-plan.ts built. */
export type RealClientFactory = (cfg: RecipeConfig, env: RealClientEnv) => RealLockClient;

export const sleepMs = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, Math.max(0, ms)));

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
