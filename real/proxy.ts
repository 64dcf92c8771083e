// A TCP proxy per (client, server) link, inside the driver, on 127.0.0.1: the client's npm
// library connects to the proxy's port instead of the server's, so the driver can cut the
// link in either direction without root (no nftables) and the partition is real TCP
// behaviour, not an emulation in the client.
//
// A cut direction holds bytes instead of passing them — a blackhole, as a partition is for
// TCP: nothing arrives, nothing is refused, the sender's kernel buffers and its library's
// own timers decide what happens (a reset would be a different fault: a crash). When the link
// heals the held bytes are delivered in order, as TCP's retransmission would, if both ends
// are still there: not at the heal itself but at the first resend of the oldest held byte
// after it (200 ms after it was sent, then 400, 800 ms … later: retransmitAtUs), since the
// sender learns nothing of the heal until a resend gets through. A connection opened during
// a cut waits (accepted locally, not yet connected upstream) until the heal. Held bytes are bounded: past HELD_BYTES_MAX per
// connection both sides are destroyed (a connection that could not have survived anyway).
//
// Bytes that pass go through a delay line per direction (real/link-conditions.ts): with no
// delay or loss in force on the link they are written at once; otherwise each chunk is
// released at its time, in order.
import { createServer, connect, type Server, type Socket } from "node:net";
import { DelayLine, LinkConditions, nowUs, retransmitAtUs } from "./link-conditions.js";
import { LOOPBACK } from "./servers/index.js";

const HELD_BYTES_MAX = 16 << 20;
const CONNECTIONS_MAX = 1024;

interface Pipe {
  client: Socket;
  server?: Socket;
  /** Bytes held per direction while it is cut (up: client → server). */
  heldUp: Buffer[];
  heldDown: Buffer[];
  heldBytes: number;
  /** When the oldest byte a cut holds in each direction was sent (µs, CLOCK_MONOTONIC). */
  heldUpSinceUs?: number;
  heldDownSinceUs?: number;
  /** What passes, per direction, through the link's delay and loss. */
  lineUp?: DelayLine;
  lineDown?: DelayLine;
}

export class LinkProxy {
  private server?: Server;
  private readonly pipes = new Set<Pipe>();
  private cutUp = false;
  private cutDown = false;
  port = 0;
  /** Delay and loss per direction (up: client → server), made when first set. */
  private condUp?: LinkConditions;
  private condDown?: LinkConditions;
  /** Seeds the jitter and loss draws of this link's conditions. */
  seed = "lockstep-real";

  constructor(
    readonly clientId: string,
    readonly serverId: string,
    private readonly target: { host: string; port: number },
  ) {}

  async listen(): Promise<void> {
    this.server = createServer((sock) => this.accept(sock));
    this.server.maxConnections = CONNECTIONS_MAX;
    await new Promise<void>((resolve, reject) => {
      this.server!.once("error", reject);
      this.server!.listen(0, LOOPBACK, () => resolve());
    });
    this.port = (this.server.address() as { port: number }).port;
  }

  /** Cut one or both directions (up = client → server). */
  cut(up: boolean, down: boolean): void {
    this.cutUp ||= up;
    this.cutDown ||= down;
  }

  /** Heal one or both directions; held bytes go on in order, waiting connections connect. */
  heal(up = true, down = true): void {
    if (up) this.cutUp = false;
    if (down) this.cutDown = false;
    for (const p of this.pipes) {
      if (!p.server && !this.isCut) this.connectUpstream(p);
      this.flush(p);
    }
  }

  get isCut(): boolean {
    return this.cutUp || this.cutDown;
  }

  /** The conditions of one direction (up = client → server), made on first use; new connections pick them up too. */
  conditions(dir: "up" | "down"): LinkConditions {
    if (dir === "up") return (this.condUp ??= new LinkConditions(`${this.seed}/${this.clientId}>${this.serverId}`));
    return (this.condDown ??= new LinkConditions(`${this.seed}/${this.serverId}>${this.clientId}`));
  }

  private send(p: Pipe, dir: "up" | "down", b: Buffer, notBeforeUs = 0): void {
    if (dir === "up") (p.lineUp ??= new DelayLine(() => this.condUp, (x) => p.server?.write(x), () => this.drop(p))).push(b, notBeforeUs);
    else (p.lineDown ??= new DelayLine(() => this.condDown, (x) => p.client.write(x), () => this.drop(p))).push(b, notBeforeUs);
  }

  private accept(client: Socket): void {
    client.setNoDelay(true);
    const p: Pipe = { client, heldUp: [], heldDown: [], heldBytes: 0 };
    this.pipes.add(p);
    client.on("data", (b: Buffer) => this.carry(p, "up", b));
    client.on("error", () => this.drop(p));
    client.on("close", () => this.drop(p));
    // A SYN into a partition gets no answer; here the connection waits until the heal.
    if (!this.isCut) this.connectUpstream(p);
  }

