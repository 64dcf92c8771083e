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
import { ServerGroup, stoppedBySignal, type ServerProcess } from "./servers/index.js";
import { hrNowNs, RunClock } from "./clock.js";
import { addClientProcess, clientDir } from "./clients.js";
import { ControlServer } from "./control.js";
import { RealRunError } from "./errors.js";
import { RealFaults, type FaultLog } from "./faults.js";
import { RunHistory } from "./history.js";
import type { RealPlan } from "./plan.js";
import { GATE_GO_FILE, type ClientConfig, type FromClient, type StorageRequest, type WireEvent } from "./protocol.js";
import { DriverStorage, RESOURCE_ID } from "./storage.js";
import { checkRun, type RunCheck } from "./run-checks.js";
import { startDesignServers, type StartedServer } from "./start-servers.js";
import { designServerIds } from "./designs.js";
import { currentLeader } from "./leader.js";
import { PeerLinks } from "./peer-proxies.js";
import { ProxySet } from "./proxy.js";
import type { TimeScale } from "./time-scale.js";
import { ClientClockFile, type ClockReading } from "./faketime.js";
import { clientClockChecks, hostCrashChecks, hostCrashTargets, type ClientClockEvidence } from "./fault-checks.js";
import { AofFsyncTicks } from "./aof-cut.js";

/** After the scenario's end, as harness/runner.ts: time for outstanding operations to complete (scaled with the run). */
export const DRAIN_MS = 2_000;
/** t0 lies this far after the start message leaves, so every client has it before time zero. */
const START_LEAD_MS = 50;
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
  closed: boolean;
  pong?: (ns: bigint, wallMs: number | undefined) => void;
  /** The libfaketime file of a client whose clock is faked. */
  fakeClock?: ClientClockFile;
  /** Its clocks as the child read them at the start ping, and the host's Date.now() then. */
  startReading?: ClockReading;
  hostWallMsAtStart?: number;
  /** Stamp of this client's last event in arrival order: a client's own events must arrive in stamp order. */
  lastUs: number;
  misordered: number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function isWireEvent(ev: unknown): ev is WireEvent {
  const e = ev as WireEvent;
  return typeof e === "object" && e !== null && Number.isFinite(e.timeUs) && EVENT_TYPES.has(e.type) && typeof e.f === "string";
}

