import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../cli/main.js";
import { EXIT } from "../harness/exit-codes.js";
import { Simulation } from "../sim/simulation.js";
import { SimLimitError } from "../sim/errors.js";
import { runScenario } from "../harness/runner.js";
import { loadScenarioFile } from "../scenarios/index.js";
import { captureStdio } from "./helpers/capture-stdio.js";

const io = captureStdio();
const tmp = () => mkdtempSync(join(tmpdir(), "lockstep-limits-"));
const base = { story: "bounds", design: "redis-setnx", expect: "safe", workload: { locks: ["L"], ttlMs: 1000 } };

function scenarioFile(name: string, fields: Record<string, unknown>): string {
  const file = join(tmp(), `${name}.json`);
  writeFileSync(file, JSON.stringify({ name, ...base, ...fields }));
  return file;
}

/** Run the CLI on a scenario file; the exit code and stderr as one trimmed line. */
async function run(file: string, ...args: string[]): Promise<{ code: number; err: string; out: string }> {
  const out = join(tmp(), "out");
  const code = await main(["run", file, "--out", out, ...args]);
  return { code, err: io.err.trimEnd(), out };
}

describe("run bounds: the validator refuses what the simulator cannot finish", () => {
  it("a day-long scenario (24 h + the 2 s drain passes the 24 h bound) is refused before running, naming durationMs and the bound", async () => {
    const file = scenarioFile("day", { durationMs: 86_400_000, clients: 1 });
    const r = await run(file);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.err).toBe(
      `lockstep: ${file}: durationMs: expected at most 86398000 (the simulated-time bound of 24 h = 86400000 ms, less the 2000 ms drain; raise it with "limits": {"simTimeMsMax": N}), got 86400000`,
    );
    expect(existsSync(r.out)).toBe(false);
  });

  it("limits.simTimeMsMax moves the durationMs bound both ways, and is itself bounded", async () => {
    const low = scenarioFile("low", { durationMs: 3001, clients: 1, limits: { simTimeMsMax: 5000 } });
    const r = await run(low);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.err).toBe(
      `lockstep: ${low}: durationMs: expected at most 3000 (the simulated-time bound limits.simTimeMsMax = 5000 ms, less the 2000 ms drain; raise it with "limits": {"simTimeMsMax": N}), got 3001`,
    );
    io.err = "";
    const fits = scenarioFile("fits", { durationMs: 3000, clients: 1, limits: { simTimeMsMax: 5000 } });
    // One client: nobody to exclude, so the run is not challenged (exit 8); the bound is what is tested here.
    expect((await run(fits)).code).toBe(EXIT.notChallenged);
    // Raised: a 25 h scenario loads (it is not run here: that is a day of simulation).
    const long = loadScenarioFile(scenarioFile("long", { durationMs: 90_000_000, clients: 1, limits: { simTimeMsMax: 90_002_000 } }));
    expect(long.limits).toEqual({ simTimeMsMax: 90_002_000 });
    io.err = "";
    const tooFar = scenarioFile("too-far", { durationMs: 1000, clients: 1, limits: { simTimeMsMax: 1e10 } });
    expect((await run(tooFar)).err).toBe(`lockstep: ${tooFar}: limits.simTimeMsMax: expected an integer from 2001 to 2592000000, got 10000000000`);
    io.err = "";
    const typo = scenarioFile("typo", { durationMs: 1000, clients: 1, limits: { eventMax: 5 } });
    expect((await run(typo)).err).toBe(`lockstep: ${typo}: limits.eventMax: unknown field; expected one of: eventsMax, simTimeMsMax`);
    io.err = "";
    const events = scenarioFile("events", { durationMs: 1000, clients: 1, limits: { eventsMax: 3e9 } });
    expect((await run(events)).err).toBe(`lockstep: ${events}: limits.eventsMax: expected an integer from 1 to 2000000000, got 3000000000`);
  });

  it("a client list is capped like a client count", async () => {
    const clients = Array.from({ length: 1001 }, (_, i) => ({ id: `k${i}` }));
    const file = scenarioFile("many", { durationMs: 1000, clients });
    const r = await run(file);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.err).toBe(`lockstep: ${file}: clients: expected at most 1000 clients, got a list of 1001`);
    io.err = "";
    const count = scenarioFile("count", { durationMs: 1000, clients: 1001 });
    expect((await run(count)).err).toBe(`lockstep: ${count}: clients: expected an integer from 1 to 1000, got 1001`);
  });

  it("limits.eventsMax is the bound the run is held to: one below the run's own count stops it, naming the bound; the count itself passes", async () => {
    const file = scenarioFile("exact", { durationMs: 2000, clients: 2 });
    const events = runScenario(loadScenarioFile(file), 1).meta.eventsRun;
    expect(events).toBeGreaterThan(100);
    const under = scenarioFile("under", { durationMs: 2000, clients: 2, limits: { eventsMax: events - 1 } });
    const r = await run(under);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.err).toMatch(
      new RegExp(
        `^lockstep: simulation bound hit: eventsMax = ${events - 1} \\(at t=\\d+µs\\); shorten the scenario, or raise the bound with its "limits" field \\(docs/scenarios\\.md#limits\\)$`,
      ),
    );
    expect(existsSync(r.out)).toBe(false);
    io.err = "";
    // Two clients taking turns with no fault never challenge the lock (exit 8): the run completed, which is the point.
    expect((await run(scenarioFile("under", { durationMs: 2000, clients: 2, limits: { eventsMax: events } }))).code).toBe(EXIT.notChallenged);
  });

  it("a 1-client day that fits the time bound is stopped early by the event bound, exit 2, naming it and the way to raise it", async () => {
    const r = await run(scenarioFile("one-day", { durationMs: 86_398_000, clients: 1 }));
    expect(r.code).toBe(EXIT.badInput);
    expect(r.err).toMatch(
      /^lockstep: simulation bound hit: eventsMax = 10000000 \(stopped early: 262144 events in the first [\d.]+ s project to ~\d+ over the run's 86398 s, more than twice the bound\); shorten the scenario, or raise the bound with its "limits" field \(docs\/scenarios\.md#limits\)$/,
    );
    expect(existsSync(r.out)).toBe(false);
  });

  it("a 1000-client day is stopped within its first 2^18 events by the projection, not after minutes of work", async () => {
    const file = scenarioFile("huge", { durationMs: 86_398_000, clients: 1000 });
    let err: unknown;
    try {
      runScenario(loadScenarioFile(file), 1);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SimLimitError);
    expect((err as Error).message).toMatch(
      /^simulation bound hit: eventsMax = 10000000 \(stopped early: 262144 events in the first [\d.]+ s project to ~\d+ over the run's 86398 s, more than twice the bound\)$/,
    );
  });
});

