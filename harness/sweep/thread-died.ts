/**
 * A sweep worker thread stopped without being asked: it crashed, ran out of memory, or
 * was killed. The sweep stops (a result missing seeds would be wrong); the error names
 * the seeds the thread held, so one can be run alone (`lockstep run`) to see why.
 */
export class SweepThreadDied extends Error {
  /** `lockstep run` of the first seed it held, set by the sweep (it knows how the scenario was named). */
  replay: string | undefined;

  constructor(
    readonly reason: string,
    /** Seeds the thread had been handed and not answered, in the order given. */
    readonly seeds: readonly number[],
  ) {
    const held = seeds.length === 0 ? "while holding no seed" : `while running seed${seeds.length > 1 ? "s" : ""} ${seeds.join(", ")}`;
    super(`a sweep worker thread stopped (${reason}) ${held}; the sweep is abandoned`);
    this.name = "SweepThreadDied";
  }
}

/** What the CLI prints for it: the message, then the seed and replay lines a failing run prints. */
export function describeThreadDied(e: SweepThreadDied): string {
  return `lockstep: ${e.message}\n` + (e.replay && e.seeds.length > 0 ? `seed: ${e.seeds[0]}\nreplay: ${e.replay}\n` : "");
}
