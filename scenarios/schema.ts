import { parseChallenge, type ChallengeSpec } from "./challenge-spec.js";
import { Fields } from "../sim/validate.js";
import { InputError } from "../sim/errors.js";
import { DRAIN_MS, EVENTS_MAX_CEILING, SIM_TIME_MS_MAX_CEILING, SIM_TIME_MS_MAX_DEFAULT } from "../sim/limits.js";

/** A scenario's clients, by count or by list (each is a simulated process and its history). */
export const CLIENTS_MAX = 1000;
import { FAULT_KINDS, ROLE_TARGETS, isRoleTarget, type FaultStep } from "../faults/types.js";
import { FAULT_FIELDS, faultDef } from "../faults/index.js";
import { VALIDITY_CHECKS, type ClientSpec, type WorkloadSpec } from "../designs/workload-spec.js";
export { FAULT_KINDS, type FaultKind, type FaultStep, type FaultTrigger } from "../faults/types.js";
export { VALIDITY_CHECKS, type ClientSpec, type ValidityCheck, type WorkloadSpec } from "../designs/workload-spec.js";
import { WORK_DISTS, WORK_DIST_FIELDS, type WorkTime } from "../sim/work-time.js";

/**
 * The scenario file format (JSON). See docs/scenarios.md for the field-by-field
 * reference; this file is the validator, and its error messages name the file,
 * the field and what was expected.
 */
export const EXPECTATIONS = ["safe", "unsafe", "unsafe-but-fenced", "liveness-loss"] as const;
export type Expectation = (typeof EXPECTATIONS)[number];

/**
 * A random nemesis: fault steps drawn from the run's seed (with the same fast-check
 * arbitraries `lockstep explore` uses), added to the scripted `faults`. Each seed of a
 * sweep then meets a different schedule.
 */
export interface NemesisSpec {
  /** "servers": only the design's server processes are touched; "all": clients too. */
  scope: "servers" | "all";
  /** At most this many steps are drawn. */
  stepsMax: number;
  /** Faults start within [startMs, stopMs). */
  startMs: number;
  stopMs: number;
  /** Only faults that end by themselves (every crash restarts), so liveness can be judged after. */
  healing: boolean;
  /** The window drawn again, with fresh dice, every repeatEveryMs while it fits the run (a soak's faults throughout). */
  repeatEveryMs?: number;
}

/**
 * A standing network condition (`network.links[i]`): how the links from every process
 * in `from` to every process in `to` (and back, unless `bothWays` is false) behave for
 * the whole run. Unlike a fault it has no start or end, is not in the history, and does
 * not move liveness's calm point: a slow or lossy network is judged as it is.
 * Unset fields keep the network's defaults; later entries win over earlier ones.
 */
export interface LinkConditionSpec {
  from: string[];
  to: string[];
  bothWays: boolean;
  latencyUsBase?: number;
  latencyUsJitter?: number;
  lossRate?: number;
  duplicateRate?: number;
  note?: string;
}

export interface NetworkSpec {
  latencyUsBase: number;
  latencyUsJitter: number;
  lossRate: number;
  duplicateRate: number;
  fifo: boolean;
  links: LinkConditionSpec[];
}

export interface ClockSpec {
  offsetMs: number;
  driftPpm: number;
}

export interface Scenario {
  /** Where it was loaded from, for error messages. */
  file: string;
  name: string;
  title: string;
  story: string;
  design: string;
  designOptions: unknown;
  expect: Expectation;
  seed: number;
  durationMs: number;
  network: NetworkSpec;
  clocks: Record<string, ClockSpec>;
  clients: ClientSpec[];
  workload: WorkloadSpec;
  faults: FaultStep[];
  nemesis?: NemesisSpec;
  checks: { livenessBoundMs?: number; clockDriftPpmMax: number };
  /** Raised run bounds (sim/limits.ts); absent: the defaults. */
  limits?: { eventsMax?: number; simTimeMsMax?: number };
  /** Set when the scenario was put on a lock library (`@adapter`, `--lock`): the adapter as given, resolved. */
  lock?: string;
  /**
   * Not from the file: set by `--check-determinism` on sweep, so the setting travels with
   * the scenario to the sweep's threads; each seed is then run twice and compared.
   */
  checkDeterminism?: boolean;
  /** What a run must show to have tested the lock (scenarios/challenge-spec.ts); absent: overlapping beliefs. */
  challenge?: ChallengeSpec;
}

