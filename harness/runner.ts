import { Simulation, type TraceRecord } from "../sim/simulation.js";
import { DRAIN_MS, PROJECT_AFTER_EVENTS, type SimLimits } from "../sim/limits.js";
import { FaultSchedule } from "../faults/apply.js";
import { clientLoop } from "./workload.js";
import type { RunMeta } from "../reports/types.js";
import type { HistoryEvent } from "../sim/history.js";
import type { ProcessOptions, SimProcess } from "../sim/process.js";
import { InputError, SimulationStopError } from "../sim/errors.js";
import { replayCommand } from "./replay-command.js";
import type { FaultStep, Scenario } from "../scenarios/schema.js";
import type { Rng } from "../sim/rng.js";
import { drawNemesis } from "./nemesis.js";
import { conditionLinks, LINK_SETTINGS, referencedProcesses } from "../scenarios/schema.js";
import type { LinkOptions } from "../sim/network.js";
import { designByName, DESIGNS } from "../designs/index.js";
import type { DesignEntry, DesignInstance } from "../designs/types.js";
import { RESOURCE_ID, resourceNode, type Resource } from "../services/storage/resource.js";

/**
 * One run: build the world a scenario describes (design servers, storage, clients,
 * faults), run it for `durationMs` of true time plus a drain, and return the
 * history. Pure in (scenario, seed): the same inputs give the same history, byte
 * for byte.
 */
export type { RunMeta } from "../reports/types.js";

export interface RunOutput {
  /** Every event, in order; only those kept when the run was asked to retain fewer (RunOptions). */
  history: HistoryEvent[];
  meta: RunMeta;
}

/** Where the history goes: a sink that sees each event as it is recorded, and whether the output keeps them too. */
export interface RunOptions {
  historySink?: (e: HistoryEvent) => void;
  /** Default true; false keeps no event (the sink is then the history's only record); a function keeps those it says. */
  retainHistory?: boolean | ((e: HistoryEvent) => boolean);
  /** Processes' trace records (every command a Redis node executes), kept out of the history. */
  traceSink?: (r: TraceRecord) => void;
}

const CLOCK_SAMPLES = 200;

export function runScenario(s: Scenario, seed: number, limits: Partial<SimLimits> = {}, opts: RunOptions = {}): RunOutput {
  try {
    return runScenarioInner(s, seed, limits, opts);
  } catch (e) {
    // A stopped run names its seed, so the user can replay the very run that stopped.
    if (e instanceof SimulationStopError) e.replay ??= { scenario: s.name, seed, command: replayCommand(s, seed) };
    throw e;
  }
}

function scenarioLimits(s: Scenario): Partial<SimLimits> {
  const out: Partial<SimLimits> = {};
  if (s.limits?.eventsMax !== undefined) out.eventsMax = s.limits.eventsMax;
  if (s.limits?.simTimeMsMax !== undefined) out.timeUsMax = s.limits.simTimeMsMax * 1000;
  return out;
}

/**
 * The nemesis's steps from the run's own stream: one function, so a real run draws exactly
 * what the simulator draws. A repeated window (repeatEveryMs) draws each repetition from
 * a stream of its own; the first is the window drawn without repetition.
 */
function nemesisDraw(s: Scenario, serverIds: readonly string[], rng: Rng): FaultStep[] {
  const spec = s.nemesis!;
  const world = { servers: serverIds, clients: s.clients.map((c) => c.id), ttlMs: s.workload.ttlMs };
  const steps = drawNemesis(spec, world, rng.fork("nemesis"));
  const everyMs = spec.repeatEveryMs;
  for (let k = 1; everyMs !== undefined && spec.stopMs + k * everyMs <= s.durationMs; k++) {
    const window = { ...spec, startMs: spec.startMs + k * everyMs, stopMs: spec.stopMs + k * everyMs };
    steps.push(...drawNemesis(window, world, rng.fork(`nemesis-${k}`)));
  }
  return steps;
}

/**
 * The random nemesis's steps for a scenario and seed, as `runScenario` draws them (the same
 * seed string, the same stream, the design's own server ids, returned too), without running anything.
 * Real mode performs these steps on real servers.
 */
export function nemesisSteps(s: Scenario, seed: number): { steps: FaultStep[]; serverIds: readonly string[] } {
  if (!s.nemesis) return { steps: [], serverIds: [] };
  const design = designOf(s);
  const options = design.parseOptions(s.designOptions, s.file, "designOptions");
  const { links: _conditions, ...network } = s.network;
  const sim = new Simulation({ seed: `lockstep:${seed}`, network });
  const instance = design.setup({ sim, processOptions: () => ({}) }, options);
  return { steps: nemesisDraw(s, instance.serverIds, sim.rng), serverIds: instance.serverIds };
}

