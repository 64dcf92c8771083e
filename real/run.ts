// One real run of a planned scenario: start the design's servers and one Node process
// per client (all members of one ServerGroup, so every exit path stops them), check that
// every client reads the driver's clock, start the clients at a common t0, drive the fault
// steps, serve the in-driver storage, and collect the history until every client is done
// (and no fault is pending) or the scenario's end plus the simulator's drain has passed.
import { randomBytes } from "node:crypto";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { loadNote, loadTolerantMs } from "./servers/deadlines.js";
import type { HistoryEvent } from "../sim/history.js";
import type { RunMeta } from "../harness/runner.js";
import { ServerGroup, stoppedBySignal, type PortMove, type ServerProcess } from "./servers/index.js";
import { hrNowNs, RunClock } from "./clock.js";
import { addClientProcess, clientDir } from "./clients.js";
import { ControlServer } from "./control.js";
import { adapterRefusalError, RealRunError } from "./errors.js";
import type { AdapterRefusal } from "../designs/library/real-loader.js";
import { RealFaults, type FaultLog } from "./faults.js";
import { RunHistory } from "./history.js";
import type { RealNemesis, RealPlan } from "./plan.js";
import type { NemesisSimRow } from "./nemesis.js";
import { mechanismOf } from "../faults/index.js";
import { GATE_GO_FILE, type ClientConfig, type FromClient, type StorageRequest, type WireEvent } from "./protocol.js";
import { DriverStorage, RESOURCE_ID } from "./storage.js";
import { checkRun, type RunCheck } from "./run-checks.js";
import { startDesignServers, type StartedServer } from "./start-servers.js";
import { designServerIds } from "./designs.js";
import { currentLeader } from "./leader.js";
import { PeerLinks } from "./peer-proxies.js";
import { ProxySet } from "./proxy.js";
import { StorageLinks } from "./storage-links.js";
import type { TimeScale } from "./time-scale.js";
import { ClientClockFile, type ClockReading } from "./faketime.js";
import { clientClockChecks, hostCrashChecks, hostCrashTargets, type ClientClockEvidence } from "./fault-checks.js";
import { AofFsyncTicks } from "./aof-cut.js";
import { loadFigures, oneMinuteLoad, type LoadFigures } from "./load.js";

/** After the scenario's end, as harness/runner.ts: time for outstanding operations to complete (scaled with the run). */
export const DRAIN_MS = 2_000;
/** t0 lies this far after the start message leaves, so every client has it before time zero. */
const START_LEAD_MS = 50;
/** Longest a client waits at its start time for the clients that start before it to finish their first operation. */
const START_ORDER_WAIT_MS = 100;
const PING_TIMEOUT_MS = 2_000;
const POLL_MS = 10;
const EVENT_TYPES = new Set(["invoke", "ok", "fail", "info"]);

/** On every terminal line, results.json and report of a real run. */
export const REAL_NOTE = "real run: not replayable (REAL MODE: real servers and clients, non-deterministic)";

export interface RealServerInfo {
  id: string;
  pid?: number;
  /** What runs: redis-server, etcd or zookeeper. */
  software?: string;
  binary: string;
  version: string;
  versionLine: string;
  port: number;
  aof: string;
  /** Its port was taken by another process when it started, so it moved to a fresh one (each time). */
  portMoves?: PortMove[];
}

export interface RealClientInfo {
  id: string;
  pid?: number;
  /** Packages as the client process loaded them (node, ioredis, redlock). */
  packages: Record<string, string>;
  ops?: number;
  /** What the client found out about its sessions (e.g. ZooKeeper's negotiated timeout). */
  notes?: string[];
}

/** results.json's `real` block. */
export interface RealRunInfo {
  replayable: false;
  note: typeof REAL_NOTE;
  run: number;
  runs: number;
  timeScale: TimeScale;
  clock: string;
  wallMs: number;
  endedBy: string;
  servers: RealServerInfo[];
  clients: RealClientInfo[];
  clientRecipe: string;
  faults: FaultLog[];
  notApplied: string[];
  checks: RunCheck[];
  /** A random nemesis's schedule for this run's seed, and the simulator's outcome for the same seed (set with the record). */
  nemesis?: RealNemesis & { simRow: NemesisSimRow };
  /** The 1-minute load average at the run's start and end (rates of a real run depend on it). */
  load: LoadFigures;
  /** The command that runs the scenario for real again (set with the record). */
  rerun?: string;
}

