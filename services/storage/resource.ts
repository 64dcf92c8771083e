import type { BehaviorFactory, Message, ProcessContext } from "../../sim/simulation.js";

/**
 * The protected resource: a storage node holding one counter per lock. Clients do a
 * read-modify-write under the lock. With `fencing` on it is the seeds' database-side
 * check: a write whose token is lower than the highest token it has accepted is
 * rejected (equal is fine: the same holder writing again).
 *
 * It records every write it applies or rejects (`storage-write` annotations), so
 * the fencing checker can judge from the resource's side.
 */
export const RESOURCE_ID = "storage";

export interface ResourceOptions {
  fencing: boolean;
  /** Check-and-set on the claimant's random value (antirez's reply): see WorkloadSpec.ownerCheck. */
  ownerCheck: boolean;
}

export interface ResourceState {
  counter: number;
  maxToken?: number;
  /** The random value of the grant that last claimed this resource (owner check). */
  owner?: string;
}

export class Resource {
  readonly cells = new Map<string, ResourceState>();

  constructor(
    private readonly ctx: ProcessContext,
    private readonly opts: ResourceOptions,
  ) {}

  cell(lock: string): ResourceState {
    let c = this.cells.get(lock);
    if (!c) {
      c = { counter: 0 };
      this.cells.set(lock, c);
    }
    return c;
  }

  onMessage(from: string, msg: Message): void {
    const lock = msg.lock as string;
    const c = this.cell(lock);
    const token = msg.token as number | undefined;
    if (msg.type === "resource-read") {
      // A read under the owner check is also the claim: from now on only this grant may write.
      if (this.opts.ownerCheck) c.owner = msg.owner as string | undefined;
      this.ctx.reply(from, msg, { type: "resource-read-ok", counter: c.counter });
      return;
    }
    if (msg.type !== "resource-write") return;
    const counter = msg.counter as number;
    const value = { client: from, grantId: msg.grantId, token, counter, maxTokenBefore: c.maxToken };
    const reason = this.rejection(c, token, msg.owner as string | undefined);
    if (reason) {
      this.ctx.record("fail", "storage-write", lock, { ...value, reason });
      this.ctx.reply(from, msg, { type: "resource-write-fail", reason });
      return;
    }
    c.counter = counter;
    if (token !== undefined) c.maxToken = Math.max(c.maxToken ?? token, token);
    this.ctx.record("ok", "storage-write", lock, value);
    this.ctx.reply(from, msg, { type: "resource-write-ok" });
  }

  /** Why a write must be refused, if it must. */
  private rejection(c: ResourceState, token: number | undefined, owner: string | undefined): string | undefined {
    if (this.opts.fencing) {
      if (token === undefined) return "no-token";
      if (c.maxToken !== undefined && token < c.maxToken) return "stale-token";
    }
    if (this.opts.ownerCheck && (owner === undefined || owner !== c.owner)) return "owner-changed";
    return undefined;
  }
}

export function resourceNode(opts: ResourceOptions, onCreate?: (r: Resource) => void): BehaviorFactory {
  return (ctx) => {
    const r = new Resource(ctx, opts);
    onCreate?.(r);
    return r;
  };
}
