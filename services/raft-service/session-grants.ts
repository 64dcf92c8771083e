import type { ServiceSession, SessionClient } from "./session-client.js";

/**
 * The grants a lock library on a session client holds: each is trusted exactly as long
 * as its session (SessionClient.trustedUntilUs), refreshed on every contact with the
 * service for that session; a grant of a dead session only runs out. Grant data must
 * carry its `session`.
 */
/** The part of a design's grant this service reads and keeps current (structurally a designs/ Grant). */
export interface SessionGrant {
  validityMs: number;
  expiresAtMonoUs: number;
  data?: unknown;
}

export class SessionGrants<S extends ServiceSession> {
  private readonly grants = new Set<SessionGrant>();

  constructor(private readonly client: SessionClient<unknown, { status: string }, S>) {
    client.contactListeners.push((s) => {
      for (const g of this.grants) if (sessionOf<S>(g) === s) this.refresh(g);
    });
  }

  /** Start tracking a new grant (its validity computed now). */
  add(g: SessionGrant): void {
    this.refresh(g);
    this.grants.add(g);
  }

  delete(g: SessionGrant): void {
    this.grants.delete(g);
  }

  refresh(g: SessionGrant): void {
    const s = sessionOf<S>(g);
    const now = this.client.ctx.monoUs();
    g.expiresAtMonoUs = s.alive ? this.client.trustedUntilUs(s) : Math.min(g.expiresAtMonoUs, now);
    g.validityMs = Math.max(0, (g.expiresAtMonoUs - now) / 1000);
  }

  holds(g: SessionGrant): boolean {
    this.refresh(g);
    return sessionOf<S>(g).alive && this.client.ctx.monoUs() < g.expiresAtMonoUs;
  }
}

function sessionOf<S>(g: SessionGrant): S {
  return (g.data as { session: S }).session;
}

/** Time a single request may take, retries and redirects included, when the caller has no deadline of its own, ms. */
export const requestBudgetMs = (c: { o: { requestTimeoutMs: number } }): number => 4 * c.o.requestTimeoutMs;