export interface RealRunOutput {
  history: HistoryEvent[];
  meta: RunMeta;
  real: RealRunInfo;
  /** Every pid the run's group spawned (servers, clients, watchdogs) and its temp dir: for leak checks. */
  pidsEver: number[];
  dir: string;
}

export interface RealRunOptions {
  run: number;
  runs: number;
  /** Seeds the clients' think-time jitter (nothing else: real runs are not replayable). */
  seed: number;
  progress?: (line: string) => void;
  /** Told where the run is, each poll (about every POLL_MS): for a progress line. */
  onTick?: (text: string) => void;
  /** Parent of the run's temp dir (tests). */
  parentDir?: string;
}

interface ClientState {
  id: string;
  index: number;
  proc?: ServerProcess;
  pid?: number;
  ready: boolean;
  packages: Record<string, string>;
  notes?: string[];
  done: boolean;
  ops?: number;
  fatal?: string;
  /** Its adapter could not be loaded or created (design library). */
  refusal?: AdapterRefusal;
  /** It runs a lock driver (a process group of its own, docs/lock-protocol.md). */
  driven?: boolean;
  closed: boolean;
  pong?: (ns: bigint, wallMs: number | undefined) => void;
  /** The libfaketime file of a client whose clock is faked. */
  fakeClock?: ClientClockFile;
  /** Its clocks as the child read them at the start ping, and the host's Date.now() then. */
  startReading?: ClockReading;
  hostWallMsAtStart?: number;
  /** Stamp of this client's last event in arrival order: a client's own events must arrive in stamp order. */
  lastUs: number;
  /** Its first operation completed (ok, fail or info): clients that start after it may go. */
  started?: boolean;
  /** It waits at its start time for the clients that start before it. */
  waitsToStart?: boolean;
  misordered: number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function isWireEvent(ev: unknown): ev is WireEvent {
  const e = ev as WireEvent;
  return typeof e === "object" && e !== null && Number.isFinite(e.timeUs) && EVENT_TYPES.has(e.type) && typeof e.f === "string";
}

export async function runRealOnce(plan: RealPlan, opts: RealRunOptions): Promise<RealRunOutput> {
  const run = new RealRun(plan, opts);
  try {
    return await run.execute();
  } finally {
    await run.close();
  }
}

/** One real run's state, from the servers' start to the history; every step a method, close() on every exit path. */
class RealRun {
  private readonly s: RealPlan["scenario"];
  private readonly wallStart = performance.now();
  private readonly loadAtStart = oneMinuteLoad();
  private readonly group: ServerGroup;
  private readonly secret = randomBytes(16).toString("hex");
  private readonly clients: Map<string, ClientState>;
  private readonly history = new RunHistory();
  private readonly storage: DriverStorage;
  private readonly links = new ProxySet();
  /** Cut steps on the clients' links to the storage hold their messages here. */
  private readonly storageLinks = new StorageLinks(() => this.clock?.nowUs() ?? 0);
  /** Driver fsync ticks of the redis-servers a crash step may cut (everysec). */
  private readonly aofTicks = new Map<string, AofFsyncTicks>();
  private peerLinks: PeerLinks | undefined;
  private control: ControlServer | undefined;
  /** Set once the run starts; read by callbacks made before it. */
  private clock: RunClock | undefined;
  private faults: RealFaults | undefined;
  private runError: Error | undefined;
  private storageRequests = 0;
  private messages = 0;
  /** Fault applications the reply being prepared must wait for (storage.handle is synchronous). */
  private heldBy: Array<Promise<FaultLog[]>> = [];
  private serversReady!: Promise<StartedServer[]>;
  private readonly clockSpreadUs: number[] = [];