const TOP = [
  "$schema",
  "name",
  "title",
  "story",
  "design",
  "designOptions",
  "expect",
  "seed",
  "durationMs",
  "network",
  "clocks",
  "clients",
  "workload",
  "faults",
  "nemesis",
  "checks",
  "limits",
  "challenge",
] as const;

export function parseScenario(raw: unknown, file: string): Scenario {
  const f = Fields.root(file, raw).only(TOP);
  const name = f.string("name");
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) f.fail("name", "expected lower-case letters, digits and dashes");
  const limits = parseLimits(f);
  const challenge = parseChallenge(f);
  const durationMs = parseDurationMs(f, limits);
  const network = parseNetwork(f);
  const clocks = parseClocks(f);
  const clients = parseClients(f);
  const workload = parseWorkload(f);
  const faults = f.array("faults", []).map((x, i) => parseFault(f.item("faults", i, x)));
  const nemesis = parseNemesis(f, durationMs);
  const checks = parseChecks(f);

  return {
    file,
    name,
    title: f.string("title", name),
    story: f.string("story"),
    design: f.string("design"),
    designOptions: f.obj.designOptions ?? {},
    expect: f.oneOf("expect", EXPECTATIONS),
    seed: f.number("seed", { integer: true, min: 0, max: Number.MAX_SAFE_INTEGER, dflt: 1 }),
    durationMs,
    network,
    clocks,
    clients,
    workload,
    faults,
    ...(nemesis ? { nemesis } : {}),
    checks,
    ...(limits ? { limits } : {}),
    ...(challenge ? { challenge } : {}),
  };
}

/** The run covers durationMs plus the drain: refuse here what the simulator could not finish. */
function parseDurationMs(f: Fields, limits: Scenario["limits"]): number {
  const simTimeMsMax = limits?.simTimeMsMax ?? SIM_TIME_MS_MAX_DEFAULT;
  const durationMsMax = simTimeMsMax - DRAIN_MS;
  const rawDurationMs = f.obj.durationMs;
  if (typeof rawDurationMs === "number" && rawDurationMs > durationMsMax) {
    f.fail(
      "durationMs",
      `expected at most ${durationMsMax} (the simulated-time bound ${limits?.simTimeMsMax !== undefined ? "limits.simTimeMsMax" : "of 24 h"} = ${simTimeMsMax} ms, less the ${DRAIN_MS} ms drain; raise it with "limits": {"simTimeMsMax": N})`,
    );
  }
  return f.number("durationMs", { min: 1, max: durationMsMax });
}

function parseNetwork(f: Fields): NetworkSpec {
  const n = f.object("network", {});
  n.only(["latencyUsBase", "latencyUsJitter", "lossRate", "duplicateRate", "fifo", "links"]);
  return {
    latencyUsBase: n.number("latencyUsBase", { min: 0, integer: true, dflt: 500 }),
    latencyUsJitter: n.number("latencyUsJitter", { min: 0, integer: true, dflt: 200 }),
    lossRate: n.number("lossRate", { min: 0, max: 1, dflt: 0 }),
    duplicateRate: n.number("duplicateRate", { min: 0, max: 1, dflt: 0 }),
    fifo: n.boolean("fifo", true),
    links: n.array("links", []).map((x, i) => parseLinkCondition(n.item("links", i, x))),
  };
}

function parseClocks(f: Fields): Record<string, ClockSpec> {
  const clocks: Record<string, ClockSpec> = {};
  const c = f.object("clocks", {});
  for (const id of Object.keys(c.obj)) {
    const cf = c.object(id).only(["offsetMs", "driftPpm"]);
    clocks[id] = {
      offsetMs: cf.number("offsetMs", { dflt: 0 }),
      driftPpm: cf.number("driftPpm", { min: -500_000, max: 500_000, dflt: 0 }),
    };
  }
  return clocks;
}

