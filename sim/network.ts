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

/**
 * One directed link's state, kept in a record found by two Map lookups on the ids (issue
 * 17: a key string built per message and four Map lookups were ~5% of a Raft run). `opts`
 * is the merge of the network default, the condition and the override, rebuilt when one
 * of them changes rather than per message.
 */
export class Link {
  cut = false;
  extraDelayUs = 0;
  lastDeliveryUs = 0;
  condition: Partial<LinkOptions> | undefined = undefined;
  override: Partial<LinkOptions> | undefined = undefined;
  constructor(public opts: LinkOptions) {}
}

export class Network {
  /** from → to → link; a link gets its record the first time anything touches it. */
  private readonly links = new Map<string, Map<string, Link>>();
  /** Links cut now: a run with no partition checks nothing more per delivery. */
  private cutCount = 0;
  readonly stats = { sent: 0, delivered: 0, dropped: 0, cutDropped: 0, duplicated: 0 };

  constructor(
    readonly opts: NetworkOptions,
    private readonly rng: Rng,
  ) {}

  /** The record of the directed link from → to (made on first use; never dropped, so a sender may keep it). */
  link(from: string, to: string): Link {
    let out = this.links.get(from);
    if (out === undefined) {
      out = new Map();
      this.links.set(from, out);
    }
    let l = out.get(to);
    if (l === undefined) {
      l = new Link(this.opts);
      out.set(to, l);
    }
    return l;
  }

  /** Standing conditions and fault overrides layer over the default, field by field. */
  private remerge(l: Link): void {
    l.opts = l.condition || l.override ? { ...this.opts, ...l.condition, ...l.override } : this.opts;
  }

  isCut(from: string, to: string): boolean {
    return this.cutCount > 0 && this.links.get(from)?.get(to)?.cut === true;
  }

  cutLink(from: string, to: string): void {
    const l = this.link(from, to);
    if (!l.cut) this.cutCount++;
    l.cut = true;
  }

  healLink(from: string, to: string): void {
    const l = this.links.get(from)?.get(to);
    if (l?.cut) {
      l.cut = false;
      this.cutCount--;
    }
  }

  healAll(): void {
    if (this.cutCount === 0) return;
    for (const out of this.links.values()) for (const l of out.values()) l.cut = false;
    this.cutCount = 0;
  }

  cutLinks(): Array<[string, string]> {
    const keys: string[] = [];
    for (const [from, out] of this.links) for (const [to, l] of out) if (l.cut) keys.push(linkKey(from, to));
    // Sorted by the joined key, as when the cut set was a set of those keys.
    return keys.sort().map((k) => k.split("\u0000") as [string, string]);
  }

  /** A standing condition on one directed link (merged field by field with earlier ones). */
  setCondition(from: string, to: string, opts: Partial<LinkOptions>): void {
    const l = this.link(from, to);
    l.condition = { ...l.condition, ...opts };
    this.remerge(l);
  }

  /**
   * A fault's override on one directed link. A field set to the network's default
   * value drops the override for that field (the link's condition, if any, applies
   * again): that is how a fault ends.
   */
  setLink(from: string, to: string, opts: Partial<LinkOptions>): void {
    const l = this.link(from, to);
    const merged: Partial<LinkOptions> = { ...l.override, ...opts };
    for (const k of Object.keys(opts) as Array<keyof LinkOptions>) if (merged[k] === this.opts[k]) delete merged[k];
    l.override = Object.keys(merged).length === 0 ? undefined : merged;
    this.remerge(l);
  }

  setExtraDelay(from: string, to: string, delayUs: number): void {
    this.link(from, to).extraDelayUs = delayUs <= 0 ? 0 : delayUs;
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
    return this.routeCopiesOn(this.link(from, to), nowUs);
  }

  /** `routeCopies` on a link record the sender kept (no lookup at all). */
  routeCopiesOn(l: Link, nowUs: number): number {
    this.stats.sent++;
    if (l.cut) {
      this.stats.cutDropped++;
      return 0;
    }
    const o = l.opts;
    if (this.rng.chance(o.lossRate)) {
      this.stats.dropped++;
      return 0;
    }
    const copies = this.rng.chance(o.duplicateRate) ? 2 : 1;
    if (copies === 2) this.stats.duplicated++;
    const extraUs = l.extraDelayUs;
    for (let i = 0; i < copies; i++) {
      let at = nowUs + o.latencyUsBase + this.rng.int(0, Math.max(0, o.latencyUsJitter)) + extraUs;
      if (this.opts.fifo) {
        at = Math.max(at, l.lastDeliveryUs);
        l.lastDeliveryUs = at;
      }
      this.arrivalUs[i] = at;
    }
    return copies;
  }
}
