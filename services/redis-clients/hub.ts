/**
 * What the simulated client modules of one process share: the process, its realm, the
 * Redis nodes it may reach (by address, as library code names them), and its open
 * links, so replies arriving at the process reach the right connection.
 *
 * The modules' classes are built inside the realm (IOREDIS_SOURCE in ioredis.ts,
 * NODE_REDIS_SOURCE in node-redis.ts), so no host object is reachable from library code;
 * they build each command's argv there and reach the links through a `ClientDriver`
 * whose functions get the membrane's copies of their arguments (argv as host arrays of
 * strings, taken by the membrane's argv crossing; callbacks as opaque realm functions the
 * host hands back to the membrane) and give realm values. A link is a number.
 */
import type { Message, ProcessContext } from "../../sim/simulation.js";
import type { Realm } from "../../sim/sandbox/realm.js";
import { isErrorReply, type ArgvReply } from "../redis/argv-reply.js";
import { sha1Hex } from "../redis/lua.js";
import type { LinkError } from "./link.js";
import { RedisLink, type LinkPolicy } from "./link.js";

/** How one client library names its errors and its turns (for messages about library code). */
export interface ClientFlavour {
  /** Error names by link error kind; `Reply` names a Redis error reply. */
  names: Record<LinkError["kind"], string>;
  /** e.g. "ioredis": turns are "an ioredis reply", "ioredis 'ready' listeners". */
  label: string;
}

/** A library callback: an opaque realm function, called only through the membrane. */
type Callback = unknown;

/** The host functions a realm-side client module calls (see ioredis.ts and node-redis.ts for their use). */
export interface ClientDriver {
  resolve(port: unknown, host: unknown): string;
  open(serverId: unknown, policy: unknown, emit: Callback, retry: Callback): number;
  status(link: unknown): string;
  /** A realm function (membrane.argvFunction): `send(link, head, tail?, done)`, false when the module must flatten its argv first. */
  send: unknown;
  sendBatch(link: unknown, commands: unknown, done: Callback): void;
  end(link: unknown): void;
  sha1(text: unknown): string;
  escape(call: unknown, detail?: unknown): never;
}

/** A batch's commands, as the realm-side module sent them (one JSON string of string arrays). */
function batchOf(commands: unknown): string[][] {
  const c = typeof commands === "string" ? (JSON.parse(commands) as unknown) : undefined;
  return (Array.isArray(c) ? c : []).map((a: unknown) => {
    if (!Array.isArray(a) || !a.every((x) => typeof x === "string")) throw new TypeError("a command's arguments must be strings");
    return a as string[];
  });
}

/** SHA-1 of the scripts library code defines, once per worker (a library defines the same few in every simulated process). */
const shaByScript = new Map<string, string>();
function sha1Of(text: string): string {
  let sha = shaByScript.get(text);
  if (sha === undefined) {
    if (shaByScript.size >= 1024) shaByScript.clear();
    shaByScript.set(text, (sha = sha1Hex(text)));
  }
  return sha;
}

const num = (v: unknown, dflt: number | undefined): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : dflt);

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

  private openLink(serverId: string, policy: LinkPolicy, emit: (event: string, ...args: unknown[]) => void): RedisLink {
    const link = new RedisLink(this.ctx, serverId, policy, emit, `${this.ctx.id}.redis${++this.clientSerial}`);
    this.links.push(link);
    return link;
  }

  /** The driver a client module of `flavour` is built over. */
  driver(flavour: ClientFlavour): ClientDriver {
    const { realm } = this;
    const { membrane } = realm;
    const article = /^[aeiou]/.test(flavour.label) ? "an" : "a";
    const replyWhere = `${article} ${flavour.label} reply`;
    const link = (h: unknown): RedisLink => {
      const l = typeof h === "number" ? this.links[h] : undefined;
      if (!l) throw new TypeError(`no ${flavour.label} connection ${String(h)}`);
      return l;
    };
    const answer =
      (done: Callback) =>
      (e: LinkError | null, r?: ArgvReply): void => {
        realm.enter(replyWhere, () => {
          if (e) membrane.invoke(done, this.linkError(e, flavour.names));
          else if (r !== undefined && r !== null && isErrorReply(r)) membrane.invoke(done, this.replyError(r.error, flavour.names.Reply));
          else membrane.invoke(done, null, this.toRealm(r ?? null));
        });
      };
    return {
      resolve: (port, host) => this.resolve(port, host),
      open: (serverId, policy, emit, retry) => this.openFor(flavour, String(serverId), (policy ?? {}) as Record<string, unknown>, emit, retry),
      status: (h) => link(h).status,
      send: membrane.argvFunction((h, argv, done) => link(h).send({ argv }, answer(done)), "send"),
      sendBatch: (h, commands, done) => link(h).send({ batch: batchOf(commands) }, answer(done)),
      end: (h) => link(h).end(),
      sha1: (text) => sha1Of(String(text)),
      escape: (call, detail) => realm.escape(String(call), detail === undefined ? "" : String(detail)),
    };
  }

  /** Open a link with the policy a realm-side module parsed; its events and retry strategy go back through the membrane. */
  private openFor(flavour: ClientFlavour, serverId: string, policy: Record<string, unknown>, emit: Callback, retry: Callback): number {
    const { realm } = this;
    const { membrane } = realm;
    const p: LinkPolicy = {
      retryDelayMs: (n) => {
        const d = realm.enter(`${flavour.label} retry strategy`, () => membrane.invoke(retry, n));
        return typeof d === "number" && Number.isFinite(d) ? Math.max(0, d) : null;
      },
      maxRetriesPerRequest: num(policy.maxRetriesPerRequest, undefined) ?? null,
      offlineQueue: policy.offlineQueue === true,
      resendUnfulfilled: policy.resendUnfulfilled === true,
      connectTimeoutMs: Number(num(policy.connectTimeoutMs, NaN)),
      commandTimeoutMs: num(policy.commandTimeoutMs, undefined),
    };
    this.openLink(serverId, p, (event, arg) =>
      realm.enter(`${flavour.label} '${event}' listeners`, () =>
        membrane.invoke(emit, event, event === "error" ? this.linkError(arg as LinkError, flavour.names) : membrane.toRealm(arg)),
      ),
    );
    return this.links.length - 1;
  }

  onMessage(_from: string, msg: Message): boolean {
    for (const l of this.links) if (l.onMessage(msg)) return true;
    return false;
  }

  /** A realm-side copy of a reply (arrays are the realm's, so Array methods and instanceof behave). */
  private toRealm(r: ArgvReply): unknown {
    return this.realm.membrane.toRealm(this.replyData(r));
  }

  /** A reply as host data the membrane copies: status replies as their text, error replies as realm errors. */
  private replyData(r: ArgvReply): unknown {
    if (Array.isArray(r)) return r.map((x) => this.replyData(x));
    if (r !== null && typeof r === "object") return "status" in r ? r.status : this.replyError(r.error);
    return r;
  }

  /** A Redis error reply as the realm's Error, named as the libraries name it. */
  private replyError(message: string, name = "ReplyError"): unknown {
    return this.realm.membrane.makeError(name, message);
  }

  private linkError(e: LinkError, names: Partial<Record<LinkError["kind"], string>>): unknown {
    return this.replyError(e.message, names[e.kind] ?? "Error");
  }
}