function designOf(s: Scenario): DesignEntry {
  const design = designByName(s.design);
  if (!design) throw new InputError(s.file, "design", `unknown design "${s.design}"; expected one of: ${DESIGNS.map((d) => d.name).join(", ")}`);
  return design;
}

/** The scenario's clients, each running the workload against its own client of the design. */
function addClients(sim: Simulation, s: Scenario, instance: DesignInstance, processOptions: (id: string) => ProcessOptions, endUs: number): void {
  for (const c of s.clients) {
    if (sim.processes.has(c.id)) throw new InputError(s.file, "clients", `client id "${c.id}" clashes with a server process`);
    // A client that crashes and restarts comes back as a fresh process would: a new
    // library instance (no memory of its grants) and a new workload loop.
    sim.addProcess(c.id, "client", processOptions(c.id), (ctx, restarted) => {
      const locks = instance.createClient(ctx);
      const client = restarted ? { ...c, startMs: 0 } : c;
      ctx.spawn(clientLoop(ctx, locks, { spec: s.workload, client, endMonoUs: ctx.proc.mono.read(endUs) }));
      return { onMessage: (from, msg) => locks.onMessage?.(from, msg) };
    });
  }
}

/** Every process a fault or condition names exists, once all are added. */
function checkReferencedProcesses(sim: Simulation, s: Scenario): void {
  for (const ref of referencedProcesses(s)) {
    if (!sim.processes.has(ref.id)) {
      throw new InputError(s.file, ref.field, `unknown process "${ref.id}"; expected one of: ${[...sim.processes.keys()].join(", ")}`);
    }
  }
}

function runScenarioInner(s: Scenario, seed: number, limits: Partial<SimLimits>, opts: RunOptions): RunOutput {
  const design = designOf(s);
  const options = design.parseOptions(s.designOptions, s.file, "designOptions");
  design.checkWorkload?.(options, s.workload, s.file);
  // The seed alone picks the dice: a scenario copied under another name replays the same.
  const { links: conditions, ...network } = s.network;
  // The scenario's own limits (validated against its duration), then the caller's.
  const sim = new Simulation({
    seed: `lockstep:${seed}`,
    network,
    limits: { projectAfterEvents: PROJECT_AFTER_EVENTS, ...scenarioLimits(s), ...limits },
    historySink: opts.historySink,
    retainHistory: opts.retainHistory,
    traceSink: opts.traceSink,
  });
  // Standing conditions: set before any process exists (a client's first request
  // leaves as it is added), never recorded as nemesis events (they are how the network is, not
  // faults), so liveness judges the run under them. Their ids are checked below.
  applyStandingConditions(sim, conditions);
  const processOptions = (id: string): ProcessOptions => {
    const c = s.clocks[id];
    return c ? { wall: { offsetUs: Math.round(c.offsetMs * 1000), driftPpm: c.driftPpm } } : {};
  };
  const instance = design.setup({ sim, processOptions, fencing: s.workload.fencing }, options);
  if (s.workload.fencing && !instance.fencing && !instance.tokensFromGrants) {
    throw new InputError(s.file, "workload.fencing", `design "${s.design}" issues no fencing token; expected false, or a design with tokens`);
  }
  let resource: Resource | undefined;
  sim.addProcess(
    RESOURCE_ID,
    "resource",
    processOptions(RESOURCE_ID),
    resourceNode({ fencing: s.workload.fencing, ownerCheck: s.workload.ownerCheck }, (r) => (resource = r)),
  );

  const endUs = s.durationMs * 1000;
  const faults = s.nemesis ? [...s.faults, ...nemesisDraw(s, instance.serverIds, sim.rng)] : s.faults;
  // Faults first: a step triggered by a client's very first event must see it.
  // (Process ids are checked below, once every process exists; nothing fires before run().)
  new FaultSchedule(sim, faults).install();
  addClients(sim, s, instance, processOptions, endUs);
  checkReferencedProcesses(sim, s);
  const clocks = new ClockSampler(sim, endUs);
  clocks.start();

  sim.run(endUs + DRAIN_MS * 1000, endUs);
  // Replica states (replica-agreement checker) go in before the final read.
  sim.endRun();
  const clockSamples = clocks.samples();

  recordFinalReads(sim, s.workload.locks, resource!);
  return {
    history: sim.history,
    meta: {
      scenario: s.name,
      design: s.design,
      seed,
      durationMs: s.durationMs,
      endUs: sim.nowUs,
      serverIds: instance.serverIds,
      clientIds: s.clients.map((c) => c.id),
      // Tokens from client code: a fencing run that finished had one on every grant.
      fencingTokens: instance.fencing || (instance.tokensFromGrants === true && s.workload.fencing),
      faults,
      eventsRun: sim.eventsRun,
      network: { ...sim.network.stats },
      ...(conditions.length > 0 ? { conditions } : {}),
      clockSamples,
    },
  };
}