  constructor(
    private readonly plan: RealPlan,
    private readonly opts: RealRunOptions,
  ) {
    this.s = plan.scenario;
    this.group = new ServerGroup(opts.parentDir ? { parentDir: opts.parentDir } : {});
    this.clients = new Map<string, ClientState>(
      this.s.clients.map((c, index) => [c.id, { id: c.id, index, ready: false, packages: {}, done: false, closed: false, lastUs: -Infinity, misordered: 0 }]),
    );
    this.storage = new DriverStorage({ fencing: this.s.workload.fencing, ownerCheck: this.s.workload.ownerCheck }, (type, f, lock, value) => {
      this.history.add(RESOURCE_ID, this.clock!.nowUs(), type, f, lock, value);
      if (this.faults) this.heldBy.push(this.faults.onStorageEvent(f, type));
    });
    this.links.seed = `lockstep-real:${opts.seed}`;
  }

  async execute(): Promise<RealRunOutput> {
    this.startServers();
    this.control = await ControlServer.listen(this.secret, new Set(this.clients.keys()), {
      onMessage: (id, msg) => this.onMessage(id, msg),
      onClose: (id) => {
        this.clients.get(id)!.closed = true;
      },
    });
    await this.spawnClients();
    const redis = await this.serversReady;
    await Promise.all([...this.clients.values()].map((c) => c.proc!.waitReady()));
    await this.checkClientClocks();
    this.startClients(redis);
    const { endedBy, stopUs } = await this.pollUntilEnd(redis);
    this.faults!.stop();
    await this.driversAnswer();
    const clockEvidence = await this.clockEvidence();
    const finals = this.storage.finalCells(this.s.workload.locks).map((c) => ({
      process: RESOURCE_ID,
      f: "final-read",
      lock: c.lock,
      value: { counter: c.counter, ...(c.maxToken !== undefined ? { maxToken: c.maxToken } : {}) },
    }));
    const events = this.history.finish(stopUs, finals);
    const real = this.realInfo(redis, events, endedBy, clockEvidence);
    return { history: events, meta: this.meta(stopUs), real, pidsEver: this.group.pidsEver(), dir: this.group.dir };
  }

  /**
   * Servers start while the client processes boot; a client gets its config once they are up.
   * With link faults, each client reaches each server through its own proxy in the driver.
   * Server↔server links (redis-failover's replication) are proxied from the start.
   */
  private startServers(): void {
    const { plan, links } = this;
    const runEndMs = this.s.durationMs + DRAIN_MS * plan.timeScale.factor;
    if (plan.peerProxied) (this.peerLinks = new PeerLinks()).seed = links.seed;
    const peerLinks = this.peerLinks;
    this.serversReady = startDesignServers(this.group, plan.design, { links, runEndMs, ...(peerLinks ? { peerLinks } : {}) }).then(async (started) => {
      if (plan.proxied)
        await links.addAll(
          this.s.clients.map((c) => c.id),
          started.map((r) => r.endpoint),
        );
      this.startAofTicks(started);
      return started;
    });
    this.serversReady.catch(() => {});
  }

  /** Fsync ticks for every everysec redis-server a host-crash step targets. */
  private startAofTicks(started: StartedServer[]): void {
    for (const id of hostCrashTargets(this.plan)) {
      const r = started.find((x) => x.id === id && x.kind === "redis-server");
      if (!r || this.plan.design.redis.find((d) => d.id === id)?.aof !== "everysec") continue;
      const t = new AofFsyncTicks(r.process.spec.cwd);
      this.aofTicks.set(id, t);
      t.start();
    }
  }

  private endpointFor(clientId: string, r: StartedServer): StartedServer["endpoint"] {
    const p = this.links.get(clientId, r.id);
    return p ? { ...r.endpoint, port: p.port } : r.endpoint;
  }

