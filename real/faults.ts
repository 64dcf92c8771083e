// The driver's fault engine for a real run: fires the plan's pause steps at their triggers
// (plan.ts says which trigger is made race-free how) and records each fault's start and end
// in the history as the `nemesis` process, as faults/apply.ts does.
//
// A pause is SIGSTOP of the target's process (a Node client: timers, sockets and reply
// handling all freeze; a redis-server: it serves nothing, its keys expire meanwhile by
// their TTLs), confirmed by the kernel's process state ('T' in /proc/<pid>/stat), and
// SIGCONT when its duration has passed on the run clock. The start is stamped just before
// SIGSTOP is sent, the end just before SIGCONT is, so nothing the target does after waking
// can carry an earlier stamp than the pause's end.
//
// A crash of a server (etcd, ZooKeeper) is SIGKILL; with a duration, the server is started
// again on the same ports and data dir once it has passed (a `restart` step does the same at
// its own time). Both services fsync their log before they acknowledge a write, so a killed
// process loses nothing it acknowledged — as a host crash would not either. A plain
// redis-server's crash is a host crash too, emulated: SIGKILL, then its AOF cut back to the
// last fsync tick (real/aof-cut.ts) before the restart. A step that names the design's preferredLeader acts
// on whichever member is the leader when it fires (`leaderOf`), as the scenario means it.
import type { EventType } from "../sim/history.js";
import type { ServerProcess } from "./servers/index.js";
import type { RunClock } from "./clock.js";
import type { RunHistory } from "./history.js";
import type { PlannedFault } from "./plan.js";
import type { PeerLinks } from "./peer-proxies.js";
import type { ProxySet } from "./proxy.js";
import { shiftTtls } from "./ttl-shift.js";
import type { AofFsyncTicks } from "./aof-cut.js";
import { wallStepMs, type ClientClockFile, type ClockReading } from "./faketime.js";
import { realSupportOf } from "../faults/index.js";
import { RESOURCE_ID } from "./storage.js";
import type { StorageLinks } from "./storage-links.js";
import type { RealMechanism } from "../faults/def.js";

/** What results.json says about each fault step that fired. */
export interface FaultLog {
  step: number;
  kind: string;
  target: string;
  trigger: string;
  durationMs: number;
  startUs: number;
  /** When the kernel first showed the target stopped; undefined if it never did within the bound. */
  stoppedUs?: number;
  resumedUs?: number;
  /** For request and gate triggers: when the held reply or go was released (after the stop). */
  releasedUs?: number;
  /** The step named the preferred leader: the member that was the leader when it fired. */
  resolvedTarget?: string;
  /** crash/restart: when the server answered its ready check again. */
  readyUs?: number;
  /** clock-jump of a redis-server: how it was performed (not a real clock), and the keys it moved. */
  emulated?: string;
  keys?: { shifted: number; deleted: number };
  /** loss: chunks on its links that drew a loss, and the resends modelled (each one RTO late). */
  loss?: { lostChunks: number; resends: number };
  /** crash of a plain redis-server (host crash, emulated): how its AOF was cut back to the last fsync tick. */
  aofCut?: { file: string; fromBytes: number; toBytes: number; lastTickUs?: number };
  /** clock-jump of a client: its Date.now() read by the child just before and after the rewrite. */
  wall?: { beforeMs: number; afterMs: number; stepMs: number };
}

const STOP_CONFIRM_TRIES_MAX = 200;
const RESUME_REARM_MAX = 8;

interface Paused {
  proc: ServerProcess;
  untilUs: number;
  timer?: NodeJS.Timeout;
  /** The pause steps in force on this target, and whether their end is noted. */
  steps: Array<{ step: number; untilUs: number; noted: boolean; log: FaultLog }>;
}

export class RealFaults {
  private readonly counts = new Map<number, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly paused = new Map<string, Paused>();
  private readonly inFlight = new Set<Promise<void>>();
  readonly log: FaultLog[] = [];
  private stopped = false;

  constructor(
    private readonly faults: readonly PlannedFault[],
    private readonly clock: RunClock,
    private readonly history: RunHistory,
    private readonly processOf: (id: string) => ServerProcess | undefined,
    /** The current leader of the cluster, for steps that name the preferred leader. */
    private readonly leaderOf: () => Promise<string | undefined> = () => Promise.resolve(undefined),
  ) {}