  private connectUpstream(p: Pipe): void {
    const s = connect({ host: this.target.host, port: this.target.port });
    s.setNoDelay(true);
    p.server = s;
    s.on("data", (b: Buffer) => this.carry(p, "down", b));
    s.on("error", () => this.drop(p));
    s.on("close", () => this.drop(p));
    this.flush(p);
  }

  private carry(p: Pipe, dir: "up" | "down", b: Buffer): void {
    const cut = dir === "up" ? this.cutUp || !p.server : this.cutDown;
    if (!cut) {
      this.send(p, dir, b);
      return;
    }
    (dir === "up" ? p.heldUp : p.heldDown).push(b);
    // Bytes that wait only for the upstream connection are not in a blackhole.
    if (dir === "up" && this.cutUp) p.heldUpSinceUs ??= nowUs();
    if (dir === "down" && this.cutDown) p.heldDownSinceUs ??= nowUs();
    p.heldBytes += b.length;
    if (p.heldBytes > HELD_BYTES_MAX) this.drop(p);
  }

  private flush(p: Pipe): void {
    const now = nowUs();
    if (p.server && !this.cutUp) {
      const notBeforeUs = p.heldUpSinceUs === undefined ? 0 : retransmitAtUs(p.heldUpSinceUs, now);
      p.heldUpSinceUs = undefined;
      for (const b of p.heldUp.splice(0)) this.send(p, "up", b, notBeforeUs);
    }
    if (!this.cutDown) {
      const notBeforeUs = p.heldDownSinceUs === undefined ? 0 : retransmitAtUs(p.heldDownSinceUs, now);
      p.heldDownSinceUs = undefined;
      for (const b of p.heldDown.splice(0)) this.send(p, "down", b, notBeforeUs);
    }
    p.heldBytes = p.heldUp.reduce((n, b) => n + b.length, 0) + p.heldDown.reduce((n, b) => n + b.length, 0);
  }

  private drop(p: Pipe): void {
    if (!this.pipes.delete(p)) return;
    p.lineUp?.close();
    p.lineDown?.close();
    p.client.destroy();
    p.server?.destroy();
  }

  close(): void {
    for (const p of [...this.pipes]) this.drop(p);
    this.server?.close();
  }
}

/** The proxies of a run: one per (client, server) pair, and one per replication link. */
export class ProxySet {
  private readonly byLink = new Map<string, LinkProxy>();
  /** Seeds every link's jitter and loss draws (the run's seed, so a run's dice are its own). */
  seed = "lockstep-real";

  static async open(clientIds: readonly string[], servers: ReadonlyArray<{ id: string; host: string; port: number }>): Promise<ProxySet> {
    const set = new ProxySet();
    try {
      await set.addAll(clientIds, servers);
    } catch (err) {
      set.close();
      throw err;
    }
    return set;
  }

  /** One proxy per (client, server) pair; the caller closes the set on failure. */
  async addAll(clientIds: readonly string[], servers: ReadonlyArray<{ id: string; host: string; port: number }>): Promise<void> {
    for (const c of clientIds) for (const s of servers) await this.add(c, s);
  }

  /**
   * A proxy for the link from `connecting` to `server`: a client's, or a server's own
   * connection to another (a replica's replication link to its primary).
   */
  async add(connecting: string, server: { id: string; host: string; port: number }): Promise<LinkProxy> {
    const p = new LinkProxy(connecting, server.id, server);
    p.seed = this.seed;
    this.byLink.set(`${connecting}\u0000${server.id}`, p);
    await p.listen();
    return p;
  }

  get(clientId: string, serverId: string): LinkProxy | undefined {
    return this.byLink.get(`${clientId}\u0000${serverId}`);
  }

  /** Cut the directed link from → to (one of them a client, the other a server). */
  cutLink(from: string, to: string): boolean {
    const up = this.get(from, to);
    if (up) {
      up.cut(true, false);
      return true;
    }
    const down = this.get(to, from);
    if (down) {
      down.cut(false, true);
      return true;
    }
    return false;
  }

  /** The delay/loss conditions of the directed link from → to, or undefined if it is not proxied. */
  conditionsOf(from: string, to: string): LinkConditions | undefined {
    const up = this.get(from, to);
    if (up) return up.conditions("up");
    return this.get(to, from)?.conditions("down");
  }

  /** Heal the directed link from → to. */
  healLink(from: string, to: string): void {
    this.get(from, to)?.heal(true, false);
    this.get(to, from)?.heal(false, true);
  }

  healAll(): void {
    for (const p of this.byLink.values()) p.heal();
  }

  close(): void {
    for (const p of this.byLink.values()) p.close();
  }
}
