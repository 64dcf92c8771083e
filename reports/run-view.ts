import { NEMESIS, pairOperations, type HistoryEvent, type Operation } from "../sim/history.js";
import { computeHolds, type Hold } from "../checkers/holds.js";
import type { ImportedEvent } from "../checkers/import/edn.js";
import type { RunRecord } from "./types.js";
import type { TraceRecord } from "../sim/simulation.js";
import type { RedisCommandTrace } from "../services/redis/server.js";
import { describeNote } from "./notes.js";
import { registerOpText, valueWords } from "./linearization.js";
import { findFaultDef, semanticsOf } from "../faults/index.js";
import type { FaultReportMark } from "../faults/def.js";
import {
  HOLD_END,
  type AttemptColumns,
  type ErrorColumns,
  type FaultMark,
  type HoldColumns,
  type Lane,
  type NoteDensity,
  type NoteMark,
  type RegisterOpColumns,
  type RoleBand,
  type RunView,
  type StoryStep,
  type ViolationMark,
  type WriteColumns,
} from "./run-view-types.js";

export * from "./run-view-types.js";

/**
 * What the run report's page draws, and nothing more: a long run has hundreds of
 * thousands of history events, but the page needs only the holds, the acquire
 * attempts, the writes at the resource, the faults, the violations and sampled
 * clocks. Marks are stored column-wise with small integer codes (lane, lock and
 * reason indexes) so a 10-minute run with 10 clients stays a few megabytes.
 *
 * Times are integer microseconds of true time, as in the history. The shapes are in
 * run-view-types.ts.
 */

/** The seeds' acquire latency target. */
export const ACQUIRE_TARGET_MS = 10;
const STEPS_MAX = 40;
/** Server notes drawn per kind: a long run sets a key per grant, and the page must stay a few megabytes. */
export const NOTES_PER_KIND_MAX = 400;
/**
 * A kind with more notes is drawn spread over the run: the run cut into NOTE_BINS
 * intervals, a few notes drawn in each, the others counted per lane and interval, so a
 * dense lane reads as busy to its end rather than as stopped.
 */
const NOTE_BINS = 100;
/** Server notes the story tells, at most. */
const NOTE_STEPS_MAX = 24;

export function buildRunView(record: RunRecord, history: readonly HistoryEvent[], trace?: readonly TraceRecord[]): RunView {
  const meta = record.meta;
  const endUs = Math.max(meta.endUs, history.length > 0 ? history[history.length - 1]!.timeUs : 0);

  const t = new ViewTables(meta, record.scenario.workload.locks, history);
  const { lanes, laneOf, addLane, str } = t;

  const { ops } = pairOperations(history);
  const { holds, holdByGrant, holdByAcquire } = buildHolds(t, history, ops);

  const regOps = registerOps(ops, (p) => addLane(p, "client"), str);
  const { attempts, errors } = buildFailures(t, ops, endUs);

  const { writes, writeByIndex, notes, notesOmitted, noteDensity } = buildWritesAndNotes(t, history, holdByGrant, endUs, commandsByChange(trace));

  const imported = meta.design.startsWith("imported");
  const faults = imported ? importedNemesis(history, () => addLane(NEMESIS, "other"), endUs) : buildFaults(history, laneOf, endUs);
  const roles = buildRoles(history, laneOf, faults, endUs);
  const violations = buildViolations(record, holdByGrant, holdByAcquire, writeByIndex, holds, writes);
  for (const v of violations) {
    for (const h of v.holds) holds.bad[h] = 1;
    for (const w of v.writes) writes.bad[w] = 1;
  }

  const findings = record.verdicts.results.filter((r) => r.valid !== true).map((r) => ({ checker: r.checker, valid: r.valid, summary: r.summary }));

  const clocks = buildClocks(lanes, meta.clockSamples ?? []);
  const latency = buildLatency(holds, imported ? clampedHolds(history, holdByAcquire) : []);

  // An imported history keeps its own clock, which rarely starts at 0; a long run's report draws its tail.
  const startUs = (imported || meta.historyTail) && history.length > 0 ? history[0]!.timeUs : 0;
  const view: RunView = {
    ...(meta.timeIsOrder ? { timeIsOrder: true as const } : {}),
    startUs,
    endUs,
    lanes,
    locks: t.locks,
    strings: t.strings,
    holds,
    attempts,
    errors,
    writes,
    regOps,
    faults,
    notes,
    notesOmitted,
    noteDensity,
    roles,
    violations,
    findings,
    clocks,
    latency,
    steps: [],
  };
  view.steps = buildSteps(view);
  return view;
}

/** The view's interned tables: lanes (clients, servers, the resource, anyone else), locks, strings. */
class ViewTables {
  readonly lanes: Lane[] = [];
  readonly laneOf = new Map<string, number>();
  readonly locks: string[] = [];
  private readonly lockOf = new Map<string, number>();
  readonly strings: string[] = [];
  private readonly stringOf = new Map<string, number>();

