// Proxies for the servers' own traffic (etcd peer URLs, ZooKeeper quorum and election ports),
// inside the driver on 127.0.0.1, so a scenario's server↔server partition, delay or loss is
// real TCP per direction, carried by the same Pipe as the client↔server links (real/pipe.ts):
// a cut holds bytes and its heal delivers them at TCP's next resend, and a delay or loss goes
// through the same delay line.
//
// Every connection carries the traffic of one directed pair (src → dst: src opened it). Its
// up direction is the link src → dst, its down direction dst → src; a connection opened while
// either is cut waits, accepted but not yet connected upstream, as a SYN into a partition would.
//
// How the source is known (docs/real-mode.md, "Server↔server links"):
// - ZooKeeper: statically. Each server has its own zoo.cfg in which every other server N's
//   quorum and election ports are those of a proxy for the pair (me → N) — `zooKeeper()`.
//   One catch, found by experiment: a server that receives an election connection from a
//   lower id closes it and connects back to the address the *initial message* names (the
//   sender's own zoo.cfg line, its real port), bypassing the proxies; a cut then leaked
//   notifications and the majority kept electing the isolated leader. So the election
//   proxies rewrite that address to the proxy of the reverse pair (see zkInitialMessage).
// - etcd: every member sees the same membership (peer URLs are cluster-wide), so there is one
//   proxy per destination member, at the peer URL it advertises — `destination()` — and the
//   source of each accepted connection is found by who owns its other end: the socket's inode
//   in /proc/net/tcp, looked for among the members' open fds. A connection whose owner is not
//   found (the member exited meanwhile) is closed.
import { readlinkSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { LinkConditions } from "./link-conditions.js";
import { Pipe, type PipeLink } from "./pipe.js";
import { freePort, LOOPBACK } from "./servers/index.js";

const CONNECTIONS_MAX = 1024;
const FDS_SCANNED_MAX = 65_536;
const FIRST_MESSAGE_BYTES_MAX = 4096;
const OWNER_ROUNDS_MAX = 1024;
const OWNERS_CACHED_MAX = 65_536;
/** QuorumCnxManager's protocol versions that carry the sender's election address. */
const ZK_PROTOCOL_VERSIONS = new Set([-65536n, -65535n]);

type Rewrite = (b: Buffer) => Buffer | undefined;

export interface PeerLinkStats {
  connections: number;
  /** Connections whose source could not be attributed (closed at once). */
  unattributed: number;
  bytesHeld: number;
}

export class PeerLinks {
  private readonly cut = new Set<string>();
  private readonly servers: Server[] = [];
  private readonly pipes = new Set<Pipe>();
  /** Delay and loss per directed pair, made when a step first sets them. */
  private readonly conds = new Map<string, LinkConditions>();
  readonly stats: PeerLinkStats = { connections: 0, unattributed: 0, bytesHeld: 0 };
  /** Seeds every link's jitter and loss draws (the run's seed, so a run's dice are its own). */
  seed = "lockstep-real";

  private static key(a: string, b: string): string {
    return `${a}\u0000${b}`;
  }

  isCut(from: string, to: string): boolean {
    return this.cut.has(PeerLinks.key(from, to));
  }

  /** A proxy for connections `src` opens to `dst`. Returns its port. */
  pair(src: string, dst: string, target: { host: string; port: number }, rewriteFirst?: Rewrite): Promise<number> {
    return this.listen(dst, target, () => src, rewriteFirst);
  }

  private readonly zkElectionPorts = new Map<string, number>();
  private readonly owners = new SocketOwners();

  /**
   * ZooKeeper: the proxy for `src`'s connections to `dst`'s quorum or election port. An
   * election proxy rewrites the initial message's address to the reverse pair's proxy, so
   * `dst` connecting back to `src` goes through a proxy too.
   */
  async zooKeeper(src: string, dst: string, target: { host: string; port: number }, kind: "quorum" | "election"): Promise<number> {
    if (kind === "quorum") return this.pair(src, dst, target);
    const port = await this.pair(src, dst, target, (b) => {
      const back = this.zkElectionPorts.get(PeerLinks.key(dst, src));
      return back === undefined ? b : zkInitialMessage(b, `${LOOPBACK}:${back}`);
    });
    this.zkElectionPorts.set(PeerLinks.key(src, dst), port);
    return port;
  }

  /**
   * A proxy in front of `dst` for every other member (etcd: its advertised peer URL); the
   * source of a connection is the member owning its other end. `pids` gives the live
   * members' pids by id, read at each accept (restarted members have new pids).
   */
  destination(dst: string, target: { host: string; port: number }, pids: () => ReadonlyMap<string, number | undefined>): Promise<number> {
    return this.listen(dst, target, (sock) => this.owners.ownerOf(sock, pids));
  }

  /** Cut the directed link from → to. */
  cutLink(from: string, to: string): void {
    this.cut.add(PeerLinks.key(from, to));
  }

  /** Heal the directed link from → to: held bytes go on at TCP's next resend, waiting connections connect. */
  healLink(from: string, to: string): void {
    this.cut.delete(PeerLinks.key(from, to));
    this.reconsider();
  }

  healAll(): void {
    this.cut.clear();
    this.reconsider();
  }

  /** The delay/loss conditions of the directed link from → to, made on first use; connections open already pick them up. */
  conditionsOf(from: string, to: string): LinkConditions {
    const k = PeerLinks.key(from, to);
    let c = this.conds.get(k);
    if (!c) this.conds.set(k, (c = new LinkConditions(`${this.seed}/${from}>${to}`)));
    return c;
  }

  close(): void {
    for (const p of [...this.pipes]) p.close();
    for (const s of this.servers) s.close();
    this.servers.length = 0;
  }

  private async listen(
    dst: string,
    target: { host: string; port: number },
    sourceOf: (sock: Socket) => string | undefined | Promise<string | undefined>,
    rewriteFirst?: Rewrite,
  ): Promise<number> {
    const server = createServer((sock) => this.accept(sock, dst, target, sourceOf, rewriteFirst));
    server.maxConnections = CONNECTIONS_MAX;
    this.servers.push(server);
    // A port from freePort, not listen(0): the servers' ports are handed out before they bind,
    // and the kernel may give a just-closed one to listen(0) — ZooKeeper then failed to start
    // with "Address already in use" (2 of 8 runs).
    const port = await freePort();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, LOOPBACK, () => resolve());
    });
    return port;
  }

  private accept(
    inbound: Socket,
    dst: string,
    target: { host: string; port: number },
    sourceOf: (sock: Socket) => string | undefined | Promise<string | undefined>,
    rewriteFirst?: Rewrite,
  ): void {
    this.stats.connections++;
    const src = sourceOf(inbound);
    if (src instanceof Promise) {
      // Nothing is read from the socket until its source is known (the kernel buffers it).
      inbound.on("error", () => inbound.destroy());
      void src.then((id) => (inbound.destroyed ? undefined : this.attached(inbound, id, dst, target, rewriteFirst)));
      return;
    }
    this.attached(inbound, src, dst, target, rewriteFirst);
  }

  private attached(inbound: Socket, src: string | undefined, dst: string, target: { host: string; port: number }, rewriteFirst?: Rewrite): void {
    if (src === undefined || src === dst) {
      this.stats.unattributed++;
      inbound.destroy();
      return;
    }
    const link: PipeLink = {
      isCut: (d) => this.isCut(...dirPair(d, src, dst)),
      conditions: (d) => this.conds.get(PeerLinks.key(...dirPair(d, src, dst))),
    };
    const pipe = new Pipe(inbound, target, link, {
      ...(rewriteFirst ? { filterUp: firstMessage(rewriteFirst) } : {}),
      onHeld: (n) => (this.stats.bytesHeld += n),
      onClose: (p) => this.pipes.delete(p),
    });
    this.pipes.add(pipe);
  }

  private reconsider(): void {
    for (const p of [...this.pipes]) p.reconsider();
  }
}

