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
//                                             then sends go, which is read after SIGCONT
//     on a storage-write event              → in the driver, as the write is recorded
//   pause, crash or restart of a server (etcd, ZooKeeper; crash/restart not for Redis), also
//     on a client's acquire/release/extend invoke → when that event reaches the driver, nothing
//                                             held: the request may or may not have reached
//                                             the server first. Both orders are instances of
//                                             the scenario ("the leader crashes during the
//                                             acquisition"), and a safe design is safe in both
//   a step naming designOptions.preferredLeader → whichever member leads when it fires
//   clock-jump of a redis-server            → emulated: every TTL on it shifted by deltaMs (real/ttl-shift.ts)
//   partition/cut/isolate/heal              → the per-link proxies hold bytes (client↔server links;
//                                             redis-failover's replication links; etcd/ZooKeeper peer
//                                             links, real/peer-proxies.ts); a cut at time 0 is
//                                             in force before the clients start; on a client's
//                                             acquire/release/extend invoke → a gate, so the cut is in
//                                             force before the request leaves
//   every other kind or trigger             → refused (crash/restart of a plain Redis, other clock faults, partitions,
//                                             delays, loss; a trigger on an acquire/release/
//                                             extend invoke, whose request leaves inside the
//                                             client library — a per-link proxy would be needed)
import { InputError } from "../sim/errors.js";
import type { EventType } from "../sim/history.js";
import type { FaultStep, Scenario } from "../scenarios/schema.js";
import { designServerIds, planDesign, type RealDesignPlan } from "./designs.js";
import { RESOURCE_ID } from "./storage.js";
import { scaleScenario, timeScaleInfo, type TimeScale } from "./time-scale.js";

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

const NETWORK_KINDS = new Set<FaultStep["kind"]>(["partition", "cut", "isolate", "heal"]);

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
  if (step.kind === "partition") {
    const g = step.groups!;
    for (let a = 0; a < g.length; a++) for (let b = 0; b < g.length; b++) if (a !== b && !(step.oneWay && b < a)) for (const x of g[a]!) for (const y of g[b]!) raw.push([x, y]);
  } else if (step.kind === "cut") raw.push(...step.links!);
  else if (step.kind === "isolate") for (const o of [...clients, ...servers]) if (o !== step.target) raw.push([step.target!, o], [o, step.target!]);
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
    if (step.kind === "partition" && (a === RESOURCE_ID || b === RESOURCE_ID)) {
      const other = a === RESOURCE_ID ? b : a;
      if (clients.has(other)) storageDropped.add(other);
      continue;
    }
    const clientServer = (clients.has(a) && servers.has(b)) || (servers.has(a) && clients.has(b));
    if (clientServer && clientLinksWhy) field(at, `the link ${a} → ${b}: ${clientLinksWhy}`);
    if (clientServer || proxiedServerLink(a, b)) out.push([a, b]);
    else if (clients.has(a) && clients.has(b)) continue; // clients never talk to each other: nothing to cut
    else field(at, `the link ${a} → ${b}: real mode cuts links between a client and a server (its per-link TCP proxies sit there), between etcd members or ZooKeeper servers (peer proxies), and redis-failover's replication links; other server↔server links and storage links are not in real mode yet`);
  }
  if (storageDropped.size > 0) notApplied.push(`${at}: the links between ${[...storageDropped].join(", ")} and the storage: the storage is in the driver, reached over the control connection, which is not cut (a write it sends during the partition arrives)`);
  if (dropped.size > 0) notApplied.push(`${at}: ${[...dropped].join(", ")} exist only in the simulator's larger cluster; their links are not cut`);
  if (out.length === 0 && step.kind !== "heal") field(at, "no proxied link left to cut");
  return out;
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
  /** Clients reach the servers through per-link TCP proxies (the scenario cuts client↔server links). */
  proxied: boolean;
  /** The cluster's members reach each other through peer proxies (the scenario cuts server↔server links). */
  peerProxied: boolean;
}

