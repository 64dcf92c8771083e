// Scenario → real-mode plan. Everything real mode cannot do as the scenario says is refused
// here, before any process starts, naming the field or fault step; what it runs without
// (the simulator's network latency model, a wait bound the library lacks) is listed in
// `notApplied`, printed with the run and kept in results.json — never dropped silently.
//
// Fault steps, and how each trigger is made race-free (docs/real-mode.md):
//   pause of a client or a redis-server, triggered
//     at a time (atMs)                      → a driver timer; SIGSTOP whatever the target is doing
//     on a client's read/write invoke       → when that request reaches the in-driver storage:
//                                             the request has left by then; the driver applies
//                                             it, SIGSTOPs the target, waits until the kernel
//                                             shows it stopped, and only then sends the reply
//     on a client's ok/fail/info event      → a gate: the client sends the event and waits for
//                                             the driver's go; the driver stops the target and
//                                             then sends go, which is read after SIGCONT. A pause
//                                             of that client itself holds it only after the code
//                                             following the event ran on to its next wait, so its
//                                             timers run through the pause (as in the simulator)
//     on a storage-write event              → in the driver, as the write is recorded
//   pause, crash or restart of a server (etcd, ZooKeeper, redis-failover's Redis), also
//     on a client's acquire/release/extend invoke → when that event reaches the driver, nothing
//                                             held: the request may or may not have reached
//                                             the server first. Both orders are instances of
//                                             the scenario ("the leader crashes during the
//                                             acquisition"), and a safe design is safe in both
//   a step naming designOptions.preferredLeader → whichever member leads when it fires
//   clock-jump of a redis-server            → emulated: every TTL on it shifted by deltaMs (real/ttl-shift.ts)
//   clock-jump of a client; clocks.<client> → its process's wall clock under libfaketime (real/faketime.ts)
//   crash/restart of a plain redis-server   → a host crash, emulated: SIGKILL, the AOF cut back to its
//                                             last 1 s fsync tick (everysec; real/aof-cut.ts), restart
//   partition/cut/isolate/heal              → the per-link proxies hold bytes (client↔server links;
//                                             redis-failover's replication links; etcd/ZooKeeper peer
//                                             links, real/peer-proxies.ts); a cut at time 0 is
//                                             in force before the clients start; on a client's
//                                             acquire/release/extend invoke → a gate, so the cut is in
//                                             force before the request leaves
//   delay/loss of client↔server links,      → the same proxies' delay lines (real/link-conditions.ts), with the
//     network.links, network.lossRate         same triggers as a cut; a loss is TCP's: the bytes come late (RTO), never not at all
//   delay/loss of etcd/ZooKeeper peer links → the peer proxies' delay lines (the same pipe, real/pipe.ts); steps only, and
//                                             not of a link naming the preferred leader (resolved for cuts only)
//   every other kind or trigger             → refused (other clock faults, partitions
//                                             of other links; a trigger on an acquire/release/
//                                             extend invoke, whose request leaves inside the
//                                             client library — a per-link proxy would be needed)
import { InputError } from "../sim/errors.js";
import type { EventType } from "../sim/history.js";
import { conditionLinks, type FaultStep, type Scenario } from "../scenarios/schema.js";
import { faultDef, killsProcess, mechanismOf, realSupportOf } from "../faults/index.js";
import { designServerIds, planDesign } from "./designs.js";
import { REDIS_CLOCK_WHY, type AofMode, type RealDesignPlan } from "../designs/real-plan.js";
import { designByName, profileOf } from "../designs/index.js";
import type { LinkSettings } from "./link-conditions.js";
import { RESOURCE_ID } from "./storage.js";
import { scaleScenario, timeScaleInfo, type TimeScale } from "./time-scale.js";
import { FAKETIME_LIB, faketimeAvailable, type FakeClock } from "./faketime.js";
import { HOST_CRASH_NOTE } from "./aof-cut.js";

/** What a crash of a plain redis-server does to its data, by its AOF mode. */
function hostCrashNote(aof: AofMode): string {
  if (aof === "everysec") return `${HOST_CRASH_NOTE} (the server runs appendfsync no; the driver notes the AOF's length every 1 s)`;
  if (aof === "always") return "host crash emulated: appendfsync always, every write was on disk before its reply, so nothing is cut";
  return "host crash emulated: no persistence, so SIGKILL loses the whole keyspace, as a host crash would";
}

