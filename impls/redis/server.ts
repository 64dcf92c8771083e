import type { BehaviorFactory, Message, ProcessContext } from "../../sim/simulation.js";
import { REDIS_REPLY, REDIS_REQUEST, type RedisCommand } from "./commands.js";
import { RedisStore } from "./store.js";

/**
 * A single-threaded Redis server node: each request is executed atomically on arrival
 * against the store, with the node's wall clock deciding expiry. A periodic active
 * expiry cycle runs every `sweepIntervalMs` (Redis's hz 10 = 100 ms).
 *
 * Persistence here is "none": a crash loses the data set. (Replication and AOF
 * modes extend this node in their own files.)
 */
export interface RedisServerOptions {
  sweepIntervalMs: number;
}

export const DEFAULT_REDIS_SERVER: RedisServerOptions = { sweepIntervalMs: 100 };

export class RedisServer {
  readonly store = new RedisStore();

  constructor(
    protected readonly ctx: ProcessContext,
    protected readonly opts: RedisServerOptions = DEFAULT_REDIS_SERVER,
  ) {
    this.scheduleSweep();
  }

  private scheduleSweep(): void {
    this.ctx.setTimer(this.opts.sweepIntervalMs, () => {
      this.store.sweep(this.ctx.wallMs());
      this.scheduleSweep();
    });
  }

  onMessage(from: string, msg: Message): void {
    if (msg.type !== REDIS_REQUEST) return;
    const command = msg.command as RedisCommand;
    const result = this.execute(command);
    this.ctx.reply(from, msg, { type: REDIS_REPLY, result });
  }

  /** Execute a client command; subclasses hook persistence/replication here. */
  protected execute(command: RedisCommand): unknown {
    return this.store.execute(command, this.ctx.wallMs());
  }
}

export function redisServer(opts: RedisServerOptions = DEFAULT_REDIS_SERVER): BehaviorFactory {
  return (ctx) => new RedisServer(ctx, opts);
}
