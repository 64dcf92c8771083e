import { NEMESIS, pairOperations, type FaultValue, type HistoryEvent, type Operation } from "../sim/history.js";
import { computeHolds, sharedHolds, type Hold } from "./holds.js";
import { forEachPair } from "./pairs.js";
import { semanticsOf } from "../faults/index.js";
import type { ChallengeSpec } from "../scenarios/challenge-spec.js";
import { DerivedChallenge, type DerivedRule } from "./challenge-derived.js";
import { timeText } from "./time-text.js";

/**
 * Challenge: did the run test anything? A lock can only be shown unsafe when two
 * clients' claims on it meet, so a run in which no two beliefs ever overlapped says
 * nothing about mutual exclusion however "safe" it looks. Judged from the history
 * alone, after the checkers; it never changes the history.
 *
 * Kinds:
 *  - "overlapping-belief" (the default): some client was granted a lock (acquire ok)
 *    while another client's hold on it was still open in that client's own view: its
 *    acquire ok, no release invoked, no `lapse` note yet (its library's own validity
 *    check), no crash; stretched, as checkers/holds.ts does, by any read, write or
 *    extend it went on doing under the grant. Every mutual-exclusion violation is such
 *    an overlap, so an unsafe run is always challenged.
 *  - "expiry-handover": some client was granted a lock that another client had been
 *    granted and whose release had not freed it by then (never sent, refused, lost, or
 *    answered "not released"): the lease or session timeout, not a release, decided who
 *    held. For scenarios where a holder is cut off, crashes or drifts.
 *  - "waiter-served": some client asked for a lock while another held it and was granted
 *    it later: mutual exclusion had someone to exclude. For the fault-free baselines.
 *  - "granted-during-release": some client was granted a lock while another client's
 *    release of it was still outstanding (invoked, not answered): a holder stalled
 *    mid-release. For attacks on how a release is made.
 *  - "waiter-waited": some client's acquire stayed outstanding for at least `waitedMsMin`
 *    (default: the TTL it asked for) with no grant of that lock to anyone meanwhile: the
 *    lock was unavailable and somebody wanted it. For scenarios about liveness.
 */
export type { ChallengeSpec, ChallengeKind } from "../scenarios/challenge-spec.js";
export { CHALLENGE_KINDS } from "../scenarios/challenge-spec.js";

export interface ChallengeResult {
  challenged: boolean;
  /** One sentence in the user's terms: what met, or why nothing did. */
  why: string;
  kind: ChallengeSpec["kind"];
  /** Overlapping grants (overlapping-belief) or long waits (waiter-waited) seen. */
  count: number;
  grants: number;
  /** Acquire attempts that ended in fail or info. */
  acquiresFailed: number;
  /** When the scenario named no rule: the rule derived from the run's faults, and why. */
  derived?: { rule: DerivedRule; why: string };
}

/** The TTLs a derived rule needs to tell a fault that outlasted a lease. */
export interface ChallengeTtl {
  ttlMs?: number;
  sessionTimeoutMs?: number;
}