/** The directed pair a pipe's direction carries: up src → dst, down dst → src. */
function dirPair(d: "up" | "down", src: string, dst: string): [string, string] {
  return d === "up" ? [src, dst] : [dst, src];
}

/**
 * A pipe filter that collects the first message until `rewrite` can rewrite it (undefined:
 * incomplete), carries the rewritten message, then passes every later chunk as it is. A first
 * message past FIRST_MESSAGE_BYTES_MAX drops the connection.
 */
function firstMessage(rewrite: Rewrite): (b: Buffer) => Buffer | undefined {
  let pending: Buffer | undefined = Buffer.alloc(0);
  return (b) => {
    if (pending === undefined) return b;
    const all = Buffer.concat([pending, b]);
    const out = rewrite(all);
    if (out !== undefined) {
      pending = undefined;
      return out;
    }
    if (all.length > FIRST_MESSAGE_BYTES_MAX) return undefined;
    pending = all;
    return Buffer.alloc(0);
  };
}

/**
 * ZooKeeper 3.8's election initial message (QuorumCnxManager.startConnection): long protocol
 * version, long sid, int length, the sender's election address ("host:port", '|' between
 * several). Returns `bytes` with the address replaced by `address`, undefined while the message
 * is incomplete; anything else (an old protocol's bare sid) passes unchanged.
 */
