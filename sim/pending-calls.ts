import type { FiberStep } from "./fiber.js";
import { IdSlots } from "./id-slots.js";

/**
 * A process's outstanding calls: by rpcId, the fiber waiting on it, tagged with its
 * timeout's queue slot (sim/id-slots.ts: no object per call). A process hands out
 * rpcIds in order and a call ends within its timeout, so the ids pending at once are a
 * narrow span.
 */
export class PendingCalls extends IdSlots<FiberStep> {
  /** The timeout slot of the call `take` last returned. */
  get takenTimerSlot(): number {
    return this.takenTag;
  }
}
