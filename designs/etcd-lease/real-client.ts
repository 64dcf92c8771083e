// etcd's concurrency.Mutex (client/v3/concurrency/mutex.go) on the real etcd3 client, step
// for step as designs/etcd-lease/mutex.ts models it. etcd3's own lock() is a try-lock (one
// Txn, no queue), so the recipe is written on its lease, KV and watch calls:
//  - session: one lease of leaseTtlS with etcd3's own keepalive loop (every TTL/3);
//  - myKey = <pfx><leaseID in hex>; one Txn: If(CreateRevision(myKey) = 0)
//    Then(Put(myKey, "", lease), Get(pfx, FirstCreate)) Else(Get(myKey), Get(pfx, FirstCreate));
//    myRev = the Txn's header revision, or myKey's create revision if it existed;
//  - if the first-created key is not ours, waitDeletes: Get(pfx, LastCreate, MaxCreateRev =
//    myRev - 1); if a key is there, watch it from the Get's header revision until a DELETE
//    (re-checking at least every watchPollMs, as the model: a watch can die with a member);
//    repeat until no key is below ours;
//  - then Get(myKey): empty means the lease expired meanwhile (ErrSessionExpired, #11456).
// The fencing token is myRev (etcd's documentation: use the revision).
//
// Trust, as the model's SessionGrants: a grant is believed until the send time of the
// latest answered keepalive plus TTL less clockDriftMarginMs; a lease etcd reports gone
// (etcd3's `lost`) ends it at once. Only keepalives renew a lease (a Put with the lease
// does not), so only they count.
import { Etcd3, type Lease, type Watcher } from "etcd3";
import type { EtcdMutexRecipeConfig } from "./real-plan.js";
import { errorText, type RealGrant, type RealLockClient, type RealClientFactory } from "../real-client.js";
import type { AcquireResult, ExtendResult, ReleaseResult } from "../types.js";
import { packageVersion } from "../real-packages.js";

type EtcdConfig = EtcdMutexRecipeConfig;

interface Session {
  lease: Lease;
  /** The lease id as etcd3 gives it (a decimal int64 string). */
  id: string;
  alive: boolean;
  /** Run µs: send time of the latest keepalive etcd answered (or of the grant). */
  lastHeardUs: number;
  /** Send times of keepalives not yet answered, oldest first (one stream answers in order). */
  fired: number[];
}

/** Backstop on waitDeletes rounds; the wait deadline is the real bound. */
const WAIT_ROUNDS_MAX = 100_000;

const utf8 = (s: string): Buffer => Buffer.from(s, "utf8");

/** The end of a prefix range: the prefix with its last byte + 1 (etcd's WithPrefix). */
function prefixEnd(prefix: string): Buffer {
  const b = Buffer.from(prefix, "utf8");
  for (let i = b.length - 1; i >= 0; i--) {
    if (b[i]! < 0xff) {
      const end = Buffer.from(b.subarray(0, i + 1));
      end[i]! += 1;
      return end;
    }
  }
  return Buffer.from([0]);
}

export class EtcdMutexRecipe implements RealLockClient {
  private readonly client: Etcd3;
  private session: Session | undefined;
  private readonly held = new Set<RealGrant>();
  onRefresh?: (g: RealGrant) => void;

  constructor(
    private readonly cfg: EtcdConfig,
    private readonly nowUs: () => number,
  ) {
    this.client = new Etcd3({
      hosts: cfg.endpoints,
      // Every unary call gets the design's request budget as its gRPC deadline; streams
      // (keepalive, watch) live on.
      defaultCallOptions: (ctx) => (ctx.isStream ? {} : { deadline: Date.now() + cfg.callTimeoutMs }),
    });
  }

  async connect(): Promise<void> {
    await this.client.kv.range({ key: utf8("/locks/"), range_end: prefixEnd("/locks/"), limit: 1, count_only: true });
  }

  private trustedUntilUs(s: Session): number {
    return s.lastHeardUs + (this.cfg.leaseTtlS * 1000 - this.cfg.clockDriftMarginMs) * 1000;
  }

  private refreshAll(s: Session): void {
    for (const g of this.held) {
      if ((g.data as { session: Session }).session !== s) continue;
      g.expiresAtUs = s.alive ? this.trustedUntilUs(s) : Math.min(g.expiresAtUs, this.nowUs());
      g.validityMs = Math.max(0, (g.expiresAtUs - this.nowUs()) / 1000);
      this.onRefresh?.(g);
    }
  }