export type FaultTrigger =
  | { kind: "time"; atMs: number }
  /** A client's storage request of this kind reaching the driver, the nth time. */
  | { kind: "storage-request"; process: string; f: "read" | "write"; nth: number }
  /** A client's own ok/fail/info event: it waits at a gate until the fault is applied. */
  | { kind: "gate"; process: string; f: string; type: EventType; nth: number; gateId: number }
  /** The in-driver storage's own event (storage-write ok/fail). */
  | { kind: "storage-event"; f: string; type: EventType; nth: number }
  /** A client's event reaching the driver, held nowhere (server faults on acquire/release/extend invokes). */
  | { kind: "client-event"; process: string; f: string; type: EventType; nth: number };

export interface PlannedFault {
  index: number;
  step: FaultStep;
  target: string;
  targetKind: "client" | "server";
  trigger: FaultTrigger;
  /** The target is the design's preferredLeader: act on the member leading when the step fires. */
  leader?: boolean;
  /** partition/cut/isolate: the directed links it cuts (client↔server through the per-link proxies, server↔server through the peer proxies). */
  links?: Array<[string, string]>;
}

/** A link between a client and the in-driver storage (either direction). */
function isStorageLink(a: string, b: string, clients: ReadonlySet<string>): boolean {
  return (a === RESOURCE_ID && clients.has(b)) || (b === RESOURCE_ID && clients.has(a));
}

/** A step real mode performs on the proxied links (cut or conditioned), by its kind's declared mechanism. */
function isNetworkStep(step: FaultStep): boolean {
  const real = realSupportOf(step.kind);
  return "mechanism" in real && (real.mechanism === "proxy-cut" || real.mechanism === "proxy-heal" || real.mechanism === "proxy-condition");
}

/**
 * The directed links a network step cuts, each between a client and a server (the per-link
 * proxies sit there). Server ids the simulator has but the real cluster lacks (etcd-4 of a
 * 5-member model run on 3) are dropped, and said so; any other link is refused.
 */
function linksOf(
  step: FaultStep,
  at: string,
  clients: ReadonlySet<string>,
  servers: ReadonlySet<string>,
  simOnly: (id: string) => boolean,
  /** A server↔server link the driver proxies (redis-failover's replication links). */
  proxiedServerLink: (a: string, b: string) => boolean,
  /** Why client↔server links of this design cannot be cut, if they cannot. */
  clientLinksWhy: string | undefined,
  notApplied: string[],
  field: (f: string, why: string) => never,
  /** A link between two members of an etcd/ZooKeeper cluster (real/peer-proxies.ts proxies them). */
  peerLink: (a: string, b: string) => boolean = () => false,
): Array<[string, string]> {
  const raw: Array<[string, string]> = [];
  raw.push(...(faultDef(step.kind).links?.(step, [...clients, ...servers]) ?? []));
  const dropped = new Set<string>();
  const storageDropped = new Set<string>();
  const out: Array<[string, string]> = [];
  for (const [a, b] of raw) {
    if (simOnly(a) || simOnly(b)) {
      dropped.add(simOnly(a) ? a : b);
      continue;
    }
    if (peerLink(a, b)) {
      out.push([a, b]);
      continue;
    }
    // A partition that lists the storage on one side: servers never talk to it (nothing to
    // cut); a client's storage calls go over its control connection, which is not cut — said so.
    if (step.groups !== undefined && (a === RESOURCE_ID || b === RESOURCE_ID)) {
      const other = a === RESOURCE_ID ? b : a;
      if (clients.has(other)) storageDropped.add(other);
      continue;
    }
    // A cut of a client's link to the storage is held in the driver (real/storage-links.ts).
    if (mechanismOf(step.kind) === "proxy-cut" && isStorageLink(a, b, clients)) {
      out.push([a, b]);
      continue;
    }
    const clientServer = (clients.has(a) && servers.has(b)) || (servers.has(a) && clients.has(b));
    if (clientServer && clientLinksWhy) field(at, `the link ${a} → ${b}: ${clientLinksWhy}`);
    if (clientServer || proxiedServerLink(a, b)) out.push([a, b]);
    else if (clients.has(a) && clients.has(b))
      continue; // clients never talk to each other: nothing to cut
    else
      field(
        at,
        `the link ${a} → ${b}: real mode cuts links between a client and a server (its per-link TCP proxies sit there), between etcd members or ZooKeeper servers (peer proxies), redis-failover's replication links, and (by a cut step) a client's links to the storage; other server↔server links, and storage links in other steps, are not in real mode yet`,
      );
  }
  if (storageDropped.size > 0)
    notApplied.push(
      `${at}: the links between ${[...storageDropped].join(", ")} and the storage: the storage is in the driver, reached over the control connection, which is not cut (a write it sends during the partition arrives)`,
    );
  if (dropped.size > 0) notApplied.push(`${at}: ${[...dropped].join(", ")} exist only in the simulator's larger cluster; their links are not cut`);
  if (out.length === 0 && mechanismOf(step.kind) !== "proxy-heal") field(at, "no proxied link left to cut");
  return out;
}