export function judgeChallenge(history: readonly HistoryEvent[], spec: ChallengeSpec = { kind: "derived" }, ttl: ChallengeTtl = {}): ChallengeResult {
  // No acquire at all (a register's history): the derived rule sees only faults and clients, and needs no pairing.
  if (spec.kind === "derived" && !history.some((e) => e.f === "acquire")) {
    const d = new DerivedChallenge(ttl);
    for (const e of faultsAndClients(history)) d.push(e);
    return { grants: 0, acquiresFailed: 0, ...derivedOf(d, { challenged: false, count: 0, why: "" }, () => whyNoOverlap([], [])) };
  }
  // Nor does the overlap rule: with no acquire there is no hold for a claim to meet. Pairing and
  // computing holds for nothing cost a failed 10k-op register check a sixth of its CPU.
  if (spec.kind === "overlapping-belief" && !history.some((e) => e.f === "acquire"))
    return { kind: spec.kind, grants: 0, acquiresFailed: 0, challenged: false, count: 0, why: whyNoOverlap([], []) };
  const { ops } = pairOperations(history);
  const lastUs = history.length > 0 ? history[history.length - 1]!.timeUs : 0;
  // An acquire with no answer ends, for waiting purposes, at its info or at the history's end.
  for (const o of ops) if (o.endUs === Infinity) o.endUs = o.complete?.timeUs ?? lastUs;
  const acquires = ops.filter((o) => o.f === "acquire");
  const grants = acquires.filter((o) => o.outcome === "ok").length;
  const acquiresFailed = acquires.length - grants;
  const base = { kind: spec.kind, grants, acquiresFailed };
  if (spec.kind === "waiter-waited") return { ...base, ...judgeWaits(acquires, spec.waitedMsMin) };
  if (spec.kind === "expiry-handover") return { ...base, ...judgeExpiry(history, acquires) };
  if (spec.kind === "waiter-served") return { ...base, ...judgeServed(history, acquires) };
  if (spec.kind === "granted-during-release") return { ...base, ...judgeDuringRelease(ops, acquires) };
  if (spec.kind === "derived" || spec.kind === "client-fault-contended" || spec.kind === "server-fault-during-hold") {
    const d = new DerivedChallenge(ttl);
    for (const e of acquires.length === 0 ? faultsAndClients(history) : history) d.push(e);
    if (spec.kind !== "derived") return { ...base, ...metOf(d, spec.kind) };
    // No acquire, no hold (a register's history): computing the holds twice for nothing cost a 1k-op check a tenth of its time.
    if (acquires.length === 0) return { ...base, ...derivedOf(d, { challenged: false, count: 0, why: "" }, () => whyNoOverlap([], acquires)) };
    return { ...base, ...derivedOf(d, judgeExpiry(history, acquires), () => whyNoOverlap(sharedHolds(history), acquires)) };
  }
  return { ...base, ...judgeOverlap(history, acquires) };
}

/**
 * What the derived rule can see of a history with no acquire: no client holds or wants a
 * lock, so only the faults (whom they reached) and which processes are clients (their
 * first invoke) decide it. Streaming every event of a 10k-op register history through it
 * cost a check as much as its pairing.
 */
function faultsAndClients(history: readonly HistoryEvent[]): HistoryEvent[] {
  const clients = new Set<string>();
  const out: HistoryEvent[] = [];
  for (const e of history) {
    if (e.process === NEMESIS) out.push(e);
    else if (e.type === "invoke" && !clients.has(e.process)) {
      clients.add(e.process);
      out.push(e);
    }
  }
  return out;
}

type Judged = Pick<ChallengeResult, "challenged" | "why" | "count">;

function metOf(d: DerivedChallenge, rule: DerivedRule): Judged {
  const m = d.met[rule];
  return m.count > 0 ? { challenged: true, count: m.count, why: m.first! } : { challenged: false, count: 0, why: `nothing met the rule ${rule}` };
}

/**
 * The derived rule's verdict: its own instances, or the lock changing hands by expiry
 * (which tests a lock under any fault). Shared by the batch and the online forms. When
 * nothing met, the sentence leads with what happened (`story`: who held and who waited;
 * then the longest fault on a holder or waiter and why it met nothing), and names the
 * rule after.
 */
export function derivedOf(d: DerivedChallenge, expiry: Judged, story: () => string): Judged & Pick<ChallengeResult, "derived" | "kind"> {
  const { rule, why } = d.rule();
  const own = metOf(d, rule);
  const derived = { rule, why: `${why}, so the run must show ${RULE_WORDS[rule]}, or the lock changing hands by expiry` };
  const base = { kind: rule, derived };
  if (own.challenged) return { ...base, ...own, count: own.count + expiry.count };
  if (expiry.challenged) return { ...base, ...expiry };
  const miss = d.nearestMiss();
  return {
    ...base,
    challenged: false,
    count: 0,
    why: `${story()}${miss ? `; ${miss}` : ""}. The rule derived from the run (${rule}) was not met: ${derived.why}`,
  };
}

const RULE_WORDS: Record<DerivedRule, string> = {
  "client-fault-contended":
    "a fault on a client holding or wanting a lock, while another wanted it, that outlasted its lease or across which the lock was served",
  "server-fault-during-hold": "a server fault during a hold while another client wanted the lock",
  "waiter-served": "a client granted a lock it had waited for while another held it",
};