function parseWorkload(f: Fields): WorkloadSpec {
  const w = f
    .object("workload")
    .only([
      "locks",
      "ttlMs",
      "waitMs",
      "workMs",
      "thinkMs",
      "thinkJitterMs",
      "fencing",
      "ownerCheck",
      "resourceTimeoutMs",
      "extendTtlMs",
      "renewEveryMs",
      "validityCheck",
    ]);
  const workload: WorkloadSpec = {
    locks: w.stringArray("locks", ["order:123"]),
    ttlMs: w.number("ttlMs", { min: 1, integer: true }),
    waitMs: w.number("waitMs", { min: 0, dflt: 0 }),
    workMs: parseWorkTime(w, "workMs", 5),
    thinkMs: w.number("thinkMs", { min: 0, dflt: 10 }),
    thinkJitterMs: w.number("thinkJitterMs", { min: 0, dflt: 10 }),
    fencing: w.boolean("fencing", false),
    ownerCheck: w.boolean("ownerCheck", false),
    resourceTimeoutMs: w.number("resourceTimeoutMs", { min: 1, dflt: 1000 }),
    extendTtlMs: w.number("extendTtlMs", { min: 0, integer: true, dflt: 0 }),
    renewEveryMs: w.number("renewEveryMs", { min: 0, integer: true, dflt: 0 }),
    validityCheck: w.oneOf("validityCheck", VALIDITY_CHECKS, "before-read"),
  };
  if (workload.locks.length === 0) w.fail("locks", "expected at least one lock name");
  return workload;
}

function parseNemesis(f: Fields, durationMs: number): NemesisSpec | undefined {
  if (!f.has("nemesis")) return undefined;
  const nf = f.object("nemesis").only(["scope", "stepsMax", "startMs", "stopMs", "healing", "repeatEveryMs"]);
  const nemesis: NemesisSpec = {
    scope: nf.oneOf("scope", ["servers", "all"] as const),
    stepsMax: nf.number("stepsMax", { integer: true, min: 1, max: 50, dflt: 4 }),
    startMs: nf.number("startMs", { min: 0, dflt: 0 }),
    stopMs: nf.number("stopMs", { min: 1, dflt: durationMs }),
    healing: nf.boolean("healing", true),
  };
  if (nemesis.stopMs <= nemesis.startMs) nf.fail("stopMs", `expected more than startMs (${nemesis.startMs})`);
  if (nemesis.stopMs > durationMs) nf.fail("stopMs", `expected at most durationMs (${durationMs})`);
  const repeatEveryMs = nf.optNumber("repeatEveryMs", { min: nemesis.stopMs - nemesis.startMs });
  return repeatEveryMs !== undefined ? { ...nemesis, repeatEveryMs } : nemesis;
}

function parseChecks(f: Fields): Scenario["checks"] {
  const ch = f.object("checks", {}).only(["livenessBoundMs", "clockDriftPpmMax"]);
  return {
    livenessBoundMs: ch.optNumber("livenessBoundMs", { min: 0 }),
    clockDriftPpmMax: ch.number("clockDriftPpmMax", { min: 0, dflt: 10_000 }),
  };
}

/** `limits`: the one way to raise the run bounds (sim/limits.ts), up to their ceilings. */
function parseLimits(f: Fields): Scenario["limits"] {
  if (!f.has("limits")) return undefined;
  const lf = f.object("limits").only(["eventsMax", "simTimeMsMax"]);
  const out: NonNullable<Scenario["limits"]> = {};
  const eventsMax = lf.optNumber("eventsMax", { integer: true, min: 1, max: EVENTS_MAX_CEILING });
  const simTimeMsMax = lf.optNumber("simTimeMsMax", { integer: true, min: DRAIN_MS + 1, max: SIM_TIME_MS_MAX_CEILING });
  if (eventsMax !== undefined) out.eventsMax = eventsMax;
  if (simTimeMsMax !== undefined) out.simTimeMsMax = simTimeMsMax;
  return out;
}

