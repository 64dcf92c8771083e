import type { HistoryEvent } from "../sim/history.js";
import { NEMESIS } from "../sim/history.js";
import { semanticsOf } from "../faults/index.js";
import type { TraceRecord } from "../sim/simulation.js";
import type { KeyChange, KeyState, RedisCommandTrace } from "../services/redis/server.js";

/**
 * What the causes read, derived once from a run's history and its nodes' command trace:
 * every command a lock node executed (who sent it, what it changed), each key's lives
 * (who set which value, who renewed it, how it ended), each grant the history records
 * (when its acquire began and returned, its reported validity, when its belief ended,
 * what it did under it), and the faults on each process. Pure: the same records, the
 * same facts.
 */
export interface Facts {
  history: readonly HistoryEvent[];
  commands: readonly NodeCommand[];
  lives: readonly KeyLife[];
  grants: readonly GrantFact[];
  /** Steps of each process's wall clock (a nemesis step's start with a deltaMs). */
  clockSteps: ReadonlyArray<{ process: string; atUs: number; deltaMs: number }>;
  /** Changes of each process's clock rate (a nemesis step's start with a driftPpm). */
  clockRates: ReadonlyArray<{ process: string; atUs: number; driftPpm: number }>;
}

/** One command a lock node executed. */
export interface NodeCommand {
  timeUs: number;
  node: string;
  /** The client process that sent it (absent: the node itself, a replica stream). */
  from?: string;
  /** Its name, upper case ("SET", "PEXPIRE", "EVALSHA"). */
  name: string;
  /** As redis-cli shows it (long arguments shortened). */
  text: string;
  /** Its first key, untruncated. */
  key?: string;
  reply: string;
  /** The node's wall clock when it ran, ms. */
  wallMs: number;
  changes: readonly KeyChange[];
}

/** A value a key held on one node, from the command that set it to the moment it stopped holding it. */
export interface KeyLife {
  node: string;
  key: string;
  value: string;
  /** The client whose command set it. */
  owner?: string;
  set: NodeCommand;
  startUs: number;
  /** Commands that moved its expiry without changing its value. */
  renewals: NodeCommand[];
  /** Its expiry on the node's wall clock, as last set (undefined: none). */
  expireAtWallMs?: number;
  /** When it stopped (Infinity: still there when the run ended), and how. */
  endUs: number;
  end: { kind: "expired" | "vanished" | "running" } | { kind: "deleted" | "overwritten"; by: NodeCommand };
}

/** A grant the history records, and what its client did under it. */
export interface GrantFact {
  grantId: string;
  process: string;
  lock: string;
  invokeUs: number;
  okUs: number;
  okIndex: number;
  ttlMs?: number;
  /** The validity the client reported at the grant, ms (absent: none reported). */
  validityMs?: number;
  /** When the client stopped believing it held the lock, and why. */
  beliefEndUs: number;
  beliefEndedBy: "lapse" | "release" | "crash" | "end-of-history";
  releaseInvokeUs?: number;
  extends: Array<{ invokeUs: number; endUs: number; ok: boolean; validityMs?: number }>;
  writes: Array<{ invokeUs: number; endUs?: number; accepted: boolean }>;
  /** The key lives this grant's acquire set (created or took over), one per node. */
  lives: KeyLife[];
}

export function factsOf(history: readonly HistoryEvent[], trace: readonly TraceRecord[]): Facts {
  const commands = commandsOf(trace);
  const lives = livesOf(commands);
  return { history, commands, lives, grants: grantsOf(history, lives), ...clocksOf(history) };
}

function commandsOf(trace: readonly TraceRecord[]): NodeCommand[] {
  const out: NodeCommand[] = [];
  for (const r of trace) {
    if (r.kind !== "redis-command") continue;
    const d = r.data as RedisCommandTrace;
    out.push({
      timeUs: r.timeUs,
      node: r.process,
      ...(d.from !== undefined ? { from: d.from } : {}),
      name: (d.command.split(" ", 1)[0] ?? "").toUpperCase(),
      text: d.command,
      ...(d.key !== undefined ? { key: d.key } : {}),
      reply: d.reply,
      wallMs: d.wallMs,
      changes: d.changes ?? [],
    });
  }
  return out;
}

