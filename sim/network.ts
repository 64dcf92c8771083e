import type { Rng } from "./rng.js";

/**
 * The network: per-link latency (base + seeded jitter), loss, duplication, and
 * partitions as a set of cut directed links. Links are FIFO by default, as a TCP
 * connection is; with `fifo: false` jitter reorders messages. A link's behaviour is the
 * network default, then its standing condition (scenario `network.links`), then any
 * fault's override.
 */
export interface LinkOptions {
  latencyUsBase: number;
  latencyUsJitter: number;
  /** Probability a message is dropped. */
  lossRate: number;
  /** Probability a message is delivered twice. */
  duplicateRate: number;
}

export interface NetworkOptions extends LinkOptions {
  fifo: boolean;
}

export const DEFAULT_NETWORK: NetworkOptions = {
  latencyUsBase: 500,
  latencyUsJitter: 200,
  lossRate: 0,
  duplicateRate: 0,
  fifo: true,
};

const linkKey = (from: string, to: string): string => `${from}\u0000${to}`;

export class Network {
  private readonly cut = new Set<string>();
  /**
   * Standing per-link conditions (the scenario's `network.links`): how a link behaves
   * for the whole run. Faults layer over them: an override set by a fault wins while it
   * lasts, and setting a field back to the network's default lets the condition show again.
   */
  private readonly conditions = new Map<string, Partial<LinkOptions>>();
  private readonly overrides = new Map<string, Partial<LinkOptions>>();
  /** Extra delay added to a link (a "slow network" fault), µs. */
  private readonly extraDelayUs = new Map<string, number>();
  private readonly lastDeliveryUs = new Map<string, number>();
  readonly stats = { sent: 0, delivered: 0, dropped: 0, cutDropped: 0, duplicated: 0 };

  constructor(
    readonly opts: NetworkOptions,
    private readonly rng: Rng,
  ) {}

  isCut(from: string, to: string): boolean {
    // No partition (the common case): no key string built per delivery.
    return this.cut.size > 0 && this.cut.has(linkKey(from, to));
  }

  cutLink(from: string, to: string): void {
    this.cut.add(linkKey(from, to));
  }

  healLink(from: string, to: string): void {
    this.cut.delete(linkKey(from, to));
  }

  healAll(): void {
    this.cut.clear();
  }

  cutLinks(): Array<[string, string]> {
    return [...this.cut].sort().map((k) => k.split("\u0000") as [string, string]);
  }

  /** A standing condition on one directed link (merged field by field with earlier ones). */
  setCondition(from: string, to: string, opts: Partial<LinkOptions>): void {
    const key = linkKey(from, to);
    this.conditions.set(key, { ...this.conditions.get(key), ...opts });
  }

  /**
   * A fault's override on one directed link. A field set to the network's default
   * value drops the override for that field (the link's condition, if any, applies
   * again): that is how a fault ends.
   */
  setLink(from: string, to: string, opts: Partial<LinkOptions>): void {
    const key = linkKey(from, to);
    const merged: Partial<LinkOptions> = { ...this.overrides.get(key), ...opts };
    for (const k of Object.keys(opts) as Array<keyof LinkOptions>) if (merged[k] === this.opts[k]) delete merged[k];
    if (Object.keys(merged).length === 0) this.overrides.delete(key);
    else this.overrides.set(key, merged);
  }

  setExtraDelay(from: string, to: string, delayUs: number): void {
    if (delayUs <= 0) this.extraDelayUs.delete(linkKey(from, to));
    else this.extraDelayUs.set(linkKey(from, to), delayUs);
  }

  /**
   * Decide the fate of one message sent at `nowUs`: the true times at which copies
   * arrive (empty: lost). Whether the link is cut is checked again on arrival.
   */
  route(from: string, to: string, nowUs: number): number[] {
    const copies = this.routeCopies(from, to, nowUs);
    return Array.from(this.arrivalUs.subarray(0, copies));
  }

  /** Arrival times of the copies of the last routed message (routeCopies fills them). */
  readonly arrivalUs = new Float64Array(2);

  /**
   * `route` without an array per message (the kernel's path): returns how many copies
   * arrive (0, 1 or 2) and leaves their times in `arrivalUs`. Draws the same dice in
   * the same order as `route`.
   */
  routeCopies(from: string, to: string, nowUs: number): number {
    this.stats.sent++;
    const key = linkKey(from, to);
    if (this.cut.size > 0 && this.cut.has(key)) {
      this.stats.cutDropped++;
      return 0;
    }
    // Most links have no override: skip the merge (this runs for every message).
    const override = this.overrides.size > 0 ? this.overrides.get(key) : undefined;
    const condition = this.conditions.size > 0 ? this.conditions.get(key) : undefined;
    const o = override || condition ? { ...this.opts, ...condition, ...override } : this.opts;
    if (this.rng.chance(o.lossRate)) {
      this.stats.dropped++;
      return 0;
    }
    const copies = this.rng.chance(o.duplicateRate) ? 2 : 1;
    if (copies === 2) this.stats.duplicated++;
    const extraUs = this.extraDelayUs.size > 0 ? (this.extraDelayUs.get(key) ?? 0) : 0;
    for (let i = 0; i < copies; i++) {
      let at = nowUs + o.latencyUsBase + this.rng.int(0, Math.max(0, o.latencyUsJitter)) + extraUs;
      if (this.opts.fifo) {
        at = Math.max(at, this.lastDeliveryUs.get(key) ?? 0);
        this.lastDeliveryUs.set(key, at);
      }
      this.arrivalUs[i] = at;
    }
    return copies;
  }
}