/** A run's random nemesis (real/nemesis.ts plans it): the simulator's draw for the run's seed. */
export interface RealNemesis {
  seed: number;
  /** Every step the simulator draws for this seed, in its order. */
  drawn: FaultStep[];
  /** Per drawn step: undefined = performed, else why not. */
  notPerformed: Array<string | undefined>;
}

export interface RealPlan {
  /** The scenario with --time-scale applied (what the run and the checkers use). */
  scenario: Scenario;
  /** The scenario as written. */
  original: Scenario;
  design: RealDesignPlan;
  faults: PlannedFault[];
  notApplied: string[];
  timeScale: TimeScale;
  /** Clients reach the servers through per-link TCP proxies (the scenario cuts, delays or loses client↔server links). */
  proxied: boolean;
  /** Standing delay/loss per directed client↔server link (network.links, network.lossRate), in force from t0 (not during set-up). */
  linkConditions: Array<{ from: string; to: string; settings: Partial<LinkSettings> }>;
  /** Clients whose process runs under libfaketime, with the clock each starts with (real/faketime.ts). */
  fakeClocks: Record<string, FakeClock>;
  /** The cluster's members reach each other through peer proxies (the scenario cuts server↔server links). */
  peerProxied: boolean;
  /** The random nemesis's steps for this run's seed (real/nemesis.ts), when the scenario has one. */
  nemesis?: RealNemesis;
}

const stopSignal = (step: FaultStep): boolean => mechanismOf(step.kind) === "stop-signal";

/**
 * Why a fault kind is refused, or what its mechanism does not reach yet (declared in
 * faults/<kind>.ts); for a kind acting on a server's clock, the design's reason that clock
 * cannot be faked (its DesignEntry's `real`).
 */
function notYet(kind: string, design: string, serverTarget: boolean): string | undefined {
  const real = realSupportOf(kind);
  if (real.serverClock && serverTarget)
    return `a server's clock cannot be faked in real mode (${designByName(design)?.real?.serverClocksWhy ?? REDIS_CLOCK_WHY})`;
  return "refused" in real ? real.refused : real.limits;
}

const SIM_NETWORK_DEFAULTS = { latencyUsBase: 500, latencyUsJitter: 200 };

function describeStep(st: FaultStep): string {
  const trig = st.atMs !== undefined ? `at ${st.atMs} ms` : `on ${st.on!.process}'s ${st.on!.f} ${st.on!.type}${st.on!.nth > 1 ? ` #${st.on!.nth}` : ""}`;
  return `${st.kind}${st.target ? ` of ${st.target}` : ""} ${trig}`;
}

