/**
 * Fibers: client workflows written as generator functions, so a workload reads like
 * the seeds' pseudo-code (`const grant = yield* locks.acquire(...)`) while the whole
 * run stays synchronous and deterministic (no promises, no microtask ordering).
 *
 * A fiber yields a Suspend: a function that registers a `resume` callback. Whatever
 * later calls `resume(value)` (a timer, a reply) continues the fiber with that value.
 *
 * The kernel's own waits (a sleep, a call) yield a Wait instead: an object that is
 * handed the fiber's run and resumes it itself, exactly once by construction (a timer
 * fires once; a call's reply and its timeout each take the call out first). It
 * builds no closure per step, where a Suspend costs two.
 */
export type Suspend = (resume: (value: unknown) => void) => void;

/** What a Wait resumes: the fiber's run. */
export interface FiberStep {
  step(value: unknown): void;
}

/** A kernel wait: `begin` runs at the yield and later calls `run.step(value)` once. */
export interface Wait {
  begin(run: FiberStep): void;
}

export type Fiber<T = void> = Generator<Suspend | Wait, T, unknown>;

/** Wait until `register`'s callback is called; returns the value it was called with. */
export function* suspend<T>(register: (resume: (value: T) => void) => void): Fiber<T> {
  return (yield register as Suspend) as T;
}

type Done<T> = (result: { value?: T; error?: unknown }) => void;

/**
 * One fiber being driven: the object a Wait resumes. `alive()` is checked before each
 * step so that a crashed process's fibers never run again.
 */
export class FiberRun<T = unknown> implements FiberStep {
  constructor(
    private readonly fiber: Fiber<T>,
    private readonly alive: () => boolean,
    private readonly onDone: Done<T> | undefined,
  ) {}

  step(input: unknown): void {
    if (!this.alive()) return;
    let res: IteratorResult<Suspend | Wait, T>;
    try {
      res = this.fiber.next(input);
    } catch (error) {
      if (this.onDone) this.onDone({ error });
      else throw error;
      return;
    }
    if (res.done) {
      this.onDone?.({ value: res.value });
      return;
    }
    const y = res.value;
    if (typeof y !== "function") {
      y.begin(this);
      return;
    }
    let resumed = false;
    y((v) => {
      // A resume is one-shot: a late timeout after a reply (or vice versa) is ignored.
      if (resumed) return;
      resumed = true;
      this.step(v);
    });
  }
}

/** Drive a fiber; `onDone` gets the return value or the error. */
export function runFiber<T>(fiber: Fiber<T>, alive: () => boolean, onDone?: Done<T>): void {
  new FiberRun(fiber, alive, onDone).step(undefined);
}