export function zkInitialMessage(bytes: Buffer, address: string): Buffer | undefined {
  if (bytes.length < 8) return undefined;
  if (!ZK_PROTOCOL_VERSIONS.has(bytes.readBigInt64BE(0))) return bytes;
  if (bytes.length < 20) return undefined;
  const len = bytes.readInt32BE(16);
  if (len < 0 || len > FIRST_MESSAGE_BYTES_MAX) return bytes;
  if (bytes.length < 20 + len) return undefined;
  const addr = Buffer.from(address, "utf8");
  const head = Buffer.alloc(20);
  bytes.copy(head, 0, 0, 16);
  head.writeInt32BE(addr.length, 16);
  return Buffer.concat([head, addr, bytes.subarray(20 + len)]);
}

/** /proc/net/tcp's hex form of 127.0.0.1:port (little-endian address, as the kernel prints it). */
function procTcpAddress(ip: string, port: number): string {
  const hexIp = ip
    .split(".")
    .map((o) => Number(o).toString(16).padStart(2, "0").toUpperCase())
    .reverse()
    .join("");
  return `${hexIp}:${port.toString(16).padStart(4, "0").toUpperCase()}`;
}

/**
 * Socket owners, looked up in batches and off the event loop: reading /proc/net/tcp costs
 * time in proportion to every socket on the host (~1,600 on the shared machine), and doing it
 * synchronously per accept blocked the driver for up to 573 ms during a 5-member etcd start
 * (healthy after 8–40 s instead of 0.6 s). Connections accepted while a batch is read wait for
 * the next one (their table entry may be newer than the read).
 */
class SocketOwners {
  private readonly owners = new Map<string, string>();

  /** Every socket inode each member holds open, read from its fds (members in parallel). */
  private async rescan(pids: ReadonlyMap<string, number | undefined>): Promise<void> {
    if (this.owners.size > OWNERS_CACHED_MAX) this.owners.clear();
    await Promise.all(
      [...pids].map(async ([id, pid]) => {
        if (pid === undefined) return;
        let fds: string[];
        try {
          fds = await readdir(`/proc/${pid}/fd`);
        } catch {
          return;
        }
        for (const fd of fds.slice(0, FDS_SCANNED_MAX)) {
          try {
            const l = readlinkSync(`/proc/${pid}/fd/${fd}`);
            if (l.startsWith("socket:[")) this.owners.set(l.slice(8, -1), id);
          } catch {
            // closed meanwhile
          }
        }
      }),
    );
  }

  private queue: Array<{ sock: Socket; pids: () => ReadonlyMap<string, number | undefined>; resolve: (id: string | undefined) => void }> = [];
  private reading = false;

  ownerOf(sock: Socket, pids: () => ReadonlyMap<string, number | undefined>): Promise<string | undefined> {
    return new Promise((resolve) => {
      this.queue.push({ sock, pids, resolve });
      if (!this.reading) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.reading = true;
    try {
      for (let round = 0; round < OWNER_ROUNDS_MAX && this.queue.length > 0; round++) {
        const batch = this.queue.splice(0);
        let table = "";
        try {
          table = await readFile("/proc/net/tcp", "utf8");
        } catch {
          // no /proc: nothing can be attributed
        }
        const inodes = socketInodes(table);
        const wanted = batch.map((q) => inodes.get(connectingSide(q.sock) ?? ""));
        // Inodes are never reused while the socket lives, so owners found once stay valid.
        if (wanted.some((i) => i !== undefined && !this.owners.has(i))) await this.rescan(batch[0]!.pids());
        batch.forEach((q, i) => q.resolve(wanted[i] !== undefined ? this.owners.get(wanted[i]!) : undefined));
      }
    } finally {
      this.reading = false;
      if (this.queue.length > 0) void this.drain();
    }
  }
}

/** "local rem" → inode, from /proc/net/tcp's text. */
function socketInodes(table: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of table.split("\n")) {
    const f = line.trim().split(/\s+/);
    if (f.length > 9 && f[9] !== "0") out.set(`${f[1]} ${f[2]}`, f[9]!);
  }
  return out;
}

/** The /proc/net/tcp key of the socket at the other end of an accepted loopback connection. */
function connectingSide(sock: Socket): string | undefined {
  const remote = sock.remoteAddress?.replace(/^::ffff:/, "");
  const local = sock.localAddress?.replace(/^::ffff:/, "");
  if (!remote || !local || sock.remotePort === undefined || sock.localPort === undefined) return undefined;
  return `${procTcpAddress(remote, sock.remotePort)} ${procTcpAddress(local, sock.localPort)}`;
}