export function planReal(original: Scenario, timeScale = 1): RealPlan {
  const s = scaleScenario(original, timeScale);
  const notApplied: string[] = [];
  const field = (f: string, why: string): never => {
    throw new InputError(s.file, f, `real mode cannot run this: ${why}`);
  };

  if (s.nemesis) field("nemesis", "a random nemesis is drawn per run from its seed: plan it with planRealRun (real/nemesis.ts)");
  planClientClocks(s, original, notApplied, field);
  const n = s.network;
  if (n.duplicateRate > 0) field("network.duplicateRate", "TCP does not duplicate, and no proxy adds duplicates yet");
  if (n.latencyUsBase !== SIM_NETWORK_DEFAULTS.latencyUsBase || n.latencyUsJitter !== SIM_NETWORK_DEFAULTS.latencyUsJitter) {
    notApplied.push(
      `network.latencyUsBase ${n.latencyUsBase} µs / latencyUsJitter ${n.latencyUsJitter} µs: the simulator's latency model; real runs have loopback's own latency`,
    );
  }

  const design = planDesign(s, notApplied);
  clientClocksFakeable(s, design, field);
  if (s.workload.fencing && !design.fencing) field("workload.fencing", `design "${s.design}" issues no fencing token; expected false, or a design with tokens`);

  const clientIds = new Set(s.clients.map((c) => c.id));
  const serverIds = new Set(designServerIds(design));
  for (const id of clientIds) if (serverIds.has(id) || id === RESOURCE_ID) field("clients", `client id "${id}" clashes with a server process`);
  const linkConditions = standingConditions(s, clientIds, serverIds, design.failover !== undefined, notApplied, field);

  const simServers = new Set(profileOf(s.design, s.designOptions, s.file).servers);
  const stepContext: StepContext = { design, clientIds, serverIds, simServers, notApplied, field };
  const faults = s.faults.map((named, index) => planStep(named, index, stepContext));

  // Clients that run under libfaketime: a clock of their own, or a jump to take.
  const fakeClocks: Record<string, FakeClock> = {};
  for (const id of clientIds) {
    const c = s.clocks[id];
    const jumps = faults.some((f) => mechanismOf(f.step.kind) === "clock-step" && f.target === id);
    if (jumps || (c && (c.offsetMs !== 0 || c.driftPpm !== 0))) fakeClocks[id] = { offsetMs: c?.offsetMs ?? 0, driftPpm: c?.driftPpm ?? 0 };
  }
  if (linkConditions.some((c) => (c.settings.lossRate ?? 0) > 0) || faults.some((f) => f.step.lossRate !== undefined)) notApplied.push(LOSS_AS_TCP);
  const proxied =
    linkConditions.length > 0 || faults.some((f) => f.links?.some(([a, b]) => (clientIds.has(a) || clientIds.has(b)) && !isStorageLink(a, b, clientIds)));
  const peerProxied = design.cluster !== undefined && faults.some((f) => f.links?.some(([a, b]) => serverIds.has(a) && serverIds.has(b)));
  return { scenario: s, original, design, faults, notApplied, timeScale: timeScaleInfo(timeScale), proxied, linkConditions, fakeClocks, peerProxied };
}

/** What planning one fault step needs of the plan around it. */
interface StepContext {
  design: RealDesignPlan;
  clientIds: ReadonlySet<string>;
  serverIds: ReadonlySet<string>;
  /** The servers the simulator runs for this design (a real cluster may be smaller). */
  simServers: ReadonlySet<string>;
  notApplied: string[];
  field: (f: string, why: string) => never;
}

/** One fault step as real mode performs it, or refused by field. */
function planStep(named: FaultStep, index: number, c: StepContext): PlannedFault {
  const { design, field } = c;
  const at = `faults[${index}]`;
  const what = describeStep(named);
  const cluster = design.cluster;
  // "@leader": the member leading when the step fires, as a step naming the preferred leader is.
  const roleLeader = named.target === "@leader";
  if (roleLeader && cluster === undefined) field(`${at}.target`, `${what}: "@leader" names a Raft design's leader; this design has none`);
  const step = roleLeader && cluster ? { ...named, target: cluster.preferredLeader ?? cluster.ids[0]! } : named;
  return isNetworkStep(step) ? planNetworkStep(step, index, at, what, c) : planProcessStep(step, index, at, what, roleLeader, c);
}

