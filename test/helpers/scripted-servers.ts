import type { Fiber } from "../../sim/fiber.js";
import { Simulation, type Message, type ProcessContext } from "../../sim/simulation.js";
import { leaderCall, type AnswerSink, type LeaderCursor, type StatusReply } from "../../services/raft-service/leader-request.js";

/**
 * A simulation of scripted servers and one client c1, for the Raft-backed clients' request
 * path: each server answers a request with what its script returns (nothing: silent).
 * 1 ms links without jitter, so the tests can reason about send times.
 */
export function scriptedServers(seed: string, behaviour: Record<string, (msg: Message) => Message | undefined>) {
  const sim = new Simulation({ seed, network: { latencyUsBase: 1000, latencyUsJitter: 0 } });
  for (const [id, answer] of Object.entries(behaviour)) {
    sim.addProcess(id, "server", {}, (ctx) => ({
      onMessage: (from, msg) => {
        const body = answer(msg);
        if (body) ctx.reply(from, msg, body);
      },
    }));
  }
  const client = sim.addProcess("c1", "client", {}, () => ({}));
  return { sim, client };
}

export type LeaderRequestResult<R> = { status: "answered"; reply: R; sentUs: number } | { status: "unknown" } | { status: "timeout" };

/** Notes whether the call was answered, and when the answered request was sent. */
class LastAnswer<R> implements AnswerSink<R, undefined> {
  got = false;
  sentUs = 0;
  answered(_reply: R, sentUs: number): void {
    this.got = true;
    this.sentUs = sentUs;
  }
}

/** leaderCall with the answered attempt's send time in its result, for tests that look at both. */
export function* leaderRequest<R extends StatusReply>(
  ctx: ProcessContext,
  cursor: LeaderCursor,
  msg: Message,
  o: { deadlineUs: number; requestTimeoutMs: number; retryTimeouts: boolean },
): Fiber<LeaderRequestResult<R>> {
  const sink = new LastAnswer<R>();
  const r = yield* leaderCall<R, undefined>(ctx, cursor, msg, o.deadlineUs, o.requestTimeoutMs, o.retryTimeouts, sink, undefined);
  return sink.got ? { status: "answered", reply: r as R, sentUs: sink.sentUs } : (r as LeaderRequestResult<R>);
}
