/**
 * Fibers: client workflows written as generator functions, so a workload reads like
 * the seeds' pseudo-code (`const grant = yield* locks.acquire(...)`) while the whole
 * run stays synchronous and deterministic (no promises, no microtask ordering).
 *
 * A fiber yields a Suspend: a function that registers a `resume` callback. Whatever
 * later calls `resume(value)` (a timer, a reply) continues the fiber with that value.
 */
export type Suspend = (resume: (value: unknown) => void) => void;

export type Fiber<T = void> = Generator<Suspend, T, unknown>;

/** Wait until `register`'s callback is called; returns the value it was called with. */
export function* suspend<T>(register: (resume: (value: T) => void) => void): Fiber<T> {
  return (yield register as Suspend) as T;
}

/**
 * Drive a fiber. `alive()` is checked before each step so that a crashed process's
 * fibers never run again; `onDone` gets the return value or the error.
 */
export function runFiber<T>(
  fiber: Fiber<T>,
  alive: () => boolean,
  onDone?: (result: { value?: T; error?: unknown }) => void,
): void {
  const step = (input: unknown): void => {
    if (!alive()) return;
    let res: IteratorResult<Suspend, T>;
    try {
      res = fiber.next(input);
    } catch (error) {
      if (onDone) onDone({ error });
      else throw error;
      return;
    }
    if (res.done) {
      onDone?.({ value: res.value });
      return;
    }
    let resumed = false;
    res.value((v) => {
      // A resume is one-shot: a late timeout after a reply (or vice versa) is ignored.
      if (resumed) return;
      resumed = true;
      step(v);
    });
  };
  step(undefined);
}