  /** Servers a crash step has taken down (the run must not take their exit for a failure). */
  readonly down = new Set<string>();
  /** The per-link proxies, when the plan cuts links. */
  proxies?: ProxySet;
  /** The etcd/ZooKeeper peer proxies, when the plan cuts server↔server links. */
  peerLinks?: PeerLinks;
  /** Client ports of the redis-servers (a clock jump is applied there, emulated). */
  redisPorts = new Map<string, number>();
  /** The driver's fsync ticks of redis-servers whose host crash cuts their AOF (everysec). */
  aofTicks = new Map<string, AofFsyncTicks>();
  /** Each client's libfaketime file, and a reading of its clocks taken by the child itself. */
  clientClocks = new Map<string, ClientClockFile>();
  readClientClock?: (id: string) => Promise<ClockReading>;

  /** The design's preferredLeader (a network step naming it acts on the current leader). */
  preferredLeader?: string;
  /** Ids of the cluster's members (their links to each other go through the peer proxies). */
  clusterIds = new Set<string>();

  /** The links between the clients and the in-driver storage (cut steps that name them). */
  storageLinks?: StorageLinks;

  /** What cuts a link: the storage's links in the driver, the client↔server ones at their proxies. */
  private cutter(a: string, b: string): { cutLink(a: string, b: string): unknown; healLink(a: string, b: string): unknown } | undefined {
    return a === RESOURCE_ID || b === RESOURCE_ID ? this.storageLinks : this.via(a, b);
  }

  /** Server↔server links go through the peer proxies, the rest through the per-link ones. */
  private via(a: string, b: string): PeerLinks | ProxySet | undefined {
    return this.peerLinks && this.isServer(a) && this.isServer(b) ? this.peerLinks : this.proxies;
  }

  private isServer(id: string): boolean {
    return this.clusterIds.has(id);
  }

  /** Arm the time triggers (relative to the run's t0). */
  install(): void {
    for (const pf of this.faults) {
      if (pf.trigger.kind !== "time") continue;
      const atUs = (pf.trigger.atMs + pf.step.delayMs) * 1000;
      // A cut at time 0 is put in force now, before the clients are told to start, so no request at t0 can slip past it.
      if (atUs <= 0 && pf.links !== undefined) void this.fire(pf);
      else this.after(atUs, () => void this.fire(pf));
    }
  }

  /** A client's storage request reached the driver. Resolves once every step it triggers with no delay is applied. */
  onStorageRequest(clientId: string, f: "read" | "write"): Promise<FaultLog[]> {
    return this.onTrigger((t) => t.kind === "storage-request" && t.process === clientId && t.f === f);
  }

  /** A client waits at gate `gateId` (the trigger of that step). */
  onGate(clientId: string, gateId: number): Promise<FaultLog[]> {
    return this.onTrigger((t) => t.kind === "gate" && t.process === clientId && t.gateId === gateId, true);
  }

  /** A client's event reached the driver: triggers server faults on it (nothing is held; see plan.ts). */
  onClientEvent(clientId: string, f: string, type: EventType): void {
    void this.onTrigger((t) => t.kind === "client-event" && t.process === clientId && t.f === f && t.type === type);
  }

  /** The in-driver storage recorded an event; the caller holds its reply until this resolves. */
  onStorageEvent(f: string, type: EventType): Promise<FaultLog[]> {
    return this.onTrigger((t) => t.kind === "storage-event" && t.f === f && t.type === type);
  }

  private async onTrigger(match: (t: PlannedFault["trigger"]) => boolean, counted = false): Promise<FaultLog[]> {
    const now: Array<Promise<FaultLog | undefined>> = [];
    for (const pf of this.faults) {
      if (!match(pf.trigger)) continue;
      // A gate is sent only at its nth event (the client counts); other triggers count here.
      const n = (this.counts.get(pf.index) ?? 0) + 1;
      this.counts.set(pf.index, n);
      const nth = pf.trigger.kind === "time" ? 1 : pf.trigger.nth;
      if (!counted && n !== nth) continue;
      if (pf.step.delayMs > 0) this.after(this.clock.nowUs() + pf.step.delayMs * 1000, () => void this.fire(pf));
      else now.push(this.fire(pf));
    }
    const logs = await Promise.all(now);
    return logs.filter((l): l is FaultLog => l !== undefined);
  }

