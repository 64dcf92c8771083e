// The links between the clients and the in-driver storage (real/storage.ts), cut by fault steps
// as the TCP proxies cut a client's links to a server (real/proxy.ts): a cut direction holds
// its messages — a client's storage requests, or the storage's replies to it — and after the
// heal they go on, in order, at TCP's next resend of the oldest held one (retransmitAtUs), as
// held bytes do at a proxy and as the simulator's network delivers what a cut delayed. The
// storage is reached over each client's control connection, so the hold is here, in the driver.
import { retransmitAtUs } from "./link-conditions.js";

interface Held {
  sentUs: number;
  deliver: () => void;
}

const key = (from: string, to: string): string => `${from}\u0000${to}`;

export class StorageLinks {
  private readonly cut = new Set<string>();
  private readonly held = new Map<string, Held[]>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly nowUs: () => number) {}

  cutLink(from: string, to: string): void {
    this.cut.add(key(from, to));
  }

  /** The link carries messages again: what it held goes on at TCP's next resend of the oldest. */
  healLink(from: string, to: string): void {
    const k = key(from, to);
    if (!this.cut.delete(k)) return;
    const queue = this.held.get(k);
    if (!queue?.length) return;
    const atUs = retransmitAtUs(queue[0]!.sentUs, this.nowUs());
    const t = setTimeout(
      () => {
        this.timers.delete(t);
        this.flush(k);
      },
      Math.max(0, Math.ceil((atUs - this.nowUs()) / 1000)),
    );
    this.timers.add(t);
  }

  healAll(): void {
    for (const k of [...this.cut]) {
      const [from, to] = k.split("\u0000") as [string, string];
      this.healLink(from, to);
    }
  }

  /** Deliver now, or hold while the link is cut (or still has held messages ahead: TCP keeps order). */
  pass(from: string, to: string, deliver: () => void): void {
    const k = key(from, to);
    const queue = this.held.get(k);
    if (!this.cut.has(k) && !queue?.length) return deliver();
    if (queue) queue.push({ sentUs: this.nowUs(), deliver });
    else this.held.set(k, [{ sentUs: this.nowUs(), deliver }]);
  }

  /** Held messages go on in order, unless the link was cut again meanwhile (then they wait for that heal). */
  private flush(k: string): void {
    if (this.cut.has(k)) return;
    const queue = this.held.get(k) ?? [];
    this.held.delete(k);
    for (const h of queue) h.deliver();
  }

  /** The run is over: nothing more is delivered. */
  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.held.clear();
  }
}