export async function runRealOnce(plan: RealPlan, opts: RealRunOptions): Promise<RealRunOutput> {
  const s = plan.scenario;
  const wallStart = performance.now();
  const group = new ServerGroup(opts.parentDir ? { parentDir: opts.parentDir } : {});
  let control: ControlServer | undefined;
  let faults: RealFaults | undefined;
  let proxies: ProxySet | undefined;
  /** Driver fsync ticks of the redis-servers a crash step may cut (everysec). */
  const aofTicks = new Map<string, AofFsyncTicks>();
  let peerLinks: PeerLinks | undefined;
  try {
    const secret = randomBytes(16).toString("hex");
    const clients = new Map<string, ClientState>(
      s.clients.map((c, index) => [c.id, { id: c.id, index, ready: false, packages: {}, done: false, closed: false, lastUs: -Infinity, misordered: 0 }]),
    );
    const history = new RunHistory();
    // Set once the run starts; read by callbacks made before it.
    // eslint-disable-next-line prefer-const
    let clock: RunClock | undefined;
    let runError: Error | undefined;
    let storageRequests = 0;
    let messages = 0;
    /** Fault applications the reply being prepared must wait for (storage.handle is synchronous). */
    let heldBy: Array<Promise<FaultLog[]>> = [];
    const storage = new DriverStorage({ fencing: s.workload.fencing, ownerCheck: s.workload.ownerCheck }, (type, f, lock, value) => {
      history.add(RESOURCE_ID, clock!.nowUs(), type, f, lock, value);
      if (faults) heldBy.push(faults.onStorageEvent(f, type));
    });

    // Servers start while the client processes boot; a client gets its config once they are up.
    // With link faults, each client reaches each server through its own proxy in the driver.
    // Server↔server links (redis-failover's replication) are proxied from the start.
    const links = new ProxySet();
    links.seed = `lockstep-real:${opts.seed}`;
    proxies = links;
    const runEndMs = s.durationMs + DRAIN_MS * plan.timeScale.factor;
    if (plan.peerProxied) (peerLinks = new PeerLinks()).seed = links.seed;
    const serversReady: Promise<StartedServer[]> = startDesignServers(group, plan.design, { links, runEndMs, ...(peerLinks ? { peerLinks } : {}) }).then(
      async (started) => {
        if (plan.proxied)
          await links.addAll(
            s.clients.map((c) => c.id),
            started.map((r) => r.endpoint),
          );
        for (const id of hostCrashTargets(plan)) {
          const r = started.find((x) => x.id === id && x.kind === "redis-server");
          if (!r || plan.design.redis.find((d) => d.id === id)?.aof !== "everysec") continue;
          const t = new AofFsyncTicks(r.process.spec.cwd);
          aofTicks.set(id, t);
          t.start();
        }
        return started;
      },
    );
    serversReady.catch(() => {});
    const endpointFor = (clientId: string, r: StartedServer) => {
      const p = proxies?.get(clientId, r.id);
      return p ? { ...r.endpoint, port: p.port } : r.endpoint;
    };
    const configFor = (c: ClientState, redis: StartedServer[]): ClientConfig => ({
      clientId: c.id,
      seed: `lockstep-real:${opts.seed}:${c.id}`,
      client: s.clients[c.index]!,
      workload: s.workload,
      recipe: plan.design.recipe(redis.map((r) => endpointFor(c.id, r))),
      gates: plan.faults.flatMap((pf) => {
        const t = pf.trigger;
        if (t.kind !== "gate" || t.process !== c.id) return [];
        const holdAfter = pf.step.kind === "pause" && pf.target === c.id;
        return [{ gateId: t.gateId, f: t.f, type: t.type, nth: t.nth, ...(holdAfter ? { holdAfter } : {}) }];
      }),
      gateTimeoutMs: loadTolerantMs(5_000) + Math.max(0, ...plan.faults.map((pf) => pf.step.durationMs ?? 0)),
      endUs: Math.round(s.durationMs * 1000),
    });
    const fail = (err: unknown) => {
      runError ??= err instanceof Error ? err : new Error(String(err));
    };

    const handleStorage = async (id: string, req: StorageRequest): Promise<void> => {
      if (!clock || !faults) return;
      storageRequests++;
      heldBy = [];
      const reply = storage.handle(id, req);
      const held = heldBy;
      heldBy = [];
      const logs = (await Promise.all([faults.onStorageRequest(id, req.type === "resource-read" ? "read" : "write"), ...held])).flat();
      const now = clock.nowUs();
      for (const l of logs) l.releasedUs ??= now;
      control!.send(id, { t: "storage-reply", body: reply });
    };
    const handleGate = async (id: string, gateId: number): Promise<void> => {
      if (!clock || !faults) return;
      const logs = await faults.onGate(id, gateId);
      const now = clock.nowUs();
      for (const l of logs) l.releasedUs ??= now;
      // A client holding after its continuation (a pause of itself) reads this file, not the socket: it holds synchronously.
      const dir = clients.get(id)?.proc?.spec.cwd;
      if (dir) appendFileSync(join(dir, GATE_GO_FILE), `${gateId}\n`);
      control!.send(id, { t: "go", gateId });
    };
    const onMessage = (id: string, msg: FromClient): void => {
      const c = clients.get(id)!;
      messages++;
      switch (msg.t) {
        case "hello":
          c.pid = msg.pid;
          void serversReady.then((redis) => control!.send(id, { t: "config", config: configFor(c, redis) })).catch(() => {});
          return;
        case "ready":
          c.ready = true;
          c.packages = msg.packages;
          if (msg.notes?.length) c.notes = msg.notes;
          return;
        case "pong":
          c.pong?.(BigInt(msg.hrNs), msg.wallMs);
          return;
        case "event":
          if (!clock) return;
          if (!isWireEvent(msg.ev)) return fail(new RealRunError(`client ${id} sent a malformed event`));
          if (msg.ev.timeUs < c.lastUs) c.misordered++;
          c.lastUs = msg.ev.timeUs;
          history.add(id, msg.ev.timeUs, msg.ev.type, msg.ev.f, msg.ev.lock, msg.ev.value);
          faults?.onClientEvent(id, msg.ev.f, msg.ev.type);
          return;
        case "grant":
          history.grant(id, msg.grantId, msg.atUs, msg.expiresAtUs);
          return;
        case "storage":
          void handleStorage(id, msg.msg).catch(fail);
          return;
        case "gate":
          void handleGate(id, msg.gateId).catch(fail);
          return;
        case "done":
          c.done = true;
          c.ops = msg.ops;
          return;
        case "fatal":
          c.fatal = msg.message;
          return;
      }
    };
    control = await ControlServer.listen(secret, new Set(clients.keys()), {
      onMessage,
      onClose: (id) => {
        clients.get(id)!.closed = true;
      },
    });

    for (const c of clients.values()) {
      const fake = plan.fakeClocks[c.id];
      if (fake) c.fakeClock = new ClientClockFile(clientDir(group, c.index), fake);
      c.proc = addClientProcess(group, c.index, c.id, { port: control.port, secret }, () => c.ready, c.fakeClock?.env());
    }
    await Promise.all([...clients.values()].map((c) => c.proc!.spawnProcess()));
    const redis = await serversReady;
    await Promise.all([...clients.values()].map((c) => c.proc!.waitReady()));

    // Every client must read the same CLOCK_MONOTONIC as the driver: its reading in reply to
    // a ping lies between the driver's readings before the ping and after the pong.
    const clockSpreadUs: number[] = [];
    const readClock = (c: ClientState): Promise<ClockReading> =>
      new Promise<ClockReading>((resolve, reject) => {
        const boundMs = loadTolerantMs(PING_TIMEOUT_MS);
        const t = setTimeout(() => reject(new RealRunError(`client ${c.id} did not answer a clock ping within ${boundMs} ms (${loadNote()})`)), boundMs);
        c.pong = (ns, wallMs) => {
          clearTimeout(t);
          c.pong = undefined;
          resolve({ hrNs: ns, wallMs: wallMs ?? Number.NaN });
        };
        control!.send(c.id, { t: "ping" });
      });
    for (const c of clients.values()) {
      const before = hrNowNs();
      const hostWallMs = Date.now();
      const reading = await readClock(c);
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
      clockSpreadUs.push(Number(after - before) / 1000);
    }

    const t0 = hrNowNs() + BigInt(START_LEAD_MS) * 1_000_000n;
    clock = new RunClock(t0);
    faults = new RealFaults(
      plan.faults,
      clock,
      history,
      (id) => clients.get(id)?.proc ?? group.servers.find((p) => p.name === id),
      () => currentLeader(redis),
    );
    faults.proxies = proxies;
    if (peerLinks) faults.peerLinks = peerLinks;
    if (plan.design.cluster) {
      faults.clusterIds = new Set(plan.design.cluster.ids);
      if (plan.design.cluster.preferredLeader !== undefined) faults.preferredLeader = plan.design.cluster.preferredLeader;
    }
    for (const r of redis) if (r.kind === "redis-server") faults.redisPorts.set(r.id, r.endpoint.port);
    // Standing link conditions from here, not during set-up: the clients' connection checks (ioredis's ready check under a 50 ms commandTimeout) are not part of the story.
    for (const c of plan.linkConditions) proxies.conditionsOf(c.from, c.to)?.setStanding(c.settings);
    for (const c of clients.values()) if (c.fakeClock) faults.clientClocks.set(c.id, c.fakeClock);
    faults.readClientClock = (id) => readClock(clients.get(id)!);
    faults.aofTicks = aofTicks;
    faults.install();
    for (const c of clients.values()) control.send(c.id, { t: "start", t0Ns: t0.toString() });
    opts.progress?.(
      `run ${opts.run}/${opts.runs} started: ${redis.map((r) => `${r.id} pid ${r.process.pid}`).join(", ")}; clients ${[...clients.values()].map((c) => `${c.id} pid ${c.proc!.pid}`).join(", ")}`,
    );

    const endUs = s.durationMs * 1000;
    const deadlineUs = endUs + DRAIN_MS * plan.timeScale.factor * 1000;
    let endedBy = "";
    // Bounded by the deadline: each turn sleeps POLL_MS of real time.
    for (;;) {
      const signal = stoppedBySignal();
      if (signal) throw new RealRunError(`stopped by ${signal}`);
      if (runError) throw runError;
      for (const c of clients.values()) {
        if (c.fatal) throw new RealRunError(`client ${c.id} failed: ${c.fatal.split("\n")[0]}`, c.proc!.logTail());
        if (c.closed || !c.proc!.isLive()) throw new RealRunError(`client ${c.id} exited during the run`, c.proc!.logTail());
      }
      for (const r of redis)
        if (!r.process.isLive() && !faults.down.has(r.id)) throw new RealRunError(`${r.id} (${r.kind}) exited during the run`, r.process.logTail());
      const now = clock.nowUs();
      opts.onTick?.(
        `run ${opts.run}/${opts.runs}: ${(Math.min(now, endUs) / 1e6).toFixed(1)}/${(endUs / 1e6).toFixed(1)} s of the scenario, ${history.size} events`,
      );
      if ([...clients.values()].every((c) => c.done) && !faults.busy()) {
        endedBy = "every client finished";
        break;
      }
      if (now >= deadlineUs) {
        endedBy = "the scenario's end plus the drain";
        break;
      }
      await sleep(Math.min(POLL_MS, Math.max(1, (deadlineUs - now) / 1000)));
    }
    const stopUs = Math.min(clock.nowUs(), Math.round(deadlineUs));
    faults.stop();
    // Faked client clocks: read once more, so the run shows the offset and rate the child really had.
    const clockEvidence: ClientClockEvidence[] = [];
    for (const c of clients.values()) {
      if (!c.fakeClock || !c.startReading) continue;
      const end = c.proc!.isLive() ? await readClock(c).catch(() => undefined) : undefined;
      clockEvidence.push({ id: c.id, clock: plan.fakeClocks[c.id]!, start: c.startReading, hostWallMsAtStart: c.hostWallMsAtStart!, ...(end ? { end } : {}) });
    }
    const finals = storage.finalCells(s.workload.locks).map((c) => ({
      process: RESOURCE_ID,
      f: "final-read",
      lock: c.lock,
      value: { counter: c.counter, ...(c.maxToken !== undefined ? { maxToken: c.maxToken } : {}) },
    }));
    const events = history.finish(stopUs, finals);

    const real: RealRunInfo = {
      replayable: false,
      note: REAL_NOTE,
      run: opts.run,
      runs: opts.runs,
      timeScale: plan.timeScale,
      clock: `CLOCK_MONOTONIC (process.hrtime.bigint), read by the driver and by each client process at the instant of its event; µs from the run's t0; ping spread ${Math.max(...clockSpreadUs).toFixed(0)} µs`,
      wallMs: Math.round(performance.now() - wallStart),
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
      })),
      clients: [...clients.values()].map((c) => ({
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
          [...clients.values()].map((c) => ({ id: c.id, misordered: c.misordered })),
        ),
        ...clientClockChecks(plan, faults.log, clockEvidence),
        ...hostCrashChecks(plan, faults.log),
      ],
    };
    const meta: RunMeta = {
      scenario: s.name,
      design: s.design,
      seed: opts.seed,
      durationMs: s.durationMs,
      endUs: stopUs,
      serverIds: designServerIds(plan.design),
      clientIds: s.clients.map((c) => c.id),
      fencingTokens: plan.design.fencing,
      faults: s.faults,
      eventsRun: history.size,
      network: { controlMessages: messages, storageRequests },
      clockSamples: [],
    };
    return { history: events, meta, real, pidsEver: group.pidsEver(), dir: group.dir };
  } finally {
    for (const t of aofTicks.values()) t.stop();
    faults?.stop();
    control?.close();
    proxies?.close();
    peerLinks?.close();
    await group.stop();
  }
}
