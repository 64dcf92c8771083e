import { metered, type WorkMeter } from "./budget.js";
import type { HistoryEvent } from "../sim/history.js";
import type { CheckContext, CheckResult, Checker, OnlineChecker } from "./types.js";

/**
 * Replica agreement: every replica's state machine (the ZooKeeper tree, the etcd KV
 * and leases) holds the same state at each applied index, not only the same commands.
 * Reads the `replica-state` annotations a Raft-backed design writes at the end of a
 * run (services/raft-service/replica-states.ts): per server incarnation, the digest of
 * its state after each index it applied. Two incarnations that applied index i must
 * report one digest there; a difference means a state machine that is not a function
 * of its log (it read a clock, a map's order, its own role...) or a corrupted replica.
 *
 * A history without such events (a design with no replicated state machine, a history
 * from elsewhere) is skipped: the verdict is then `true` and says nothing.
 */
const F = "replica-state";

interface Incarnation {
  name: string;
  states: Array<[number, string]>;
}

function parse(e: HistoryEvent): Incarnation | string {
  const v = e.value as { incarnation?: unknown; states?: unknown } | undefined;
  const where = `event #${e.index} (${e.process})`;
  if (typeof v !== "object" || v === null) return `${where}: value is not an object; expected { incarnation, states }`;
  if (!Number.isInteger(v.incarnation) || (v.incarnation as number) < 1) return `${where}: value.incarnation is not a positive integer`;
  if (!Array.isArray(v.states)) return `${where}: value.states is not an array; expected [index, digest] pairs`;
  let last = 0;
  for (const [k, s] of v.states.entries()) {
    if (!Array.isArray(s) || s.length !== 2 || !Number.isInteger(s[0]) || typeof s[1] !== "string") {
      return `${where}: value.states[${k}] is not an [index, digest] pair`;
    }
    if ((s[0] as number) <= last) return `${where}: value.states[${k}] has index ${s[0]} after index ${last}; expected increasing indexes`;
    last = s[0] as number;
  }
  return { name: `${e.process}#${v.incarnation}`, states: v.states as Array<[number, string]> };
}

/** Online: only the replica-state events are held (one per server incarnation, written at the run's end). */
export function onlineReplicaAgreement(ctx: CheckContext): OnlineChecker {
  const states: HistoryEvent[] = [];
  return { push: (e) => void (e.f === F && states.push(e)), result: () => replicaAgreement(states, ctx) };
}

export const replicaAgreement: Checker = (history, ctx) => {
  let phase = "reading the replica states";
  return metered(
    "replica-agreement",
    ctx,
    () => phase,
    (meter) => agreement(history, meter, (p) => (phase = p)),
  );
};

/** Applied index -> state digest -> the incarnations that held it there. */
function statesByIndex(incarnations: readonly Incarnation[]): Map<number, Map<string, string[]>> {
  const byIndex = new Map<number, Map<string, string[]>>();
  for (const inc of incarnations) {
    for (const [index, digest] of inc.states) {
      let d = byIndex.get(index);
      if (!d) byIndex.set(index, (d = new Map()));
      const names = d.get(digest);
      if (names) names.push(inc.name);
      else d.set(digest, [inc.name]);
    }
  }
  return byIndex;
}

function agreement(history: Parameters<Checker>[0], meter: WorkMeter, setPhase: (p: string) => void): CheckResult {
  const events = history.filter((e) => e.f === F);
  if (events.length === 0) {
    return {
      checker: "replica-agreement",
      valid: true,
      summary: "no replica states in the history",
      skipped: "no replica-state events (not a replicated design)",
      stats: { incarnations: 0, indexesCompared: 0, comparisons: 0, disagreements: 0 },
    };
  }
  const incarnations: Incarnation[] = [];
  for (const e of events) {
    const p = parse(e);
    if (typeof p === "string") return { checker: "replica-agreement", valid: "unknown", summary: `cannot read the replica states: ${p}` };
    incarnations.push(p);
    meter.tick(1 + p.states.length);
  }
  setPhase("comparing the replica states by applied index");
  const byIndex = statesByIndex(incarnations);
  let compared = 0;
  let comparisons = 0;
  const disagreements: Array<{ index: number; states: Record<string, string[]> }> = [];
  for (const index of [...byIndex.keys()].sort((a, b) => a - b)) {
    const d = byIndex.get(index)!;
    meter.tick();
    const holders = [...d.values()].reduce((n, names) => n + names.length, 0);
    if (holders < 2) continue;
    compared++;
    comparisons += holders - 1;
    if (d.size > 1) disagreements.push({ index, states: Object.fromEntries(d) });
  }
  const stats = { incarnations: incarnations.length, indexesCompared: compared, comparisons, disagreements: disagreements.length };
  if (disagreements.length > 0) {
    const first = disagreements[0]!;
    const groups = Object.entries(first.states).map(([digest, names]) => `${names.join(", ")} hold ${digest}`);
    return {
      checker: "replica-agreement",
      valid: false,
      summary: `replicas disagree at ${disagreements.length} applied index(es); first at index ${first.index}: ${groups.join("; ")}`,
      witness: { first, indexes: disagreements.map((x) => x.index).slice(0, 20) },
      stats,
    };
  }
  const r: CheckResult = {
    checker: "replica-agreement",
    valid: true,
    summary: `${incarnations.length} replica state machine(s) agree at every index compared (${compared} applied index(es) held by two or more)`,
    stats,
  };
  return r;
}