  /** A timer at run time `atUs`; one that fires a little early (libuv's ms clock) is re-armed, so nothing happens before atUs. */
  private after(atUs: number, fn: () => void, rearms = 0): void {
    if (this.stopped) return;
    const t = setTimeout(
      () => {
        this.timers.delete(t);
        if (this.stopped) return;
        if (this.clock.nowUs() < atUs && rearms < RESUME_REARM_MAX) return this.after(atUs, fn, rearms + 1);
        fn();
      },
      Math.max(0, Math.ceil((atUs - this.clock.nowUs()) / 1000)),
    );
    this.timers.add(t);
  }

  private fire(pf: PlannedFault): Promise<FaultLog | undefined> {
    const p = this.byMechanism(pf);
    const tracked = p.then(
      () => undefined,
      () => undefined,
    );
    this.inFlight.add(tracked);
    void tracked.finally(() => this.inFlight.delete(tracked));
    return p;
  }

  /** Performs a step by the mechanism its kind declares (faults/<kind>.ts); the plan refused the rest. */
  private byMechanism(pf: PlannedFault): Promise<FaultLog | undefined> {
    const real = realSupportOf(pf.step.kind);
    if (!("mechanism" in real)) return Promise.reject(new Error(`fault kind ${pf.step.kind} is refused in real mode: ${real.refused}`));
    const mechanisms: Record<RealMechanism, (pf: PlannedFault) => Promise<FaultLog | undefined>> = {
      "stop-signal": (p) => this.pause(p),
      sigkill: (p) => this.crash(p),
      "sigkill-restart": (p) => this.restart(p),
      "clock-step": (p) => this.clockJump(p),
      "proxy-cut": (p) => this.network(p),
      "proxy-heal": (p) => this.heal(p),
      "proxy-condition": (p) => this.linkCondition(p),
    };
    return mechanisms[real.mechanism](pf);
  }

  /** The process a step acts on: its target, or the current leader for a step naming the preferred leader. */
  private async targetOf(pf: PlannedFault): Promise<{ id: string; resolved: boolean }> {
    if (!pf.leader) return { id: pf.target, resolved: false };
    const id = await this.leaderOf();
    return id ? { id, resolved: true } : { id: pf.target, resolved: false };
  }

  private async crash(pf: PlannedFault): Promise<FaultLog | undefined> {
    if (this.stopped) return undefined;
    const t = await this.targetOf(pf);
    const proc = this.processOf(t.id);
    const durationMs = pf.step.durationMs ?? 0;
    const startUs = this.clock.nowUs();
    const log: FaultLog = {
      step: pf.index,
      kind: pf.step.kind,
      target: t.id,
      trigger: pf.trigger.kind,
      durationMs,
      startUs,
      ...(t.resolved ? { resolvedTarget: t.id } : {}),
    };
    this.log.push(log);
    const named = t.resolved && t.id !== pf.target ? { named: pf.target, as: "the leader when the step fired" } : {};
    this.history.nemesis(startUs, pf.step.kind, { phase: "start", step: pf.index, targets: [t.id], ...named, ...(pf.step.note ? { note: pf.step.note } : {}) });
    if (!proc || !proc.isLive()) throw new Error(`fault step ${pf.index}: ${t.id} is not running`);
    this.down.add(t.id);
    this.aofTicks.get(t.id)?.hostDown();
    await proc.kill("SIGKILL");
    log.stoppedUs = this.clock.nowUs();
    this.cutAof(t.id, log);
    if (pf.step.durationMs !== undefined) {
      this.after(startUs + durationMs * 1000, () => {
        const p = this.bringBack(t.id, proc, log, { phase: "end", step: pf.index, targets: [t.id], restarted: true });
        this.track(p);
      });
    }
    return log;
  }

  /** heal: every proxied link heals at once. Noted as faults/apply.ts notes it. */
  private async heal(pf: PlannedFault): Promise<FaultLog | undefined> {
    if (this.stopped || (!this.proxies && !this.peerLinks)) return undefined;
    const startUs = Math.max(0, this.clock.nowUs());
    const log: FaultLog = { step: pf.index, kind: pf.step.kind, target: pf.target, trigger: pf.trigger.kind, durationMs: pf.step.durationMs ?? 0, startUs };
    this.log.push(log);
    this.proxies?.healAll();
    this.peerLinks?.healAll();
    this.storageLinks?.healAll();
    log.stoppedUs = startUs;
    this.history.nemesis(startUs, pf.step.kind, { phase: "start", step: pf.index, targets: [], ...(pf.step.note ? { note: pf.step.note } : {}) });
    return log;
  }