  constructor(meta: RunRecord["meta"], workloadLocks: readonly string[], history: readonly HistoryEvent[]) {
    for (const id of meta.clientIds) this.addLane(id, "client");
    for (const id of meta.serverIds) this.addLane(id, "server");
    this.addLane("storage", "resource");
    for (const e of history) if (e.process !== NEMESIS && !this.laneOf.has(e.process)) this.addLane(e.process, "other");
    for (const l of workloadLocks) this.lockIdx(l);
  }

  readonly addLane = (id: string, kind: Lane["kind"]): number => {
    let i = this.laneOf.get(id);
    if (i === undefined) {
      i = this.lanes.length;
      this.lanes.push({ id, kind });
      this.laneOf.set(id, i);
    }
    return i;
  };

  readonly lockIdx = (l: string | undefined): number => {
    const k = l ?? "";
    let i = this.lockOf.get(k);
    if (i === undefined) {
      i = this.locks.length;
      this.locks.push(k);
      this.lockOf.set(k, i);
    }
    return i;
  };

  readonly str = (s: string | undefined): number => {
    if (s === undefined) return -1;
    let i = this.stringOf.get(s);
    if (i === undefined) {
      i = this.strings.length;
      this.strings.push(s);
      this.stringOf.set(s, i);
    }
    return i;
  };
}

/** Holds in start order (computeHolds is the truth the checkers use), with their waits, releases and lapses. */
function buildHolds(
  t: ViewTables,
  history: readonly HistoryEvent[],
  ops: readonly Operation[],
): { holds: HoldColumns; holdByGrant: Map<string, number>; holdByAcquire: Map<number, number> } {
  const { addLane, lockIdx, str } = t;
  const acquireInvokeUs = new Map<number, number>(); // acquire-ok index -> invoke time
  const releaseOf = new Map<string, number>(); // grantId -> RELEASE_RESULT index
  const grantOfRelease = new Map<number, string>();
  for (const op of ops) {
    if (op.f === "acquire" && op.outcome === "ok" && op.complete) acquireInvokeUs.set(op.complete.index, op.startUs);
    if (op.f === "release") {
      const g = (op.invoke.value as { grantId?: string } | undefined)?.grantId;
      if (g === undefined) continue;
      grantOfRelease.set(op.invoke.index, g);
      const released = (op.complete?.value as { released?: boolean } | undefined)?.released;
      releaseOf.set(g, op.outcome !== "ok" ? 2 : released === false ? 1 : 0);
    }
  }

  const holdList = computeHolds(history)
    .slice()
    .sort((a, b) => a.startUs - b.startUs || a.acquireIndex - b.acquireIndex);
  const holdByGrant = new Map<string, number>();
  const holdByAcquire = new Map<number, number>();
  const holds: HoldColumns = { lane: [], lock: [], s: [], e: [], w: [], tok: [], g: [], by: [], st: [], rel: [], val: [], lap: [], bad: [] };
  const lapseUs = new Map<string, number>();
  for (const e of history) {
    const g = (e.value as { grantId?: unknown } | undefined)?.grantId;
    if (e.f === "lapse" && e.type !== "invoke" && typeof g === "string" && !lapseUs.has(g)) lapseUs.set(g, e.timeUs);
  }
  holdList.forEach((h, i) => {
    holdByGrant.set(h.grantId, i);
    holdByAcquire.set(h.acquireIndex, i);
    const lane = addLane(h.process, "client");
    holds.lane.push(lane);
    holds.lock.push(lockIdx(h.lock));
    holds.s.push(h.startUs);
    holds.e.push(h.endUs);
    holds.w.push(acquireInvokeUs.get(h.acquireIndex) ?? h.startUs);
    holds.tok.push(h.token ?? -1);
    const m = /^(.*)#(\d+)$/.exec(h.grantId);
    holds.g.push(m && m[1] === h.process && Number(m[2]) < 2 ** 31 ? Number(m[2]) : -(1 + str(h.grantId)));
    holds.by.push(HOLD_END.indexOf(h.endedBy === "lease" ? "lapse" : h.endedBy)); // a lease that ran out draws as a lapse
    holds.st.push(h.stretched ? 1 : 0);
    holds.rel.push(releaseOf.get(h.grantId) ?? 3);
    const v = (history[h.acquireIndex]?.value as { validityMs?: number } | undefined)?.validityMs;
    holds.val.push(typeof v === "number" ? Math.round(v) : -1);
    holds.lap.push(lapseUs.get(h.grantId) ?? -1);
    holds.bad.push(0);
  });

  return { holds, holdByGrant, holdByAcquire };
}

