/**
 * The client end of one simulated Redis connection, with the behaviour a real client
 * library gets from TCP and adds on top (a Policy, see ioredis.ts and node-redis.ts for
 * each library's documented defaults):
 *
 * - open: a handshake, retransmitted at 1, 2, 4 … s (Linux SYN retries) until the node
 *   answers or `connectTimeoutMs` passes (then the attempt fails and reconnects);
 * - requests: numbered on the connection and retransmitted go-back-N with TCP's
 *   backoff (RTO 200 ms doubling to 120 s, 15 retransmissions, Linux tcp_retries2), so
 *   a partition delays a request until it heals; the node runs each once, in order;
 * - reset: a node that restarted answers with a reset; the link reconnects after the
 *   policy's delay, and in-flight commands are resent or failed as the policy says;
 * - offline queue: commands issued while not connected wait, or fail at once.
 *
 * A node's process that crashes resets its connections at once (its kernel does), so an
 * idle client reconnects before its next command, network permitting; a node that is
 * partitioned away or paused is silent, found out only by retransmission timeout.
 * Not modelled: kernel keepalives.
 */
import type { Message, ProcessContext, TimerHandle } from "../../sim/simulation.js";
import type { ArgvReply } from "../redis/argv-reply.js";
import { CONN_REPLY, CONN_REQUEST, type ConnReply, type ConnRequest } from "../redis/connections.js";

export interface LinkPolicy {
  /** Delay before reconnect attempt `attempt` (1, 2, …), ms; null = give up (status "end"). */
  retryDelayMs(attempt: number): number | null;
  /** Fail a queued command after this many reconnect attempts (ioredis maxRetriesPerRequest); null = never. */
  maxRetriesPerRequest: number | null;
  /** Queue commands while not connected (else they fail at once). */
  offlineQueue: boolean;
  /** On a lost connection, resend commands that had no reply (ioredis) or fail them (node-redis). */
  resendUnfulfilled: boolean;
  connectTimeoutMs: number;
  /** Fail a command that has no reply after this long (its effect may still happen); undefined = wait. */
  commandTimeoutMs?: number;
}

export type LinkStatus = "connecting" | "ready" | "reconnecting" | "end";

export interface LinkError {
  /** The error class the library would throw, by name (the facade builds the object). */
  kind: "ConnectionClosed" | "MaxRetriesPerRequest" | "CommandTimeout" | "Reply";
  message: string;
}

export type LinkCallback = (error: LinkError | null, reply?: ArgvReply) => void;

interface Pending {
  req: { argv?: string[]; batch?: string[][] };
  cb: LinkCallback;
  seq?: number;
  retries: number;
  timeout?: TimerHandle;
  done: boolean;
}

const RTO_MS_MIN = 200;
const RTO_MS_MAX = 120_000;
const RETRANSMITS_MAX = 15;
const SYN_RETRY_MS = [1000, 2000, 4000, 8000, 16000, 32000];

export class RedisLink {
  status: LinkStatus = "connecting";
  private connSerial = 0;
  private conn = "";
  private seq = 0;
  private inflight: Pending[] = [];
  private queued: Pending[] = [];
  private rtoMs = RTO_MS_MIN;
  private retransmits = 0;
  private rtoTimer: TimerHandle | undefined;
  private openTimers: TimerHandle[] = [];
  private attempts = 0;

  constructor(
    private readonly ctx: ProcessContext,
    readonly serverId: string,
    private readonly policy: LinkPolicy,
    /** connect, ready, error, close, reconnecting, end — as the libraries name them. */
    private readonly emit: (event: string, ...args: unknown[]) => void,
    /** A stable name for this client object (connection ids derive from it). */
    private readonly name: string,
  ) {
    this.open();
  }

  send(req: { argv?: string[]; batch?: string[][] }, cb: LinkCallback): void {
    const p: Pending = { req, cb, retries: 0, done: false };
    if (this.policy.commandTimeoutMs !== undefined) {
      p.timeout = this.ctx.setTimer(this.policy.commandTimeoutMs, () => this.finish(p, { kind: "CommandTimeout", message: "Command timed out" }));
    }
    if (this.status === "ready") this.transmit(p);
    else if (this.status === "end") this.finish(p, { kind: "ConnectionClosed", message: "Connection is closed." });
    else if (!this.policy.offlineQueue) this.finish(p, { kind: "ConnectionClosed", message: "Stream isn't writeable and enableOfflineQueue options is false" });
    else this.queued.push(p);
  }

  /** QUIT / disconnect: no reconnect; pending commands fail. */
  end(): void {
    if (this.status === "end") return;
    this.status = "end";
    this.stopTimers();
    for (const p of [...this.inflight, ...this.queued]) this.finish(p, { kind: "ConnectionClosed", message: "Connection is closed." });
    this.inflight = [];
    this.queued = [];
    this.emit("close");
    this.emit("end");
  }

