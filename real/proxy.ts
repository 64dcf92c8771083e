// A TCP proxy per (client, server) link, inside the driver, on 127.0.0.1: the client's npm
// library connects to the proxy's port instead of the server's, so the driver can cut the
// link in either direction without root (no nftables) and the partition is real TCP
// behaviour, not an emulation in the client.
//
// Each connection is a Pipe (real/pipe.ts, shared with the peer proxies): a cut direction
// holds bytes, a heal delivers them at TCP's next resend, and what passes goes through the
// direction's delay line. The proxy only says which direction is cut and what delay and loss
// each has.
import { createServer, type Server, type Socket } from "node:net";
import { LinkConditions } from "./link-conditions.js";
import { Pipe, type PipeDirection, type PipeLink } from "./pipe.js";
import { LOOPBACK } from "./servers/index.js";

const CONNECTIONS_MAX = 1024;

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
    for (const p of [...this.pipes]) p.reconsider();
  }

  /** Whether one direction is cut now (up = client → server). */
  isCut(dir: PipeDirection): boolean {
    return dir === "up" ? this.cutUp : this.cutDown;
  }

  /** The conditions of one direction (up = client → server), made on first use; new connections pick them up too. */
  conditions(dir: PipeDirection): LinkConditions {
    if (dir === "up") return (this.condUp ??= new LinkConditions(`${this.seed}/${this.clientId}>${this.serverId}`));
    return (this.condDown ??= new LinkConditions(`${this.seed}/${this.serverId}>${this.clientId}`));
  }

  private accept(client: Socket): void {
    // The pipe reads the conditions as they are (none until a step or network.links sets them).
    const link: PipeLink = { isCut: (d) => this.isCut(d), conditions: (d) => (d === "up" ? this.condUp : this.condDown) };
    this.pipes.add(new Pipe(client, this.target, link, { onClose: (p) => this.pipes.delete(p) }));
  }

  close(): void {
    for (const p of [...this.pipes]) p.close();
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