/** Acquires that did not end in a grant, and other operations that failed or whose outcome is unknown. */
function buildFailures(t: ViewTables, ops: readonly Operation[], endUs: number): { attempts: AttemptColumns; errors: ErrorColumns } {
  const { addLane, lockIdx, str } = t;
  const attempts: AttemptColumns = { lane: [], lock: [], s: [], e: [], out: [], why: [] };
  const errors: ErrorColumns = { lane: [], lock: [], t: [], f: [], out: [], why: [] };
  for (const op of ops) {
    if (op.outcome === "ok") continue;
    const reason = (op.complete?.value as { reason?: unknown } | undefined)?.reason;
    const why = typeof reason === "string" ? str(reason) : -1;
    const lane = addLane(op.process, "client");
    const opEndUs = op.complete?.timeUs ?? endUs;
    if (op.f === "acquire") {
      attempts.lane.push(lane);
      attempts.lock.push(lockIdx(op.lock));
      attempts.s.push(op.startUs);
      attempts.e.push(opEndUs);
      attempts.out.push(op.outcome === "fail" ? 0 : 1);
      attempts.why.push(why);
    } else {
      errors.lane.push(lane);
      errors.lock.push(lockIdx(op.lock));
      errors.t.push(opEndUs);
      errors.f.push(str(op.f));
      errors.out.push(op.outcome === "fail" ? 0 : 1);
      errors.why.push(why);
    }
  }

  return { attempts, errors };
}

/** Writes as the resource saw them, and the servers' notes (dense kinds spread over the run). */
function buildWritesAndNotes(
  t: ViewTables,
  history: readonly HistoryEvent[],
  holdByGrant: ReadonlyMap<string, number>,
  endUs: number,
  commands: ReadonlyMap<string, TracedChange>,
): { writes: WriteColumns; writeByIndex: Map<number, number>; notes: NoteMark[]; notesOmitted: RunView["notesOmitted"]; noteDensity: NoteDensity[] } {
  const { lanes, laneOf, lockIdx, str } = t;
  const writes: WriteColumns = { cl: [], lock: [], t: [], ok: [], counter: [], tok: [], hold: [], why: [], bad: [] };
  const writeByIndex = new Map<number, number>();
  const notes: NoteMark[] = [];
  const noteCount = new Map<string, number>();
  const notePicker = new NotePicker(history, (e) => isServerNote(e, lanes, laneOf), endUs);
  /** Who each node last set each key for, so a delete can say whose key it removed. */
  const keyOwner = new Map<string, string>();
  for (const e of history) {
    if (e.f === "storage-write" && (e.type === "ok" || e.type === "fail")) {
      const v = (e.value ?? {}) as { client?: unknown; grantId?: unknown; counter?: unknown; token?: unknown; reason?: unknown };
      writeByIndex.set(e.index, writes.t.length);
      writes.cl.push(typeof v.client === "string" ? (laneOf.get(v.client) ?? -1) : -1);
      writes.lock.push(lockIdx(e.lock));
      writes.t.push(e.timeUs);
      writes.ok.push(e.type === "ok" ? 1 : 0);
      writes.counter.push(typeof v.counter === "number" ? v.counter : -1);
      writes.tok.push(typeof v.token === "number" ? v.token : -1);
      writes.hold.push(typeof v.grantId === "string" ? (holdByGrant.get(v.grantId) ?? -1) : -1);
      writes.why.push(typeof v.reason === "string" ? str(v.reason) : -1);
      writes.bad.push(0);
    } else if (isServerNote(e, lanes, laneOf)) {
      const value = withKeyOwner(keyOwner, e.process, e.f, withCommand(commands, e));
      const lane = laneOf.get(e.process)!;
      if (!notePicker.keep(e.f, lane, e.timeUs)) continue;
      noteCount.set(e.f, (noteCount.get(e.f) ?? 0) + 1);
      notes.push({ lane, t: e.timeUs, f: e.f, ...describeNote(e.process, e.f, value) });
    }
  }
  const notesOmitted = notePicker.dense.map(([f, total]) => ({ f, drawn: noteCount.get(f) ?? 0, total }));

  return { writes, writeByIndex, notes, notesOmitted, noteDensity: notePicker.counted() };
}

/** The runner's clock samples, one series per lane that has any. */
function buildClocks(lanes: readonly Lane[], samples: NonNullable<RunRecord["meta"]["clockSamples"]>): RunView["clocks"] {
  const clockLanes = lanes.map((_, i) => i).filter((i) => samples.some((s) => s.offsetsUs[lanes[i]!.id] !== undefined));
  return {
    t: samples.map((s) => s.timeUs),
    lanes: clockLanes,
    offsetsUs: clockLanes.map((i) => samples.map((s) => s.offsetsUs[lanes[i]!.id] ?? 0)),
  };
}

