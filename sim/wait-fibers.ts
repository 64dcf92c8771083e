import type { Fiber, Suspend, Wait } from "./fiber.js";
import type { Message, RpcResult } from "./message.js";

/** The two waits a process context hands out (ProcessContext implements it). */
export interface WaitSource {
  callWait(to: string, msg: Message, timeoutMs: number): Wait;
  sleepWait(ms: number): Wait;
}

/**
 * The fibers `ctx.call` and `ctx.sleep` return, written by hand: one small object per
 * call or sleep, where a generator is a generator object, its register file and an
 * iterator result per step. `yield*` drives them as any iterator: the first
 * `next` yields the kernel's wait, the second takes what it resumed with and finishes.
 * Each is its own iterator result (`value`, `done`): `yield*` hands it up unchanged to
 * the fiber's run, which reads it at once.
 */
abstract class WaitFiber<R> implements Fiber<R> {
  value: unknown = undefined;
  done = false;
  private begun = false;

  protected abstract begin(): Wait;
  protected abstract finish(input: unknown): R;

  next(input?: unknown): IteratorResult<Suspend | Wait, R> {
    if (!this.begun) {
      this.begun = true;
      this.value = this.begin();
    } else if (!this.done) {
      this.done = true;
      this.value = this.finish(input);
    }
    return this as unknown as IteratorResult<Suspend | Wait, R>;
  }

  return(value: R): IteratorResult<Suspend | Wait, R> {
    this.done = true;
    this.value = value;
    return this as unknown as IteratorResult<Suspend | Wait, R>;
  }

  throw(error: unknown): never {
    this.done = true;
    throw error;
  }

  [Symbol.iterator](): this {
    return this;
  }
}

/** `ctx.call`, and `ctx.callAs` with the result mapped (redisCall's reply unwrapping). */
export class CallFiber<R> extends WaitFiber<R> {
  constructor(
    private readonly ctx: WaitSource,
    private readonly to: string,
    private readonly msg: Message,
    private readonly timeoutMs: number,
    private readonly map: ((r: RpcResult) => R) | undefined,
  ) {
    super();
  }

  protected begin(): Wait {
    return this.ctx.callWait(this.to, this.msg, this.timeoutMs);
  }

  protected finish(input: unknown): R {
    return this.map === undefined ? (input as R) : this.map(input as RpcResult);
  }
}

export class SleepFiber extends WaitFiber<void> {
  constructor(
    private readonly ctx: WaitSource,
    private readonly ms: number,
  ) {
    super();
  }

  protected begin(): Wait {
    return this.ctx.sleepWait(this.ms);
  }

  protected finish(): void {}
}
