/**
 * The bounds every run is held within, in one place: the kernel enforces them, the
 * scenario validator refuses what they cannot fit, and a scenario's `limits` field is
 * the one way to raise them (docs/scenarios.md#limits). They decide whether a run may
 * finish, never what it does: a run that finishes has the same history under any limits.
 */
export interface SimLimits {
  eventsMax: number;
  timeUsMax: number;
  queueLengthMax: number;
  /**
   * From this many events on (and at every doubling after), the run projects its event
   * count over its busy span, and stops, naming eventsMax, when the projection passes
   * twice it: a day-long, 1000-client run is stopped within seconds
   * rather than after minutes of work it could never finish. 0: no projection (the
   * kernel alone, whose callers may ask for spans the queue never fills).
   */
  projectAfterEvents: number;
}

/**
 * Memory, not time, sets this: a run keeps its history, about 115 bytes of heap per
 * event (1 client × 1000 s: 616,293 events, 70 MB), so 10M events is ~1.2 GB, within
 * Node's default heap (~4 GB) with room for the checkers; 50M would pass it and die
 * of out-of-memory instead of stopping with a message. At 150k–600k events per wall
 * second it is well under a minute.
 */
export const EVENTS_MAX_DEFAULT = 10_000_000;
export const SIM_TIME_MS_MAX_DEFAULT = 24 * 3600 * 1000;
/** How far a scenario's `limits` may raise them (memory, not patience, is the bound past these). */
export const EVENTS_MAX_CEILING = 2_000_000_000;
export const SIM_TIME_MS_MAX_CEILING = 30 * 24 * 3600 * 1000;

/** Time after a scenario's end for outstanding operations to complete, ms (part of the simulated span). */
export const DRAIN_MS = 2_000;

/** A run's first projection, after this many events (a second or a few of wall time). */
export const PROJECT_AFTER_EVENTS = 1 << 18;
/** A projection stops the run only past this many times eventsMax (see Simulation.run). */
export const PROJECTION_MARGIN = 2;

export const DEFAULT_LIMITS: SimLimits = {
  eventsMax: EVENTS_MAX_DEFAULT,
  timeUsMax: SIM_TIME_MS_MAX_DEFAULT * 1000,
  queueLengthMax: 2_000_000,
  projectAfterEvents: 0,
};
