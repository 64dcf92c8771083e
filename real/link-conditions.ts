// Delay and loss on one direction of a proxied link (real/pipe.ts: client and peer proxies), as TCP would see them.
//
// Delay is a delay line: each chunk the proxy reads is released at
//   arrival + base + jitter (seeded, uniform in [0, jitter]) + the `delay` steps' extra,
// but never before the chunk ahead of it, so the stream stays in order as TCP keeps it.
//
// Loss: TCP loses no bytes. A lost segment is resent after the retransmission timeout —
// Linux's minimum RTO is 200 ms — and the RTO doubles each time the resend is lost too; the
// bytes behind it wait for it (head-of-line blocking, by the order rule above). So a loss is
// modelled as lateness: per chunk, each draw under lossRate adds the current RTO. That is
// what a real client sees; the simulator instead drops the message (its clients' timeouts
// decide), which is why loss scenarios can differ between the two (docs/real-mode.md).
//
// Timing is on CLOCK_MONOTONIC (the driver's run clock is too); a timer that fires early is
// re-armed, one that is due within a millisecond waits by setImmediate, so a chunk is never
// released before its time, and late only by what the event loop adds (figures under load
// in docs/real-mode.md). Cut links use retransmitAtUs for their held bytes (real/pipe.ts).
import { Rng } from "../sim/rng.js";

/** Linux's TCP_RTO_MIN: the first retransmission of a lost segment comes this long after it. */
export const RTO_US_FIRST = 200_000;
/** Linux's TCP_RTO_MAX: the doubling stops here. */
const RTO_US_MAX = 120_000_000;
/** Linux's tcp_retries2 default: past this many resends TCP gives up; the loop stops there too. */
export const RESENDS_MAX = 15;
/** Bound on the chunks queued in one direction (each is a socket read). */
const QUEUED_CHUNKS_MAX = 1 << 16;

export function nowUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/**
 * When TCP's retransmission gets bytes through a blackhole that healed at `healUs`: a segment
 * first sent at `sentUs` is resent at sentUs + 200 ms, then 400 ms after that, 800 ms, … —
 * the first resend at or after the heal is the one that arrives (and the bytes behind it
 * follow). Past tcp_retries2 resends TCP would have given up; the heal time is returned then.
 */
export function retransmitAtUs(sentUs: number, healUs: number): number {
  let atUs = sentUs + RTO_US_FIRST;
  let rtoUs = RTO_US_FIRST * 2;
  for (let k = 1; k < RESENDS_MAX && atUs < healUs; k++) {
    atUs += rtoUs;
    rtoUs = Math.min(rtoUs * 2, RTO_US_MAX);
  }
  return Math.max(atUs, healUs);
}

/** What is in force on one directed link; unset means loopback's own behaviour. */
export interface LinkSettings {
  delayUsBase: number;
  delayUsJitter: number;
  lossRate: number;
}

export const NO_CONDITIONS: LinkSettings = { delayUsBase: 0, delayUsJitter: 0, lossRate: 0 };

/** One directed link's conditions: the standing ones (`network.links`) and the fault steps' overrides. */
export class LinkConditions {
  standing: LinkSettings = { ...NO_CONDITIONS };
  /** A `delay` step's extra, µs (0: none in force). */
  extraUs = 0;
  /** A `loss` step's rate (undefined: the standing rate). */
  lossOverride?: number;
  /** Chunks that drew at least one loss, and resends modelled in all. */
  lostChunks = 0;
  resends = 0;
  private readonly rng: Rng;

  constructor(seed: string) {
    this.rng = new Rng(seed);
  }

  /** Set the standing conditions (fields not given keep theirs). */
  setStanding(settings: Partial<LinkSettings>): void {
    this.standing = { ...this.standing, ...settings };
  }

  get active(): boolean {
    return this.standing.delayUsBase > 0 || this.standing.delayUsJitter > 0 || this.extraUs > 0 || this.lossRate > 0;
  }

  get lossRate(): number {
    return this.lossOverride ?? this.standing.lossRate;
  }

  /** How long a chunk read now waits before it may go on, µs (before the order rule). */
  holdUs(): number {
    const s = this.standing;
    let us = s.delayUsBase + (s.delayUsJitter > 0 ? this.rng.int(0, s.delayUsJitter) : 0) + this.extraUs;
    const rate = this.lossRate;
    if (rate <= 0) return us;
    let rtoUs = RTO_US_FIRST;
    let lost = 0;
    for (; lost < RESENDS_MAX && this.rng.chance(rate); lost++) {
      us += rtoUs;
      rtoUs = Math.min(rtoUs * 2, RTO_US_MAX);
    }
    if (lost > 0) {
      this.lostChunks++;
      this.resends += lost;
    }
    return us;
  }
}

/**
 * A FIFO of chunks, each released to `write` at its time, in order. With nothing in force
 * and nothing queued a chunk goes at once, as through a plain proxy.
 */
export class DelayLine {
  private readonly queue: Array<{ atUs: number; b: Buffer }> = [];
  private lastAtUs = 0;
  private timer?: NodeJS.Timeout;
  private immediate?: NodeJS.Immediate;
  private closed = false;

  constructor(
    /** Read at each chunk: a step may set the link's conditions after the connection opened. */
    private readonly conditions: () => LinkConditions | undefined,
    private readonly write: (b: Buffer) => void,
    /** Called when the queue is past its bound (the connection could not have survived). */
    private readonly overflow: () => void,
  ) {}

  /** `notBeforeUs`: the chunk may not go before then (bytes held by a cut wait for TCP's resend). */
  push(b: Buffer, notBeforeUs = 0): void {
    if (this.closed) return;
    const c = this.conditions();
    const now = nowUs();
    if (this.queue.length === 0 && (!c || !c.active) && notBeforeUs <= now) {
      this.write(b);
      return;
    }
    const atUs = Math.max(now + (c ? c.holdUs() : 0), this.lastAtUs, notBeforeUs);
    this.lastAtUs = atUs;
    this.queue.push({ atUs, b });
    if (this.queue.length > QUEUED_CHUNKS_MAX) return this.overflow();
    if (this.queue.length === 1) this.arm();
  }

  private arm(): void {
    const head = this.queue[0];
    if (!head || this.closed) return;
    const waitUs = head.atUs - nowUs();
    if (waitUs > 1000) this.timer = setTimeout(() => this.release(), Math.floor(waitUs / 1000));
    else this.immediate = setImmediate(() => this.release());
  }

  private release(): void {
    this.timer = undefined;
    this.immediate = undefined;
    const now = nowUs();
    let n = 0;
    while (n < this.queue.length && this.queue[n]!.atUs <= now) n++;
    for (const { b } of this.queue.splice(0, n)) this.write(b);
    this.arm();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.queue.length = 0;
  }
}
