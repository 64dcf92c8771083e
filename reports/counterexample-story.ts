import type { HistoryEvent } from "../sim/history.js";
import type { FaultStep, Scenario } from "../scenarios/schema.js";
import { findFaultDef } from "../faults/index.js";
import type { RunRecord } from "./types.js";
import { buildRunView, faultSentence, fmtMs, type RunView } from "./run-view.js";
import { isRegisterModel, linearizationOf, opWords } from "./linearization.js";

/**
 * Explore's counterexample told from its own history: the fault(s), what the servers
 * decided in between, the step at which a checker first failed, and what followed;
 * then whether a shipped scenario shows the same failure.
 *
 * The similarity rule (docs/reports.md#counterexample): two runs fail the same way when
 *   1. they test the same lock: design, and its library adapter or Redlock variant;
 *   2. their faults are of the same kinds, counted as families (a restart is a crash,
 *      an isolation is a partition, a jump or drift is a clock fault), with pauses and
 *      clock faults told apart by whether they hit a client or a server;
 *   3. the same checkers fail.
 * A shipped scenario meeting 1 and 2 but failing other checkers is named as related,
 * with the difference; one meeting 1 and 3 with other faults likewise.
 */
export interface FailureSignature {
  lock: string;
  faults: string[];
  failed: string[];
}

export interface Likeness {
  same: string[];
  related: Array<{ name: string; differs: string }>;
}

/** The lock a scenario tests: its design, plus the adapter or variant that changes the algorithm. */
export function lockIdentity(s: Pick<Scenario, "design" | "designOptions">): string {
  const o = (s.designOptions ?? {}) as { adapter?: unknown; variant?: unknown };
  const extra = [typeof o.adapter === "string" ? `adapter ${o.adapter}` : "", typeof o.variant === "string" ? `variant ${o.variant}` : ""].filter(Boolean);
  return extra.length > 0 ? `${s.design} (${extra.join(", ")})` : s.design;
}

/** Fault families as each kind declares its own (faults/<kind>.ts), sorted, with "of a client" / "of a server" where the target says. */
export function faultFamilies(faults: readonly FaultStep[], clientIds: ReadonlySet<string>): string[] {
  const out = new Set<string>();
  for (const f of faults) {
    const looks = findFaultDef(f.kind)?.looks;
    const family = looks?.family ?? f.kind;
    const role = looks?.familyByRole && f.target ? (clientIds.has(f.target) ? " of a client" : " of a server") : "";
    out.add(family + role);
  }
  return [...out].sort();
}

export function failureSignature(s: Scenario, failed: readonly string[]): FailureSignature {
  return {
    lock: lockIdentity(s),
    faults: faultFamilies(s.faults, new Set(s.clients.map((c) => c.id))),
    failed: [...failed].sort(),
  };
}

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
const words = (xs: readonly string[]) => (xs.length > 0 ? xs.join(", ") : "none");

/** Apply the rule to every shipped scenario's signature; names in the order given. */
export function likeShipped(cx: FailureSignature, shipped: ReadonlyArray<{ name: string; sig: FailureSignature }>): Likeness {
  const out: Likeness = { same: [], related: [] };
  for (const { name, sig } of shipped) {
    if (sig.lock !== cx.lock || sig.failed.length === 0) continue;
    const faults = same(sig.faults, cx.faults);
    const failed = same(sig.failed, cx.failed);
    if (faults && failed) out.same.push(name);
    else if (faults) out.related.push({ name, differs: `same faults; it fails ${words(sig.failed)}` });
    else if (failed) out.related.push({ name, differs: `same checkers fail; its faults: ${words(sig.faults)}` });
  }
  return out;
}

/** When each failing checker first failed, µs, and the step it failed at, in words. */
function firstFailures(record: RunRecord, view: RunView): Array<{ checker: string; t: number; what: string }> {
  const out: Array<{ checker: string; t: number; what: string }> = [];
  for (const r of record.verdicts.results) {
    if (r.valid !== false) continue;
    const marks = view.violations.filter((v) => v.checker === r.checker).sort((a, b) => a.s - b.s);
    if (marks.length > 0) {
      const more = marks.length > 1 ? ` (${marks.length - 1} more later)` : "";
      out.push({ checker: r.checker, t: marks[0]!.s, what: `${marks[0]!.sentence.replace(/\.$/, "")}${more}` });
      continue;
    }
    const lin = r.checker === "linearizability" ? linearizationOf(record) : undefined;
    const stuck = lin?.witness.cannotFollow[0];
    if (lin && stuck) {
      out.push({
        checker: r.checker,
        // Placed where it became visible: the operation's completion (an acquire may wait from time 0).
        t: stuck.endUs ?? stuck.startUs,
        what: `${opWords(stuck, lin.witness.model)} cannot follow the longest order that explains what clients saw (${lin.witness.prefixLength} operations, leaving ${isRegisterModel(lin.witness.model) ? "the state" : "the lock"} ${lin.witness.state})`,
      });
      continue;
    }
    // Judged on the whole run (lost updates: the final read): the failure is at its end.
    out.push({ checker: r.checker, t: view.endUs, what: r.summary });
  }
  return out.sort((a, b) => a.t - b.t || a.checker.localeCompare(b.checker));
}

