import type { BehaviorFactory, Message, ProcessContext } from "../../sim/simulation.js";
import { REDIS_REPLY, REDIS_REQUEST, isWrite, type RedisCommand, type RedisReply, type RedisRequest, type RedisWait } from "./commands.js";
import { RedisStore, type Effect, type Entry } from "./store.js";
import { AppendOnlyFile, type PersistenceMode } from "./aof.js";
import { CONN_REQUEST, ConnectionTable, type ConnReply, type ConnRequest } from "./connections.js";
import { executeArgv, executeBatch, type ArgvEnv } from "./argv.js";
import type { ArgvReply } from "./argv-reply.js";
import { LuaScripting } from "./lua.js";
import { REPL, type ReplAck, type ReplFullSync, type ReplStream, type ReplicaOf, type Pong } from "./replication.js";

/**
 * A single-threaded Redis server node: each request is executed atomically on arrival
 * against the store, with the node's wall clock deciding expiry. A periodic active
 * expiry cycle runs every `sweepIntervalMs` (Redis's hz 10 = 100 ms) on a primary;
 * a replica, as in Redis, does not expire keys itself but waits for its primary.
 *
 * Persistence (aof.ts): none | everysec | always; a restart reloads what was fsynced.
 *
 * Replication (replication.ts), asynchronous as in Redis: a write is applied, logged
 * and acknowledged to the client at once; its effect is streamed to each replica over
 * the network, so a replica lags by the link's latency — and loses what never left
 * the primary when the primary dies. A replica rejects writes (READONLY), ACKs its
 * offset every `replAckIntervalMs` (REPLCONF ACK, 1 s), and the primary resends the
 * unacknowledged part of its backlog on an ACK that shows a gap (partial resync) or
 * sends the whole data set when the replica follows another history (full resync).
 * WAIT asks every replica for an ACK at once (REPLCONF GETACK) and answers when enough
 * have acknowledged the offset of the node's last write, or at its timeout.
 */
export interface RedisServerOptions {
  sweepIntervalMs: number;
  persistence?: PersistenceMode;
  /** everysec: the fsync period on the node's clock, ms (Redis: 1 s). */
  fsyncIntervalMs?: number;
  /** Role at first start (a restart reads the role Sentinel last configured, from disk). */
  role?: "primary" | "replica";
  /** For a replica: its primary. */
  primaryId?: string;
  /** For a primary: its replicas at first start (others join by ACKing). */
  replicaIds?: string[];
  /** Period of the replica's REPLCONF ACK, ms (Redis: 1 s). */
  replAckIntervalMs?: number;
}

export const DEFAULT_REDIS_SERVER: RedisServerOptions = { sweepIntervalMs: 100 };

const CONFIG_KEY = "redis:config";
const BACKLOG_MAX = 10_000;

interface NodeConfig {
  role: "primary" | "replica";
  primaryId?: string;
}

/** A client blocked in WAIT: answered when `numReplicas` replicas have acknowledged `offset`, or at the timeout. */
interface ReplicaWait {
  client: string;
  request: Message;
  offset: number;
  numReplicas: number;
  done: boolean;
}

interface BacklogItem {
  effect: Effect;
  sentAtMonoMs: number;
}

/** A key's state as a command found or left it: its value and expiry on the node's wall clock, ms. */
export interface KeyState {
  value: string;
  expireAtWallMs?: number;
}

/** What one command did to one key: live before and after (null: absent or expired). */
export interface KeyChange {
  key: string;
  before: KeyState | null;
  after: KeyState | null;
}

/**
 * A "redis-command" trace record's data: who sent what, the reply, the node's wall clock,
 * the first key named (untruncated) and every key the command changed, so a reader can
 * tell whose key a command deleted, extended or overwrote (causes/ reads these).
 */
export interface RedisCommandTrace {
  from?: string;
  command: string;
  reply: string;
  wallMs: number;
  key?: string;
  changes?: KeyChange[];
}

