/**
 * What the simulated client modules of one process share: the process, its realm, the
 * Redis nodes it may reach (by address, as library code names them), and its open
 * links, so replies arriving at the process reach the right connection.
 */
import type { Message, ProcessContext } from "../../sim/simulation.js";
import type { Realm } from "../../sim/sandbox/realm.js";
import type { ArgvReply } from "../redis/argv-reply.js";
import type { LinkError } from "./link.js";
import { RedisLink, type LinkPolicy } from "./link.js";

export interface RedisAddressBook {
  /** Node ids in order: `new Redis()` with no port reaches the first. */
  nodes: readonly string[];
  /** "host:port" (and bare port) -> node id. */
  byAddress: ReadonlyMap<string, string>;
}

export class ClientHub {
  private readonly links: RedisLink[] = [];
  private clientSerial = 0;

  constructor(
    readonly ctx: ProcessContext,
    readonly realm: Realm,
    readonly book: RedisAddressBook,
  ) {}

  /** The node a library's connection options name (host/port or url); unknown addresses are an input error. */
  resolve(port: unknown, host: unknown): string {
    if (port === undefined && host === undefined) return this.book.nodes[0];
    const p = String(port ?? 6379);
    const h = String(host ?? "127.0.0.1").replace(/^localhost$/, "127.0.0.1");
    const id = this.book.byAddress.get(`${h}:${p}`) ?? this.book.byAddress.get(p);
    if (id) return id;
    return this.realm.escape(
      `a Redis connection to ${h}:${p}`,
      `no simulated node has that address; the design's nodes are ${[...this.book.byAddress.keys()].filter((k) => k.includes(":")).join(", ")}`,
    );
  }

  openLink(serverId: string, policy: LinkPolicy, emit: (event: string, ...args: unknown[]) => void): RedisLink {
    const link = new RedisLink(this.ctx, serverId, policy, emit, `${this.ctx.id}.redis${++this.clientSerial}`);
    this.links.push(link);
    return link;
  }

  onMessage(_from: string, msg: Message): boolean {
    for (const l of this.links) if (l.onMessage(msg)) return true;
    return false;
  }

  /** A realm-side copy of a reply (arrays are the realm's, so Array methods and instanceof behave). */
  toRealm(r: ArgvReply, statusAsString = true): unknown {
    if (Array.isArray(r)) {
      const out = this.realmArray();
      for (const x of r) out.push(this.toRealm(x, statusAsString));
      return out;
    }
    if (r !== null && typeof r === "object") return "status" in r ? r.status : this.replyError(r.error);
    return r;
  }

  private realmArray(): unknown[] {
    return new this.realm.Array<unknown>();
  }

  /** A Redis error reply as the realm's Error, named as the libraries name it. */
  replyError(message: string, name = "ReplyError"): Error {
    const e = new this.realm.Error(message);
    e.name = name;
    return e;
  }

  linkError(e: LinkError, names: Partial<Record<LinkError["kind"], string>>): Error {
    return this.replyError(e.message, names[e.kind] ?? "Error");
  }
}