  private configFor(c: ClientState, redis: StartedServer[]): ClientConfig {
    const { plan, s } = this;
    return {
      clientId: c.id,
      seed: `lockstep-real:${this.opts.seed}:${c.id}`,
      client: s.clients[c.index]!,
      workload: s.workload,
      recipe: plan.design.recipe(redis.map((r) => this.endpointFor(c.id, r))),
      gates: plan.faults.flatMap((pf) => {
        const t = pf.trigger;
        if (t.kind !== "gate" || t.process !== c.id) return [];
        const holdAfter = mechanismOf(pf.step.kind) === "stop-signal" && pf.target === c.id;
        return [{ gateId: t.gateId, f: t.f, type: t.type, nth: t.nth, ...(holdAfter ? { holdAfter } : {}) }];
      }),
      gateTimeoutMs: loadTolerantMs(5_000) + Math.max(0, ...plan.faults.map((pf) => pf.step.durationMs ?? 0)),
      endUs: Math.round(s.durationMs * 1000),
      ...this.startOrder(c),
    };
  }

  /** The clients that start before this one (an earlier startMs): it starts after them. */
  private startOrder(c: ClientState): Pick<ClientConfig, "startAfter" | "startOrderWaitMs"> {
    const mine = this.s.clients[c.index]!.startMs;
    const before = this.s.clients.filter((x) => x.startMs < mine).map((x) => x.id);
    return before.length ? { startAfter: before, startOrderWaitMs: loadTolerantMs(START_ORDER_WAIT_MS) } : {};
  }

  /** Send start-go to every client waiting at its start whose earlier clients have all started. */
  private releaseStarts(): void {
    for (const w of this.clients.values()) {
      if (!w.waitsToStart) continue;
      const mine = this.s.clients[w.index]!.startMs;
      const ready = this.s.clients.every((x) => x.startMs >= mine || this.clients.get(x.id)!.started || this.clients.get(x.id)!.done);
      if (!ready) continue;
      w.waitsToStart = false;
      this.control!.send(w.id, { t: "start-go" });
    }
  }

  private fail(err: unknown): void {
    this.runError ??= err instanceof Error ? err : new Error(String(err));
  }

  private async handleStorage(id: string, req: StorageRequest): Promise<void> {
    const { clock, faults } = this;
    if (!clock || !faults) return;
    // A cut of the client → storage link holds the request: it reaches the storage at the heal's resend.
    await new Promise<void>((arrived) => this.storageLinks.pass(id, RESOURCE_ID, arrived));
    this.storageRequests++;
    this.heldBy = [];
    const reply = this.storage.handle(id, req);
    const held = this.heldBy;
    this.heldBy = [];
    const logs = (await Promise.all([faults.onStorageRequest(id, req.type === "resource-read" ? "read" : "write"), ...held])).flat();
    const now = clock.nowUs();
    for (const l of logs) l.releasedUs ??= now;
    this.storageLinks.pass(RESOURCE_ID, id, () => this.control!.send(id, { t: "storage-reply", body: reply }));
  }

  private async handleGate(id: string, gateId: number): Promise<void> {
    const { clock, faults } = this;
    if (!clock || !faults) return;
    const logs = await faults.onGate(id, gateId);
    const now = clock.nowUs();
    for (const l of logs) l.releasedUs ??= now;
    // A client holding after its continuation (a pause of itself) reads this file, not the socket: it holds synchronously.
    const dir = this.clients.get(id)?.proc?.spec.cwd;
    if (dir) appendFileSync(join(dir, GATE_GO_FILE), `${gateId}\n`);
    this.control!.send(id, { t: "go", gateId });
  }

  private onMessage(id: string, msg: FromClient): void {
    const c = this.clients.get(id)!;
    this.messages++;
    switch (msg.t) {
      case "hello":
        c.pid = msg.pid;
        void this.serversReady.then((redis) => this.control!.send(id, { t: "config", config: this.configFor(c, redis) })).catch(() => {});
        return;
      case "ready":
        c.ready = true;
        c.packages = msg.packages;
        if (msg.notes?.length) c.notes = msg.notes;
        // A lock driver's group is part of the client: paused, resumed and killed with its process.
        for (const g of msg.processGroups ?? []) if (Number.isInteger(g)) c.proc?.adoptGroup(g);
        c.driven = (msg.processGroups?.length ?? 0) > 0;
        return;
      case "pong":
        c.pong?.(BigInt(msg.hrNs), msg.wallMs);
        return;
      case "event":
        return this.onEvent(c, msg.ev);
      case "grant":
        this.history.grant(id, msg.grantId, msg.atUs, msg.expiresAtUs);
        return;
      case "storage":
        void this.handleStorage(id, msg.msg).catch((e: unknown) => this.fail(e));
        return;
      case "gate":
        void this.handleGate(id, msg.gateId).catch((e: unknown) => this.fail(e));
        return;
      case "start-gate":
        c.waitsToStart = true;
        return this.releaseStarts();
      case "done":
        c.done = true;
        c.ops = msg.ops;
        return;
      case "refused":
        c.refusal = msg.refusal;
        return;
      case "fatal":
        // The first failure is the cause; what follows from it (rejected ops) would hide it.
        c.fatal ??= msg.message;
        return;
    }
  }