/** A typed command as redis-cli would show it (the two scripts by their names). */
function commandText(c: RedisCommand): string {
  switch (c.cmd) {
    case "SET":
      return `SET ${c.key} ${c.value}${c.nx ? " NX" : ""}${c.pxMs !== undefined ? ` PX ${c.pxMs}` : ""}`;
    case "PEXPIRE":
      return `PEXPIRE ${c.key} ${c.ms}`;
    case "CAD":
      return `EVAL compare-and-delete ${c.key} ${c.value}`;
    case "CAPEXPIRE":
      return `EVAL compare-and-pexpire ${c.key} ${c.value} ${c.ms}`;
    default:
      return `${c.cmd} ${c.key}`;
  }
}

/** A real client's command by name, as key-deleted notes give it ("DEL", "EVALSHA", "MULTI"). */
function commandName(r: ConnRequest): string {
  return r.batch ? "MULTI" : String(r.argv?.[0] ?? "").toUpperCase();
}

/** A real client's argv, long arguments (a script's body) shortened. */
function argvText(argv: readonly string[]): string {
  return argv.map((a) => (a.length > 40 ? `${a.slice(0, 37)}…` : a)).join(" ");
}

/** A reply as redis-cli prints it. */
function replyText(r: unknown): string {
  if (r === null || r === undefined) return "(nil)";
  if (typeof r === "number") return `(integer) ${r}`;
  if (typeof r === "string") return r === "OK" ? "OK" : JSON.stringify(r);
  if (Array.isArray(r)) return `[${r.map(replyText).join(", ")}]`;
  if (typeof r === "object" && "error" in r) return `(error) ${String((r as { error: unknown }).error)}`;
  if (typeof r === "object" && "status" in r) return String((r as { status: unknown }).status);
  return JSON.stringify(r);
}

/** A key that has not lapsed on this node's wall clock (a lapsed one is gone, whatever removes it). */
const isLive = (e: Entry, nowMs: number): boolean => e.expireAtMs === undefined || e.expireAtMs > nowMs;

/** The state a trace shows of an entry: null when absent or lapsed on the node's clock. */
function liveState(e: Entry | null | undefined, nowMs: number): KeyState | null {
  if (!e || !isLive(e, nowMs)) return null;
  return e.expireAtMs === undefined ? { value: e.value } : { value: e.value, expireAtWallMs: e.expireAtMs };
}

const sameState = (a: KeyState | null, b: KeyState | null): boolean =>
  a === null || b === null ? a === b : a.value === b.value && a.expireAtWallMs === b.expireAtWallMs;

export class RedisServer {
  readonly store = new RedisStore();
  readonly aof: AppendOnlyFile;
  role: "primary" | "replica";
  primaryId?: string;
  /** Replication id and offset: which history this node follows and how far. */
  replId: string;
  offset = 0;
  private backlog: BacklogItem[] = [];
  /** Offset of the first backlog item minus one. */
  private backlogBase = 0;
  private readonly replicas = new Map<string, { ackOffset: number }>();
  private waits: ReplicaWait[] = [];
  private promotions = 0;
  /** Real client libraries' connections (argv commands); lost on a crash, as sockets are. */
  private readonly connections = new ConnectionTable();
  /** The script cache: per node, volatile (a restarted Redis has forgotten every SCRIPT LOAD). */
  private lua: LuaScripting | undefined;

