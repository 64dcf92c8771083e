/** How far library code may run inside one simulated instant before the sandbox stops it (realm.ts). */

/** Promise reactions (then/catch/finally, queueMicrotask) and nextTicks one turn may queue. */
export const REACTIONS_PER_TURN_MAX = 1_000_000;
/** Clock reads in one turn: inside a turn simulated time stands still, so a spin on it never ends. */
export const CLOCK_READS_PER_TURN_MAX = 1_000_000;
/** setImmediate callbacks run at one simulated instant before the chain is called endless. */
export const IMMEDIATES_PER_INSTANT_MAX = 100_000;
/**
 * setTimeout and setInterval callbacks one process may run in one simulated second. Node
 * fires a timer at most once a millisecond, so this is 20 intervals of 1 ms running
 * together: a flood that would only end at the run's event bound, far from its cause.
 */
export const TIMER_CALLBACKS_PER_SECOND_MAX = 20_000;