  /**
   * partition/cut/isolate: the proxies of its links hold bytes from now on; with a duration,
   * those links heal when it has passed. Noted as faults/apply.ts notes them.
   */
  private async network(pf: PlannedFault): Promise<FaultLog | undefined> {
    if (this.stopped || (!this.proxies && !this.peerLinks)) return undefined;
    const via = (a: string, b: string) => this.cutter(a, b);
    // A step naming the preferred leader means the leader: it and the current leader swap places.
    const named = pf.leader ? this.preferredLeader : undefined;
    const resolved = named !== undefined ? await this.targetOf(pf) : undefined;
    const now = resolved?.resolved ? resolved.id : undefined;
    const swap = (id: string): string => (named === undefined || now === undefined || now === named ? id : id === named ? now : id === now ? named : id);
    // A cut put in force before t0 (install) is noted at 0: it is in force from the run's start.
    const startUs = Math.max(0, this.clock.nowUs());
    const durationMs = pf.step.durationMs ?? 0;
    const log: FaultLog = { step: pf.index, kind: pf.step.kind, target: pf.target, trigger: pf.trigger.kind, durationMs, startUs };
    this.log.push(log);
    const note = pf.step.note ? { note: pf.step.note } : {};
    const links = (pf.links ?? []).map(([a, b]): [string, string] => [swap(a), swap(b)]);
    if (now !== undefined) log.resolvedTarget = now;
    for (const [a, b] of links) via(a, b)?.cutLink(a, b);
    log.stoppedUs = this.clock.nowUs();
    const targets = [...new Set(links.flat())];
    const groups = pf.step.groups?.map((g) => g.map(swap));
    const shape = pf.step.groups !== undefined ? { groups, oneWay: pf.step.oneWay } : {};
    const as = log.resolvedTarget && log.resolvedTarget !== named ? { leader: { named, as: log.resolvedTarget, why: "the leader when the step fired" } } : {};
    this.history.nemesis(startUs, pf.step.kind, { phase: "start", step: pf.index, targets, ...shape, links, ...as, ...note });
    if (pf.step.durationMs !== undefined) {
      this.after(startUs + durationMs * 1000, () => {
        const now = this.clock.nowUs();
        log.resumedUs = now;
        this.history.nemesis(now, pf.step.kind, { phase: "end", step: pf.index, targets });
        for (const [a, b] of links) via(a, b)?.healLink(a, b);
      });
    }
    return log;
  }

  /**
   * delay/loss: the proxies' delay lines of its links add `extraMs` to every chunk, or draw
   * losses at `lossRate` (each one an RTO late; real/link-conditions.ts), from now on; with a
   * duration the links go back to their standing conditions when it has passed. Noted as
   * faults/apply.ts notes them.
   */
  private async linkCondition(pf: PlannedFault): Promise<FaultLog | undefined> {
    if (this.stopped || (!this.proxies && !this.peerLinks)) return undefined;
    const startUs = Math.max(0, this.clock.nowUs());
    const log: FaultLog = { step: pf.index, kind: pf.step.kind, target: pf.target, trigger: pf.trigger.kind, durationMs: pf.step.durationMs ?? 0, startUs };
    this.log.push(log);
    const links = pf.links ?? [];
    const conds = links.flatMap(([a, b]) => this.via(a, b)?.conditionsOf(a, b) ?? []);
    const before = conds.map((c) => [c.lostChunks, c.resends] as const);
    // A delay adds extraMs to every chunk; a loss draws losses at lossRate.
    const delay = pf.step.extraMs !== undefined;
    for (const c of conds) {
      if (delay) c.extraUs = (pf.step.extraMs ?? 0) * 1000;
      else c.lossOverride = pf.step.lossRate ?? 0;
    }
    log.stoppedUs = this.clock.nowUs();
    const targets = [...new Set(links.flat())].sort();
    const what = delay ? { extraMs: pf.step.extraMs } : { lossRate: pf.step.lossRate };
    this.history.nemesis(startUs, pf.step.kind, { phase: "start", step: pf.index, targets, links, ...what, ...(pf.step.note ? { note: pf.step.note } : {}) });
    const sumLoss = () => {
      if (!delay)
        log.loss = {
          lostChunks: conds.reduce((n, c, i) => n + c.lostChunks - before[i]![0], 0),
          resends: conds.reduce((n, c, i) => n + c.resends - before[i]![1], 0),
        };
    };
    if (pf.step.durationMs !== undefined) {
      this.after(startUs + pf.step.durationMs * 1000, () => {
        const now = this.clock.nowUs();
        log.resumedUs = now;
        this.history.nemesis(now, pf.step.kind, { phase: "end", step: pf.index, targets });
        for (const c of conds) {
          if (delay) c.extraUs = 0;
          else c.lossOverride = undefined;
        }
        sumLoss();
      });
    }
    return log;
  }