/** A cut, delay or loss of links: the links real mode proxies, and whether it names the leader. */
function planNetworkStep(step: FaultStep, index: number, at: string, what: string, c: StepContext): PlannedFault {
  const { design, clientIds, serverIds, notApplied, field } = c;
  const cluster = design.cluster;
  const simOnly = (id: string): boolean => cluster !== undefined && !serverIds.has(id) && c.simServers.has(id);
  const fo = design.failover;
  const replication = (a: string, b: string): boolean =>
    fo !== undefined && ((a === fo.primary && fo.replicas.includes(b)) || (b === fo.primary && fo.replicas.includes(a)));
  const clientLinksWhy = fo
    ? "redis-failover's clients reach the primary at the address Sentinel hands out, so their links are not proxied; real mode cuts its replication links only"
    : undefined;
  const peer = (a: string, b: string): boolean => cluster !== undefined && serverIds.has(a) && serverIds.has(b);
  const links = linksOf(step, at, clientIds, serverIds, simOnly, replication, clientLinksWhy, notApplied, field, peer);
  // The peer proxies carry their connections through the same pipe and delay line as the
  // client proxies (real/pipe.ts). Only a cut resolves the named leader to the current one so far.
  const peerLink = links.find(([a, b]) => peer(a, b) && (a === cluster?.preferredLeader || b === cluster?.preferredLeader));
  if (mechanismOf(step.kind) === "proxy-condition" && peerLink)
    field(
      at,
      `${what}: the link ${peerLink[0]} → ${peerLink[1]} names designOptions.preferredLeader, which real mode resolves to the current leader for cuts only; expected a delay or loss of links between members named as they are`,
    );
  const target = step.target ?? "network";
  // Naming the preferred leader means "the leader": the member leading when the step fires takes its place.
  const leader = cluster?.preferredLeader !== undefined && links.some((l) => l.includes(cluster.preferredLeader!));
  return {
    index,
    step,
    target,
    targetKind: "server",
    trigger: triggerOf(step, index, at, what, clientIds, serverIds, field, "server", true),
    links,
    ...(leader ? { leader } : {}),
  };
}

/** A pause, crash, restart or clock jump of one process. */
function planProcessStep(step: FaultStep, index: number, at: string, what: string, roleLeader: boolean, c: StepContext): PlannedFault {
  const { design, clientIds, serverIds, notApplied, field } = c;
  const cluster = design.cluster;
  // Redis servers of redis-failover run without persistence, so a SIGKILL loses all a host crash would.
  const redisCrashable = design.failover !== undefined && step.target !== undefined && design.redis.some((r) => r.id === step.target);
  const kills = killsProcess(step.kind);
  const serverCrash = kills && (cluster !== undefined || redisCrashable);
  if (design.failover && step.target !== undefined && !clientIds.has(step.target) && !redisCrashable) {
    field(
      `${at}.target`,
      `${what}: real mode runs the simulator's one sentinel as ${design.failover.sentinels.join(", ")}, and faults of a sentinel are not in real mode yet; expected one of: ${design.redis.map((r) => r.id).join(", ")} or a client`,
    );
  }
  // A redis-server's clock jump is emulated by shifting its TTLs (real/ttl-shift.ts); said so with the run.
  const clockStep = mechanismOf(step.kind) === "clock-step";
  const redisJump = clockStep && cluster === undefined && step.target !== undefined && design.redis.some((r) => r.id === step.target);
  if (redisJump)
    notApplied.push(
      `${at}: the clock-jump of ${step.target} (${step.deltaMs} ms) is emulated: every TTL on it shifted by that much at once (PTTL shift), as redis-server cannot run under libfaketime`,
    );
  // A client's clock jump is real: its process runs under libfaketime (real/faketime.ts).
  const clientJump = clockStep && step.target !== undefined && clientIds.has(step.target);
  if (clientJump && !faketimeAvailable())
    field(at, `${what}: a client's clock is faked with libfaketime, not installed (${FAKETIME_LIB}; scripts/ensure-real-servers.sh installs it)`);
  const clientClocksWhy = clientJump ? design.clientClocksWhy?.(FAKETIME_LIB) : undefined;
  if (clientClocksWhy) field(at, `${what}: ${clientClocksWhy}`);
  // A plain redis-server's crash is a host crash, emulated by cutting its AOF (real/aof-cut.ts).
  const plainRedisCrash = kills && cluster === undefined && !design.failover && step.target !== undefined && design.redis.some((r) => r.id === step.target);
  if (plainRedisCrash) notApplied.push(`${at}: ${hostCrashNote(design.redis.find((r) => r.id === step.target)!.aof)}`);
  if (!stopSignal(step) && !serverCrash && !redisJump && !clientJump && !plainRedisCrash) {
    field(
      at,
      `${what}: ${notYet(step.kind, design.name, step.target !== undefined && serverIds.has(step.target)) ?? "not in real mode yet"}; real mode performs pauses, cuts, delays and loss of proxied links, clock jumps of a client (libfaketime)${cluster || design.failover ? ", crash/restart of a server" : ", crash/restart of a redis-server (a host crash: its AOF cut back to the last fsync), clock jumps of a redis-server (emulated)"} only so far`,
    );
  }
  const target = step.target!;
  const targetKind = clientIds.has(target)
    ? "client"
    : serverIds.has(target)
      ? "server"
      : field(`${at}.target`, `unknown process "${target}"; expected one of: ${[...clientIds, ...serverIds].join(", ")}`);
  if ((serverCrash || plainRedisCrash) && targetKind !== "server")
    field(`${at}.target`, `${what}: real mode crashes servers only (a client crash is not in real mode yet); expected one of: ${[...serverIds].join(", ")}`);
  const trigger = triggerOf(step, index, at, what, clientIds, serverIds, field, targetKind);
  const leader = targetKind === "server" && (roleLeader || cluster?.preferredLeader === target);
  return { index, step, target, targetKind, trigger, ...(leader ? { leader } : {}) };
}

