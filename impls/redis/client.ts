import type { Fiber } from "../../sim/fiber.js";
import type { ProcessContext } from "../../sim/simulation.js";
import { REDIS_REQUEST, type RedisCommand, type RedisReply } from "./commands.js";

/** The outcome of one command: a reply, or a timeout (the command may or may not have run). */
export type RedisResult = { ok: true; reply: RedisReply } | { ok: false; error: "timeout" };

/** Send one command to a Redis node and wait for its reply, up to `timeoutMs` on the caller's clock. */
export function* redisCall(ctx: ProcessContext, node: string, command: RedisCommand, timeoutMs: number): Fiber<RedisResult> {
  const r = yield* ctx.call(node, { type: REDIS_REQUEST, command }, timeoutMs);
  if (!r.ok) return r;
  return { ok: true, reply: r.reply.result as RedisReply };
}