  private onEvent(c: ClientState, ev: unknown): void {
    if (!this.clock) return;
    if (!isWireEvent(ev)) return this.fail(new RealRunError(`client ${c.id} sent a malformed event`));
    if (ev.timeUs < c.lastUs) c.misordered++;
    c.lastUs = ev.timeUs;
    this.history.add(c.id, ev.timeUs, ev.type, ev.f, ev.lock, ev.value);
    this.faults?.onClientEvent(c.id, ev.f, ev.type);
    if (!c.started && ev.type !== "invoke") {
      c.started = true;
      this.releaseStarts();
    }
  }

  private async spawnClients(): Promise<void> {
    for (const c of this.clients.values()) {
      const fake = this.plan.fakeClocks[c.id];
      if (fake) c.fakeClock = new ClientClockFile(clientDir(this.group, c.index), fake);
      c.proc = addClientProcess(this.group, c.index, c.id, { port: this.control!.port, secret: this.secret }, () => this.isReady(c), c.fakeClock?.env());
    }
    await Promise.all([...this.clients.values()].map((c) => c.proc!.spawnProcess()));
  }

  /** A client that reported a bad adapter or a failure before it was ready fails the wait with that, not with its exit. */
  private isReady(c: ClientState): boolean {
    if (c.refusal) throw adapterRefusalError(c.refusal);
    if (c.fatal) throw new RealRunError(`client ${c.id} failed: ${c.fatal.split("\n")[0]}`, c.proc?.logTail() ?? "");
    return c.ready;
  }

  /**
   * A lock driver must answer `clock` at once, even while a lock call of it waits
   * (docs/lock-protocol.md): one that does not at the run's end hangs, and the run says so.
   * A driver stopped in a pause is not asked.
   */
  private async driversAnswer(): Promise<void> {
    for (const c of this.clients.values()) {
      if (!c.driven || c.proc?.state !== "running") continue;
      const cmd = c.packages["lock driver"];
      await this.readClock(
        c,
        `client ${c.id}'s lock driver${cmd ? ` \`${cmd}\`` : ""} did not answer a clock request at the run's end`,
        "it hangs (a driver answers clock at once, even while a lock call of it waits: docs/lock-protocol.md)",
      );
    }
  }

  private readClock(c: ClientState, what = `client ${c.id} did not answer a clock ping`, why = ""): Promise<ClockReading> {
    return new Promise<ClockReading>((resolve, reject) => {
      const boundMs = loadTolerantMs(PING_TIMEOUT_MS);
      const t = setTimeout(
        () => reject(new RealRunError(`${what} within ${boundMs} ms (${loadNote()})${why ? `: ${why}` : ""}`, c.proc?.logTail() ?? "")),
        boundMs,
      );
      c.pong = (ns, wallMs) => {
        clearTimeout(t);
        c.pong = undefined;
        resolve({ hrNs: ns, wallMs: wallMs ?? Number.NaN });
      };
      this.control!.send(c.id, { t: "ping" });
    });
  }