function parseClients(f: Fields): ClientSpec[] {
  const raw = f.obj.clients;
  if (typeof raw === "number") {
    const count = f.number("clients", { integer: true, min: 1, max: CLIENTS_MAX });
    return Array.from({ length: count }, (_, i) => ({ id: `c${i + 1}`, startMs: 0 }));
  }
  const list = f.array("clients");
  if (list.length === 0) f.fail("clients", "expected a client count or a non-empty list of clients");
  if (list.length > CLIENTS_MAX) throw new InputError(f.file, f.field("clients"), `expected at most ${CLIENTS_MAX} clients, got a list of ${list.length}`);
  const seen = new Set<string>();
  return list.map((x, i) => {
    const cf = f.item("clients", i, x).only(["id", "startMs", "opsMax", "workMs"]);
    const id = cf.string("id");
    if (seen.has(id)) cf.fail("id", "expected a unique client id");
    seen.add(id);
    const c: ClientSpec = { id, startMs: cf.number("startMs", { min: 0, dflt: 0 }), opsMax: cf.optNumber("opsMax", { integer: true, min: 1 }) };
    // Set only when given, so a scenario without it parses to the same object as before.
    if (cf.has("workMs")) c.workMs = parseWorkTime(cf, "workMs");
    return c;
  });
}

const WORK_TIME_EXAMPLE = '{"dist": "uniform", "minMs": 10, "maxMs": 200}';

/** `workMs`: ms as a number, or a distribution object ({dist: fixed | uniform | exponential, ...}). */
function parseWorkTime(f: Fields, name: string, dflt?: number): WorkTime {
  const v = f.obj[name];
  if (v === undefined && dflt !== undefined) return dflt;
  if (typeof v === "number") return f.number(name, { min: 0 });
  if (typeof v !== "object" || v === null || Array.isArray(v)) f.fail(name, `expected a number >= 0 or a distribution object, e.g. ${WORK_TIME_EXAMPLE}`);
  const d = f.object(name);
  const dist = d.oneOf("dist", WORK_DISTS);
  d.only(["dist", ...WORK_DIST_FIELDS[dist]]);
  switch (dist) {
    case "fixed":
      return { dist, ms: d.number("ms", { min: 0 }) };
    case "uniform": {
      const minMs = d.number("minMs", { min: 0 });
      const maxMs = atLeast(d, "maxMs", minMs, "minMs");
      return { dist, minMs, maxMs };
    }
    case "exponential": {
      const meanMs = d.number("meanMs", { min: 0.001 });
      // Bounded: an unbounded tail would let one hold outlast any run.
      const maxMs = atLeast(d, "maxMs", meanMs, "meanMs");
      return { dist, meanMs, maxMs };
    }
  }
}

/** A number no smaller than a sibling field's value, the error naming that sibling. */
function atLeast(f: Fields, name: string, lo: number, loName: string): number {
  const v = f.obj[name];
  if (typeof v === "number" && Number.isFinite(v) && v < lo) f.fail(name, `expected a number >= ${loName} (${lo})`);
  return f.number(name, { min: lo });
}

const LINK_FIELDS = ["from", "to", "bothWays", "latencyUsBase", "latencyUsJitter", "lossRate", "duplicateRate", "note"];
/** The link settings a condition may give (the rest keep the network's defaults). */
export const LINK_SETTINGS = ["latencyUsBase", "latencyUsJitter", "lossRate", "duplicateRate"] as const;

