import { IdSlots } from "../../sim/id-slots.js";

/**
 * A Raft node's callbacks waiting on its proposals and read barriers, by id: the kernel's
 * id-slot table (sim/id-slots.ts, as its pending calls), the kind as the tag. The node
 * hands out ids in order and most complete soon.
 */
export type WaiterKind = "propose" | "read";

const PROPOSE = 0;
const READ = 1;

export class Waiters<Cb> {
  private readonly slots = new IdSlots<Cb>();
  /** The kind of the waiter `take` last returned. */
  takenKind: WaiterKind = "propose";

  /** Note waiter `id` (≥ 1, not already waiting). */
  set(id: number, kind: WaiterKind, cb: Cb): void {
    this.slots.set(id, cb, kind === "read" ? READ : PROPOSE);
  }

  /** Take waiter `id` out: its callback (its kind in takenKind), or undefined if none waits. */
  take(id: number): Cb | undefined {
    const cb = this.slots.take(id);
    if (cb !== undefined) this.takenKind = this.slots.takenTag === READ ? "read" : "propose";
    return cb;
  }
}