  constructor(
    protected readonly ctx: ProcessContext,
    protected readonly opts: RedisServerOptions = DEFAULT_REDIS_SERVER,
    restarted = false,
  ) {
    this.aof = new AppendOnlyFile(ctx, opts.persistence ?? "none", opts.fsyncIntervalMs ?? 1000);
    // Expiry by this node's wall clock, noted for the report's server lane.
    this.store.onExpire = (key, expireAtMs, nowMs, how) =>
      ctx.record("info", "key-expired", undefined, {
        key,
        how: how === "lazy" ? "lazy expiry (on access)" : "active expiry (sweep)",
        expireAtWallMs: expireAtMs,
        wallMs: nowMs,
      });
    const saved = ctx.disk.get(CONFIG_KEY) as NodeConfig | undefined;
    this.role = saved?.role ?? opts.role ?? "primary";
    this.primaryId = saved ? saved.primaryId : opts.primaryId;
    for (const r of opts.replicaIds ?? []) this.replicas.set(r, { ackOffset: 0 });
    if (restarted) {
      const loaded = this.aof.load();
      this.store.load(loaded);
      this.ctx.record("info", "redis-restart", undefined, { node: ctx.id, persistence: this.aof.mode, keysLoaded: loaded.length, role: this.role });
    }
    // A primary that (re)starts begins a new replication history; a replica starts empty-handed and asks.
    this.replId = this.role === "primary" ? this.newReplId() : "";
    this.scheduleSweep();
    this.scheduleAck();
  }

  private newReplId(): string {
    return `${this.ctx.id}/${this.ctx.proc.incarnation}/${this.promotions}`;
  }

  // The periodic timers' functions, made once per node rather than once per tick.
  private readonly sweepTick = (): void => {
    if (this.role === "primary") {
      const keys = this.store.sweepKeys(this.ctx.wallMs());
      for (let i = 0; i < keys.length; i++) this.logged({ key: keys[i]!, entry: null });
    }
    this.scheduleSweep();
  };

  private readonly ackTick = (): void => {
    this.sendAck();
    this.scheduleAck();
  };

  private scheduleSweep(): void {
    this.ctx.setTimer(this.opts.sweepIntervalMs, this.sweepTick);
  }

  private scheduleAck(): void {
    this.ctx.setTimer(this.opts.replAckIntervalMs ?? 1000, this.ackTick);
  }

  private sendAck(): void {
    if (this.role !== "replica" || !this.primaryId) return;
    const ack: ReplAck = { type: REPL.ack, replId: this.replId, offset: this.offset };
    this.ctx.send(this.primaryId, ack);
  }

  onMessage(from: string, msg: Message): void {
    switch (msg.type) {
      case REDIS_REQUEST: {
        const request = msg.command as RedisRequest;
        if (request.cmd === "WAIT") return this.startWait(from, msg, request);
        const result = this.execute(request, from);
        this.ctx.reply(from, msg, { type: REDIS_REPLY, result, inReplyTo: undefined });
        return;
      }
      case CONN_REQUEST:
        this.connections.onMessage(
          from,
          msg as unknown as ConnRequest,
          (r) => this.executeArgvRequest(r, from),
          (reply: ConnReply) => this.ctx.send(from, reply as unknown as Message),
        );
        return;
      case REPL.ping: {
        const pong: Pong = { type: REPL.pong, role: this.role, replId: this.replId, offset: this.offset, primaryId: this.primaryId ?? null };
        this.ctx.reply(from, msg, pong);
        return;
      }
      case REPL.replicaOf:
        this.replicaOf(msg as unknown as ReplicaOf);
        this.ctx.reply(from, msg, { type: REPL.replicaOfOk });
        return;
      case REPL.stream:
        this.onStream(from, msg as unknown as ReplStream);
        return;
      case REPL.fullSync:
        this.onFullSync(from, msg as unknown as ReplFullSync);
        return;
      case REPL.ack:
        this.onAck(from, msg as unknown as ReplAck);
        this.answerWaits();
        return;
      case REPL.getAck:
        if (from === this.primaryId) this.sendAck();
        return;
    }
  }

  /** WAIT: at once if enough replicas already acknowledged our last write, else after asking them. */
  private startWait(from: string, request: Message, c: RedisWait): void {
    if (this.role === "replica") {
      this.ctx.reply(from, request, { type: REDIS_REPLY, result: { error: "ERR WAIT cannot be used with replica instances" }, inReplyTo: undefined });
      return;
    }
    const w: ReplicaWait = { client: from, request, offset: this.offset, numReplicas: c.numReplicas, done: false };
    this.waits.push(w);
    if (this.answerWaits()) return;
    for (const r of this.replicas.keys()) this.ctx.send(r, { type: REPL.getAck });
    this.ctx.setTimer(c.timeoutMs, () => this.answerWait(w));
  }

