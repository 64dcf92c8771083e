// One proxied TCP connection, as both kinds of proxy in the driver carry it: the client↔server
// link proxies (real/proxy.ts) and the etcd/ZooKeeper peer proxies (real/peer-proxies.ts).
// What differs between them is only how a direction is known to be cut and which delay and
// loss it has; they pass that in (PipeLink), so a cut, a heal and a delay act the same on
// every proxied link.
//
// A cut direction holds bytes instead of passing them — a blackhole, as a partition is for
// TCP: nothing arrives, nothing is refused, the sender's kernel buffers and its own timers
// decide (a reset would be a different fault: a crash). After the heal the held bytes go on in
// order, not at the heal itself but at TCP's first resend of the oldest of them at or after it
// (200 ms after it was sent, then 400, 800 ms … later: retransmitAtUs), since the sender
// learns nothing of the heal until a resend gets through. A connection opened while either
// direction is cut (the handshake needs both) waits, accepted but not yet connected upstream,
// as a SYN into a partition would. Held bytes are bounded: past HELD_BYTES_MAX both sides are
// destroyed (a connection that could not have survived anyway).
//
// Bytes that pass go through a delay line per direction (real/link-conditions.ts): with no
// delay or loss in force they are written at once; otherwise each chunk is released at its
// time, in order, held bytes included (a chunk sent after the heal waits behind them).
import { connect, type Socket } from "node:net";
import { DelayLine, nowUs, retransmitAtUs, type LinkConditions } from "./link-conditions.js";

const HELD_BYTES_MAX = 16 << 20;

/** up: the connecting side → the proxied server; down: the replies. */
export type PipeDirection = "up" | "down";

/** What a pipe asks of its link, at every chunk (a step may change it while the connection lives). */
export interface PipeLink {
  /** Whether this direction is cut now. */
  isCut(dir: PipeDirection): boolean;
  /** This direction's delay and loss (undefined: none). */
  conditions(dir: PipeDirection): LinkConditions | undefined;
}

export interface PipeOptions {
  /**
   * Passes each chunk the connecting side sends through before it is carried: returns what to
   * carry (possibly empty), or undefined to drop the connection (peer-proxies' rewrite of
   * ZooKeeper's election initial message).
   */
  filterUp?: (b: Buffer) => Buffer | undefined;
  /** Told of every byte held by a cut (statistics). */
  onHeld?: (bytes: number) => void;
  /** Told once, when the pipe is closed for whatever reason. */
  onClose?: (pipe: Pipe) => void;
}

interface Held {
  chunks: Buffer[];
  /** When the oldest byte a cut holds was sent (µs, CLOCK_MONOTONIC); undefined: none held by a cut. */
  sinceUs?: number;
}

export class Pipe {
  private upstream?: Socket;
  private readonly held: Record<PipeDirection, Held> = { up: { chunks: [] }, down: { chunks: [] } };
  private heldBytes = 0;
  private readonly lines: Partial<Record<PipeDirection, DelayLine>> = {};
  private closed = false;

  /** Carries `inbound` (accepted by the proxy) to `target`; connects at once unless the link is cut. */
  constructor(
    private readonly inbound: Socket,
    private readonly target: { host: string; port: number },
    private readonly link: PipeLink,
    private readonly opts: PipeOptions = {},
  ) {
    inbound.setNoDelay(true);
    inbound.on("data", (b: Buffer) => this.fromInbound(b));
    inbound.on("error", () => this.close());
    inbound.on("close", () => this.close());
    if (!this.blocked()) this.connectUpstream();
  }

  /** After a cut or heal: connect if the link lets a handshake through now, and flush what a healed direction held. */
  reconsider(): void {
    if (this.closed) return;
    if (!this.upstream && !this.blocked()) return this.connectUpstream();
    this.flush();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.lines.up?.close();
    this.lines.down?.close();
    this.inbound.destroy();
    this.upstream?.destroy();
    this.opts.onClose?.(this);
  }

  private blocked(): boolean {
    return this.link.isCut("up") || this.link.isCut("down");
  }

  private connectUpstream(): void {
    const s = connect({ host: this.target.host, port: this.target.port });
    s.setNoDelay(true);
    this.upstream = s;
    s.on("data", (b: Buffer) => this.carry("down", b));
    s.on("error", () => this.close());
    s.on("close", () => this.close());
    this.flush();
  }

  private fromInbound(b: Buffer): void {
    const f = this.opts.filterUp;
    if (!f) return this.carry("up", b);
    const out = f(b);
    if (out === undefined) return this.close();
    if (out.length > 0) this.carry("up", out);
  }

  private carry(dir: PipeDirection, b: Buffer): void {
    if (this.closed) return;
    const cut = this.link.isCut(dir);
    const h = this.held[dir];
    // Bytes queue behind held ones (order), and up-bytes wait for the upstream connection.
    if (!cut && h.chunks.length === 0 && (dir === "down" || this.upstream)) return this.send(dir, b, 0);
    h.chunks.push(b);
    // Bytes that wait only for the upstream connection are not in a blackhole.
    if (cut) h.sinceUs ??= nowUs();
    this.heldBytes += b.length;
    if (cut) this.opts.onHeld?.(b.length);
    if (this.heldBytes > HELD_BYTES_MAX) this.close();
  }

  private flush(): void {
    const now = nowUs();
    for (const dir of ["up", "down"] as const) {
      if (this.link.isCut(dir) || (dir === "up" && !this.upstream)) continue;
      const h = this.held[dir];
      const notBeforeUs = h.sinceUs === undefined ? 0 : retransmitAtUs(h.sinceUs, now);
      h.sinceUs = undefined;
      for (const b of h.chunks.splice(0)) {
        this.heldBytes -= b.length;
        this.send(dir, b, notBeforeUs);
      }
    }
  }

  private send(dir: PipeDirection, b: Buffer, notBeforeUs: number): void {
    const line = (this.lines[dir] ??= new DelayLine(
      () => this.link.conditions(dir),
      (x) => (dir === "up" ? this.upstream?.write(x) : this.inbound.write(x)),
      () => this.close(),
    ));
    line.push(b, notBeforeUs);
  }
}