  /** Host crash, emulated: the killed server's AOF loses what its last fsync tick had not synced. */
  private cutAof(id: string, log: FaultLog): void {
    const ticks = this.aofTicks.get(id);
    if (!ticks) return;
    const cut = ticks.cut();
    if (!cut) return;
    const { tickNs, ...bytes } = cut;
    log.aofCut = { ...bytes, ...(tickNs !== undefined ? { lastTickUs: this.clock.usAt(tickNs) } : {}) };
  }

  /**
   * clock-jump of a client: its libfaketime file rewritten, between two readings of its
   * Date.now() and hrtime taken by the child, so the log shows the jump the child saw.
   */
  private async clientClockJump(pf: PlannedFault): Promise<FaultLog | undefined> {
    const file = this.clientClocks.get(pf.target);
    const deltaMs = pf.step.deltaMs ?? 0;
    const startUs = this.clock.nowUs();
    const log: FaultLog = { step: pf.index, kind: pf.step.kind, target: pf.target, trigger: pf.trigger.kind, durationMs: 0, startUs };
    this.log.push(log);
    this.history.nemesis(startUs, pf.step.kind, {
      phase: "start",
      step: pf.index,
      targets: [pf.target],
      deltaMs,
      ...(pf.step.note ? { note: pf.step.note } : {}),
    });
    if (!file || !this.readClientClock) throw new Error(`fault step ${pf.index}: ${pf.target} has no libfaketime clock`);
    const before = await this.readClientClock(pf.target);
    file.jump(deltaMs);
    const after = await this.readClientClock(pf.target);
    log.stoppedUs = this.clock.nowUs();
    log.wall = { beforeMs: before.wallMs, afterMs: after.wallMs, stepMs: Math.round(wallStepMs(before, after) * 1000) / 1000 };
    return log;
  }

  /**
   * clock-jump of a redis-server, emulated (real/ttl-shift.ts): every TTL on it shifted by
   * deltaMs, at once and atomically. Noted as faults/apply.ts notes a jump, marked emulated.
   * Of a client: its libfaketime clock (clientClockJump).
   */
  private async clockJump(pf: PlannedFault): Promise<FaultLog | undefined> {
    if (this.stopped) return undefined;
    if (pf.targetKind === "client") return this.clientClockJump(pf);
    const port = this.redisPorts.get(pf.target);
    const deltaMs = pf.step.deltaMs ?? 0;
    const startUs = this.clock.nowUs();
    const log: FaultLog = { step: pf.index, kind: pf.step.kind, target: pf.target, trigger: pf.trigger.kind, durationMs: 0, startUs, emulated: "PTTL shift" };
    this.log.push(log);
    this.history.nemesis(startUs, pf.step.kind, {
      phase: "start",
      step: pf.index,
      targets: [pf.target],
      deltaMs,
      emulated: "every TTL on the server shifted by deltaMs (PTTL shift)",
      ...(pf.step.note ? { note: pf.step.note } : {}),
    });
    if (port === undefined) throw new Error(`fault step ${pf.index}: no redis-server ${pf.target}`);
    const r = await shiftTtls(port, deltaMs);
    log.stoppedUs = this.clock.nowUs();
    log.keys = r;
    return log;
  }

  private async restart(pf: PlannedFault): Promise<FaultLog | undefined> {
    if (this.stopped) return undefined;
    const t = await this.targetOf(pf);
    const proc = this.processOf(t.id);
    const startUs = this.clock.nowUs();
    const log: FaultLog = { step: pf.index, kind: pf.step.kind, target: t.id, trigger: pf.trigger.kind, durationMs: 0, startUs };
    this.log.push(log);
    if (!proc) throw new Error(`fault step ${pf.index}: no process ${t.id}`);
    if (proc.isLive()) {
      this.down.add(t.id);
      this.aofTicks.get(t.id)?.hostDown();
      await proc.kill("SIGKILL");
    }
    log.stoppedUs = this.clock.nowUs();
    this.cutAof(t.id, log);
    await this.bringBack(t.id, proc, log, { phase: "start", step: pf.index, targets: [t.id] });
    return log;
  }