/**
 * Holds whose grant was stamped before its own acquire's invoke in an imported file: the
 * importer raised its time to keep file order, so its wait is an artefact, not a latency.
 */
function clampedHolds(history: readonly ImportedEvent[], holdByAcquire: ReadonlyMap<number, number>): number[] {
  const out: number[] = [];
  for (const e of history) {
    const h = e.clampedFromUs !== undefined ? holdByAcquire.get(e.index) : undefined;
    if (h !== undefined) out.push(h);
  }
  return out.sort((a, b) => a - b);
}

/** Acquire latency per grant (invoke to grant): count, p50, p99, max, leaving out the clamped grants. */
function buildLatency(holds: HoldColumns, clamped: number[]): RunView["latency"] {
  const left = new Set(clamped);
  const latenciesUs = holds.s
    .map((s, i) => s - holds.w[i]!)
    .filter((_, i) => !left.has(i))
    .sort((a, b) => a - b);
  const q = (p: number): number | null =>
    latenciesUs.length === 0 ? null : round3(latenciesUs[Math.min(latenciesUs.length - 1, Math.ceil(p * latenciesUs.length) - 1)]! / 1000);
  return {
    count: latenciesUs.length,
    p50Ms: q(0.5),
    p99Ms: q(0.99),
    maxMs: latenciesUs.length ? round3(latenciesUs[latenciesUs.length - 1]! / 1000) : null,
    targetMs: ACQUIRE_TARGET_MS,
    clamped,
  };
}

function buildFaults(history: readonly HistoryEvent[], laneOf: Map<string, number>, endUs: number): FaultMark[] {
  const faults: FaultMark[] = [];
  const open = new Map<number, FaultMark>(); // step index -> started, not yet ended
  for (const e of history) {
    if (e.process !== NEMESIS) continue;
    const v = (e.value ?? {}) as Record<string, unknown>;
    // A role-targeted step that found no holder of the role did nothing: nothing to draw.
    if (v.phase === "skipped") continue;
    const step = typeof v.step === "number" ? v.step : -1;
    if (v.phase === "end") {
      const f = open.get(step);
      if (f) {
        f.e = e.timeUs;
        open.delete(step);
        continue;
      }
    }
    const targets = Array.isArray(v.targets) ? v.targets.filter((x): x is string => typeof x === "string") : [];
    const f: FaultMark = {
      kind: e.f,
      step,
      s: e.timeUs,
      e: null,
      lanes: targets.map((t) => laneOf.get(t)).filter((x): x is number => x !== undefined),
    };
    if (Array.isArray(v.groups)) f.groups = (v.groups as unknown[]).map((g) => (Array.isArray(g) ? g.map(String) : [String(g)]));
    if (v.oneWay === true) f.oneWay = true;
    if (typeof v.note === "string") f.note = v.note;
    // Each kind's own numbers as its start noted them (deltaMs, lossRate, ...), for its sentence and the page.
    for (const k of findFaultDef(e.f)?.fields ?? []) if (typeof v[k] === "number") (f as unknown as Record<string, number>)[k] = v[k] as number;
    faults.push(f);
    if (v.phase === "start" && step >= 0) open.set(step, f);
  }
  // A crash with no end of its own ends at the target's next restart.
  for (const f of faults) {
    if (semanticsOf(f.kind).losesVolatileState !== true || f.e !== null) continue;
    const r = faults.find((g) => semanticsOf(g.kind).ends === "lost-state" && g.s >= f.s && g.lanes.some((l) => f.lanes.includes(l)));
    f.e = r ? r.s : null;
  }
  // Faults still in force at the end of the history (a partition never healed) end there,
  // except the instant ones.
  for (const f of faults) {
    const s = semanticsOf(f.kind);
    if (f.e === null && !s.instant && s.losesVolatileState !== true) f.e = endUs;
  }
  return faults;
}

/** Jepsen nemesis ops that undo an earlier one: :stop, :stop-partition, :heal, :resume... */
const NEMESIS_UNDO = /^(stop|heal|resume|reset|restore)(-.*)?$/;

/**
 * An imported history's nemesis ops on a lane of their own, under their real names.
 * Jepsen logs each nemesis op twice (:info when invoked, :info with its value when
 * done): one mark per pair, at the invoke. An op undone later (:start … :stop) is a band
 * until its undo or the history's end; an undo ends the latest open band and draws none.
 */
