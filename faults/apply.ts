import type { FaultStep } from "./types.js";
import type { HistoryEvent } from "../sim/history.js";
import { NEMESIS } from "../sim/history.js";
import type { Simulation } from "../sim/simulation.js";

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

  private note(step: FaultStep, i: number, phase: "start" | "end", targets: string[], extra: Record<string, unknown> = {}): void {
    this.sim.record({
      process: NEMESIS,
      type: "info",
      f: step.kind,
      value: { phase, step: i, targets, ...extra, ...(step.note ? { note: step.note } : {}) },
    });
  }

  private later(step: FaultStep, fn: () => void): void {
    if (step.durationMs !== undefined) this.sim.schedule(this.sim.nowUs + step.durationMs * 1000, fn);
  }

  private apply(step: FaultStep, i: number): void {
    const sim = this.sim;
    switch (step.kind) {
      case "pause": {
        const t = step.target!;
        this.note(step, i, "start", [t], { durationMs: step.durationMs });
        sim.pause(t, step.durationMs! * 1000);
        this.later(step, () => this.note(step, i, "end", [t]));
        return;
      }
      case "crash": {
        const t = step.target!;
        this.note(step, i, "start", [t]);
        sim.crash(t);
        this.later(step, () => {
          sim.restart(t);
          this.note(step, i, "end", [t], { restarted: true });
        });
        return;
      }
      case "restart": {
        const t = step.target!;
        sim.restart(t);
        this.note(step, i, "start", [t]);
        return;
      }
      case "clock-jump": {
        const t = step.target!;
        const p = sim.process(t);
        p.wall.jump(sim.nowUs, step.deltaMs! * 1000);
        this.note(step, i, "start", [t], { deltaMs: step.deltaMs, offsetUs: p.wall.offsetAt(sim.nowUs) });
        return;
      }
      case "clock-drift": {
        const t = step.target!;
        const p = sim.process(t);
        const before = p.wall.driftPpm;
        p.wall.setDrift(sim.nowUs, step.driftPpm!);
        p.mono.setDrift(sim.nowUs, step.driftPpm!);
        this.note(step, i, "start", [t], { driftPpm: step.driftPpm });
        this.later(step, () => {
          p.wall.setDrift(sim.nowUs, before);
          p.mono.setDrift(sim.nowUs, before);
          this.note(step, i, "end", [t], { driftPpm: before });
        });
        return;
      }
      case "partition": {
        const links: Array<[string, string]> = [];
        const groups = step.groups!;
        for (let a = 0; a < groups.length; a++) {
          for (let b = 0; b < groups.length; b++) {
            if (a === b || (step.oneWay && b < a)) continue;
            for (const x of groups[a]!) for (const y of groups[b]!) links.push([x, y]);
          }
        }
        this.cutFor(step, i, links, { groups, oneWay: step.oneWay });
        return;
      }
      case "cut":
        this.cutFor(step, i, step.links!, {});
        return;
      case "isolate": {
        const t = step.target!;
        const links: Array<[string, string]> = [];
        for (const other of sim.processes.keys()) {
          if (other === t) continue;
          links.push([t, other], [other, t]);
        }
        this.cutFor(step, i, links, { groups: [[t], [...sim.processes.keys()].filter((x) => x !== t)] });
        return;
      }
      case "heal":
        sim.network.healAll();
        this.note(step, i, "start", []);
        return;
      case "delay": {
        for (const [a, b] of step.links!) sim.network.setExtraDelay(a, b, step.extraMs! * 1000);
        this.note(step, i, "start", flat(step.links!), { links: step.links, extraMs: step.extraMs });
        this.later(step, () => {
          for (const [a, b] of step.links!) sim.network.setExtraDelay(a, b, 0);
          this.note(step, i, "end", flat(step.links!));
        });
        return;
      }
      case "loss": {
        for (const [a, b] of step.links!) sim.network.setLink(a, b, { lossRate: step.lossRate! });
        this.note(step, i, "start", flat(step.links!), { links: step.links, lossRate: step.lossRate });
        this.later(step, () => {
          for (const [a, b] of step.links!) sim.network.setLink(a, b, { lossRate: sim.network.opts.lossRate });
          this.note(step, i, "end", flat(step.links!));
        });
        return;
      }
    }
  }

  private cutFor(step: FaultStep, i: number, links: Array<[string, string]>, extra: Record<string, unknown>): void {
    for (const [a, b] of links) this.sim.network.cutLink(a, b);
    this.note(step, i, "start", flat(links), { ...extra, links });
    this.later(step, () => {
      for (const [a, b] of links) this.sim.network.healLink(a, b);
      this.note(step, i, "end", flat(links));
    });
  }
}

function flat(links: Array<[string, string]>): string[] {
  return [...new Set(links.flat())].sort();
}
