// The protected resource of a real run, kept in the driver: the simulator's own Resource
// (services/storage/resource.ts) — one counter per lock, the fencing and owner checks, a
// `storage-write` annotation for every write it applies or rejects — driven by the
// requests client processes send over the control connection instead of by simulated
// messages. Same code, so the resource cannot differ between sim and real runs.
//
// Writes are applied when the request reaches the driver and stamped then: the resource is
// in the driver, so its time is the driver's clock.
import type { EventType } from "../sim/history.js";
import type { Message, ProcessContext } from "../sim/simulation.js";
import { RESOURCE_ID, Resource } from "../services/storage/resource.js";
import type { StorageRequest } from "./protocol.js";

export { RESOURCE_ID };

export type RecordFn = (type: EventType, f: string, lock: string | undefined, value: unknown) => void;

export class DriverStorage {
  private readonly resource: Resource;
  private lastReply: Message | undefined;

  constructor(opts: { fencing: boolean; ownerCheck: boolean }, record: RecordFn) {
    // Resource uses exactly two things of its ProcessContext: reply() and record().
    const ctx = {
      reply: (_to: string, request: Message, body: Message) => {
        this.lastReply = { ...body, inReplyTo: request.rpcId };
      },
      record: (type: EventType, f: string, lock?: string, value?: unknown) => record(type, f, lock, value),
    };
    this.resource = new Resource(ctx as unknown as ProcessContext, opts);
  }

  /** Apply one request from `clientId` now; the reply to send back. */
  handle(clientId: string, req: StorageRequest): Message {
    this.lastReply = undefined;
    this.resource.onMessage(clientId, req as unknown as Message);
    const reply = this.lastReply;
    if (reply === undefined) throw new Error(`storage: no reply to ${req.type} from ${clientId}`);
    return reply;
  }

  /** Locks the resource has cells for, with their final state (the run's final read). */
  finalCells(locks: readonly string[]): Array<{ lock: string; counter: number; maxToken?: number }> {
    const all = [...new Set([...locks, ...this.resource.cells.keys()])].sort();
    return all.map((lock) => {
      const c = this.resource.cell(lock);
      return { lock, counter: c.counter, ...(c.maxToken !== undefined ? { maxToken: c.maxToken } : {}) };
    });
  }
}