function judgeOverlap(history: readonly HistoryEvent[], acquires: readonly Operation[]): Judged {
  const holds = beliefs(history);
  const ofLock = byLock(holds);
  let count = 0;
  let first: { granted: Hold; other: Hold } | undefined;
  for (const h of holds) {
    // Both beliefs non-empty and meeting: a grant whose validity was gone on arrival believed nothing.
    const other = ofLock
      .get(h.lock)!
      .find((o) => o.lock === h.lock && o.process !== h.process && o.acquireIndex < h.acquireIndex && o.endUs > h.startUs && h.endUs > h.startUs);
    if (!other) continue;
    count++;
    first ??= { granted: h, other };
  }
  if (first) return { challenged: true, count, why: overlapWhy(first.granted, first.other) };
  return { challenged: false, count: 0, why: whyNoOverlap(holds, acquires) };
}

/**
 * Each client's belief that it holds: checkers/holds.ts's holds, except that a lease
 * found lapsed while the client was paused is found only when it wakes. The `lapse`
 * note is taken at the true time the client's clock passes the lease end, even mid-pause;
 * a paused client still believes it holds until it runs again.
 */
export function beliefs(history: readonly HistoryEvent[]): Hold[] {
  const holds = computeHolds(history);
  const pauses = pausesOf(history);
  for (const h of holds) {
    if (h.endedBy !== "lapse") continue;
    const wake = pauses.find((p) => p.process === h.process && p.startUs <= h.endUs && h.endUs < p.endUs);
    if (wake) h.endUs = Math.max(h.endUs, wake.endUs);
  }
  return holds;
}

interface Pause {
  process: string;
  startUs: number;
  endUs: number;
}

/** Every pause of a process, from the nemesis's start and end events (open ones run to the history's end). */
function pausesOf(history: readonly HistoryEvent[]): Pause[] {
  const out: Pause[] = [];
  const open = new Map<string, Pause>();
  for (const e of history) {
    if (e.process !== NEMESIS || semanticsOf(e.f).stopsTarget !== true) continue;
    const v = e.value as FaultValue | undefined;
    for (const target of v?.targets ?? []) {
      if (v?.phase === "start") {
        const p = { process: target, startUs: e.timeUs, endUs: Infinity };
        open.set(target, p);
        out.push(p);
      } else if (v?.phase === "end") {
        const p = open.get(target);
        if (p) p.endUs = e.timeUs;
        open.delete(target);
      }
    }
  }
  const lastUs = history.length > 0 ? history[history.length - 1]!.timeUs : 0;
  for (const p of open.values()) p.endUs = lastUs;
  return out;
}

/** Why no two beliefs met, from who held, who waited, and how the waits ended. */
function whyNoOverlap(holds: readonly Hold[], acquires: readonly Operation[]): string {
  if (holds.length === 0) {
    const failed = acquires.filter((o) => o.outcome !== "ok");
    return failed.length === 0 ? "no client asked for a lock" : `nobody was ever granted a lock: ${gaveUp(failed)}`;
  }
  const lock = holds[0]!.lock;
  const holders = [...new Set(holds.filter((h) => h.lock === lock).map((h) => h.process))];
  const acquiresOf = byLock(acquires);
  // The waits that ended without the lock while someone else held it: the usual reason nothing met.
  for (const h of holds) {
    const lost = (acquiresOf.get(h.lock) ?? []).filter((o) => o.process !== h.process && o.outcome !== "ok" && o.startUs < h.endUs && endOf(o) > h.startUs);
    if (lost.length === 0) continue;
    const waiter = lost[0]!.process;
    return `${waiter} never held ${h.lock} while ${h.process} believed it did: ${waitStory(acquires, lost[0]!)}; ${h.process} held it from ${sec(h.startUs)} to ${sec(h.endUs)} (${ending(h)})`;
  }
  if (holders.length === 1) return `only ${holders[0]} was ever granted ${lock}; no other client's acquire met its hold`;
  const byRelease = holds.filter((h) => h.endedBy === "release").length;
  const how =
    byRelease === holds.length ? "released it" : `released it (${byRelease}) or found its lease lapsed, crashed or stopped (${holds.length - byRelease})`;
  return `no grant met another client's hold: ${holds.length} grants to ${holders.length} clients, each after the previous holder ${how}`;
}

