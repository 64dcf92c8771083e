import type { Fiber } from "../../sim/fiber.js";
import type { AcquireOptions, AcquireResult, ExtendResult, Grant, LockClient, ReleaseResult } from "../types.js";
import type { EtcdClient, EtcdSession } from "./client.js";
import { requestBudgetMs, SessionGrants } from "../../services/raft-service/session-grants.js";
import type { KvOp } from "./kv.js";
import type { EtcdOp } from "./protocol.js";

/**
 * The Mutex.Lock code line this client follows: "3.5" has the #11456 fix (a Get of
 * myKey after the wait; commit b14c7cd44, first released in v3.5.0), "3.4" returns as
 * soon as waitDeletes does (clientv3/concurrency/mutex.go through v3.4.30).
 */
export const MUTEX_VERSIONS = ["3.5", "3.4"] as const;
export type MutexVersion = (typeof MUTEX_VERSIONS)[number];

/**
 * What the application checks before its critical section: "session" (lockstep's
 * careful client) stops trusting once its lease's keepalives have lapsed; "none" trusts
 * Lock()'s nil until Unlock, as code that never selects on Session.Done() does (etcd's
 * own ExampleMutex_Lock).
 */
export const HOLDER_CHECKS = ["session", "none"] as const;
export type HolderCheck = (typeof HOLDER_CHECKS)[number];

/** "none": a belief with no end of its own, pushed this far ahead each time it is asked, µs. */
const UNCHECKED_TRUST_US = 1e12;

/**
 * etcd's concurrency.Mutex (client/v3/concurrency/mutex.go), as of the #11456 fix:
 *  - myKey = `<pfx><leaseID in hex>`; one Txn: If(CreateRevision(myKey) = 0)
 *    Then(Put(myKey, "", lease), Get(pfx, FirstCreate)) Else(Get(myKey), Get(pfx, FirstCreate));
 *    myRev = the Txn's revision, or myKey's create revision if it existed;
 *  - the owner is the key with the lowest create revision; if it is not ours,
 *    waitDeletes: repeatedly take the key with the highest create revision <= myRev-1
 *    (LastCreate + MaxCreateRev) and wait for its deletion;
 *  - then Get(myKey): empty means the lease expired meanwhile (ErrSessionExpired);
 *    version "3.4" skips this and reports the lock held.
 * Like etcd's waitDeletes, the wait does not look at the session: a waiter whose lease
 * expired keeps waiting for the keys ahead of it (docs/etcd-lease.md, line by line).
 * The Txn is idempotent (the key is unique to the lease), so a lost reply is retried.
 * The fencing token is myRev, the key's create revision (etcd's docs: use the revision).
 */
interface EtcdGrantData {
  session: EtcdSession;
  key: string;
  createRevision: number;
}

export class EtcdMutexClient implements LockClient {
  private readonly grants: SessionGrants<EtcdSession>;

  constructor(
    readonly etcd: EtcdClient,
    /** A waiter re-checks at least this often (watches die with their server), ms. */
    private readonly pollMs = 1000,
    private readonly version: MutexVersion = "3.5",
    private readonly holderCheck: HolderCheck = "session",
  ) {
    this.grants = new SessionGrants(etcd);
  }

  *acquire(lock: string, o: AcquireOptions): Fiber<AcquireResult> {
    const { etcd } = this;
    const ctx = etcd.ctx;
    const deadlineUs = ctx.monoUs() + o.waitMs * 1000;
    const opDeadline = (): number => Math.max(deadlineUs, ctx.monoUs() + requestBudgetMs(etcd) * 1000);
    const s = yield* etcd.ensureSession(opDeadline());
    if (!s) return { outcome: "fail", reason: "could not grant a lease" };
    const pfx = `/locks/${lock}/`;
    const myKey = `${pfx}${s.leaseId.toString(16)}`;
    const firstCreate: KvOp = { op: "range", key: pfx, prefix: true, sort: "createAsc", limit: 1 };
    const r = yield* etcd.request(
      {
        kind: "txn",
        compare: [{ key: myKey, target: "createRevision", cmp: "=", value: 0 }],
        success: [{ op: "put", key: myKey, value: "", lease: s.leaseId }, firstCreate],
        failure: [{ op: "range", key: myKey }, firstCreate],
      },
      opDeadline(),
      true,
    );
    if (r.status === "error") return { outcome: "fail", reason: "lease expired before the lock key was put" };
    if (r.status !== "ok") return this.giveUp(s, "lock Txn unanswered: the key may exist");
    const resp = r.responses!;
    let myRev = r.revision;
    if (!r.succeeded) {
      const mine = resp[0]!.op === "range" ? resp[0]!.kvs : [];
      if (mine.length === 0) return this.giveUp(s, "our key vanished between compare and get");
      myRev = mine[0]!.createRevision;
    }
    const owner = resp[1]!.op === "range" ? resp[1]!.kvs : [];
    if (owner.length > 0 && owner[0]!.createRevision !== myRev) {
      const failed = yield* this.waitDeletes(s, pfx, myKey, myRev, deadlineUs, opDeadline);
      if (failed) return failed;
    }
    const grant: Grant = {
      lock,
      secret: myKey,
      token: myRev,
      ttlMs: etcd.o.leaseTtlMs,
      validityMs: 0,
      expiresAtMonoUs: 0,
      data: { session: s, key: myKey, createRevision: myRev } satisfies EtcdGrantData,
    };
    this.grants.add(grant);
    return { outcome: "ok", grant };
  }