  /**
   * Every client must read the same CLOCK_MONOTONIC as the driver: its reading in reply to
   * a ping lies between the driver's readings before the ping and after the pong.
   */
  private async checkClientClocks(): Promise<void> {
    for (const c of this.clients.values()) {
      const before = hrNowNs();
      const hostWallMs = Date.now();
      const reading = await this.readClock(c);
      const theirs = reading.hrNs;
      const after = hrNowNs();
      if (c.fakeClock) {
        c.startReading = reading;
        c.hostWallMsAtStart = hostWallMs;
      }
      if (theirs < before || theirs > after) {
        throw new RealRunError(
          `client ${c.id}'s CLOCK_MONOTONIC is not the driver's (read ${theirs}, driver ${before}..${after}); real mode needs one clock for every process`,
        );
      }
      this.clockSpreadUs.push(Number(after - before) / 1000);
    }
  }

  /** t0 set, the fault steps armed, the clients told to start at t0. */
  private startClients(redis: StartedServer[]): void {
    const { plan, clients } = this;
    const t0 = hrNowNs() + BigInt(START_LEAD_MS) * 1_000_000n;
    const clock = (this.clock = new RunClock(t0));
    const faults = (this.faults = new RealFaults(
      plan.faults,
      clock,
      this.history,
      (id) => clients.get(id)?.proc ?? this.group.servers.find((p) => p.name === id),
      () => currentLeader(redis),
    ));
    faults.proxies = this.links;
    faults.storageLinks = this.storageLinks;
    if (this.peerLinks) faults.peerLinks = this.peerLinks;
    if (plan.design.cluster) {
      faults.clusterIds = new Set(plan.design.cluster.ids);
      if (plan.design.cluster.preferredLeader !== undefined) faults.preferredLeader = plan.design.cluster.preferredLeader;
    }
    for (const r of redis) if (r.kind === "redis-server") faults.redisPorts.set(r.id, r.endpoint.port);
    // Standing link conditions from here, not during set-up: the clients' connection checks (ioredis's ready check under a 50 ms commandTimeout) are not part of the story.
    for (const c of plan.linkConditions) this.links.conditionsOf(c.from, c.to)?.setStanding(c.settings);
    for (const c of clients.values()) if (c.fakeClock) faults.clientClocks.set(c.id, c.fakeClock);
    faults.readClientClock = (id) => this.readClock(clients.get(id)!);
    faults.aofTicks = this.aofTicks;
    faults.install();
    for (const c of clients.values()) this.control!.send(c.id, { t: "start", t0Ns: t0.toString() });
    this.opts.progress?.(
      `run ${this.opts.run}/${this.opts.runs} started: ${redis.map((r) => `${r.id} pid ${r.process.pid}`).join(", ")}; clients ${[...clients.values()].map((c) => `${c.id} pid ${c.proc!.pid}`).join(", ")}`,
    );
  }

  /** Until every client is done (and no fault is pending) or the scenario's end plus the drain; bounded by that deadline. */
  private async pollUntilEnd(redis: StartedServer[]): Promise<{ endedBy: string; stopUs: number }> {
    const clock = this.clock!;
    const faults = this.faults!;
    const endUs = this.s.durationMs * 1000;
    const deadlineUs = endUs + DRAIN_MS * this.plan.timeScale.factor * 1000;
    let endedBy: string;
    // Each turn sleeps POLL_MS of real time.
    for (;;) {
      this.throwIfBroken(redis);
      const now = clock.nowUs();
      this.opts.onTick?.(
        `run ${this.opts.run}/${this.opts.runs}: ${(Math.min(now, endUs) / 1e6).toFixed(1)}/${(endUs / 1e6).toFixed(1)} s of the scenario, ${this.history.size} events`,
      );
      if ([...this.clients.values()].every((c) => c.done) && !faults.busy()) {
        endedBy = "every client finished";
        break;
      }
      if (now >= deadlineUs) {
        endedBy = "the scenario's end plus the drain";
        break;
      }
      await sleep(Math.min(POLL_MS, Math.max(1, (deadlineUs - now) / 1000)));
    }
    return { endedBy, stopUs: Math.min(clock.nowUs(), Math.round(deadlineUs)) };
  }

