import type { Arbitrary } from "fast-check";
import type { EventType } from "../sim/history.js";
import type { Fields } from "../sim/validate.js";
import type { Simulation } from "../sim/simulation.js";

/**
 * What a fault kind is, in one object: its fields and their validation, what it does in
 * the simulator (and its undo when durationMs ends), what real mode does with it (as data:
 * the mechanism lives in real/, a later layer), how explore draws it and how a report
 * says it. faults/<kind>.ts holds one; faults/index.ts lists them.
 */

/** When a fault step fires: at a true time, or when a history event happens. */
export interface FaultTrigger {
  atMs?: number;
  /** Fire when `process` records the nth (1-based) event with this f and type. */
  on?: { process: string; f: string; type: EventType; nth: number };
  /** Extra delay after the trigger, ms. */
  delayMs: number;
}

/**
 * A fault step's fields, `kind` left open (faults/types.ts narrows it to the registry's
 * names). A kind file that needs a field of its own adds it here by declaration merging
 * (`declare module "./def.js"`), so the JSON shape stays one flat object.
 */
export interface FaultStepFields extends FaultTrigger {
  kind: string;
  /** The process acted on (pause, crash, restart, clock-*, isolate). */
  target?: string;
  /** How long it lasts; at the end the fault is undone (resume, restart, heal, drift back). */
  durationMs?: number;
  deltaMs?: number;
  driftPpm?: number;
  /** partition: groups of process ids; links between groups are cut (unlisted processes keep all links). */
  groups?: string[][];
  /** partition: cut only from earlier groups to later ones (asymmetric). */
  oneWay?: boolean;
  /** cut/delay/loss: explicit directed links [from, to]. */
  links?: Array<[string, string]>;
  extraMs?: number;
  lossRate?: number;
  /** Short note shown in the report next to the step. */
  note?: string;
}

export type Link = [string, string];

/** What a kind's simulator effect is given: the simulation and the step's own nemesis notes. */
export interface SimFaultContext {
  readonly sim: Simulation;
  /** Record the step's start or end in the history as the nemesis process. */
  note(phase: "start" | "end", targets: string[], extra?: Record<string, unknown>): void;
  /** Run `undo` when the step's durationMs has passed (never, without one). */
  later(undo: () => void): void;
  /** Cut these links now and heal them after durationMs, noting both. */
  cutFor(links: Link[], extra: Record<string, unknown>): void;
}

/**
 * How real mode performs a kind, by the name of a mechanism real/faults.ts implements
 * (its table is typed by this union, so a mechanism without code does not compile), or
 * why it refuses the kind. `limits` says what the mechanism does not reach yet.
 */
export type RealMechanism = "stop-signal" | "sigkill" | "sigkill-restart" | "clock-step" | "proxy-cut" | "proxy-heal" | "proxy-condition";
/** `does`: what the mechanism does to the bytes, in the run's terminal summary (proxy conditions). */
export type RealSupport = ({ mechanism: RealMechanism; limits?: string; does?: string } | { refused: string }) & {
  /**
   * It acts on the target's clock: where real mode does not perform it on a server, the
   * reason is the design's own (its serverClocksWhy: etcd's Go binary, ZooKeeper's JVM),
   * not `refused` or `limits`, which then speak of clients.
   */
  serverClock?: true;
};

/** What a kind means to the checkers and reports, whatever its name. */
export interface FaultSemantics {
  /** It acts at one instant (a jump, a restart, a heal): no window, nothing ends it. */
  instant: boolean;
  /** While in force it can keep a waiter waiting (a stopped or downed process, slow or cut links); a clock fault cannot. */
  holdsUpProgress: boolean;
  /** Its target runs nothing while it lasts (a GC pause): it wakes believing what it believed. */
  stopsTarget?: boolean;
  /** Its target loses its volatile state (a crash): the holds it had end there; without an end it stays down. */
  losesVolatileState?: boolean;
  /** What it ends when it happens: its target's lost state (a restart), or every fault in force (a heal). */
  ends?: "lost-state" | "all";
}

/** A fault as the run page has it, for its label. */
export interface FaultLabelMark {
  /** The processes it acted on, comma-separated. */
  who: string;
  /** How long it lasted, µs; null when it had no end. */
  durUs: number | null;
  groups?: string[][];
  oneWay?: boolean;
  /** One of its own numeric fields (deltaMs, lossRate, ...) as noted at its start. */
  num(field: string): number | undefined;
  /** The page's duration format: "300 ms", "1.5 s". */
  fmtDur(us: number): string;
}

/** How the run page's timeline draws a kind. */
export interface FaultTimeline {
  /** In the network rows above the lanes, as a point on its targets' lanes, or as a span across them. */
  at: "network" | "point" | "span";
  /** A background band on its targets' lanes: down (grey), a clock's rate (blue), or each side of its groups. */
  band?: "down" | "clock" | "sides";
  /** Its mark: a green triangle or a purple diamond (points), a hatched span, a green network bar. */
  style?: "triangle" | "diamond" | "hatched" | "healing";
  /** Also a line at its instant on the clocks chart. */
  onClockChart?: boolean;
  /** Its short label ("paused 300 ms"); without one, its kind and note. */
  label?(m: FaultLabelMark): string;
}

/** How reports and the playground show a kind. */
export interface FaultLooks {
  /** Its family in a counterexample's story ("crash" for a crash and a restart). */
  family: string;
  /** The story says whose it was ("of a client", "of a server"). */
  familyByRole?: boolean;
  timeline: FaultTimeline;
  /** A size the playground edits beside its start and duration: the field, its handle, the kind's name there, its column; signed if it may be negative. */
  playgroundSize?: { field: string; handle: string; name: string; column: string; signed?: boolean };
}