  /** Go's waitDeletes(pfx, myRev-1): until every older key is gone; a result only when the acquire ends here. */
  private *waitDeletes(
    s: EtcdSession,
    pfx: string,
    myKey: string,
    myRev: number,
    deadlineUs: number,
    opDeadline: () => number,
  ): Fiber<AcquireResult | undefined> {
    const { etcd } = this;
    const ctx = etcd.ctx;
    for (;;) {
      // Lock(ctx)'s ctx: the wait is bounded by waitMs, and by nothing else.
      if (ctx.monoUs() >= deadlineUs) return yield* this.unlockAfterTimeout(s, myKey);
      const g = yield* etcd.request({ kind: "range", key: pfx, prefix: true, sort: "createDesc", limit: 1, maxCreateRevision: myRev - 1 }, opDeadline(), true);
      if (g.status !== "ok") return this.giveUp(s, "service unreachable while waiting");
      const last = g.kvs!;
      if (last.length === 0) break;
      yield* etcd.waitDelete(etcd.currentServer, last[0]!.key, g.revision, Math.min(deadlineUs, ctx.monoUs() + this.pollMs * 1000));
    }
    if (this.version === "3.5") {
      // The #11456 fix: make sure our key (and so our lease) still exists.
      const mine = yield* etcd.request({ kind: "range", key: myKey }, opDeadline(), true);
      if (mine.status !== "ok") return this.giveUp(s, "service unreachable after waiting");
      if (mine.kvs!.length === 0) return { outcome: "fail", reason: "ErrSessionExpired: our key is gone" };
    }
    return undefined;
  }

  /** Lock(ctx) whose ctx ran out: Unlock, so the key does not hold the queue. */
  private *unlockAfterTimeout(s: EtcdSession, key: string): Fiber<AcquireResult> {
    const r = yield* this.etcd.request(
      { kind: "txn", compare: [], success: [{ op: "delete", key }], failure: [] },
      this.etcd.ctx.monoUs() + requestBudgetMs(this.etcd) * 1000,
      true,
    );
    if (r.status === "ok" || r.status === "error") return { outcome: "fail", reason: "lock held by another client until the wait ran out" };
    return this.giveUp(s, "wait ran out and our key could not be deleted");
  }

  /** An outcome we cannot resolve: revoke the lease so whatever key we may own goes with it. */
  private giveUp(s: EtcdSession, reason: string): AcquireResult {
    this.etcd.abandon(s);
    return { outcome: "unknown", reason };
  }

  *release(grant: Grant): Fiber<ReleaseResult> {
    this.grants.delete(grant);
    const d = grant.data as EtcdGrantData;
    if (d.session.expired) return { outcome: "ok", released: false };
    const op: EtcdOp = { kind: "txn", compare: [], success: [{ op: "delete", key: d.key }], failure: [] };
    const deadlineUs = this.etcd.ctx.monoUs() + requestBudgetMs(this.etcd) * 1000;
    let r = yield* this.etcd.request(op, deadlineUs, false);
    const retried = r.status === "unknown";
    // After a lost reply, "nothing deleted" may be our own first delete having worked.
    if (retried) r = yield* this.etcd.request(op, deadlineUs, true);
    if (r.status === "ok") {
      const del = r.responses?.[0];
      const deleted = del?.op === "delete" ? del.deleted : 0;
      if (deleted === 0 && retried) return { outcome: "unknown", reason: "delete retried after a lost reply: the key is gone" };
      return { outcome: "ok", released: deleted > 0 };
    }
    if (r.status === "error") return { outcome: "ok", released: false };
    this.etcd.abandon(d.session);
    return { outcome: "unknown", reason: "delete of the lock key timed out" };
  }

  /** etcd locks have no TTL of their own: extending proves the lease alive (a keepalive) and the key ours. */
  *extend(grant: Grant, _ttlMs: number): Fiber<ExtendResult> {
    const d = grant.data as EtcdGrantData;
    if (!d.session.alive) return { outcome: "fail", reason: "lease expired" };
    const deadlineUs = this.etcd.ctx.monoUs() + requestBudgetMs(this.etcd) * 1000;
    const ka = yield* this.etcd.request({ kind: "keepAlive", leaseId: d.session.leaseId }, deadlineUs, true);
    if (ka.status === "error") return { outcome: "fail", reason: "lease not found" };
    if (ka.status !== "ok") return { outcome: "unknown", reason: "timeout" };
    const r = yield* this.etcd.request({ kind: "range", key: d.key }, deadlineUs, true);
    if (r.status !== "ok") return { outcome: "unknown", reason: "timeout" };
    const kv = r.kvs![0];
    if (!kv || kv.createRevision !== d.createRevision) return { outcome: "fail", reason: "the lock key is no longer ours" };
    this.grants.refresh(grant);
    return { outcome: "ok", validityMs: grant.validityMs };
  }

  holds(grant: Grant): boolean {
    if (this.holderCheck === "none") {
      // Until release, whatever the session says; far enough ahead that the workload's
      // lapse watch (which re-arms at this deadline) is not woken every millisecond.
      grant.expiresAtMonoUs = this.etcd.ctx.monoUs() + UNCHECKED_TRUST_US;
      return true;
    }
    return this.grants.holds(grant);
  }
}