describe("the kernel's event projection", () => {
  // One event per simulated µs over the first 1 s, then quiet: 1,000,000 events in all.
  function ticking(limits: ConstructorParameters<typeof Simulation>[0]["limits"]): Simulation {
    const sim = new Simulation({ seed: "s", limits });
    const p = sim.addProcess("p", "server", {}, () => ({}));
    const loop = (): void => {
      if (sim.nowUs < 1_000_000) p.setTimerUs(1, loop);
    };
    loop();
    return sim;
  }
  const stop = (sim: Simulation, untilUs: number, busyUs?: number): string | undefined => {
    try {
      sim.run(untilUs, busyUs);
      return undefined;
    } catch (e) {
      if (!(e instanceof SimLimitError)) throw e;
      return e.message;
    }
  };

  it("stops at the first checkpoint when the projection passes twice the bound, and not when it does not", () => {
    expect(stop(ticking({ eventsMax: 400_000, projectAfterEvents: 1000 }), 1_000_000)).toMatch(
      /eventsMax = 400000 \(stopped early: 1000 events in the first 0\.0 s project to ~1000000 over the run's 1 s/,
    );
    // 1M events projected against 600k: within twice the bound, so the run goes on and meets the bound itself.
    expect(stop(ticking({ eventsMax: 600_000, projectAfterEvents: 1000 }), 1_000_000)).toMatch(/eventsMax = 600000 \(at t=/);
    // Without a projection (the kernel's default) only the bound itself stops it.
    expect(stop(ticking({ eventsMax: 400_000 }), 1_000_000)).toMatch(/eventsMax = 400000 \(at t=/);
    // Projected over the busy span only: a quiet drain after it does not count.
    expect(stop(ticking({ eventsMax: 2_000_000, projectAfterEvents: 1000 }), 10_000_000, 1_000_000)).toBeUndefined();
  });

  it("a span past the time bound is refused before any event runs", () => {
    const sim = ticking({ timeUsMax: 1000 });
    expect(stop(sim, 5000)).toBe("simulation bound hit: timeUsMax = 1000 (asked to run to 5000µs)");
    expect(sim.eventsRun).toBe(0);
  });
});
