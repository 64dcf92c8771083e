import type { Fiber } from "../../sim/fiber.js";
import type { Message, ProcessContext, RpcResult } from "../../sim/simulation.js";

/**
 * Sending a request to a Raft-replicated service's leader, shared by the Raft-ZK and
 * etcd-lease clients: try the server believed to lead; on "not-leader" follow its hint
 * (or try the next server after a short pause, an election being under way); on a
 * timeout try the next server. A write whose request timed out may have been applied,
 * so it is not re-sent unless the caller says it is safe (`retryTimeouts`).
 *
 * A hint naming a server that has already failed to answer this request is not
 * followed: a leader stranded in a minority with a follower still leads in that
 * follower's eyes, answers nothing (its read barriers and proposals cannot complete),
 * and following the hint back to it would keep the client between the two until its
 * session lapsed, with a majority leader reachable all along.
 */
export interface LeaderCursor {
  servers: string[];
  /** Index of the server believed to lead. */
  guess: number;
}

/** What a server's reply must carry for the redirect logic. */
export interface StatusReply {
  status: string;
  leader?: string;
}

/** Pause after a not-leader answer without a usable hint, ms. */
export const NO_LEADER_BACKOFF_MS = 20;
/** Bound on attempts of one request (redirects and retries), whatever the deadline. */
export const ATTEMPTS_MAX = 64;

/** Told of the answer a leaderCall is about to return, with its request's send time. */
export interface AnswerSink<R, A> {
  answered(reply: R, sentUs: number, arg: A): void;
}

/**
 * The request loop, lean for the clients' every request: the waits are yielded as
 * they are (ctx.callWait, ctx.sleepWait: no CallFiber or SleepFiber), at the same
 * points and in the same order as `yield* ctx.call` and `yield* ctx.sleep` would, and
 * no options or result object is made. It returns the answer itself, or a
 * `{ status: "timeout" | "unknown" }` of its own; `sink.answered(reply, sentUs, arg)`
 * runs just before an answer is returned (so the caller needs no generator of its
 * own to look at the send time).
 */
export function* leaderCall<R extends StatusReply, A>(
  ctx: ProcessContext,
  cursor: LeaderCursor,
  msg: Message,
  deadlineUs: number,
  requestTimeoutMs: number,
  retryTimeouts: boolean,
  sink: AnswerSink<R, A> | undefined,
  arg: A,
): Fiber<R | { status: "timeout" } | { status: "unknown" }> {
  /** Servers that timed out during this request (made on the first timeout: most requests meet none). */
  let silent: Set<string> | undefined;
  for (let i = 0; i < ATTEMPTS_MAX; i++) {
    const leftUs = deadlineUs - ctx.monoUs();
    if (leftUs <= 0) return { status: "timeout" };
    const to = cursor.servers[cursor.guess]!;
    const sentUs = ctx.monoUs();
    const r = (yield ctx.callWait(to, msg, Math.min(requestTimeoutMs, Math.ceil(leftUs / 1000)))) as RpcResult;
    if (!r.ok) {
      (silent ??= new Set()).add(to);
      cursor.guess = (cursor.guess + 1) % cursor.servers.length;
      if (!retryTimeouts) return { status: "unknown" };
      continue;
    }
    const rep = r.reply as unknown as R;
    if (rep.status === "not-leader") {
      const hinted = rep.leader !== undefined ? cursor.servers.indexOf(rep.leader) : -1;
      if (hinted >= 0 && rep.leader !== to && !silent?.has(rep.leader!)) cursor.guess = hinted;
      else {
        cursor.guess = (cursor.guess + 1) % cursor.servers.length;
        yield ctx.sleepWait(NO_LEADER_BACKOFF_MS);
      }
      continue;
    }
    if (rep.status === "retry") {
      yield ctx.sleepWait(NO_LEADER_BACKOFF_MS);
      continue;
    }
    sink?.answered(rep, sentUs, arg);
    return rep;
  }
  return { status: "timeout" };
}