  /** A signal, a failed callback, a client or server gone: the run stops, saying which. */
  private throwIfBroken(redis: StartedServer[]): void {
    const signal = stoppedBySignal();
    if (signal) throw new RealRunError(`stopped by ${signal}`);
    if (this.runError) throw this.runError;
    for (const c of this.clients.values()) {
      if (c.fatal) throw new RealRunError(`client ${c.id} failed: ${c.fatal.split("\n")[0]}`, c.proc!.logTail());
      if (c.closed || !c.proc!.isLive()) throw new RealRunError(`client ${c.id} exited during the run`, c.proc!.logTail());
    }
    for (const r of redis)
      if (!r.process.isLive() && !this.faults!.down.has(r.id)) throw new RealRunError(`${r.id} (${r.kind}) exited during the run`, r.process.logTail());
  }

  /** Faked client clocks: read once more, so the run shows the offset and rate the child really had. */
  private async clockEvidence(): Promise<ClientClockEvidence[]> {
    const out: ClientClockEvidence[] = [];
    for (const c of this.clients.values()) {
      if (!c.fakeClock || !c.startReading) continue;
      const end = c.proc!.isLive() ? await this.readClock(c).catch(() => undefined) : undefined;
      out.push({ id: c.id, clock: this.plan.fakeClocks[c.id]!, start: c.startReading, hostWallMsAtStart: c.hostWallMsAtStart!, ...(end ? { end } : {}) });
    }
    return out;
  }

  private realInfo(redis: StartedServer[], events: HistoryEvent[], endedBy: string, clockEvidence: ClientClockEvidence[]): RealRunInfo {
    const { plan, opts } = this;
    const faults = this.faults!;
    return {
      replayable: false,
      note: REAL_NOTE,
      run: opts.run,
      runs: opts.runs,
      timeScale: plan.timeScale,
      clock: `CLOCK_MONOTONIC (process.hrtime.bigint), read by the driver and by each client process at the instant of its event; µs from the run's t0; ping spread ${Math.max(...this.clockSpreadUs).toFixed(0)} µs`,
      wallMs: Math.round(performance.now() - this.wallStart),
      load: loadFigures([this.loadAtStart, oneMinuteLoad()]),
      endedBy,
      servers: redis.map((r) => ({
        id: r.id,
        ...(r.process.pid !== undefined ? { pid: r.process.pid } : {}),
        software: r.kind,
        binary: r.binary,
        version: r.version,
        versionLine: r.versionLine,
        port: r.endpoint.port,
        aof: r.aof,
        ...(r.process.portMoves.length ? { portMoves: r.process.portMoves.map((m) => ({ ...m })) } : {}),
      })),
      clients: [...this.clients.values()].map((c) => ({
        id: c.id,
        ...(c.pid !== undefined ? { pid: c.pid } : {}),
        packages: c.packages,
        ...(c.ops !== undefined ? { ops: c.ops } : {}),
        ...(c.notes ? { notes: c.notes } : {}),
      })),
      clientRecipe: plan.design.clients,
      faults: faults.log,
      notApplied: plan.notApplied,
      checks: [
        ...checkRun(
          plan,
          events,
          faults.log,
          [...this.clients.values()].map((c) => ({ id: c.id, misordered: c.misordered })),
        ),
        ...clientClockChecks(plan, faults.log, clockEvidence),
        ...hostCrashChecks(plan, faults.log),
      ],
    };
  }

  private meta(stopUs: number): RunMeta {
    const s = this.s;
    return {
      scenario: s.name,
      design: s.design,
      seed: this.opts.seed,
      durationMs: s.durationMs,
      endUs: stopUs,
      serverIds: designServerIds(this.plan.design),
      clientIds: s.clients.map((c) => c.id),
      fencingTokens: this.plan.design.fencing,
      faults: s.faults,
      eventsRun: this.history.size,
      network: { controlMessages: this.messages, storageRequests: this.storageRequests },
      clockSamples: [],
    };
  }

  /** Every exit path: stop the fault timers, close the control server and proxies, stop every process. */
  async close(): Promise<void> {
    for (const t of this.aofTicks.values()) t.stop();
    this.faults?.stop();
    this.control?.close();
    this.links.close();
    this.storageLinks.close();
    this.peerLinks?.close();
    await this.group.stop();
  }
}