  /** Answer the waits now satisfied; true when none is left waiting. */
  private answerWaits(): boolean {
    for (const w of this.waits) if (this.replicasAt(w.offset) >= w.numReplicas) this.answerWait(w);
    return this.waits.length === 0;
  }

  private answerWait(w: ReplicaWait): void {
    if (w.done) return;
    w.done = true;
    this.waits = this.waits.filter((x) => x !== w);
    this.ctx.reply(w.client, w.request, { type: REDIS_REPLY, result: this.replicasAt(w.offset), inReplyTo: undefined });
  }

  /** Replicas that have acknowledged at least `offset` (none on a replica). */
  private replicasAt(offset: number): number {
    if (this.role !== "primary") return 0;
    let n = 0;
    for (const r of this.replicas.values()) if (r.ackOffset >= offset) n++;
    return n;
  }

  /** Execute a client command; a write is logged to the AOF and streamed before the reply. */
  protected execute(command: RedisCommand, from?: string): RedisReply {
    if (!this.ctx.tracing) return this.executeTyped(command, from);
    const nowMs = this.ctx.wallMs();
    const before = liveState(this.store.rawEntry(command.key), nowMs);
    const reply = this.executeTyped(command, from);
    const after = liveState(this.store.rawEntry(command.key), nowMs);
    const changes = sameState(before, after) ? [] : [{ key: command.key, before, after }];
    this.traceCommand({ from, command: commandText(command), reply: replyText(reply), wallMs: nowMs, key: command.key }, changes);
    return reply;
  }

  private traceCommand(t: RedisCommandTrace, changes: KeyChange[]): void {
    this.ctx.trace("redis-command", changes.length > 0 ? { ...t, changes } : t);
  }

  private executeTyped(command: RedisCommand, from?: string): RedisReply {
    if (this.role === "replica" && isWrite(command)) {
      return { error: "READONLY You can't write against a read only replica." };
    }
    // The key's raw state before and after, compared without an Effect copy per command
    //; an Effect is built only for a change that is logged.
    const key = command.key;
    const was = this.store.rawEntry(key);
    const wasValue = was?.value;
    const wasExpireAtMs = was?.expireAtMs;
    const nowMs = this.ctx.wallMs();
    const result = this.store.execute(command, nowMs);
    const now = this.store.rawEntry(key);
    const changed = was === undefined || now === undefined ? was !== now : wasValue !== now.value || wasExpireAtMs !== now.expireAtMs;
    if (!changed) return result;
    if (now?.expireAtMs !== undefined) this.noteKeySet(key, now.expireAtMs, nowMs, from);
    else if (now === undefined && was !== undefined && isLive(was, nowMs)) this.noteKeyDeleted(key, command.cmd, nowMs, from);
    // Redis propagates only commands that changed the data set (a refused SET NX is not).
    if (isWrite(command)) this.logged(this.store.effectOf(key));
    return result;
  }

  /**
   * Server notes for the report's lock-server lanes: a key that lapsed (found expired
   * on access, as Redis's lazy expiry does) and a key given a new expiry, both by this
   * node's wall clock. Keys without an expiry (fencing counters) are not noted.
   */
  private noteKeyChange(before: Effect, after: Effect, nowMs: number, from: string | undefined, r: ConnRequest): void {
    const now = after.entry;
    if (now?.expireAtMs !== undefined && !sameEffect(before, after)) this.noteKeySet(after.key, now.expireAtMs, nowMs, from);
    else if (now === null && before.entry !== null && isLive(before.entry, nowMs)) this.noteKeyDeleted(after.key, commandName(r), nowMs, from);
  }

  /**
   * A live key removed by a command (DEL, a script, GETDEL), by whom: the moment a
   * release deletes another client's key. Expiry is noted apart (key-expired).
   */
  private noteKeyDeleted(key: string, command: string, nowMs: number, from: string | undefined): void {
    this.ctx.record("info", "key-deleted", undefined, from !== undefined ? { key, by: from, command, wallMs: nowMs } : { key, command, wallMs: nowMs });
  }

