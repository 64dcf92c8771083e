// The run checks of two fault mechanisms: a faked client clock really moved (libfaketime,
// real/faketime.ts), and a host crash really lost what it should (the AOF cut back,
// real/aof-cut.ts). Like real/run-checks.ts, a failure makes the run no evidence.
import type { FakeClock, ClockReading } from "./faketime.js";
import type { FaultLog } from "./faults.js";
import { killsProcess, mechanismOf } from "../faults/index.js";
import type { RealPlan } from "./plan.js";
import type { RunCheck } from "./run-checks.js";

/** A jump counts as seen when the child's Date.now() moved by deltaMs within this (Date.now() is whole ms). */
export const JUMP_SEEN_TOLERANCE_MS = 5;

/** What the run saw of one faked client clock: its readings at the start ping and (if it answered) at the end. */
export interface ClientClockEvidence {
  id: string;
  clock: FakeClock;
  start: ClockReading;
  /** The driver's own Date.now() just before the start ping (the host's wall clock). */
  hostWallMsAtStart: number;
  end?: ClockReading;
}

/** Offsets are seen at the start ping, which lies within this of the host's reading (a loaded machine). */
const OFFSET_SEEN_TOLERANCE_MS = 50;
/** A rate is measured over the run; its error is at most ±2 ms of Date.now() rounding over that span, plus this. */
const DRIFT_SEEN_TOLERANCE_PPM = 500;
/** The rate runs from the client process's start, at most this long before the start ping (its ready bound). */
const PROCESS_START_BEFORE_PING_MS_MAX = 30_000;

/**
 * A faked clock is evidence only if the child's Date.now() really moved: each jump seen
 * (the child's wall step between its two readings is deltaMs), each offset and rate seen.
 * A run that fails this is no evidence of what a clock fault does (the CLI exits 1).
 */
export function clientClockChecks(plan: RealPlan, faults: readonly FaultLog[], evidence: readonly ClientClockEvidence[]): RunCheck[] {
  const checks: RunCheck[] = [];
  const jumps = faults.filter((f) => mechanismOf(f.kind) === "clock-step" && plan.fakeClocks[f.target] !== undefined);
  if (jumps.length > 0) {
    const bad = jumps.filter((f) => !f.wall || Math.abs(f.wall.stepMs - (plan.faults[f.step]?.step.deltaMs ?? 0)) > JUMP_SEEN_TOLERANCE_MS);
    checks.push({
      name: "client clock jumps seen by the child",
      ok: bad.length === 0,
      detail: jumps
        .map((f) =>
          f.wall
            ? `step ${f.step}: ${f.target}'s Date.now() ${f.wall.beforeMs} → ${f.wall.afterMs}, a step of ${f.wall.stepMs} ms beyond its monotonic clock (asked ${plan.faults[f.step]?.step.deltaMs} ms)`
            : `step ${f.step}: ${f.target}: not read`,
        )
        .join("; "),
    });
  }
  const offsets = evidence.filter((e) => e.clock.offsetMs !== 0 || e.clock.driftPpm !== 0);
  if (offsets.length > 0) {
    const lines: string[] = [];
    let ok = true;
    for (const e of offsets) {
      const seenMs = e.start.wallMs - e.hostWallMsAtStart;
      const driftRoomMs = (Math.abs(e.clock.driftPpm) / 1e6) * PROCESS_START_BEFORE_PING_MS_MAX;
      const offsetOk = Math.abs(seenMs - e.clock.offsetMs) <= OFFSET_SEEN_TOLERANCE_MS + driftRoomMs;
      let line = `${e.id}: offset ${seenMs} ms at the start ping (asked ${e.clock.offsetMs} ms)`;
      let rateOk = true;
      if (e.clock.driftPpm !== 0) {
        if (!e.end) rateOk = false;
        else {
          const spanMs = Number(e.end.hrNs - e.start.hrNs) / 1e6;
          const jumpedMs = jumps.filter((f) => f.target === e.id).reduce((a, f) => a + (plan.faults[f.step]?.step.deltaMs ?? 0), 0);
          const ppm = spanMs > 0 ? ((e.end.wallMs - e.start.wallMs - jumpedMs - spanMs) / spanMs) * 1e6 : Number.NaN;
          rateOk = Math.abs(ppm - e.clock.driftPpm) <= DRIFT_SEEN_TOLERANCE_PPM + (2 / Math.max(1, spanMs)) * 1e6;
          line += `, rate ${Math.round(ppm)} ppm over ${spanMs.toFixed(0)} ms (asked ${e.clock.driftPpm} ppm)`;
        }
        if (!e.end) line += ", rate not read (no end reading)";
      }
      ok &&= offsetOk && rateOk;
      lines.push(line);
    }
    checks.push({ name: "client clock offsets seen by the child", ok, detail: lines.join("; ") });
  }
  return checks;
}

/** Plain redis-servers that a crash or restart step takes down (host crashes, emulated). */
export function hostCrashTargets(plan: RealPlan): string[] {
  if (plan.design.cluster || plan.design.failover) return [];
  const ids = new Set(plan.design.redis.map((r) => r.id));
  return [...new Set(plan.faults.filter((f) => killsProcess(f.step.kind) && ids.has(f.target)).map((f) => f.target))];
}

/**
 * A host crash of an everysec server counts only if its AOF was cut at the last tick (the
 * file's length then, or less at a command boundary): else the run kept what a host crash loses.
 */
export function hostCrashChecks(plan: RealPlan, faults: readonly FaultLog[]): RunCheck[] {
  const targets = new Set(hostCrashTargets(plan));
  const crashes = faults.filter((f) => killsProcess(f.kind) && targets.has(f.target) && f.stoppedUs !== undefined);
  if (crashes.length === 0) return [];
  const everysec = new Set(plan.design.redis.filter((r) => r.aof === "everysec").map((r) => r.id));
  const missed = crashes.filter((f) => everysec.has(f.target) && f.aofCut === undefined);
  return [
    {
      name: "host crashes emulated",
      ok: missed.length === 0,
      detail:
        missed.length > 0
          ? `no AOF cut after the SIGKILL of: ${missed.map((f) => `step ${f.step} (${f.target})`).join(", ")}`
          : crashes
              .map((f) =>
                f.aofCut
                  ? `step ${f.step}: ${f.target}'s AOF cut ${f.aofCut.fromBytes} → ${f.aofCut.toBytes} bytes (its last fsync tick)`
                  : `step ${f.step}: ${f.target}: ${everysec.has(f.target) ? "" : "nothing to cut (its persistence keeps all or nothing)"}`,
              )
              .join("; "),
    },
  ];
}