/** The final read, as Jepsen's workloads end: what the resource holds now, per lock. */
function recordFinalReads(sim: Simulation, workloadLocks: readonly string[], resource: Resource): void {
  const locks = [...new Set([...workloadLocks, ...resource.cells.keys()])].sort();
  for (const lock of locks) {
    const cell = resource.cell(lock);
    sim.record({
      process: RESOURCE_ID,
      type: "ok",
      f: "final-read",
      lock,
      value: { counter: cell.counter, ...(cell.maxToken !== undefined ? { maxToken: cell.maxToken } : {}) },
    });
  }
}

function applyStandingConditions(sim: Simulation, conditions: Scenario["network"]["links"]): void {
  for (const c of conditions) {
    const settings: Partial<LinkOptions> = {};
    for (const k of LINK_SETTINGS) if (c[k] !== undefined) settings[k] = c[k];
    for (const [a, b] of conditionLinks(c)) sim.network.setCondition(a, b, settings);
  }
}

/**
 * Every process's wall-clock offset, CLOCK_SAMPLES times over the run, for the report's
 * clock chart. Samples go into flat number arrays, an offset per process per sample (an
 * object per sample and an entries pair per process were most of the sampling's
 * garbage); the records are built at the end, for the skewed clocks only.
 */
class ClockSampler {
  private readonly everyUs: number;
  private readonly procs: SimProcess[] = [];
  private readonly timesUs: number[] = [];
  /** Processes at each sample (processes are only ever added, so they are the first that many). */
  private readonly procCounts: number[] = [];
  // Sized for every sample of the processes there are now (all exist before the run);
  // doubled if the run ever holds more (a pushed array re-grew itself ~2x over).
  private offsetsUs: Float64Array;
  private count = 0;

  constructor(
    private readonly sim: Simulation,
    private readonly endUs: number,
  ) {
    this.everyUs = Math.max(1000, Math.floor(endUs / CLOCK_SAMPLES));
    this.offsetsUs = new Float64Array((Math.floor(endUs / this.everyUs) + 1) * sim.processes.size);
  }

  start(): void {
    this.sim.schedule(0, this.sample);
  }

  samples(): ReturnType<typeof skewedClockSamples> {
    return skewedClockSamples(this.procs, this.timesUs, this.procCounts, this.offsetsUs);
  }

  private readonly sample = (): void => {
    const { sim, procs } = this;
    if (procs.length !== sim.processes.size) {
      let i = 0;
      for (const p of sim.processes.values()) if (i++ >= procs.length) procs.push(p);
    }
    this.timesUs.push(sim.nowUs);
    this.procCounts.push(procs.length);
    if (this.count + procs.length > this.offsetsUs.length) {
      const more = new Float64Array(Math.max(2 * this.offsetsUs.length, this.count + procs.length));
      more.set(this.offsetsUs);
      this.offsetsUs = more;
    }
    for (let i = 0; i < procs.length; i++) this.offsetsUs[this.count++] = procs[i]!.wall.offsetAt(sim.nowUs);
    if (sim.nowUs + this.everyUs <= this.endUs) sim.schedule(sim.nowUs + this.everyUs, this.sample);
  };
}

/**
 * The clock samples as records, keeping only the clocks that ever left true time (the
 * rest would be rows of zeros); none at all when no clock did. Keys in process order.
 */
function skewedClockSamples(procs: SimProcess[], timesUs: number[], procCounts: number[], offsetsUs: Float64Array): RunMeta["clockSamples"] {
  const skewed = procs.map(() => false);
  let any = false;
  for (let k = 0, at = 0; k < timesUs.length; k++) {
    for (let i = 0; i < procCounts[k]!; i++, at++) {
      if (offsetsUs[at] !== 0) skewed[i] = any = true;
    }
  }
  const out: RunMeta["clockSamples"] = [];
  if (!any) return out;
  for (let k = 0, at = 0; k < timesUs.length; k++) {
    const offsets: Record<string, number> = {};
    for (let i = 0; i < procCounts[k]!; i++, at++) if (skewed[i]) offsets[procs[i]!.id] = offsetsUs[at]!;
    out.push({ timeUs: timesUs[k]!, offsetsUs: offsets });
  }
  return out;
}