function judgeExpiry(history: readonly HistoryEvent[], acquires: readonly Operation[]): Judged {
  const holds = sharedHolds(history);
  const released = releasesThatFreed(history);
  const ofLock = byLock(holds);
  let count = 0;
  let first: { taken: Hold; by: Hold } | undefined;
  for (const h of holds) {
    const freedUs = released.get(h.grantId) ?? Infinity;
    if (h.endedBy === "end-of-history") continue;
    const by = ofLock.get(h.lock)!.find((o) => o.process !== h.process && o.acquireIndex > h.acquireIndex && o.startUs < freedUs);
    if (!by) continue;
    count++;
    first ??= { taken: h, by };
  }
  if (first) return { challenged: true, count, why: expiryWhy(first.taken, first.by) };
  return { challenged: false, count: 0, why: `every lock was freed by its holder's release, never by a lease running out: ${whyNoOverlap(holds, acquires)}` };
}

/** When each grant's release was confirmed to have freed the lock (an ok release that did not report `released: false`). */
function releasesThatFreed(history: readonly HistoryEvent[]): Map<string, number> {
  const out = new Map<string, number>();
  forEachPair(history, (invoke, complete) => {
    if (invoke.f !== "release" || complete.type !== "ok") return;
    const g = (invoke.value as { grantId?: string } | undefined)?.grantId;
    if (g === undefined || (complete.value as { released?: boolean } | undefined)?.released === false) return;
    if (!out.has(g)) out.set(g, invoke.timeUs);
  });
  return out;
}

function judgeServed(history: readonly HistoryEvent[], acquires: readonly Operation[]): Judged {
  const holds = sharedHolds(history);
  const ofLock = byLock(holds);
  let count = 0;
  let first: { op: Operation; held: Hold } | undefined;
  for (const o of acquires) {
    if (o.outcome !== "ok") continue;
    const held = ofLock.get(o.lock)?.find((h) => h.process !== o.process && h.startUs < o.endUs && h.endUs > o.startUs);
    if (!held) continue;
    count++;
    first ??= { op: o, held };
  }
  if (first) return { challenged: true, count, why: servedWhy(first.op, first.held) };
  return { challenged: false, count: 0, why: `no client was granted a lock it had waited for while another held it: ${whyNoOverlap(holds, acquires)}` };
}

function judgeDuringRelease(ops: readonly Operation[], acquires: readonly Operation[]): Judged {
  const releases = ops.filter((o) => o.f === "release");
  const releasesOf = byLock(releases);
  let count = 0;
  let first: { op: Operation; rel: Operation } | undefined;
  for (const o of acquires) {
    if (o.outcome !== "ok") continue;
    // Granted after the release was invoked and before it was answered (or never answered).
    const rel = releasesOf
      .get(o.lock)
      ?.find((r) => r.process !== o.process && r.startUs < o.endUs && (r.complete === undefined || r.complete.timeUs > o.endUs));
    if (!rel) continue;
    count++;
    first ??= { op: o, rel };
  }
  if (first) return { challenged: true, count, why: duringReleaseWhy(first.op, first.rel) };
  const n = releases.length;
  return { challenged: false, count: 0, why: `no client was granted a lock while another's release of it was outstanding (${n} release${n === 1 ? "" : "s"})` };
}

function judgeWaits(acquires: readonly Operation[], waitedMsMin: number | undefined): Judged {
  const grantsUs = byLock(acquires.filter((o) => o.outcome === "ok").map((o) => ({ lock: o.lock, atUs: o.endUs })));
  let count = 0;
  let longest: { op: Operation; waitedUs: number; boundMs: number } | undefined;
  for (const o of acquires) {
    const boundMs = waitedMsMin ?? (o.invoke.value as { ttlMs?: number } | undefined)?.ttlMs ?? 0;
    // The wait ends at its own grant, or at the first grant to anyone else meanwhile.
    const other = (grantsUs.get(o.lock) ?? []).filter((g) => g.atUs > o.startUs && g.atUs < endOf(o)).map((g) => g.atUs);
    const untilUs = Math.min(endOf(o), ...other);
    const waitedUs = untilUs - o.startUs;
    if (waitedUs < boundMs * 1000) continue;
    count++;
    if (!longest || waitedUs > longest.waitedUs) longest = { op: o, waitedUs, boundMs };
  }
  if (longest) return { challenged: true, count, why: waitedWhy(longest.op, longest.waitedUs, longest.boundMs) };
  const bound = waitedMsMin !== undefined ? `${waitedMsMin} ms` : "one TTL";
  return { challenged: false, count: 0, why: `no client waited ${bound} or more for a lock nobody was granted: every wait was served or given up sooner` };
}