/** Clients' clock offsets and drift need clients whose runtime libfaketime can move (a lock driver's may not). */
function clientClocksFakeable(s: Scenario, design: RealDesignPlan, field: (f: string, why: string) => never): void {
  const faked = Object.entries(s.clocks).find(([id, c]) => s.clients.some((x) => x.id === id) && (c.offsetMs !== 0 || c.driftPpm !== 0));
  const why = faked ? design.clientClocksWhy?.(FAKETIME_LIB) : undefined;
  if (faked && why) field(`clocks.${faked[0]}`, why);
}

/** Clients' clock offsets and drift, faked with libfaketime; a server's clock cannot be. */
function planClientClocks(s: Scenario, original: Scenario, notApplied: string[], field: (f: string, why: string) => never): void {
  const scenarioClients = new Set(s.clients.map((c) => c.id));
  for (const [id, c] of Object.entries(s.clocks)) {
    if (c.offsetMs === 0 && c.driftPpm === 0) continue;
    // A client's clock is its Node process's, under libfaketime (real/faketime.ts); a server's cannot be faked.
    if (!scenarioClients.has(id))
      field(
        `clocks.${id}`,
        `clock offsets and drift of a server are not in real mode yet (${designByName(original.design)?.real?.serverClocksWhy ?? REDIS_CLOCK_WHY}); a client's clock is faked with libfaketime`,
      );
    if (!faketimeAvailable())
      field(`clocks.${id}`, `a client's clock is faked with libfaketime, not installed (${FAKETIME_LIB}; scripts/ensure-real-servers.sh installs it)`);
    notApplied.push(
      `clocks.${id}: the client's wall clock (Date.now) offset ${c.offsetMs} ms${c.driftPpm !== 0 ? `, rate ${c.driftPpm} ppm from its process's start (not from t0)` : ""} by libfaketime; its monotonic clock is the host's`,
    );
  }
}

const LOSS_AS_TCP =
  "message loss: TCP loses no bytes, so a lost segment is modelled as TCP recovers it — the bytes arrive after a retransmission timeout (200 ms, doubling on each consecutive loss of the same chunk; later bytes wait behind it), where the simulator drops the message";

/**
 * network.links and network.lossRate as standing conditions of the proxied client↔server
 * links (later entries win field by field, as sim/network.ts merges them). The simulator's
 * latency is a link's whole latency; on a real link loopback's own comes on top.
 */
function standingConditions(
  s: Scenario,
  clients: ReadonlySet<string>,
  servers: ReadonlySet<string>,
  failover: boolean,
  notApplied: string[],
  field: (f: string, why: string) => never,
): RealPlan["linkConditions"] {
  const byLink = new Map<string, { from: string; to: string; settings: Partial<LinkSettings> }>();
  const at = (from: string, to: string) => {
    const k = `${from}\u0000${to}`;
    let e = byLink.get(k);
    if (!e) byLink.set(k, (e = { from, to, settings: {} }));
    return e.settings;
  };
  const n = s.network;
  if (n.lossRate > 0) {
    if (failover) field("network.lossRate", "redis-failover's clients reach the primary at the address Sentinel hands out, so their links are not proxied");
    for (const c of clients) {
      for (const v of servers) {
        at(c, v).lossRate = n.lossRate;
        at(v, c).lossRate = n.lossRate;
      }
    }
    notApplied.push(`network.lossRate ${n.lossRate}: applied to the client↔server links only (the storage's links and the servers' own links are not proxied)`);
  }
  n.links.forEach((cond, i) => {
    const f = `network.links[${i}]`;
    if ((cond.duplicateRate ?? 0) > 0) field(`${f}.duplicateRate`, "TCP does not duplicate, and no proxy adds duplicates yet");
    for (const [a, b] of conditionLinks(cond)) {
      if (clients.has(a) && clients.has(b)) continue; // clients never talk to each other
      const clientServer = (clients.has(a) && servers.has(b)) || (servers.has(a) && clients.has(b));
      if (!clientServer)
        field(
          f,
          `the link ${a} → ${b}: real mode applies conditions to links between a client and a server (its per-link TCP proxies sit there); expected client and server ids`,
        );
      if (failover) field(f, "redis-failover's clients reach the primary at the address Sentinel hands out, so their links are not proxied");
      const e = at(a, b);
      if (cond.latencyUsBase !== undefined) e.delayUsBase = cond.latencyUsBase;
      if (cond.latencyUsJitter !== undefined) e.delayUsJitter = cond.latencyUsJitter;
      if (cond.lossRate !== undefined) e.lossRate = cond.lossRate;
    }
  });
  if (n.links.some((c) => c.latencyUsBase !== undefined || c.latencyUsJitter !== undefined)) {
    notApplied.push(
      "network.links latencies: added by the proxies on top of loopback's own latency (tens of µs, more under load); links they do not name keep loopback's",
    );
  }
  return [...byLink.values()];
}

function triggerOf(
  step: FaultStep,
  index: number,
  at: string,
  what: string,
  clients: ReadonlySet<string>,
  servers: ReadonlySet<string>,
  field: (f: string, why: string) => never,
  targetKind: "client" | "server",
  /** A network step: a client's invoke can be a gate, the cut applied before its request leaves. */
  network = false,
): FaultTrigger {
  if (step.atMs !== undefined) return { kind: "time", atMs: step.atMs };
  const on = step.on!;
  if (clients.has(on.process)) {
    if (on.type === "invoke" && network && on.f !== "lapse" && on.f !== "read" && on.f !== "write")
      return { kind: "gate", process: on.process, f: on.f, type: on.type, nth: on.nth, gateId: index };
    if (on.type === "invoke") {
      if (on.f === "read" || on.f === "write") return { kind: "storage-request", process: on.process, f: on.f, nth: on.nth };
      if (targetKind === "server" && on.f !== "lapse") return { kind: "client-event", process: on.process, f: on.f, type: on.type, nth: on.nth };
      return field(
        `${at}.on`,
        `${what}: the ${on.f} request leaves inside the client library, and only a per-link proxy (not in real mode yet) could act right after it left; real mode triggers on a read/write invoke, on a client's ok/fail/info event, or at a time`,
      );
    }
    if (on.f === "lapse")
      return field(`${at}.on`, `${what}: lapse notes are placed by the driver after the run (a stopped client notes nothing), so they cannot trigger a fault`);
    return { kind: "gate", process: on.process, f: on.f, type: on.type, nth: on.nth, gateId: index };
  }
  if (on.process === RESOURCE_ID) return { kind: "storage-event", f: on.f, type: on.type, nth: on.nth };
  if (servers.has(on.process)) return field(`${at}.on.process`, `${what}: ${on.process} records no history events, so it can trigger nothing`);
  return field(
    `${at}.on.process`,
    `${what}: real mode triggers on a client's or the storage's events; expected one of: ${[...clients, RESOURCE_ID].join(", ")}`,
  );
}