/** Why each fault kind other than pause is refused, and what it would take. */
const NOT_YET: Partial<Record<FaultStep["kind"], string>> = {
  crash: "SIGKILL + restart would lose nothing (the page cache outlives the process), so a host crash needs the AOF cut back to its last fsync: not in real mode yet",
  restart: "restart follows crash, which is not in real mode yet",
  "clock-jump": "a jump of a redis-server is emulated (PTTL shift), but of a client or an etcd/ZooKeeper server (libfaketime for Node clients and the JVM is not wired up; etcd ignores it) not in real mode yet",
  "clock-drift": "redis-server deadlocks under libfaketime; drift is not in real mode yet",
  delay: "delaying links needs a per-link TCP proxy, not in real mode yet",
  loss: "losing messages needs a per-link TCP proxy, not in real mode yet",
};

/** Why a design's clocks cannot be faked yet (REAL-SYSTEMS.md). */
const CLOCK_WHY: Record<string, string> = {
  default: "redis-server's clock cannot be faked: libfaketime deadlocks it",
  "etcd-lease": "etcd is a Go binary, which ignores libfaketime",
  "raft-zk": "ZooKeeper's JVM would need libfaketime and its clients' Node processes too; not wired up",
};

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

  if (s.nemesis) field("nemesis", "a random nemesis is not in real mode yet; give the fault steps in `faults`");
  for (const [id, c] of Object.entries(s.clocks)) {
    if (c.offsetMs !== 0 || c.driftPpm !== 0) field(`clocks.${id}`, `clock offsets and drift are not in real mode yet (${CLOCK_WHY[original.design] ?? CLOCK_WHY.default})`);
  }
  const n = s.network;
  if (n.lossRate > 0) field("network.lossRate", "message loss needs a per-link proxy, not in real mode yet");
  if (n.duplicateRate > 0) field("network.duplicateRate", "TCP does not duplicate, and no proxy adds duplicates yet");
  if (n.links.length > 0) field("network.links[0]", "per-link conditions need a per-link proxy, not in real mode yet");
  if (n.latencyUsBase !== SIM_NETWORK_DEFAULTS.latencyUsBase || n.latencyUsJitter !== SIM_NETWORK_DEFAULTS.latencyUsJitter) {
    notApplied.push(`network.latencyUsBase ${n.latencyUsBase} µs / latencyUsJitter ${n.latencyUsJitter} µs: the simulator's latency model; real runs have loopback's own latency`);
  }

  const design = planDesign(s, notApplied);
  if (s.workload.fencing && !design.fencing) field("workload.fencing", `design "${s.design}" issues no fencing token; expected false, or a design with tokens`);

  const clientIds = new Set(s.clients.map((c) => c.id));
  const serverIds = new Set(designServerIds(design));
  for (const id of clientIds) if (serverIds.has(id) || id === RESOURCE_ID) field("clients", `client id "${id}" clashes with a server process`);

  const faults = s.faults.map((step, index): PlannedFault => {
    const at = `faults[${index}]`;
    const what = describeStep(step);
    const cluster = design.cluster;
    if (NETWORK_KINDS.has(step.kind)) {
      const simOnly = (id: string): boolean => cluster !== undefined && !serverIds.has(id) && /^(etcd|zk)-\d+$/.test(id);
      const fo = design.failover;
      const replication = (a: string, b: string): boolean => fo !== undefined && ((a === fo.primary && fo.replicas.includes(b)) || (b === fo.primary && fo.replicas.includes(a)));
      const clientLinksWhy = fo ? "redis-failover's clients reach the primary at the address Sentinel hands out, so their links are not proxied; real mode cuts its replication links only" : undefined;
      const peer = (a: string, b: string): boolean => cluster !== undefined && serverIds.has(a) && serverIds.has(b);
      const links = linksOf(step, at, clientIds, serverIds, simOnly, replication, clientLinksWhy, notApplied, field, peer);
      const target = step.target ?? "network";
      // Naming the preferred leader means "the leader": the member leading when the step fires takes its place.
      const leader = cluster?.preferredLeader !== undefined && links.some((l) => l.includes(cluster.preferredLeader!));
      return { index, step, target, targetKind: "server", trigger: triggerOf(step, index, at, what, clientIds, serverIds, field, "server", true), links, ...(leader ? { leader } : {}) };
    }
    // Redis servers of redis-failover run without persistence, so a SIGKILL loses all a host crash would.
    const redisCrashable = design.failover !== undefined && step.target !== undefined && design.redis.some((r) => r.id === step.target);
    const serverCrash = (step.kind === "crash" || step.kind === "restart") && (cluster !== undefined || redisCrashable);
    if (design.failover && step.target !== undefined && !clientIds.has(step.target) && !redisCrashable) {
      field(`${at}.target`, `${what}: real mode runs the simulator's one sentinel as ${design.failover.sentinels.join(", ")}, and faults of a sentinel are not in real mode yet; expected one of: ${design.redis.map((r) => r.id).join(", ")} or a client`);
    }
    // A redis-server's clock jump is emulated by shifting its TTLs (real/ttl-shift.ts); said so with the run.
    const redisJump = step.kind === "clock-jump" && cluster === undefined && step.target !== undefined && design.redis.some((r) => r.id === step.target);
    if (redisJump) notApplied.push(`${at}: the clock-jump of ${step.target} (${step.deltaMs} ms) is emulated: every TTL on it shifted by that much at once (PTTL shift), as redis-server cannot run under libfaketime`);
    if (step.kind !== "pause" && !serverCrash && !redisJump) {
      field(at, `${what}: ${NOT_YET[step.kind] ?? "not in real mode yet"}; real mode performs pauses, cuts of proxied links${cluster || design.failover ? ", crash/restart of a server" : ""}${cluster ? "" : ", clock jumps of a redis-server (emulated)"} only so far`);
    }
    const target = step.target!;
    const targetKind = clientIds.has(target)
      ? "client"
      : serverIds.has(target)
        ? "server"
        : field(`${at}.target`, `unknown process "${target}"; expected one of: ${[...clientIds, ...serverIds].join(", ")}`);
    if (serverCrash && targetKind !== "server") field(`${at}.target`, `${what}: real mode crashes servers only (a client crash is not in real mode yet); expected one of: ${[...serverIds].join(", ")}`);
    const trigger = triggerOf(step, index, at, what, clientIds, serverIds, field, targetKind);
    const leader = targetKind === "server" && cluster?.preferredLeader === target;
    return { index, step, target, targetKind, trigger, ...(leader ? { leader } : {}) };
  });

  return {
    scenario: s,
    original,
    design,
    faults,
    notApplied,
    timeScale: timeScaleInfo(timeScale),
    proxied: faults.some((f) => f.links?.some(([a, b]) => clientIds.has(a) || clientIds.has(b))),
    peerProxied: design.cluster !== undefined && faults.some((f) => f.links?.some(([a, b]) => serverIds.has(a) && serverIds.has(b))),
  };
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
    if (on.type === "invoke" && network && on.f !== "lapse" && on.f !== "read" && on.f !== "write") return { kind: "gate", process: on.process, f: on.f, type: on.type, nth: on.nth, gateId: index };
    if (on.type === "invoke") {
      if (on.f === "read" || on.f === "write") return { kind: "storage-request", process: on.process, f: on.f, nth: on.nth };
      if (targetKind === "server" && on.f !== "lapse") return { kind: "client-event", process: on.process, f: on.f, type: on.type, nth: on.nth };
      return field(
        `${at}.on`,
        `${what}: the ${on.f} request leaves inside the client library, and only a per-link proxy (not in real mode yet) could act right after it left; real mode triggers on a read/write invoke, on a client's ok/fail/info event, or at a time`,
      );
    }
    if (on.f === "lapse") return field(`${at}.on`, `${what}: lapse notes are placed by the driver after the run (a stopped client notes nothing), so they cannot trigger a fault`);
    return { kind: "gate", process: on.process, f: on.f, type: on.type, nth: on.nth, gateId: index };
  }
  if (on.process === RESOURCE_ID) return { kind: "storage-event", f: on.f, type: on.type, nth: on.nth };
  if (servers.has(on.process)) return field(`${at}.on.process`, `${what}: ${on.process} records no history events, so it can trigger nothing`);
  return field(`${at}.on.process`, `${what}: real mode triggers on a client's or the storage's events; expected one of: ${[...clients, RESOURCE_ID].join(", ")}`);
}