function importedNemesis(history: readonly HistoryEvent[], lane: () => number, endUs: number): FaultMark[] {
  const marks: FaultMark[] = [];
  const open: FaultMark[] = [];
  let invoked: HistoryEvent | undefined;
  for (const e of history) {
    if (e.process !== NEMESIS) continue;
    if (invoked !== undefined && invoked.f === e.f) {
      // The completion: its value says what was done.
      const m = marks.at(-1);
      if (m && e.value !== undefined && m.s === invoked.timeUs) m.note = valueText(e.value);
      invoked = undefined;
      continue;
    }
    invoked = e;
    if (NEMESIS_UNDO.test(e.f)) {
      const m = open.pop();
      if (m) m.e = e.timeUs;
      continue;
    }
    const m: FaultMark = { kind: `:${e.f}`, step: -1, s: e.timeUs, e: null, lanes: [lane()] };
    if (e.value !== undefined) m.note = valueText(e.value);
    marks.push(m);
    open.push(m);
  }
  for (const m of marks) if (m.e === null) m.e = endUs;
  return marks;
}

/** A nemesis op's value, as the register ops show theirs, shortened for a label. */
function valueText(v: unknown): string {
  const s = valueWords(v);
  return s.length > 80 ? `${s.slice(0, 77)}…` : s;
}

/**
 * Role bands from the raft-role notes: each note opens a band on its server's lane that
 * runs to the server's next note, to a crash of that server (a crashed server is in no
 * role), or to the end of the run.
 */
export function buildRoles(history: readonly HistoryEvent[], laneOf: Map<string, number>, faults: readonly FaultMark[], endUs: number): RoleBand[] {
  const bands: RoleBand[] = [];
  const open = new Map<number, RoleBand>();
  const crashAfter = (lane: number, t: number, until: number): number => {
    let end = until;
    for (const f of faults) if (semanticsOf(f.kind).losesVolatileState === true && f.lanes.includes(lane) && f.s >= t && f.s < end) end = f.s;
    return end;
  };
  for (const e of history) {
    if (e.f !== "raft-role") continue;
    const lane = laneOf.get(e.process);
    if (lane === undefined) continue;
    const v = (e.value ?? {}) as { role?: unknown; term?: unknown; leader?: unknown };
    const prev = open.get(lane);
    if (prev) prev.e = crashAfter(lane, prev.s, e.timeUs);
    const band: RoleBand = { lane, s: e.timeUs, e: endUs, role: String(v.role ?? "?"), term: typeof v.term === "number" ? v.term : -1 };
    if (typeof v.leader === "string") band.leader = v.leader;
    bands.push(band);
    open.set(lane, band);
  }
  for (const [lane, b] of open) b.e = crashAfter(lane, b.s, endUs);
  return bands;
}

interface HoldLike {
  process?: string;
  grantId?: string;
  acquireIndex?: number;
}

function buildViolations(
  record: RunRecord,
  holdByGrant: Map<string, number>,
  holdByAcquire: Map<number, number>,
  writeByIndex: Map<number, number>,
  holds: HoldColumns,
  writes: WriteColumns,
): ViolationMark[] {
  const out: ViolationMark[] = [];
  const holdIdx = (h: HoldLike | undefined): number | undefined => {
    if (!h) return undefined;
    if (typeof h.acquireIndex === "number" && holdByAcquire.has(h.acquireIndex)) return holdByAcquire.get(h.acquireIndex);
    return typeof h.grantId === "string" ? holdByGrant.get(h.grantId) : undefined;
  };
  for (const r of record.verdicts.results) {
    if (r.valid !== false) continue;
    for (const w of witnessItems(r.witness)) {
      // Two overlapping holds (mutual exclusion and anything shaped like it).
      const a = holdIdx(w.first as HoldLike | undefined);
      const b = holdIdx(w.second as HoldLike | undefined);
      if (a !== undefined && b !== undefined) {
        const s = typeof w.overlapStartUs === "number" ? w.overlapStartUs : Math.max(holds.s[a]!, holds.s[b]!);
        const e = typeof w.overlapEndUs === "number" ? w.overlapEndUs : Math.min(holds.e[a]!, holds.e[b]!);
        out.push({
          checker: r.checker,
          lock: typeof w.lock === "string" ? w.lock : "",
          s,
          e,
          holds: [a, b],
          writes: [],
          sentence: typeof w.sentence === "string" ? w.sentence : r.summary,
        });
        continue;
      }
      // A write the resource should not have accepted (fencing), named by its history index.
      if (typeof w.index === "number" && writeByIndex.has(w.index)) {
        const wi = writeByIndex.get(w.index)!;
        const t = writes.t[wi]!;
        const hs = writes.hold[wi]! >= 0 ? [writes.hold[wi]!] : [];
        out.push({
          checker: r.checker,
          lock: typeof w.lock === "string" ? w.lock : "",
          s: t,
          e: t,
          holds: hs,
          writes: [wi],
          sentence: typeof w.sentence === "string" ? w.sentence : staleSentence(w),
        });
      }
    }
  }
  return out;
}

/**
 * The evidence items of a witness: the witness itself when it is a list, else the
 * items of its list-valued fields (e.g. fencing's { staleWrites: [...] }).
 */
