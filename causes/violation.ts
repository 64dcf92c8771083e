import type { Verdicts } from "../checkers/run-all.js";
import type { Overlap } from "../checkers/mutual-exclusion.js";
import type { Overwrite } from "../checkers/lost-updates.js";
import type { LinearizabilityWitness } from "../checkers/linearizability/index.js";
import type { HistoryEvent } from "../sim/history.js";
import { s3, ms, type Facts } from "./facts.js";

/**
 * A safety violation the checkers found, reduced to what a cause must explain: the
 * window in which it happened, the processes in it, and its decisive moment in words.
 */
export interface Violation {
  checker: string;
  startUs: number;
  endUs: number;
  processes: string[];
  sentence: string;
}

/** The violations in a run's verdicts, earliest end first. */
export function violationsOf(history: readonly HistoryEvent[], verdicts: Verdicts): Violation[] {
  const out: Violation[] = [];
  for (const r of verdicts.results) {
    if (r.valid !== false) continue;
    if (r.checker === "mutual-exclusion") out.push(...((r.witness ?? []) as Overlap[]).map(overlapViolation));
    else if (r.checker === "lost-updates") out.push(...lostUpdateViolations(history, r.witness));
    else if (r.checker === "linearizability") out.push(...linearizabilityViolation(r.witness as LinearizabilityWitness | undefined, r.summary));
    else out.push({ checker: r.checker, startUs: 0, endUs: Infinity, processes: [], sentence: r.summary });
  }
  return out.sort((a, b) => a.endUs - b.endUs);
}

/**
 * Two holds overlapping. A hold stretched by acting after its lease lapsed (an extend
 * accepted, a write) overlaps from before the act that made it a violation: the harm is
 * done when that act is, so the window runs to the stretched hold's end.
 */
function overlapViolation(o: Overlap): Violation {
  const endUs = Math.max(o.overlapEndUs, ...[o.first, o.second].filter((h) => h.stretched).map((h) => h.endUs));
  return { checker: "mutual-exclusion", startUs: o.overlapStartUs, endUs, processes: [o.first.process, o.second.process], sentence: o.sentence };
}

function lostUpdateViolations(history: readonly HistoryEvent[], witness: unknown): Violation[] {
  return ((witness as { overwrites?: Overwrite[] } | undefined)?.overwrites ?? []).map((o) => {
    const atUs = history[o.index]?.timeUs ?? 0;
    const fromUs = history[o.overwrote.index]?.timeUs ?? atUs;
    return { checker: "lost-updates", startUs: fromUs, endUs: atUs, processes: [o.client, o.overwrote.client], sentence: o.sentence };
  });
}

function linearizabilityViolation(w: LinearizabilityWitness | undefined, summary: string): Violation[] {
  const op = w?.cannotFollow[0];
  if (!w || !op) return [];
  const holder = /held by ([^#\s]+)/.exec(w.state)?.[1];
  const processes = holder !== undefined && holder !== op.process ? [op.process, holder] : [op.process];
  return [{ checker: "linearizability", startUs: op.startUs, endUs: op.endUs ?? op.startUs, processes, sentence: summary }];
}

/**
 * How much a user could see of a violation, for shrinking to keep: an acknowledged update
 * lost (3), a write accepted from a client while another held the lock (2), two holds
 * overlapping (1), a model violation alone (0); within a rank, the longer the wider.
 */
export interface EvidenceWidth {
  rank: 0 | 1 | 2 | 3;
  /** The span that makes it visible: the overlap the stale write fell in, or the holds' overlap, µs. */
  spanUs: number;
  /** In words, for titles: "a stale write accepted 198 ms into c2's hold". */
  label: string;
}

export function evidenceWidth(f: Facts, verdicts: Verdicts, violations: readonly Violation[]): EvidenceWidth {
  const overlaps = violations.filter((v) => v.checker === "mutual-exclusion");
  const widest = overlaps.reduce<Violation | undefined>((a, v) => (!a || v.endUs - v.startUs > a.endUs - a.startUs ? v : a), undefined);
  const overlapUs = widest ? widest.endUs - widest.startUs : 0;
  const stale = staleWrite(f);
  const lost = verdicts.results.some((r) => r.checker === "lost-updates" && r.valid === false);
  if (lost) return { rank: 3, spanUs: Math.max(overlapUs, stale?.intoUs ?? 0), label: `an acknowledged update lost${stale ? ` (${stale.label})` : ""}` };
  if (stale) return { rank: 2, spanUs: stale.intoUs, label: stale.label };
  if (widest) return { rank: 1, spanUs: overlapUs, label: `${widest.processes.join(" and ")} holding the lock together for ${ms(overlapUs)}` };
  return { rank: 0, spanUs: 0, label: violations[0] ? `a violation of the lock's model at ${s3(violations[0].endUs)}` : "no violation" };
}

/**
 * The accepted write furthest into another client's belief, from a client that no longer
 * held the lock: its key was gone (or never set) by the write, or, where no command trace
 * says so, the other client was granted after it.
 */
function staleWrite(f: Facts): { intoUs: number; label: string } | undefined {
  let best: { intoUs: number; label: string } | undefined;
  for (const g of f.grants) {
    for (const w of g.writes) {
      if (!w.accepted || !lostBy(f, g, w.invokeUs)) continue;
      for (const o of f.grants) {
        if (o.process === g.process || o.lock !== g.lock || !(o.okUs <= w.invokeUs && w.invokeUs < o.beliefEndUs)) continue;
        if (f.commands.length === 0 && o.okUs < g.okUs) continue;
        const intoUs = w.invokeUs - o.okUs;
        if (!best || intoUs > best.intoUs) best = { intoUs, label: `${g.process}'s stale write accepted ${ms(intoUs)} into ${o.process}'s hold` };
      }
    }
  }
  return best;
}

/** Whether the grant's keys were gone at `atUs` (true without a command trace: the caller decides by order). */
function lostBy(f: Facts, g: Facts["grants"][number], atUs: number): boolean {
  if (f.commands.length === 0) return true;
  return g.lives.length === 0 || g.lives.every((l) => l.endUs <= atUs);
}
