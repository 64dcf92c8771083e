import { isRoleTarget, type FaultStep } from "./types.js";
import type { HistoryEvent } from "../sim/history.js";
import { NEMESIS } from "../sim/history.js";
import type { Simulation } from "../sim/simulation.js";
import { flat, type Link, type SimFaultContext } from "./def.js";
import { faultDef } from "./index.js";

/**
 * The fault schedule: applies a scenario's timed (or event-triggered) steps to the
 * simulation, and records every fault's start and end in the history as the
 * `nemesis` process (type "info", value.phase "start" | "end").
 *
 * A triggered step fires as a new event after the triggering one, never inside it:
 * a GC pause "right after the read was sent" lets the send leave first.
 */
export class FaultSchedule {
  private counts = new Map<string, number>();
  private readonly roles = new RoleTracker();

  constructor(
    private readonly sim: Simulation,
    private readonly steps: readonly FaultStep[],
  ) {}

  install(): void {
    if (this.steps.some((s) => s.target !== undefined && isRoleTarget(s.target))) this.sim.onRecord((e) => this.roles.see(e));
    this.steps.forEach((step, i) => {
      if (step.atMs !== undefined) {
        this.sim.schedule((step.atMs + step.delayMs) * 1000, () => this.apply(step, i));
      }
    });
    const triggered = this.steps.map((s, i) => ({ s, i })).filter(({ s }) => s.on);
    if (triggered.length > 0) {
      this.sim.onRecord((e) => this.onEvent(e, triggered));
    }
  }

  private onEvent(e: HistoryEvent, triggered: Array<{ s: FaultStep; i: number }>): void {
    for (const { s, i } of triggered) {
      const on = s.on!;
      if (e.process !== on.process || e.f !== on.f || e.type !== on.type) continue;
      const key = `${i}`;
      const n = (this.counts.get(key) ?? 0) + 1;
      this.counts.set(key, n);
      if (n === on.nth) this.sim.schedule(this.sim.nowUs + s.delayMs * 1000, () => this.apply(s, i));
    }
  }

  /** The context a kind's effect runs in: notes and undo bound to this step. */
  private contextFor(step: FaultStep, i: number): SimFaultContext {
    const sim = this.sim;
    const note = (phase: "start" | "end", targets: string[], extra: Record<string, unknown> = {}): void => {
      sim.record({
        process: NEMESIS,
        type: "info",
        f: step.kind,
        value: { phase, step: i, targets, ...extra, ...(step.note ? { note: step.note } : {}) },
      });
    };
    const later = (fn: () => void): void => {
      if (step.durationMs !== undefined) sim.schedule(sim.nowUs + step.durationMs * 1000, fn);
    };
    const cutFor = (links: Link[], extra: Record<string, unknown>): void => {
      for (const [a, b] of links) sim.network.cutLink(a, b);
      note("start", flat(links), { ...extra, links });
      later(() => {
        for (const [a, b] of links) sim.network.healLink(a, b);
        note("end", flat(links));
      });
    };
    return { sim, note, later, cutFor };
  }

  private apply(step: FaultStep, i: number): void {
    if (step.target !== undefined && isRoleTarget(step.target)) {
      const who = this.roles.holderOf(step.target);
      if (who === undefined) {
        // No server holds the role now (an election in progress): the step is noted, not applied.
        this.sim.record({
          process: NEMESIS,
          type: "info",
          f: step.kind,
          value: { phase: "skipped", step: i, targets: [], note: `no ${step.target.slice(1)} at this time` },
        });
        return;
      }
      step = { ...step, target: who, note: `${step.note ? `${step.note}; ` : ""}${step.target} was ${who}` };
    }
    faultDef(step.kind).apply(this.contextFor(step, i), step);
  }
}

/** Who holds each role now, from the servers' own notes (raft-role) and the nemesis's crashes. */
class RoleTracker {
  private leader: string | undefined;

  see(e: HistoryEvent): void {
    if (e.f === "raft-role") {
      const role = (e.value as { role?: unknown } | undefined)?.role;
      if (role === "leader") this.leader = e.process;
      else if (this.leader === e.process) this.leader = undefined;
    } else if (e.process === NEMESIS && e.f === "crash") {
      const targets = (e.value as { targets?: unknown } | undefined)?.targets;
      if (Array.isArray(targets) && targets.includes(this.leader)) this.leader = undefined;
    }
  }

  holderOf(role: string): string | undefined {
    return role === "@leader" ? this.leader : undefined;
  }
}