function witnessItems(witness: unknown): Array<Record<string, unknown>> {
  const isObj = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);
  if (Array.isArray(witness)) return witness.filter(isObj);
  if (!isObj(witness)) return [];
  const out: Array<Record<string, unknown>> = [];
  for (const v of Object.values(witness)) if (Array.isArray(v)) out.push(...v.filter(isObj));
  return out;
}

function staleSentence(w: Record<string, unknown>): string {
  const who = typeof w.client === "string" ? w.client : "a client";
  const by = typeof w.token === "number" ? `token ${w.token}` : typeof w.grantId === "string" ? `grant ${w.grantId}` : "a stale grant";
  const newer = typeof w.newerToken === "number" ? `token ${w.newerToken}` : typeof w.newerGrantId === "string" ? `grant ${w.newerGrantId}` : "a newer one";
  return `the resource accepted ${who}'s write under ${by} after ${newer} had already written.`;
}

/**
 * The story's steps: the faults as the scenario scheduled them, the violations, and
 * the operations that lead to them; in a short run, every hold and write. Each step
 * names the mark it is about so the page can highlight it.
 */
function buildSteps(v: RunView): StoryStep[] {
  const steps: StoryStep[] = [];
  const small = v.holds.s.length <= 12 && v.writes.t.length <= 16;
  const holdSet = storyHolds(v, small);
  holdSteps(v, holdSet, steps);
  writeSteps(v, small, holdSet, steps);
  v.faults.forEach((f, i) => {
    steps.push({ t: f.s, text: faultSentence(v, f), ref: { kind: "fault", i }, tone: "fault" });
    if (f.e !== null && f.e < v.endUs && !semanticsOf(f.kind).instant) {
      steps.push({ t: f.e, text: faultEndSentence(v, f), ref: { kind: "fault", i }, tone: "fault" });
    }
  });
  v.violations.forEach((x, i) => steps.push({ t: x.s, text: `violation (${x.checker}): ${x.sentence}`, ref: { kind: "violation", i }, tone: "bad" }));
  attemptSteps(v, steps);
  // The servers' side: every expiry and decision (up to a budget); in a short run, every key set too.
  let noteSteps = 0;
  v.notes.forEach((n, i) => {
    if (noteSteps >= NOTE_STEPS_MAX || !(n.key || small)) return;
    noteSteps++;
    steps.push({ t: n.t, text: n.sentence, ref: { kind: "note", i }, tone: n.key ? "server" : "normal" });
  });
  steps.sort((a, b) => a.t - b.t);
  // Keep every fault and violation; cut the rest to the budget.
  if (steps.length > STEPS_MAX) {
    const keep = steps.filter((s) => s.tone !== "normal");
    const rest = steps.filter((s) => s.tone === "normal").slice(0, Math.max(0, STEPS_MAX - keep.length));
    return [...keep, ...rest].sort((a, b) => a.t - b.t);
  }
  return steps;
}

const laneName = (v: RunView, i: number): string => v.lanes[i]?.id ?? "?";
const lockName = (v: RunView, i: number): string => v.locks[i] ?? "";

/** The holds the story tells: in a short run every one, else those in a violation. */
function storyHolds(v: RunView, small: boolean): Set<number> {
  const holdSet = new Set<number>();
  if (small) for (let i = 0; i < v.holds.s.length; i++) holdSet.add(i);
  for (const x of v.violations) for (const h of x.holds) holdSet.add(h);
  return holdSet;
}

/** Each told hold's acquire and, where its own clock ended it, its lapse. */
function holdSteps(v: RunView, holdSet: Set<number>, steps: StoryStep[]): void {
  const lane = (i: number) => laneName(v, i);
  const lock = (i: number) => lockName(v, i);
  const grant = (i: number) => {
    const g = v.holds.g[i]!;
    return g >= 0 ? `${lane(v.holds.lane[i]!)}#${g}` : v.strings[-g - 1]!;
  };
  for (const h of holdSet) {
    const waitMs = (v.holds.s[h]! - v.holds.w[h]!) / 1000;
    const tok = v.holds.tok[h]! >= 0 ? `, fencing token ${v.holds.tok[h]}` : "";
    steps.push({
      t: v.holds.s[h]!,
      text: `${lane(v.holds.lane[h]!)} acquires ${lock(v.holds.lock[h]!)} (grant ${grant(h)}${tok})${waitMs >= 50 ? ` after waiting ${fmtMs(waitMs)}` : ""}`,
      ref: { kind: "hold", i: h },
      tone: v.holds.bad[h] ? "bad" : "normal",
    });
    if (v.holds.by[h] === 1) {
      steps.push({
        t: v.holds.e[h]!,
        text: `${lane(v.holds.lane[h]!)}'s own clock says its lease on ${lock(v.holds.lock[h]!)} has lapsed${v.holds.st[h] ? " — but it goes on acting as the holder" : ""}`,
        ref: { kind: "hold", i: h },
        tone: v.holds.st[h] ? "bad" : "normal",
      });
    }
  }
}