/** The processes explore may act on, and the scale of its faults. */
export interface FaultSpace {
  /** The design's server processes (crash, restart, isolate act only on these). */
  servers: readonly string[];
  clients: readonly string[];
  /** Faults start within [0, durationMs). */
  durationMs: number;
  /** The lease length faults are scaled to: pauses and jumps up to twice it. */
  ttlMs: number;
  /** Only faults whose targets are servers: no client pauses, partitions among servers only. */
  serverOnly: boolean;
  stepsMax: number;
}

/** fast-check, passed in: faults/ never loads it (a sweep thread must not). */
export type FastCheck = typeof import("fast-check");

export interface FaultExplore {
  /** Where the kind stands among explore's choices; the order fixes what a seed draws. */
  rank: number;
  /** The kind's arbitrary over this space, or undefined when the space has no room for it. */
  arb(fc: FastCheck, s: FaultSpace): Arbitrary<FaultStepFields> | undefined;
}

/** A fault as the report saw it in the history: who it hit, how long, its own numbers. */
export interface FaultReportMark {
  /** The processes it acted on, comma-separated. */
  who: string;
  /** " for 300 ms" when it ended, else "". */
  dur: string;
  /** " — its note" when it has one, else "". */
  note: string;
  groups?: string[][];
  oneWay?: boolean;
  /** One of its own numeric fields (deltaMs, lossRate, ...) as noted at its start. */
  num(field: string): number | undefined;
  fmtMs(ms: number): string;
}

export interface FaultReport {
  /** The sentence at its start: "c1 is paused for 300 ms". */
  start(m: FaultReportMark): string;
  /** The sentence at its end (default: "<kind> on <who> ends"). */
  end?(m: FaultReportMark): string;
}

export interface FaultKindDef<N extends string = string> {
  name: N;
  /** One line for docs and `--help`. */
  doc: string;
  /** Fields of its own, beyond the trigger, target, durationMs and note every step may have. */
  fields: readonly string[];
  needsTarget: boolean;
  /** Read and validate its own fields into `step` (errors name the field). */
  parse(f: Fields, step: FaultStepFields): void;
  /** The directed links it acts on, among `processes` (network kinds only). */
  links?(step: FaultStepFields, processes: Iterable<string>): Link[];
  /** Its effect on the simulation, noted as the nemesis; undone after durationMs. */
  apply(ctx: SimFaultContext, step: FaultStepFields): void;
  real: RealSupport;
  semantics: FaultSemantics;
  looks: FaultLooks;
  /** Without durationMs it stays in force to the end (a healing nemesis drops such steps). */
  persistsWithoutDuration?: boolean;
  explore?: FaultExplore;
  /** How the run report tells it (default: "<kind> on <who>"). */
  report?: FaultReport;
  /** What it does, for stories and terminal output: "pause c1 for 300 ms". */
  describe(step: FaultStepFields): string;
}

export function defineFault<N extends string>(def: FaultKindDef<N>): FaultKindDef<N> {
  return def;
}

/** " for 300 ms" when the step has a duration. */
export const forDuration = (s: FaultStepFields): string => (s.durationMs !== undefined ? ` for ${s.durationMs} ms` : "");

export const linkList = (links: readonly Link[]): string => links.map(([a, b]) => `${a}->${b}`).join(", ");

/** The processes a set of links touches, sorted, once each. */
export function flat(links: readonly Link[]): string[] {
  return [...new Set(links.flat())].sort();
}

/** A non-empty list of [from, to] process-id pairs. */
export function parseLinks(f: Fields): Link[] {
  const links = f.array("links");
  if (links.length === 0 || links.some((l) => !Array.isArray(l) || l.length !== 2 || l.some((x) => typeof x !== "string"))) {
    f.fail("links", 'expected a list of [from, to] pairs of process ids, e.g. [["c1", "redis-1"]]');
  }
  return links as Link[];
}

/** A fault's start time inside the explored window. */
export const exploreAt = (fc: FastCheck, s: FaultSpace): Arbitrary<number> => fc.integer({ min: 0, max: Math.max(0, s.durationMs - 1) });
export const exploreLasting = (fc: FastCheck, maxMs: number): Arbitrary<number> => fc.integer({ min: 1, max: Math.max(1, Math.round(maxMs)) });
/** Every process explore may target (servers first), or only servers. */
export const exploreAny = (s: FaultSpace): string[] => (s.serverOnly ? [...s.servers] : [...s.servers, ...s.clients]);

/** A link condition (loss, duplication) on some links for durationMs, then the network default back. */
export function conditionFor(ctx: SimFaultContext, step: FaultStepFields, field: "lossRate" | "duplicateRate", value: number): void {
  const { sim } = ctx;
  const links = step.links!;
  for (const [a, b] of links) sim.network.setLink(a, b, { [field]: value });
  ctx.note("start", flat(links), { links, [field]: value });
  ctx.later(() => {
    for (const [a, b] of links) sim.network.setLink(a, b, { [field]: sim.network.opts[field] });
    ctx.note("end", flat(links));
  });
}

/** A partition's label: its sides, "→" between them when it cuts one way. */
export const partitionLabel = (m: FaultLabelMark): string =>
  "partition " + (m.groups ?? []).map((g) => "{" + g.join(", ") + "}").join(m.oneWay ? " → " : " | ");