  onMessage(msg: Message): boolean {
    if (msg.type !== CONN_REPLY) return false;
    const m = msg as unknown as ConnReply;
    if (!m.conn.startsWith(`${this.name}/`)) return false; // another client object's
    if (m.conn !== this.conn) return true; // a reply on an old connection of ours
    if (m.opened) {
      if (this.status !== "connecting" && this.status !== "reconnecting") return true;
      for (const t of this.openTimers) this.ctx.cancelTimer(t);
      this.openTimers = [];
      this.status = "ready";
      this.attempts = 0;
      this.emit("connect");
      this.emit("ready");
      const q = this.queued;
      this.queued = [];
      // A queued command that timed out is still written once connected (ioredis keeps it in its offline queue).
      for (const p of q) this.transmit(p);
      return true;
    }
    if (m.reset) {
      this.lost("read ECONNRESET");
      return true;
    }
    const i = this.inflight.findIndex((p) => p.seq === m.seq);
    if (i < 0) return true; // a duplicate reply
    // In order: TCP delivers replies in sequence, so everything before it was answered too.
    const p = this.inflight[i];
    this.inflight.splice(i, 1);
    this.retransmits = 0;
    this.rtoMs = RTO_MS_MIN;
    this.armRto();
    this.finish(p, null, m.reply ?? null); // no-op for a command that timed out already
    return true;
  }

  private transmit(p: Pending): void {
    p.seq = ++this.seq;
    this.inflight.push(p);
    this.ctx.send(this.serverId, this.request(p));
    if (!this.rtoTimer) this.armRto();
  }

  private request(p: Pending): Message {
    const r: ConnRequest = { type: CONN_REQUEST, conn: this.conn, seq: p.seq, ...p.req };
    return r as unknown as Message;
  }

  private armRto(): void {
    this.ctx.cancelTimer(this.rtoTimer);
    this.rtoTimer = undefined;
    if (this.inflight.length === 0 || this.status !== "ready") return;
    this.rtoTimer = this.ctx.setTimer(this.rtoMs, () => {
      this.rtoTimer = undefined;
      if (++this.retransmits > RETRANSMITS_MAX) {
        this.lost("read ETIMEDOUT");
        return;
      }
      for (const p of this.inflight) this.ctx.send(this.serverId, this.request(p));
      this.rtoMs = Math.min(this.rtoMs * 2, RTO_MS_MAX);
      this.armRto();
    });
  }

  private open(): void {
    this.conn = `${this.name}/${++this.connSerial}`;
    this.seq = 0;
    const opening = this.conn;
    const syn = (): void => this.ctx.send(this.serverId, { type: CONN_REQUEST, conn: opening, open: true } as unknown as Message);
    syn();
    let atMs = 0;
    this.openTimers = SYN_RETRY_MS.map((ms) => this.ctx.setTimer((atMs += ms), syn));
    this.openTimers.push(
      this.ctx.setTimer(this.policy.connectTimeoutMs, () => {
        if (this.conn === opening && this.status !== "ready" && this.status !== "end") this.lost("connect ETIMEDOUT");
      }),
    );
  }

  /** The connection is gone: tell the library, then reconnect as its policy says. */
  private lost(reason: string): void {
    if (this.status === "end") return;
    this.stopTimers();
    const unanswered = this.inflight;
    this.inflight = [];
    this.emit("error", { kind: "ConnectionClosed", message: reason } satisfies LinkError);
    this.emit("close");
    if (this.policy.resendUnfulfilled) this.queued = [...unanswered, ...this.queued];
    else for (const p of unanswered) this.finish(p, { kind: "ConnectionClosed", message: "Socket closed unexpectedly" });
    this.attempts++;
    const delay = this.policy.retryDelayMs(this.attempts);
    if (delay === null) {
      this.end();
      return;
    }
    if (this.policy.maxRetriesPerRequest !== null) {
      for (const p of this.queued) {
        if (++p.retries > this.policy.maxRetriesPerRequest) {
          this.finish(p, {
            kind: "MaxRetriesPerRequest",
            message: `Reached the max retries per request limit (which is ${this.policy.maxRetriesPerRequest}). Refer to "maxRetriesPerRequest" option for details.`,
          });
        }
      }
      this.queued = this.queued.filter((p) => !p.done);
    }
    this.status = "reconnecting";
    this.emit("reconnecting", delay);
    this.openTimers = [this.ctx.setTimer(delay, () => this.status === "reconnecting" && this.open())];
  }

  private stopTimers(): void {
    this.ctx.cancelTimer(this.rtoTimer);
    this.rtoTimer = undefined;
    for (const t of this.openTimers) this.ctx.cancelTimer(t);
    this.openTimers = [];
  }

  private finish(p: Pending, error: LinkError | null, reply?: ArgvReply): void {
    if (p.done) return;
    p.done = true;
    this.ctx.cancelTimer(p.timeout);
    // A command that timed out is still in the byte stream (the library only stopped
    // waiting): it stays in flight, is retransmitted and runs on the node, in order.
    if (error && error.kind !== "CommandTimeout") this.inflight = this.inflight.filter((x) => x !== p);
    p.cb(error, reply);
  }
}