/** The writes the story tells: all in a short run, else bad ones, those under told holds, and rejections while the budget lasts. */
function writeSteps(v: RunView, small: boolean, holdSet: Set<number>, steps: StoryStep[]): void {
  for (let w = 0; w < v.writes.t.length; w++) {
    const h = v.writes.hold[w]!;
    if (!(small || v.writes.bad[w] || (h >= 0 && holdSet.has(h)) || (!v.writes.ok[w] && steps.length < STEPS_MAX))) continue;
    const who = v.writes.cl[w]! >= 0 ? laneName(v, v.writes.cl[w]!) : "a client";
    const tok = v.writes.tok[w]! >= 0 ? ` with token ${v.writes.tok[w]}` : "";
    const ok = v.writes.ok[w] === 1;
    const why = v.writes.why[w]! >= 0 ? ` (${v.strings[v.writes.why[w]!]})` : "";
    steps.push({
      t: v.writes.t[w]!,
      text: `the resource ${ok ? "accepts" : "rejects"} ${who}'s write of counter = ${v.writes.counter[w]}${tok} to ${lockName(v, v.writes.lock[w]!)}${why}`,
      ref: { kind: "write", i: w },
      tone: v.writes.bad[w] ? "bad" : ok ? "normal" : "fault",
    });
  }
}

/** Failed and unknown acquires, while the budget lasts. */
function attemptSteps(v: RunView, steps: StoryStep[]): void {
  for (let a = 0; a < v.attempts.s.length && steps.length < STEPS_MAX; a++) {
    const why = v.attempts.why[a]! >= 0 ? `: ${v.strings[v.attempts.why[a]!]}` : "";
    steps.push({
      t: v.attempts.e[a]!,
      text: `${laneName(v, v.attempts.lane[a]!)}'s acquire of ${lockName(v, v.attempts.lock[a]!)} ${v.attempts.out[a] === 0 ? "fails" : "ends unknown"}${why}`,
      ref: { kind: "attempt", i: a },
      tone: "fault",
    });
  }
}

/** The fault as its kind's report functions read it (faults/<kind>.ts). */
function reportMark(v: RunView, f: FaultMark): FaultReportMark {
  return {
    who: f.lanes.map((l) => v.lanes[l]!.id).join(", "),
    dur: f.e !== null ? ` for ${fmtMs((f.e - f.s) / 1000)}` : "",
    note: f.note ? ` — ${f.note}` : "",
    ...(f.groups ? { groups: f.groups } : {}),
    ...(f.oneWay ? { oneWay: f.oneWay } : {}),
    num: (field) => {
      const x = (f as unknown as Record<string, unknown>)[field];
      return typeof x === "number" ? x : undefined;
    },
    fmtMs,
  };
}

/** The sentence at a fault's end: "the pause of c1 resumes", "the partition ends". */
function faultEndSentence(v: RunView, f: FaultMark): string {
  const m = reportMark(v, f);
  const end = findFaultDef(f.kind)?.report?.end;
  return end ? end(m) : `${f.kind}${m.who ? ` on ${m.who}` : ""} ends`;
}

export function faultSentence(v: RunView, f: FaultMark): string {
  const m = reportMark(v, f);
  const start = findFaultDef(f.kind)?.report?.start;
  if (start) return start(m);
  // An imported history's nemesis op, by its Jepsen name (":start").
  if (f.kind.startsWith(":")) return `the nemesis runs ${f.kind}${m.dur}${m.note}`;
  return `${f.kind}${m.who ? ` on ${m.who}` : ""}${m.dur}${m.note}`;
}