/**
 * The items of each lock, in their order: a judge's search for another client's hold,
 * grant or release of the same lock looks at that lock's alone (over every hold of every
 * lock, 1000 clients on 1000 locks took 27 s).
 */
function byLock<T extends { lock?: string }>(items: readonly T[]): Map<string | undefined, T[]> {
  const out = new Map<string | undefined, T[]>();
  for (const x of items) {
    const mine = out.get(x.lock);
    if (mine === undefined) out.set(x.lock, [x]);
    else mine.push(x);
  }
  return out;
}

/** An op as the sentences below need it. */
type OpSpan = Pick<Operation, "process" | "lock" | "startUs" | "endUs">;

export function overlapWhy(granted: Hold, other: Hold): string {
  return `${granted.process} was granted ${granted.lock} at ${sec(granted.startUs)} while ${other.process} still held it (granted at ${sec(other.startUs)}, held until ${sec(other.endUs)})`;
}

export function expiryWhy(taken: Hold, by: Hold): string {
  return `${by.process} was granted ${by.lock} at ${sec(by.startUs)}, freed by ${taken.process}'s lease running out, not by its release (${ending(taken)} at ${sec(taken.endUs)})`;
}

export function servedWhy(op: OpSpan, held: Hold): string {
  return `${op.process} asked for ${op.lock} at ${sec(op.startUs)} while ${held.process} held it, and was granted it at ${sec(op.endUs)}`;
}

export function duringReleaseWhy(op: OpSpan, rel: OpSpan): string {
  return `${op.process} was granted ${op.lock} at ${sec(op.endUs)} while ${rel.process}'s release, invoked at ${sec(rel.startUs)}, was still outstanding`;
}

export function waitedWhy(op: OpSpan, waitedUs: number, boundMs: number): string {
  return `${op.process} waited ${ms(waitedUs)} for ${op.lock} from ${sec(op.startUs)} with nobody granted it (at least ${boundMs} ms counts)`;
}

/**
 * The whole wait an attempt belongs to: the client's unbroken run of failed attempts on
 * that lock around it (up to a grant), told from its first to its last.
 */
function waitStory(acquires: readonly Operation[], one: Operation): string {
  const mine = acquires.filter((o) => o.process === one.process && o.lock === one.lock);
  const at = mine.indexOf(one);
  let from = at;
  let to = at;
  while (from > 0 && mine[from - 1]!.outcome !== "ok") from--;
  while (to + 1 < mine.length && mine[to + 1]!.outcome !== "ok") to++;
  const run = mine.slice(from, to + 1);
  const granted = mine[to + 1];
  const first = run[0]!;
  return `${one.process} tried from ${sec(first.startUs)} and ${granted ? `was next granted it at ${sec(granted.endUs)}${run.length > 1 ? ` after ${run.length} failed attempts` : ""}` : gaveUp(run)}`;
}

/** How a client's failed attempts ended: when it gave up, after how many, and why. */
function gaveUp(failed: readonly Operation[]): string {
  const last = failed[failed.length - 1]!;
  const reason = (last.complete?.value as { reason?: string } | undefined)?.reason;
  const n = failed.length === 1 ? "" : ` after ${failed.length} attempts`;
  const how = last.outcome === "fail" ? "gave up" : "stopped without an answer";
  return `${how} at ${sec(endOf(last))}${n}${reason ? ` (${reason})` : ""}${shortOfWait(last)}`;
}

/** When a wait ended well inside the waitMs the workload allowed: the library gave up on its own. */
function shortOfWait(o: Operation): string {
  const waitMs = (o.invoke.value as { waitMs?: number } | undefined)?.waitMs;
  const waitedUs = endOf(o) - o.startUs;
  if (o.outcome !== "fail" || waitMs === undefined || waitMs <= 0 || waitedUs >= waitMs * 1000 * 0.9) return "";
  return `, ${ms(waitedUs)} into the ${ms(waitMs * 1000)} the workload would wait (waitMs): its own limit, not the scenario's`;
}

function ending(h: Hold): string {
  if (h.stretched) return "its last act under the grant";
  return {
    release: "it released",
    lapse: "its library found the lease lapsed",
    crash: "it crashed",
    lease: "its lease ran out",
    "end-of-history": "the run ended",
  }[h.endedBy];
}

const endOf = (o: Operation): number => o.endUs;
const sec = timeText;
const ms = (us: number): string => (us >= 1e6 ? sec(us) : `${Math.round(us / 1000)} ms`);
