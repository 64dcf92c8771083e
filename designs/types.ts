import type { Fiber } from "../sim/fiber.js";
import type { ProcessOptions } from "../sim/process.js";
import type { Message, ProcessContext, Simulation } from "../sim/simulation.js";
import type { WorkloadSpec } from "./workload-spec.js";
import type { DesignFamily, DesignProfile, DesignRuns } from "./profile.js";
import type { RealSide } from "./real-plan.js";

/**
 * The interface every lock design implements, so a workload reads like the seeds'
 * pseudo-code:
 *
 *   const r = yield* locks.acquire("order:123", { ttlMs: 30_000, waitMs: 10_000 });
 *   if (r.outcome === "ok") { ...write with r.grant.token...; yield* locks.release(r.grant); }
 */
export interface AcquireOptions {
  /** Lease length asked of the service, ms. */
  ttlMs: number;
  /** Try-lock with timeout: give up after this long on the client's clock, ms (0 = one attempt). */
  waitMs: number;
}

export interface Grant {
  lock: string;
  /** The random value identifying this holder at the service (release/extend compare it). */
  secret: string;
  /** Fencing token, where the design issues one. */
  token?: number;
  ttlMs: number;
  /** Validity the client computed at acquire-ok, ms. */
  validityMs: number;
  /**
   * The client's monotonic clock reading (µs) after which it must stop believing it
   * holds the lock, as this design's client library decides it.
   */
  expiresAtMonoUs: number;
  /**
   * Set when the library's own holds() is its belief (an adapter that has one): the
   * workload asks it whenever a belief matters, expiresAtMonoUs being only when to start
   * asking. `"unreported"`: the library gave no validity either, so validityMs is not
   * recorded and holds() is asked from the grant on.
   */
  beliefFromHolds?: "with-validity" | "unreported";
  /** Design-specific state (nodes that voted, session id, ...). */
  data?: unknown;
}

/** What an acquire came to, in the simulator (a Grant) and in real mode (a RealGrant, designs/real-client.ts) alike. */
export type AcquireResult<G = Grant> =
  | { outcome: "ok"; grant: G }
  /** Definitely not acquired: every attempt was refused (or gave up safely, having undone its partial work). */
  | { outcome: "fail"; reason: string }
  /** Unknown: a request timed out, the lock may have been taken. */
  | { outcome: "unknown"; reason: string };

export type ReleaseResult = { outcome: "ok"; released: boolean } | { outcome: "unknown"; reason: string };

export type ExtendResult = { outcome: "ok"; validityMs: number } | { outcome: "fail"; reason: string } | { outcome: "unknown"; reason: string };

export interface LockClient {
  acquire(lock: string, opts: AcquireOptions): Fiber<AcquireResult>;
  release(grant: Grant): Fiber<ReleaseResult>;
  /** On ok, the library updates grant.validityMs and grant.expiresAtMonoUs. */
  extend(grant: Grant, ttlMs: number): Fiber<ExtendResult>;
  /** Whether the library still believes the grant is held, by its own clock/session state. */
  holds(grant: Grant): boolean;
  /** Messages the service pushes unasked (watch events), if the library uses them. */
  onMessage?(from: string, msg: Message): void;
}

/** What a design gets to build its cluster in a simulation. */
export interface DesignSetupContext {
  sim: Simulation;
  /** Clock settings the scenario gives for a process id (empty if none). */
  processOptions(id: string): ProcessOptions;
  /** Whether the resource checks fencing tokens in this run (the workload's `fencing`). */
  fencing?: boolean;
}

export interface DesignInstance {
  /** The server processes the design created, in a stable order (for reports and faults). */
  serverIds: string[];
  /** Build the client library for one client process. */
  createClient(ctx: ProcessContext): LockClient;
  /** Whether grants carry a fencing token. */
  fencing: boolean;
  /**
   * Whether grants may carry a token the client code returns (a library adapter's
   * `token`): a fencing workload is then allowed, and the design refuses, at the first
   * grant without one, to go on as if it had fenced.
   */
  tokensFromGrants?: boolean;
}

export interface DesignEntry<O = unknown> {
  name: string;
  description: string;
  /** The kind of service it stands on, for every option (designs/profile.ts). */
  family: DesignFamily;
  /** A model built into lockstep, or a real lock library run through an adapter. */
  runs: DesignRuns;
  /**
   * Validate and default the scenario's `designOptions`. Throws InputError naming
   * `file` and the field (prefix fields with `fieldPrefix`).
   */
  parseOptions(raw: unknown, file: string, fieldPrefix: string): O;
  /** Optional: refuse options that do not fit the scenario's workload (InputError naming the field). */
  checkWorkload?(options: O, workload: WorkloadSpec, file: string): void;
  setup(ctx: DesignSetupContext, options: O): DesignInstance;
  /** What the layers above may ask of it, for these options: they never test its name. */
  profile(options: O): DesignProfile;
  /** Its real-mode side (its real-plan.ts): real mode refuses a design without one. */
  real?: RealSide<O>;
}