/** True time at which a node's wall clock reaches `expireAtWallMs`, from one reading of it (no step assumed between). */
function expiryUs(c: NodeCommand, expireAtWallMs: number | undefined): number {
  return expireAtWallMs === undefined ? Infinity : c.timeUs + (expireAtWallMs - c.wallMs) * 1000;
}

/** Every value each key held on each node, replayed from the commands' changes in order. */
function livesOf(commands: readonly NodeCommand[]): KeyLife[] {
  const all: KeyLife[] = [];
  const open = new Map<string, KeyLife>();
  const close = (l: KeyLife, atUs: number, end: KeyLife["end"]): void => {
    l.endUs = atUs;
    l.end = end;
    open.delete(`${l.node}\u0000${l.key}`);
  };
  for (const c of commands) {
    for (const ch of c.changes) {
      const id = `${c.node}\u0000${ch.key}`;
      const cur = open.get(id);
      // A life the node no longer had when this command ran: it expired, or vanished (a restart, a step of the node's clock).
      if (cur && ch.before === null) {
        const due = expiryUs(cur.renewals.at(-1) ?? cur.set, cur.expireAtWallMs);
        close(cur, Math.min(due, c.timeUs), { kind: due <= c.timeUs ? "expired" : "vanished" });
      } else if (cur && ch.after === null) close(cur, c.timeUs, { kind: "deleted", by: c });
      else if (cur && ch.after !== null && ch.after.value !== cur.value) close(cur, c.timeUs, { kind: "overwritten", by: c });
      else if (cur && ch.after !== null) {
        cur.renewals.push(c);
        cur.expireAtWallMs = ch.after.expireAtWallMs;
        cur.endUs = expiryUs(c, ch.after.expireAtWallMs);
        continue;
      }
      if (ch.after !== null && !open.has(id)) {
        const life = newLife(c, ch.key, ch.after);
        all.push(life);
        open.set(id, life);
      }
    }
  }
  return all;
}

function newLife(c: NodeCommand, key: string, s: KeyState): KeyLife {
  return {
    node: c.node,
    key,
    value: s.value,
    ...(c.from !== undefined ? { owner: c.from } : {}),
    set: c,
    startUs: c.timeUs,
    renewals: [],
    ...(s.expireAtWallMs !== undefined ? { expireAtWallMs: s.expireAtWallMs } : {}),
    endUs: expiryUs(c, s.expireAtWallMs),
    end: { kind: s.expireAtWallMs === undefined ? "running" : "expired" },
  };
}

/** The history's grants, each with its acquire's span, its belief's end, its extends and writes, and the key lives it set. */
function grantsOf(history: readonly HistoryEvent[], lives: readonly KeyLife[]): GrantFact[] {
  const r = new GrantReader(lives);
  for (const e of history) r.event(e);
  return r.finish(history.length > 0 ? history[history.length - 1]!.timeUs : 0);
}

/** Reads the history one event at a time: the pairing rule of sim/history.ts, one open op per process. */
class GrantReader {
  private readonly out: GrantFact[] = [];
  private readonly byId = new Map<string, GrantFact>();
  private readonly acquireInvokeUs = new Map<string, number>();
  private readonly openOp = new Map<string, { f: string; timeUs: number; grant?: GrantFact }>();

  constructor(private readonly lives: readonly KeyLife[]) {}

  event(e: HistoryEvent): void {
    const v = (e.value ?? {}) as Record<string, unknown>;
    const grant = typeof v.grantId === "string" ? this.byId.get(v.grantId) : undefined;
    if (e.type === "invoke") {
      if (e.f === "acquire") this.acquireInvokeUs.set(e.process, e.timeUs);
      this.openOp.set(e.process, { f: e.f, timeUs: e.timeUs, ...(grant ? { grant } : {}) });
      if (e.f === "release" && grant) {
        endBelief(grant, e.timeUs, "release");
        grant.releaseInvokeUs = e.timeUs;
      }
      return;
    }
    if (e.f === "acquire" && e.type === "ok" && typeof v.grantId === "string") {
      const g = grantAt(e, v, this.acquireInvokeUs.get(e.process) ?? e.timeUs, this.lives);
      this.out.push(g);
      this.byId.set(g.grantId, g);
    } else if (e.f === "lapse" && grant) endBelief(grant, e.timeUs, "lapse");
    else if (e.process === NEMESIS && semanticsOf(e.f).losesVolatileState === true && v.phase === "start") {
      const targets = new Set((v.targets as string[] | undefined) ?? []);
      for (const g of this.out) if (targets.has(g.process)) endBelief(g, e.timeUs, "crash");
    }
    this.complete(e, v);
  }