  /** The key-set note; the two literals have the same keys in the same order (`by` only with a sender). */
  private noteKeySet(key: string, expireAtWallMs: number, nowMs: number, from: string | undefined): void {
    const ttlMs = expireAtWallMs - nowMs;
    this.ctx.record(
      "info",
      "key-set",
      undefined,
      from !== undefined ? { key, by: from, expireAtWallMs, wallMs: nowMs, ttlMs } : { key, expireAtWallMs, wallMs: nowMs, ttlMs },
    );
  }

  /** The process dies: its kernel resets the real clients' connections. */
  onCrash(): void {
    // What this crash loses, by persistence mode: noted for the report's server lane.
    const nowMs = this.ctx.wallMs();
    this.ctx.record("info", "crash-lost", undefined, {
      persistence: this.aof.mode,
      // Counted without touching the keys (a lazy expiry here would note expiries that never happened).
      ...(this.aof.mode === "none"
        ? { keysLost: this.store.snapshot().filter(([, e]) => e.expireAtMs === undefined || e.expireAtMs > nowMs).length }
        : { unsyncedWrites: this.aof.unsynced }),
    });
    this.connections.resetAll((to, r) => this.ctx.send(to, r as unknown as Message));
  }

  /** A real client's command (or MULTI batch): changed keys are logged as typed commands' are. */
  private executeArgvRequest(r: ConnRequest, from: string): ArgvReply {
    const before = new Map<string, Effect>();
    const nowMs = this.ctx.wallMs();
    const env: ArgvEnv = {
      store: this.store,
      nowMs,
      scripts: (this.lua ??= new LuaScripting()),
      readonly: this.role === "replica",
      touch: (key) => {
        if (!before.has(key)) before.set(key, this.store.effectOf(key));
      },
    };
    const reply = r.batch ? executeBatch(r.batch, env) : executeArgv(r.argv ?? [], env);
    if (this.ctx.tracing) {
      const text = r.batch ? `MULTI ${r.batch.map((c) => argvText(c)).join("; ")} EXEC` : argvText(r.argv ?? []);
      const changes: KeyChange[] = [];
      for (const [key, was] of before) {
        const b = liveState(was.entry, nowMs);
        const a = liveState(this.store.effectOf(key).entry, nowMs);
        if (!sameState(b, a)) changes.push({ key, before: b, after: a });
      }
      const key = r.batch ? undefined : r.argv?.[1];
      this.traceCommand({ from, command: text, reply: replyText(reply), wallMs: nowMs, ...(key !== undefined ? { key } : {}) }, changes);
    }
    for (const [key, was] of before) {
      const after = this.store.effectOf(key);
      this.noteKeyChange(was, after, nowMs, from, r);
      if (!sameEffect(was, after)) this.logged(after);
    }
    return reply;
  }

  /** A change made as primary: to the AOF, to the backlog, to every replica. */
  private logged(x: Effect): void {
    this.aof.append(x);
    this.offset++;
    this.backlog.push({ effect: x, sentAtMonoMs: this.ctx.monoMs() });
    // A bounded backlog, as repl-backlog-size is: a replica further behind gets a full resync.
    if (this.backlog.length > BACKLOG_MAX) {
      const drop = this.backlog.length - BACKLOG_MAX;
      this.backlog.splice(0, drop);
      this.backlogBase += drop;
    }
    for (const r of this.replicas.keys()) {
      const m: ReplStream = { type: REPL.stream, replId: this.replId, startOffset: this.offset, effects: [x] };
      this.ctx.send(r, m);
    }
    // Asynchronous replication made visible: what was sent, and (onStream) when a replica applied it.
    if (this.replicas.size > 0) this.ctx.record("info", "repl-sent", undefined, { key: x.key, offset: this.offset, to: [...this.replicas.keys()] });
  }

