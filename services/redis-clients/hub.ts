/**
 * What the simulated client modules of one process share: the process, its realm, the
 * Redis nodes it may reach (by address, as library code names them), and its open
 * links, so replies arriving at the process reach the right connection.
 *
 * The modules' classes are built inside the realm (IOREDIS_SOURCE in ioredis.ts,
 * NODE_REDIS_SOURCE in node-redis.ts), so no host object is
 * reachable from library code; they reach the links through a `ClientDriver`, whose
 * functions take and give primitives and realm values only. A link is a number.
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
  /** Arguments as ioredis takes them: nested arrays flattened, null and undefined sent as "". */
  flattens: boolean;
}

type Done = (err: Error | null, value?: unknown) => void;

/** The host functions a realm-side client module calls (see ioredis.ts and node-redis.ts for their use). */
export interface ClientDriver {
  resolve(port: unknown, host: unknown): string;
  open(serverId: string, policy: LinkPolicy, emit: (event: string, arg?: unknown) => void): number;
  status(link: number): string;
  send(link: number, argv: ArrayLike<unknown>, done: Done): void;
  sendBatch(link: number, commands: ArrayLike<ArrayLike<unknown>>, done: Done): void;
  end(link: number): void;
  sha1(text: string): string;
  escape(call: string, detail?: string): never;
}

function strings(argv: ArrayLike<unknown>): string[] {
  const out = new Array<string>(argv.length);
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i];
    out[i] = typeof x === "string" ? x : String(x);
  }
  return out;
}

function flattened(argv: ArrayLike<unknown>, out: string[] = []): string[] {
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i];
    if (typeof x === "string") out.push(x);
    else if (Array.isArray(x)) flattened(x, out);
    else out.push(x === undefined || x === null ? "" : String(x));
  }
  return out;
}

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
    const article = /^[aeiou]/.test(flavour.label) ? "an" : "a";
    const replyWhere = `${article} ${flavour.label} reply`;
    const argvOf = (argv: ArrayLike<unknown>): string[] => (flavour.flattens ? flattened(argv) : strings(argv));
    const link = (h: number): RedisLink => {
      const l = this.links[h];
      if (!l) throw new TypeError(`no ${flavour.label} connection ${h}`);
      return l;
    };
    const answer =
      (done: Done) =>
      (e: LinkError | null, r?: ArgvReply): void => {
        realm.enter(replyWhere, () => {
          if (e) done(this.linkError(e, flavour.names));
          else if (r !== undefined && r !== null && isErrorReply(r)) done(this.replyError(r.error, flavour.names.Reply));
          else done(null, this.toRealm(r ?? null));
        });
      };
    return {
      resolve: (port, host) => this.resolve(port, host),
      open: (serverId, policy, emit) => {
        const p: LinkPolicy = {
          retryDelayMs: (n) => {
            const d = policy.retryDelayMs(n);
            return typeof d === "number" && Number.isFinite(d) ? Math.max(0, d) : null;
          },
          maxRetriesPerRequest: typeof policy.maxRetriesPerRequest === "number" ? policy.maxRetriesPerRequest : null,
          offlineQueue: policy.offlineQueue === true,
          resendUnfulfilled: policy.resendUnfulfilled === true,
          connectTimeoutMs: Number(policy.connectTimeoutMs),
          commandTimeoutMs: typeof policy.commandTimeoutMs === "number" ? policy.commandTimeoutMs : undefined,
        };
        this.openLink(String(serverId), p, (event, arg) =>
          realm.enter(`${flavour.label} '${event}' listeners`, () => emit(event, event === "error" ? this.linkError(arg as LinkError, flavour.names) : arg)),
        );
        return this.links.length - 1;
      },
      status: (h) => link(h).status,
      send: (h, argv, done) => link(h).send({ argv: argvOf(argv) }, answer(done)),
      sendBatch: (h, commands, done) => link(h).send({ batch: Array.from(commands, (c) => argvOf(c)) }, answer(done)),
      end: (h) => link(h).end(),
      sha1: (text) => sha1Hex(String(text)),
      escape: (call, detail) => realm.escape(String(call), detail === undefined ? "" : String(detail)),
    };
  }

  onMessage(_from: string, msg: Message): boolean {
    for (const l of this.links) if (l.onMessage(msg)) return true;
    return false;
  }

  /** A realm-side copy of a reply (arrays are the realm's, so Array methods and instanceof behave). */
  private toRealm(r: ArgvReply): unknown {
    if (Array.isArray(r)) {
      const out = this.realmArray();
      for (const x of r) out.push(this.toRealm(x));
      return out;
    }
    if (r !== null && typeof r === "object") return "status" in r ? r.status : this.replyError(r.error);
    return r;
  }

  private realmArray(): unknown[] {
    return new this.realm.Array<unknown>();
  }

  /** A Redis error reply as the realm's Error, named as the libraries name it. */
  private replyError(message: string, name = "ReplyError"): Error {
    const e = new this.realm.Error(message);
    e.name = name;
    return e;
  }

  private linkError(e: LinkError, names: Partial<Record<LinkError["kind"], string>>): Error {
    return this.replyError(e.message, names[e.kind] ?? "Error");
  }
}