export function fmtMs(ms: number): string {
  const a = Math.abs(ms);
  if (a >= 1000) return `${+(ms / 1000).toFixed(a >= 10_000 ? 1 : 3)} s`;
  if (a >= 1) return `${+ms.toFixed(3)} ms`;
  return `${+(ms * 1000).toFixed(0)} µs`;
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

export type { Hold };

/**
 * Track key ownership from a node's key notes: a key-deleted note gains `owner` (whose
 * key it was), and so does a key-set note on a key another client set and still holds
 * (a renewal or overwrite of its key: the owner stays, unless the trace says the value
 * was replaced).
 */
function withKeyOwner(owners: Map<string, string>, node: string, f: string, value: unknown): unknown {
  if (f !== "key-set" && f !== "key-expired" && f !== "key-deleted") return value;
  const v = (value ?? {}) as { key?: unknown; by?: unknown; overwrote?: unknown };
  const slot = `${node}\0${String(v.key)}`;
  const owner = owners.get(slot);
  if (f === "key-set") {
    const foreign = owner !== undefined && typeof v.by === "string" && v.by !== owner;
    if (foreign && v.overwrote !== true) return { ...(value as object), owner };
    if (typeof v.by === "string") owners.set(slot, v.by);
    else owners.delete(slot);
    return foreign ? { ...(value as object), owner } : value;
  }
  owners.delete(slot);
  return f === "key-deleted" && owner !== undefined ? { ...(value as object), owner } : value;
}

/** What the trace says a command did to a key: its name, and whether it replaced the key's value. */
interface TracedChange {
  command: string;
  overwrote: boolean;
}

/** The traced command behind each key change, by node, true time and key (empty without a trace). */
function commandsByChange(trace: readonly TraceRecord[] | undefined): Map<string, TracedChange> {
  const out = new Map<string, TracedChange>();
  for (const r of trace ?? []) {
    if (r.kind !== "redis-command") continue;
    const d = r.data as RedisCommandTrace;
    const command = (d.command.split(" ", 1)[0] ?? "").toUpperCase();
    for (const c of d.changes ?? []) {
      out.set(`${r.process}\0${r.timeUs}\0${c.key}`, { command, overwrote: c.before !== null && c.after !== null && c.before.value !== c.after.value });
    }
  }
  return out;
}

/** A key-set note with the command behind it (from the trace), so a report can name it. */
function withCommand(commands: ReadonlyMap<string, TracedChange>, e: HistoryEvent): unknown {
  if (e.f !== "key-set" || commands.size === 0) return e.value;
  const v = (e.value ?? {}) as { key?: unknown };
  const c = commands.get(`${e.process}\0${e.timeUs}\0${String(v.key)}`);
  return c ? { ...(e.value as object), command: c.command, ...(c.overwrote ? { overwrote: true } : {}) } : e.value;
}

function isServerNote(e: HistoryEvent, lanes: readonly Lane[], laneOf: ReadonlyMap<string, number>): boolean {
  return e.process !== NEMESIS && lanes[laneOf.get(e.process)!]!.kind !== "client" && e.f !== "final-read" && e.f !== "storage-write";
}

/**
 * Which server notes are drawn. A kind with at most NOTES_PER_KIND_MAX notes: all. A
 * denser kind: up to NOTES_PER_KIND_MAX / NOTE_BINS in each of NOTE_BINS intervals of the
 * run, the others counted per (lane, kind, interval) for the page to draw as counts.
 */
class NotePicker {
  private readonly totals = new Map<string, number>();
  private readonly keptInBin = new Map<string, number>();
  private readonly dropped = new Map<string, NoteDensity>();
  private readonly binUs: number;

  constructor(history: readonly HistoryEvent[], isNote: (e: HistoryEvent) => boolean, endUs: number) {
    for (const e of history) if (isNote(e)) this.totals.set(e.f, (this.totals.get(e.f) ?? 0) + 1);
    this.binUs = Math.max(1, Math.ceil((endUs + 1) / NOTE_BINS));
  }

  /** Kinds drawn spread out, with their totals. */
  get dense(): Array<[string, number]> {
    return [...this.totals].filter(([, n]) => n > NOTES_PER_KIND_MAX);
  }

  keep(f: string, lane: number, tUs: number): boolean {
    if ((this.totals.get(f) ?? 0) <= NOTES_PER_KIND_MAX) return true;
    const bin = Math.floor(tUs / this.binUs);
    const key = `${f}\0${bin}`;
    const kept = this.keptInBin.get(key) ?? 0;
    if (kept < NOTES_PER_KIND_MAX / NOTE_BINS) {
      this.keptInBin.set(key, kept + 1);
      return true;
    }
    const slot = `${key}\0${lane}`;
    const d = this.dropped.get(slot);
    if (d) d.n++;
    else this.dropped.set(slot, { lane, f, s: bin * this.binUs, e: (bin + 1) * this.binUs, n: 1 });
    return false;
  }

  counted(): NoteDensity[] {
    return [...this.dropped.values()];
  }
}

const REGISTER_OUT = { ok: 0, fail: 1, info: 2 } as const;

/** Every operation of a history with no acquire (a register's): nothing else would draw them. */
function registerOps(ops: readonly Operation[], laneFor: (process: string) => number, str: (s: string) => number): RegisterOpColumns {
  const cols: RegisterOpColumns = { lane: [], s: [], e: [], txt: [], out: [] };
  if (ops.some((op) => op.f === "acquire")) return cols;
  for (const op of ops) {
    cols.lane.push(laneFor(op.process));
    cols.s.push(op.startUs);
    cols.e.push(op.complete ? op.complete.timeUs : -1);
    cols.txt.push(str(registerOpText({ f: op.f, outcome: op.outcome, input: op.invoke.value, output: op.complete?.value })));
    cols.out.push(REGISTER_OUT[op.outcome]);
  }
  return cols;
}