  private replicaOf(m: ReplicaOf): void {
    if (m.primaryId === null) {
      if (this.role === "primary") return;
      // REPLICAOF NO ONE: keep the data, start a new history others must resync from.
      this.role = "primary";
      this.primaryId = undefined;
      this.promotions++;
      this.replId = this.newReplId();
      this.ctx.record("info", "promoted", undefined, { to: "primary", offset: this.offset, keys: this.store.size });
      this.backlog = [];
      this.backlogBase = this.offset;
      this.replicas.clear();
      for (const r of m.replicaIds ?? []) this.replicas.set(r, { ackOffset: 0 });
    } else {
      if (this.role === "replica" && this.primaryId === m.primaryId) return;
      this.role = "replica";
      this.primaryId = m.primaryId;
      this.replicas.clear();
      // Our history differs from the new primary's: the next ACK asks for a full resync.
      this.ctx.record("info", "replica-of", undefined, { primary: m.primaryId, wasOffset: this.offset });
      this.replId = "";
      this.offset = 0;
      this.sendAck();
    }
    // Sentinel follows REPLICAOF with CONFIG REWRITE: the role survives a restart.
    this.ctx.disk.set(CONFIG_KEY, { role: this.role, primaryId: this.primaryId } satisfies NodeConfig);
  }

  private onStream(from: string, m: ReplStream): void {
    if (this.role !== "replica" || from !== this.primaryId) return;
    if (this.replId === "" && this.offset === 0 && m.startOffset === 1) this.replId = m.replId;
    if (m.replId !== this.replId) return;
    // FIFO links: a gap means something was dropped; wait for the resend the next ACK triggers.
    if (m.startOffset > this.offset + 1) return;
    m.effects.forEach((x, i) => {
      if (m.startOffset + i !== this.offset + 1) return; // already applied
      this.store.applyEffect(x);
      this.aof.append(x);
      this.offset++;
      this.ctx.record("info", "repl-applied", undefined, { key: x.key, offset: this.offset, from });
    });
  }

  private onFullSync(from: string, m: ReplFullSync): void {
    if (this.role !== "replica" || from !== this.primaryId) return;
    this.store.load(m.entries);
    this.aof.rewrite(m.entries);
    this.replId = m.replId;
    this.offset = m.offset;
  }

  private onAck(from: string, m: ReplAck): void {
    if (this.role !== "primary") return;
    const r = this.replicas.get(from) ?? { ackOffset: 0 };
    this.replicas.set(from, r);
    if (m.replId !== this.replId || m.offset > this.offset || m.offset < this.backlogBase) {
      const full: ReplFullSync = { type: REPL.fullSync, replId: this.replId, offset: this.offset, entries: this.store.snapshot() as Array<[string, Entry]> };
      this.ctx.send(from, full);
      r.ackOffset = this.offset;
      return;
    }
    r.ackOffset = m.offset;
    if (m.offset === this.offset) return;
    // Partial resync: resend from the first unacknowledged effect if it should have arrived by now.
    const first = this.backlog[m.offset - this.backlogBase]!;
    const now = this.ctx.monoMs();
    if (now - first.sentAtMonoMs < (this.opts.replAckIntervalMs ?? 1000)) return;
    const items = this.backlog.slice(m.offset - this.backlogBase);
    for (const it of items) it.sentAtMonoMs = now;
    const resend: ReplStream = { type: REPL.stream, replId: this.replId, startOffset: m.offset + 1, effects: items.map((it) => it.effect) };
    this.ctx.send(from, resend);
  }
}

function sameEffect(a: Effect, b: Effect): boolean {
  if (a.entry === null || b.entry === null) return a.entry === b.entry;
  return a.entry.value === b.entry.value && a.entry.expireAtMs === b.entry.expireAtMs;
}

export function redisServer(opts: RedisServerOptions = DEFAULT_REDIS_SERVER): BehaviorFactory {
  return (ctx, restarted) => new RedisServer(ctx, opts, restarted);
}