  /** The live session, granting a lease if there is none (etcd3 keeps it alive). */
  private async ensureSession(): Promise<Session | undefined> {
    const cur = this.session;
    if (cur && cur.alive && this.nowUs() < cur.lastHeardUs + this.cfg.leaseTtlS * 1_000_000) return cur;
    if (cur) this.abandon(cur);
    const sentUs = this.nowUs();
    const lease = this.client.lease(this.cfg.leaseTtlS);
    const s: Session = { lease, id: "", alive: true, lastHeardUs: sentUs, fired: [] };
    lease.on("lost", () => {
      s.alive = false;
      this.refreshAll(s);
    });
    lease.on("keepaliveEstablished", () => (s.fired = []));
    lease.on("keepaliveFired", () => s.fired.push(this.nowUs()));
    lease.on("keepaliveSucceeded", () => {
      const sent = s.fired.shift();
      if (sent !== undefined && sent > s.lastHeardUs) s.lastHeardUs = sent;
      this.refreshAll(s);
    });
    try {
      s.id = await lease.grant();
    } catch {
      s.alive = false;
      return undefined;
    }
    this.session = s;
    return s;
  }

  /** Stop using a session; revoke its lease (best effort) so its keys go now. */
  private abandon(s: Session): void {
    s.alive = false;
    if (this.session === s) this.session = undefined;
    void s.lease.revoke().catch(() => undefined);
  }

  async acquire(lock: string, o: { ttlMs: number; waitMs: number }): Promise<AcquireResult<RealGrant>> {
    const deadlineUs = this.nowUs() + o.waitMs * 1000;
    const s = await this.ensureSession();
    if (!s) return { outcome: "fail", reason: "could not grant a lease" };
    const pfx = `/locks/${lock}/`;
    const myKey = `${pfx}${BigInt(s.id).toString(16)}`;
    const firstCreate = {
      request_range: { key: utf8(pfx), range_end: prefixEnd(pfx), sort_target: "Create" as const, sort_order: "Ascend" as const, limit: 1 },
    };
    let txn;
    try {
      txn = await this.client.kv.txn({
        compare: [{ key: utf8(myKey), target: "Create", result: "Equal", create_revision: 0 }],
        success: [{ request_put: { key: utf8(myKey), value: utf8(""), lease: s.id } }, firstCreate],
        failure: [{ request_range: { key: utf8(myKey) } }, firstCreate],
      });
    } catch (err) {
      if (/lease not found/i.test(errorText(err))) return { outcome: "fail", reason: "lease expired before the lock key was put" };
      return this.giveUp(s, `lock Txn unanswered (${errorText(err)}): the key may exist`);
    }
    let myRev = Number(txn.header.revision);
    if (!txn.succeeded) {
      const mine = txn.responses[0]?.response_range?.kvs ?? [];
      if (mine.length === 0) return this.giveUp(s, "our key vanished between compare and get");
      myRev = Number(mine[0]!.create_revision);
    }
    const owner = txn.responses[1]?.response_range?.kvs ?? [];
    if (owner.length > 0 && Number(owner[0]!.create_revision) !== myRev) {
      const failed = await this.waitDeletes(s, pfx, myKey, myRev, deadlineUs);
      if (failed) return failed;
    }
    const grant: RealGrant = {
      lock,
      secret: myKey,
      token: myRev,
      ttlMs: this.cfg.leaseTtlS * 1000,
      validityMs: 0,
      expiresAtUs: this.trustedUntilUs(s),
      data: { session: s, key: myKey, createRevision: myRev },
    };
    grant.validityMs = Math.max(0, (grant.expiresAtUs - this.nowUs()) / 1000);
    this.held.add(grant);
    return { outcome: "ok", grant };
  }

  /** Go's waitDeletes(pfx, myRev-1), then the #11456 check; a result only when the acquire ends here. */
  private async waitDeletes(s: Session, pfx: string, myKey: string, myRev: number, deadlineUs: number): Promise<AcquireResult<RealGrant> | undefined> {
    for (let round = 0; ; round++) {
      if (!s.alive) return { outcome: "fail", reason: "lease expired while waiting" };
      if (this.nowUs() >= deadlineUs || round >= WAIT_ROUNDS_MAX) return this.unlockAfterTimeout(s, myKey);
      let last;
      try {
        last = await this.client.kv.range({
          key: utf8(pfx),
          range_end: prefixEnd(pfx),
          sort_target: "Create",
          sort_order: "Descend",
          limit: 1,
          max_create_revision: myRev - 1,
        });
      } catch (err) {
        return this.giveUp(s, `etcd unreachable while waiting (${errorText(err)})`);
      }
      if (last.kvs.length === 0) break;
      await this.waitDelete(last.kvs[0]!.key, last.header.revision, Math.min(deadlineUs, this.nowUs() + this.cfg.watchPollMs * 1000));
    }
    // The #11456 fix: make sure our key (and so our lease) still exists.
    let mine;
    try {
      mine = await this.client.kv.range({ key: utf8(myKey) });
    } catch (err) {
      return this.giveUp(s, `etcd unreachable after waiting (${errorText(err)})`);
    }
    if (mine.kvs.length === 0) return { outcome: "fail", reason: "ErrSessionExpired: our key is gone" };
    return undefined;
  }

