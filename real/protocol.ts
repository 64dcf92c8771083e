// The driver ↔ client-process protocol: one JSON object per line over a loopback TCP
// connection that the client opens to the driver's control server. Shared by both sides.
import type { EventType } from "../sim/history.js";
import type { ClientSpec, WorkloadSpec } from "../scenarios/schema.js";

import type { RecipeConfig } from "../designs/real-recipe.js";
import type { AdapterRefusal } from "../designs/library/real-loader.js";

/** A history event of this client that must hold the client until the driver says go (a fault's trigger). */
export interface GateSpec {
  gateId: number;
  f: string;
  type: EventType;
  /** The nth (1-based) event of this client with this f and type. */
  nth: number;
  /**
   * The fault pauses this client itself: it runs on to its next wait (arming its timers,
   * sending what it sends), as a simulated process finishes the triggering event, and holds
   * there (synchronously) until the driver has stopped it and written the gate's go file.
   */
  holdAfter?: boolean;
}

/** In a client's own dir (its cwd): the ids of the gates the driver has passed, one a line. */
export const GATE_GO_FILE = "gate-go";

export interface ClientConfig {
  clientId: string;
  /** Seeds this client's think-time jitter only. */
  seed: string;
  client: ClientSpec;
  workload: WorkloadSpec;
  recipe: RecipeConfig;
  gates: GateSpec[];
  /** Bound on a wait at a gate (generous: the driver answers within ms of stopping us). */
  gateTimeoutMs: number;
  /** No new acquisition starts at or after this run time, µs. */
  endUs: number;
  /**
   * Clients whose startMs is earlier than this one's: it starts only once each has finished its
   * first operation (or after startOrderWaitMs), so a process woken or served late under load
   * does not swap the story's roles (a waiter taking the lock before the holder got it).
   */
  startAfter?: string[];
  startOrderWaitMs?: number;
}

/** A client's event as it sends it; the driver adds the process id and the index. */
export interface WireEvent {
  timeUs: number;
  type: EventType;
  f: string;
  lock?: string;
  value?: unknown;
}

export type FromClient =
  | { t: "hello"; clientId: string; secret: string; pid: number }
  /** processGroups: groups this client started that are part of it (a lock driver's): stopped, resumed and killed with it. */
  | { t: "ready"; packages: Record<string, string>; notes?: string[]; processGroups?: number[] }
  /** wallMs: the child's Date.now() at the same instant (its libfaketime clock, when it has one). */
  | { t: "pong"; hrNs: string; wallMs?: number }
  | { t: "event"; ev: WireEvent }
  /** Where this client's library will stop believing it holds `grantId` (run µs), as of `atUs`. */
  | { t: "grant"; grantId: string; expiresAtUs: number; atUs: number }
  | { t: "storage"; msg: StorageRequest }
  | { t: "gate"; gateId: number }
  /** Its start time came: go once the clients of its config's startAfter have started. */
  | { t: "start-gate" }
  | { t: "done"; ops: number }
  /** The user's adapter could not be loaded or created: the run is refused as the simulator refuses it. */
  | { t: "refused"; refusal: AdapterRefusal }
  | { t: "fatal"; message: string };

export type ToClient =
  | { t: "config"; config: ClientConfig }
  | { t: "ping" }
  /** The run's time zero on CLOCK_MONOTONIC (process.hrtime.bigint), as a decimal string. */
  | { t: "start"; t0Ns: string }
  | { t: "storage-reply"; body: Record<string, unknown> }
  | { t: "go"; gateId: number }
  | { t: "start-go" };

/** What services/storage/resource.ts reads from a message. */
export interface StorageRequest {
  type: "resource-read" | "resource-write";
  rpcId: number;
  lock: string;
  grantId: string;
  token?: number;
  owner?: string;
  counter?: number;
}

/** Longest line either side accepts; a longer one is a protocol error (never an unbounded buffer). */
export const LINE_BYTES_MAX = 1 << 20;

/** Split a stream into lines, bounded. Calls onLine per complete line; throws past LINE_BYTES_MAX. */
export class LineSplitter {
  private buf = "";
  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: string): void {
    this.buf += chunk;
    for (;;) {
      const nl = this.buf.indexOf("\n");
      if (nl < 0) break;
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      if (line.length > 0) this.onLine(line);
    }
    if (this.buf.length > LINE_BYTES_MAX) throw new Error(`protocol line longer than ${LINE_BYTES_MAX} bytes`);
  }
}
