import type { Fiber, FiberStep, Wait } from "../../sim/fiber.js";
import type { Message, ProcessContext, RpcResult } from "../../sim/simulation.js";
import { REDIS_REQUEST, type RedisReply, type RedisRequest } from "./commands.js";
import { REPL } from "./replication.js";

/** The outcome of one command: a reply, or a timeout (the command may or may not have run). */
export type RedisResult = { ok: true; reply: RedisReply } | { ok: false; error: "timeout" };

/** Send one command to a Redis node and wait for its reply, up to `timeoutMs` on the caller's clock. */
export function redisCall(ctx: ProcessContext, node: string, command: RedisRequest, timeoutMs: number): Fiber<RedisResult> {
  // One kernel call fiber, no generator of its own per command; the request is built
  // with its rpcId slot, so setting it adds no property.
  return ctx.callAs(node, requestOf(command), timeoutMs, toRedisResult);
}

/** A command's request message, with its rpcId slot (the kernel sets it in place). */
function requestOf(command: RedisRequest): Message {
  return { type: REDIS_REQUEST, command, rpcId: undefined };
}

/** What `redisCall` yields, for a fiber that yields it itself: its result goes through toRedisResult. */
function redisWait(ctx: ProcessContext, node: string, command: RedisRequest, timeoutMs: number): Wait {
  return ctx.callWait(node, requestOf(command), timeoutMs);
}

/** The kernel's result object is this call's alone: it becomes the Redis result in place. */
export function toRedisResult(r: RpcResult): RedisResult {
  if (!r.ok) return r;
  const out = r as unknown as { ok: true; reply: RedisReply };
  out.reply = r.reply.result as RedisReply;
  return out;
}

/**
 * One command to several nodes at once, each result handed to `onResult(i, result)` as
 * it comes (reply or timeout). The kernel's call waits are begun here directly, with a
 * small receiver each, where a fiber spawned per node cost a run, two closures and a
 * call fiber. The calls go out in node order, as spawned fibers sent them;
 * a crash of the caller drops them all (its pending calls and timers go), as it stopped
 * spawned fibers.
 */
export function redisCallEach(
  ctx: ProcessContext,
  nodes: readonly string[],
  command: RedisRequest,
  timeoutMs: number,
  onResult: (i: number, r: RedisResult) => void,
): void {
  for (let i = 0; i < nodes.length; i++) {
    redisWait(ctx, nodes[i]!, command, timeoutMs).begin(new NodeResult(i, onResult));
  }
}

class NodeResult implements FiberStep {
  constructor(
    private readonly i: number,
    private readonly onResult: (i: number, r: RedisResult) => void,
  ) {}
  step(value: unknown): void {
    this.onResult(this.i, toRedisResult(value as RpcResult));
  }
}

/** A client's connection to "the" Redis: one fixed node, or whatever Sentinel says is the primary. */
export interface RedisConnection {
  call(command: RedisRequest): Fiber<RedisResult>;
  /**
   * What `call` yields, for a connection that is one kernel call: `toRedisResult((yield
   * conn.wait(c)) as RpcResult)` is `yield* conn.call(c)` without a fiber object per
   * command (a SET NX poll loop's hot path). Absent: use `call`.
   */
  wait?(command: RedisRequest): Wait;
}

export function directConnection(ctx: ProcessContext, node: string, timeoutMs: number): RedisConnection {
  return {
    call: (command) => redisCall(ctx, node, command, timeoutMs),
    wait: (command) => redisWait(ctx, node, command, timeoutMs),
  };
}

/**
 * A Sentinel-aware connection, as ioredis/redis-py Sentinel clients behave: ask the
 * sentinel for the primary before the first command, and again after a command
 * timed out (the connection is presumed dead) or was refused with READONLY (we
 * are talking to a demoted primary). Nothing here can tell that the new primary
 * lacks writes the old one acknowledged.
 */
export class SentinelConnection implements RedisConnection {
  private primary?: string;

  constructor(
    private readonly ctx: ProcessContext,
    private readonly sentinelId: string,
    private readonly timeoutMs: number,
  ) {}

  *call(command: RedisRequest): Fiber<RedisResult> {
    if (this.primary === undefined) {
      const q = yield* this.ctx.call(this.sentinelId, { type: REPL.getPrimary }, this.timeoutMs);
      if (!q.ok) return q;
      this.primary = q.reply.primaryId as string;
    }
    const r = yield* redisCall(this.ctx, this.primary, command, this.timeoutMs);
    const readonly = r.ok && typeof r.reply === "object" && r.reply !== null && r.reply.error.startsWith("READONLY");
    if (!r.ok || readonly) this.primary = undefined;
    return r;
  }
}