  /**
   * Watch `key` from `revision` until a DELETE arrives or `untilUs` passes (the caller re-reads
   * either way, as waitDeletes does after each waitDelete).
   */
  private async waitDelete(key: Buffer, revision: string, untilUs: number): Promise<void> {
    let watcher: Watcher | undefined;
    let timer: NodeJS.Timeout | undefined;
    try {
      await new Promise<void>((resolve) => {
        timer = setTimeout(resolve, Math.max(0, (untilUs - this.nowUs()) / 1000));
        this.client
          .watch()
          .key(key)
          .startRevision(revision)
          .create()
          .then((w) => {
            watcher = w;
            w.on("delete", () => resolve());
            w.on("error", () => resolve());
          })
          .catch(() => resolve());
      });
    } finally {
      clearTimeout(timer);
      void watcher?.cancel().catch(() => undefined);
    }
  }

  /** Lock(ctx) whose ctx ran out: Unlock, so the key does not hold the queue. */
  private async unlockAfterTimeout(s: Session, key: string): Promise<AcquireResult<RealGrant>> {
    try {
      await this.client.kv.deleteRange({ key: utf8(key) });
      return { outcome: "fail", reason: "lock held by another client until the wait ran out" };
    } catch {
      return this.giveUp(s, "wait ran out and our key could not be deleted");
    }
  }

  /** An outcome we cannot resolve: revoke the lease so whatever key we may own goes with it. */
  private giveUp(s: Session, reason: string): AcquireResult<RealGrant> {
    this.abandon(s);
    return { outcome: "unknown", reason };
  }

  async release(grant: RealGrant): Promise<ReleaseResult> {
    this.held.delete(grant);
    const d = grant.data as { session: Session; key: string };
    if (!d.session.alive) return { outcome: "ok", released: false };
    try {
      const startUs = this.nowUs();
      const r = await this.client.kv.deleteRange({ key: utf8(d.key) });
      const deleted = Number(r.deleted) > 0;
      // etcd3's default global policy retries a call whose deadline passed (up to 3 attempts), and
      // a delete is not idempotent in its answer: a retry finds the key its own earlier attempt
      // deleted and says 0. Slower than one request budget means a retry happened, so "not
      // deleted" is then unknown, not "did not hold" (etcd-lease-minority-partition, real-mode.md).
      if (!deleted && this.nowUs() - startUs > this.cfg.callTimeoutMs * 1000) {
        return { outcome: "unknown", reason: "etcd3 retried the delete past its deadline; deleted: 0 may be its own earlier attempt's work" };
      }
      return { outcome: "ok", released: deleted };
    } catch (err) {
      this.abandon(d.session);
      return { outcome: "unknown", reason: `delete of the lock key: ${errorText(err)}` };
    }
  }

  /** etcd locks have no TTL of their own: extending is a keepalive plus a check that the key is still ours. */
  async extend(grant: RealGrant, _ttlMs: number): Promise<ExtendResult> {
    const d = grant.data as { session: Session; key: string; createRevision: number };
    if (!d.session.alive) return { outcome: "fail", reason: "lease expired" };
    const sentUs = this.nowUs();
    // keepaliveOnce is a stream call (no deadline of its own): bound it by the request budget, as the model's extend.
    let timer: NodeJS.Timeout | undefined;
    const budget = new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new Error("keepalive unanswered within the request budget")), this.cfg.callTimeoutMs)),
    );
    try {
      await Promise.race([d.session.lease.keepaliveOnce(), budget]);
    } catch (err) {
      if (/lease/i.test(errorText(err)) && !d.session.alive) return { outcome: "fail", reason: "lease not found" };
      return { outcome: "unknown", reason: errorText(err) };
    } finally {
      clearTimeout(timer);
    }
    if (sentUs > d.session.lastHeardUs) d.session.lastHeardUs = sentUs;
    let r;
    try {
      r = await this.client.kv.range({ key: utf8(d.key) });
    } catch (err) {
      return { outcome: "unknown", reason: errorText(err) };
    }
    const kv = r.kvs[0];
    if (!kv || Number(kv.create_revision) !== d.createRevision) return { outcome: "fail", reason: "the lock key is no longer ours" };
    grant.expiresAtUs = this.trustedUntilUs(d.session);
    grant.validityMs = Math.max(0, (grant.expiresAtUs - this.nowUs()) / 1000);
    return { outcome: "ok", validityMs: grant.validityMs };
  }

  holds(grant: RealGrant): boolean {
    const s = (grant.data as { session: Session }).session;
    return s.alive && this.nowUs() < this.trustedUntilUs(s);
  }

  packages(): Record<string, string> {
    return { etcd3: packageVersion("etcd3") };
  }

  close(): void {
    if (this.session) this.session.lease.release();
    this.client.close();
  }
}

/** The client process's entry to this recipe (real/child/main.ts loads this module by the recipe's `client`). */
export const createRealClient: RealClientFactory = (cfg, env) => new EtcdMutexRecipe(cfg as EtcdConfig, env.nowUs);
