import type { FaultStep } from "./types.js";
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

  constructor(
    private readonly sim: Simulation,
    private readonly steps: readonly FaultStep[],
  ) {}

  install(): void {
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
    faultDef(step.kind).apply(this.contextFor(step, i), step);
  }
}