/** A story's time, to the ms past 1 s (fmtMs rounds 10 s and up to a tenth, too coarse to order steps by). */
const at = (us: number) => `at ${us >= 1e6 ? `${+(us / 1e6).toFixed(3)} s` : fmtMs(us / 1000)}`;
/** Server decisions the story tells between the first fault and the failure, at most. */
const SERVER_STEPS_MAX = 4;
/** Steps after the failure that say what followed, at most. */
const AFTER_STEPS_MAX = 3;

/**
 * The story, one line per step. Every line is made from the run's history and
 * verdicts; `like` is the similarity rule's answer for this run.
 */
export function explainCounterexample(record: RunRecord, history: readonly HistoryEvent[], like: Likeness): string[] {
  const view = buildRunView(record, history);
  const lines: string[] = [];
  const failures = firstFailures(record, view);
  const first = failures[0];
  const fromUs = view.faults.length > 0 ? Math.min(...view.faults.map((f) => f.s)) : 0;
  const toUs = first?.t ?? view.endUs;
  // Up to the failure, in time order: the faults, the servers' decisions, and client
  // steps that are often the hinge (a quorum missed, an extend or release failed).
  const before: Array<{ t: number; text: string }> = view.faults.map((f) => ({ t: f.s, text: `the fault: ${faultSentence(view, f)}` }));
  const inWindow = (t: number) => t >= fromUs && t <= toUs;
  before.push(
    ...view.steps
      .filter((s) => s.tone === "server" && inWindow(s.t))
      .slice(0, SERVER_STEPS_MAX)
      .map((s) => ({ t: s.t, text: `the server's side: ${s.text}` })),
  );
  const client: Array<{ t: number; text: string }> = [];
  for (const ev of history) {
    if (ev.timeUs > toUs) break;
    if (ev.f !== "redlock-miss" || !inWindow(ev.timeUs)) continue;
    const v = (ev.value ?? {}) as Record<string, unknown>;
    client.push({
      t: ev.timeUs,
      text: `a client's step: ${ev.process}'s ${String(v.op ?? "request")} gets ${String(v.votes ?? "?")} of the ${String(v.quorum ?? "?")} votes it needs after ${String(v.elapsedMs ?? "?")} ms, a miss (so it unlocks every node)`,
    });
  }
  const e = view.errors;
  for (let i = 0; i < e.t.length; i++) {
    if (!inWindow(e.t[i]!)) continue;
    const why = e.why[i]! >= 0 ? ` (${view.strings[e.why[i]!]})` : "";
    client.push({
      t: e.t[i]!,
      text: `a client's step: ${view.lanes[e.lane[i]!]?.id ?? "?"}'s ${view.strings[e.f[i]!] ?? "operation"} ${e.out[i] === 0 ? "fails" : "ends unknown"}${why}`,
    });
  }
  before.push(...client.sort((x, y) => x.t - y.t).slice(0, SERVER_STEPS_MAX));
  before.sort((x, y) => x.t - y.t);
  if (view.faults.length === 0) lines.push("no fault: the workload alone breaks the lock");
  for (const x of before) lines.push(`${at(x.t)}, ${x.text}`);
  if (first) {
    lines.push(`${at(first.t)}, the step that failed — ${first.checker}: ${first.what}`);
    for (const f of failures.slice(1)) lines.push(`${at(f.t)}, then ${f.checker} fails too: ${f.what}`);
    const after = view.steps.filter((s) => s.t > first.t && s.tone !== "normal" && !s.text.startsWith("violation (")).slice(0, AFTER_STEPS_MAX);
    for (const s of after) lines.push(`${at(s.t)}, what followed: ${s.text}`);
  }
  lines.push(`the run ends ${at(view.endUs)}, outcome ${record.verdicts.outcome}`);
  lines.push(likenessLine(like));
  return lines;
}

export function likenessLine(like: Likeness): string {
  if (like.same.length > 0)
    return `the same failure as shipped scenario ${like.same.join(", ")} (same lock, fault kinds and failing checkers): \`lockstep run ${like.same[0]}\``;
  if (like.related.length > 0) {
    const r = like.related
      .slice(0, 2)
      .map((x) => `${x.name} (${x.differs})`)
      .join("; ");
    return `no shipped scenario fails the same way (same lock, fault kinds and failing checkers); related: ${r}`;
  }
  return "no shipped scenario fails the same way (same lock, fault kinds and failing checkers), nor a related one: this failure is new to the scenario set";
}
