import type { Fiber } from "../../sim/fiber.js";
import { suspend } from "../../sim/fiber.js";
import type { ProcessContext } from "../../sim/simulation.js";
import type { ExtendResult, Grant } from "../types.js";

/**
 * node-redlock v5's `using()` auto-extension (v5.0.0-beta.2 src/index.ts, `using`;
 * @sesamecare-oss/redlock 1.4.0 has the same `queue`/`extend`):
 *
 *   queue():  setTimeout(extend, lock.expiration − Date.now() − automaticExtensionThreshold)
 *   extend(): lock = await lock.extend(duration); queue();
 *             on error: if (lock.expiration > Date.now()) return extend();   // again, at once
 *                       signal.error = error; controller.abort();
 *   finally:  clearTimeout; await the extension in flight; await lock.release();
 *
 * So the AbortSignal fires only when an extension has failed *and* the lock's expiration
 * has passed by then: a failed extension's retry window (retryCount × ~retryDelay) after
 * the lock stopped being valid. A routine that checks only `signal.aborted` trusts the
 * lock through that window.
 */
export interface ExtendingClient {
  extend(grant: Grant, ttlMs: number): Fiber<ExtendResult>;
  /** The lock's expiration on the client's clock, ms. */
  expirationOf(grant: Grant): number;
  /** Date.now(), as the client reads it. */
  clockMs(): number;
}

/** Bound on extensions of one lock and on back-to-back retries of one extension (every loop bounded). */
const EXTENSIONS_MAX = 10_000;

export class UsingExtender {
  /** The routine's `signal.aborted`. */
  aborted = false;
  /** Successful automatic extensions so far. */
  extensions = 0;
  private stopped = false;
  private inFlight = false;
  private onIdle: (() => void) | undefined;
  /** using()'s `duration`: every extension asks for the TTL of the acquire. */
  private readonly durationMs: number;

  constructor(
    private readonly ctx: ProcessContext,
    private readonly client: ExtendingClient,
    private readonly grant: Grant,
    private readonly thresholdMs: number,
  ) {
    this.durationMs = grant.ttlMs;
    ctx.spawn(this.run());
  }

  private *run(): Fiber<void> {
    const { ctx, client, grant } = this;
    for (let n = 0; n < EXTENSIONS_MAX; n++) {
      // Node clamps a setTimeout delay below 1 ms to 1 ms.
      yield* ctx.sleep(Math.max(1, client.expirationOf(grant) - client.clockMs() - this.thresholdMs));
      if (this.stopped) return;
      this.inFlight = true;
      let last: ExtendResult = { outcome: "fail", reason: "never tried" };
      for (let tries = 0; tries < EXTENSIONS_MAX; tries++) {
        last = yield* client.extend(grant, this.durationMs);
        if (last.outcome === "ok" || !(client.expirationOf(grant) > client.clockMs())) break;
      }
      this.inFlight = false;
      if (last.outcome === "ok") {
        this.extensions++;
        ctx.record("info", "using-extend", grant.lock, { validityMs: Math.round(last.validityMs * 1000) / 1000 });
      } else {
        this.aborted = true;
        ctx.record("info", "using-abort", grant.lock, { reason: last.reason });
      }
      this.onIdle?.();
      this.onIdle = undefined;
      if (this.aborted || this.stopped) return;
    }
  }

  /** using()'s `finally` before the release: no more extensions; wait for the one in flight. */
  *stop(): Fiber<void> {
    this.stopped = true;
    if (!this.inFlight) return;
    yield* suspend<void>((resume) => {
      this.onIdle = resume;
    });
  }
}
