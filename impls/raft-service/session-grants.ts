import type { Grant } from "../types.js";
import type { ServiceSession, SessionClient } from "./session-client.js";

/**
 * The grants a lock library on a session client holds: each is trusted exactly as long
 * as its session (SessionClient.trustedUntilUs), refreshed on every contact with the
 * service for that session; a grant of a dead session only runs out. Grant data must
 * carry its `session`.
 */
export class SessionGrants<S extends ServiceSession> {
  private readonly grants = new Set<Grant>();

  constructor(private readonly client: SessionClient<unknown, { status: string }, S>) {
    client.contactListeners.push((s) => {
      for (const g of this.grants) if (sessionOf<S>(g) === s) this.refresh(g);
    });
  }

  /** Start tracking a new grant (its validity computed now). */
  add(g: Grant): void {
    this.refresh(g);
    this.grants.add(g);
  }

  delete(g: Grant): void {
    this.grants.delete(g);
  }

  refresh(g: Grant): void {
    const s = sessionOf<S>(g);
    const now = this.client.ctx.monoUs();
    g.expiresAtMonoUs = s.alive ? this.client.trustedUntilUs(s) : Math.min(g.expiresAtMonoUs, now);
    g.validityMs = Math.max(0, (g.expiresAtMonoUs - now) / 1000);
  }

  holds(g: Grant): boolean {
    this.refresh(g);
    return sessionOf<S>(g).alive && this.client.ctx.monoUs() < g.expiresAtMonoUs;
  }
}

function sessionOf<S>(g: Grant): S {
  return (g.data as { session: S }).session;
}

/** Time a single request may take, retries and redirects included, when the caller has no deadline of its own, ms. */
export const requestBudgetMs = (c: { o: { requestTimeoutMs: number } }): number => 4 * c.o.requestTimeoutMs;