function parseLinkCondition(f: Fields): LinkConditionSpec {
  f.only(LINK_FIELDS);
  const ids = (name: string): string[] => {
    const v = f.obj[name];
    if (typeof v === "string" && v.length > 0) return [v];
    if (!Array.isArray(v) || v.length === 0 || v.some((x) => typeof x !== "string" || x.length === 0)) {
      f.fail(name, 'expected a process id or a non-empty list of process ids, e.g. ["c1", "c2"]');
    }
    return v as string[];
  };
  const cond: LinkConditionSpec = { from: ids("from"), to: ids("to"), bothWays: f.boolean("bothWays", true) };
  const latencyUsBase = f.optNumber("latencyUsBase", { min: 0, integer: true });
  const latencyUsJitter = f.optNumber("latencyUsJitter", { min: 0, integer: true });
  const lossRate = f.optNumber("lossRate", { min: 0, max: 1 });
  const duplicateRate = f.optNumber("duplicateRate", { min: 0, max: 1 });
  if (latencyUsBase !== undefined) cond.latencyUsBase = latencyUsBase;
  if (latencyUsJitter !== undefined) cond.latencyUsJitter = latencyUsJitter;
  if (lossRate !== undefined) cond.lossRate = lossRate;
  if (duplicateRate !== undefined) cond.duplicateRate = duplicateRate;
  if (!LINK_SETTINGS.some((k) => f.has(k))) {
    throw new InputError(f.file, f.path, `expected at least one of ${LINK_SETTINGS.join(", ")}`);
  }
  const note = f.optString("note");
  if (note !== undefined) cond.note = note;
  return cond;
}

/** Every directed link a condition covers, in file order (a process's link to itself is skipped). */
export function conditionLinks(c: LinkConditionSpec): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const a of c.from) for (const b of c.to) if (a !== b) out.push([a, b]);
  if (c.bothWays) for (const b of c.to) for (const a of c.from) if (a !== b) out.push([b, a]);
  return out;
}

function parseFault(f: Fields): FaultStep {
  f.only(FAULT_FIELDS);
  const kind = f.oneOf("kind", FAULT_KINDS);
  const step: FaultStep = { kind, delayMs: f.number("delayMs", { min: 0, dflt: 0 }), note: f.optString("note") };
  if (f.has("atMs") === f.has("on")) {
    throw new InputError(f.file, f.field("atMs"), "expected exactly one of atMs (a time) or on (a history event to follow)");
  }
  if (f.has("atMs")) step.atMs = f.number("atMs", { min: 0 });
  else {
    const o = f.object("on").only(["process", "f", "type", "nth"]);
    step.on = {
      process: o.string("process"),
      f: o.string("f"),
      type: o.oneOf("type", ["invoke", "ok", "fail", "info"] as const),
      nth: o.number("nth", { integer: true, min: 1, dflt: 1 }),
    };
  }
  const def = faultDef(kind);
  if (def.needsTarget) {
    step.target = f.string("target");
    if (isRoleTarget(step.target) && !ROLE_TARGETS.includes(step.target)) f.fail("target", `expected a process id or a role (${ROLE_TARGETS.join(", ")})`);
  }
  step.durationMs = f.optNumber("durationMs", { min: 0 });
  def.parse(f, step);
  return step;
}

/** Process ids a scenario's faults and clocks refer to, for checking against the run's processes. */
export function referencedProcesses(s: Scenario): Array<{ id: string; field: string }> {
  const out: Array<{ id: string; field: string }> = [];
  for (const id of Object.keys(s.clocks)) out.push({ id, field: `clocks.${id}` });
  s.network.links.forEach((l, i) => {
    l.from.forEach((id, j) => out.push({ id, field: `network.links[${i}].from[${j}]` }));
    l.to.forEach((id, j) => out.push({ id, field: `network.links[${i}].to[${j}]` }));
  });
  s.faults.forEach((st, i) => {
    // A role ("@leader") is resolved when the step fires; a run with no such role skips the step, noted.
    if (st.target && !isRoleTarget(st.target)) out.push({ id: st.target, field: `faults[${i}].target` });
    if (st.on) out.push({ id: st.on.process, field: `faults[${i}].on.process` });
    st.groups?.forEach((g, j) => g.forEach((id) => out.push({ id, field: `faults[${i}].groups[${j}]` })));
    st.links?.forEach((l, j) => l.forEach((id) => out.push({ id, field: `faults[${i}].links[${j}]` })));
  });
  return out;
}