  /** Start a killed server again on its data dir; noted as it is spawned, ready when its check answers. */
  private async bringBack(id: string, proc: ServerProcess, log: FaultLog, note: Record<string, unknown>): Promise<void> {
    if (this.stopped) return;
    log.resumedUs = this.clock.nowUs();
    this.history.nemesis(log.resumedUs, log.kind, note);
    await proc.spawnProcess();
    this.down.delete(id);
    await proc.waitReady();
    log.readyUs = this.clock.nowUs();
  }

  private track(p: Promise<unknown>): void {
    const tracked = p.then(
      () => undefined,
      () => undefined,
    );
    this.inFlight.add(tracked);
    void tracked.finally(() => this.inFlight.delete(tracked));
  }

  private async pause(pf: PlannedFault): Promise<FaultLog | undefined> {
    if (this.stopped) return undefined;
    const t = await this.targetOf(pf);
    if (t.resolved) pf = { ...pf, target: t.id };
    const proc = this.processOf(pf.target);
    const durationMs = pf.step.durationMs ?? 0;
    const startUs = this.clock.nowUs();
    const log: FaultLog = { step: pf.index, kind: pf.step.kind, target: pf.target, trigger: pf.trigger.kind, durationMs, startUs };
    this.log.push(log);
    this.history.nemesis(startUs, pf.step.kind, {
      phase: "start",
      step: pf.index,
      targets: [pf.target],
      durationMs,
      ...(pf.step.note ? { note: pf.step.note } : {}),
    });
    if (!proc || !proc.isLive()) throw new Error(`fault step ${pf.index}: ${pf.target} is not running`);
    await proc.pause();
    // ServerProcess.pause gives up silently after its bound; look for ourselves (bounded).
    for (let i = 0; i < STOP_CONFIRM_TRIES_MAX && !proc.isStopped(); i++) await new Promise((r) => setTimeout(r, 1));
    if (proc.isStopped()) log.stoppedUs = this.clock.nowUs();
    const untilUs = startUs + durationMs * 1000;
    // SIGCONT when the last overlapping pause of this target ends (sim: pausedUntil = max);
    // each step's end note at its own end, the last one's as SIGCONT is sent.
    let entry = this.paused.get(pf.target);
    if (!entry) {
      entry = { proc, untilUs, steps: [] };
      this.paused.set(pf.target, entry);
    }
    const mine = { step: pf.index, untilUs, noted: false, log };
    entry.steps.push(mine);
    const e = entry;
    this.after(untilUs, () => {
      if (!mine.noted && this.paused.get(pf.target) === e && untilUs < e.untilUs) this.noteEnd(pf.target, mine);
    });
    if (untilUs >= entry.untilUs || !entry.timer) {
      if (entry.timer) clearTimeout(entry.timer);
      entry.untilUs = Math.max(entry.untilUs, untilUs);
      this.armResume(pf.target, entry, 0);
    }
    return log;
  }

  private noteEnd(target: string, s: { step: number; noted: boolean; log: FaultLog }, atUs = this.clock.nowUs()): void {
    s.noted = true;
    this.history.nemesis(atUs, s.log.kind, { phase: "end", step: s.step, targets: [target] });
  }

  /** SIGCONT at entry.untilUs; a timer that fires a little early (libuv's ms clock) is re-armed. */
  private armResume(target: string, entry: Paused, rearms: number): void {
    const waitMs = Math.max(0, (entry.untilUs - this.clock.nowUs()) / 1000);
    entry.timer = setTimeout(() => {
      if (this.stopped || this.paused.get(target) !== entry) return;
      if (this.clock.nowUs() < entry.untilUs && rearms < RESUME_REARM_MAX) return this.armResume(target, entry, rearms + 1);
      this.paused.delete(target);
      // Stamped before SIGCONT leaves: the target may run (and stamp its next event) at once.
      const now = this.clock.nowUs();
      for (const s of entry.steps) {
        s.log.resumedUs = now;
        if (!s.noted) this.noteEnd(target, s, now);
      }
      if (entry.proc.isLive()) entry.proc.resume();
    }, Math.ceil(waitMs));
  }

  /** Is anything still to happen: a timer armed, a pause in force or being applied? */
  busy(): boolean {
    return this.timers.size > 0 || this.paused.size > 0 || this.inFlight.size > 0;
  }

  /** The run is over: no more faults. Stopped targets stay stopped (they are killed next). */
  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const p of this.paused.values()) if (p.timer) clearTimeout(p.timer);
    this.paused.clear();
  }
}