  private complete(e: HistoryEvent, v: Record<string, unknown>): void {
    const op = this.openOp.get(e.process);
    if (!op || op.f !== e.f || !op.grant) return;
    this.openOp.delete(e.process);
    if (e.f === "extend") op.grant.extends.push({ invokeUs: op.timeUs, endUs: e.timeUs, ok: e.type === "ok", ...numberField(v, "validityMs") });
    if (e.f === "write") op.grant.writes.push({ invokeUs: op.timeUs, endUs: e.timeUs, accepted: e.type === "ok" });
  }

  finish(lastUs: number): GrantFact[] {
    for (const op of this.openOp.values()) if (op.f === "write" && op.grant) op.grant.writes.push({ invokeUs: op.timeUs, accepted: false });
    for (const g of this.out) if (g.beliefEndUs === Infinity) g.beliefEndUs = lastUs;
    return this.out;
  }
}

function numberField(v: Record<string, unknown>, k: string): { validityMs?: number } {
  return typeof v[k] === "number" ? { validityMs: v[k] } : {};
}

function grantAt(e: HistoryEvent, v: Record<string, unknown>, invokeUs: number, lives: readonly KeyLife[]): GrantFact {
  const mine = lives.filter((l) => l.owner === e.process && l.startUs >= invokeUs && l.startUs <= e.timeUs);
  // One life per node: the last this acquire set there (a retry that took over its own key sets no new one).
  const byNode = new Map<string, KeyLife>();
  for (const l of mine) byNode.set(l.node, l);
  return {
    grantId: v.grantId as string,
    process: e.process,
    lock: e.lock ?? "",
    invokeUs,
    okUs: e.timeUs,
    okIndex: e.index,
    ...(typeof v.ttlMs === "number" ? { ttlMs: v.ttlMs } : {}),
    ...numberField(v, "validityMs"),
    beliefEndUs: Infinity,
    beliefEndedBy: "end-of-history",
    extends: [],
    writes: [],
    lives: [...byNode.values()],
  };
}

function endBelief(g: GrantFact, atUs: number, by: GrantFact["beliefEndedBy"]): void {
  if (g.beliefEndUs !== Infinity) return;
  g.beliefEndUs = atUs;
  g.beliefEndedBy = by;
}

/** Clock faults by what they did to a process's clock (a step, a rate), read from the nemesis's notes. */
function clocksOf(history: readonly HistoryEvent[]): Pick<Facts, "clockSteps" | "clockRates"> {
  const clockSteps: Array<{ process: string; atUs: number; deltaMs: number }> = [];
  const clockRates: Array<{ process: string; atUs: number; driftPpm: number }> = [];
  for (const e of history) {
    const v = (e.value ?? {}) as { phase?: string; targets?: string[]; deltaMs?: number; driftPpm?: number };
    if (e.process !== NEMESIS || v.phase !== "start") continue;
    for (const t of v.targets ?? []) {
      if (typeof v.deltaMs === "number") clockSteps.push({ process: t, atUs: e.timeUs, deltaMs: v.deltaMs });
      if (typeof v.driftPpm === "number") clockRates.push({ process: t, atUs: e.timeUs, driftPpm: v.driftPpm });
    }
  }
  return { clockSteps, clockRates };
}

/** The grant whose belief covers `atUs` on this process, if any. */
export function grantHeldBy(f: Facts, process: string | undefined, atUs: number): GrantFact | undefined {
  return f.grants.find((g) => g.process === process && g.okUs <= atUs && atUs < g.beliefEndUs);
}

/** The grant whose acquire set this key life, if any. */
export function grantOfLife(f: Facts, life: KeyLife): GrantFact | undefined {
  return f.grants.find((g) => g.lives.includes(life));
}

/** Seconds, three decimals: how a sentence gives a true time. */
export const s3 = (us: number): string => `${(us / 1e6).toFixed(3)} s`;

/** Milliseconds, whole above 10, one decimal below: how a sentence gives a span. */
export const ms = (us: number): string => {
  const m = us / 1000;
  return `${Math.abs(m) >= 10 ? m.toFixed(0) : m.toFixed(1)} ms`;
};
