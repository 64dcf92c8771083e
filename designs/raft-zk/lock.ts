import type { Fiber } from "../../sim/fiber.js";
import type { AcquireOptions, AcquireResult, ExtendResult, Grant, LockClient, ReleaseResult } from "../types.js";
import type { ZkClient, ZkSession } from "./client.js";
import { requestBudgetMs, SessionGrants } from "../../services/raft-service/session-grants.js";
import { sequenceOf } from "./tree.js";
import { DEFAULT_ZK_RECIPE, suspendedAfterMs, type ZkRecipeOptions } from "./recipe.js";

/**
 * The ZooKeeper lock recipe (seed 002; recipes.md "Locks"; Curator's LockInternals):
 *  1. create `<dir>/_c_<guid>-lock-` EPHEMERAL|SEQUENTIAL (the GUID finds our node again
 *     if the create's reply is lost: Curator's protection mode);
 *  2. getChildren(dir) without a watch; the lowest sequence number holds the lock;
 *  3. otherwise getData(next-lower node, watch) and, when it is gone or the watch fires,
 *     go back to 2. Each waiter watches only its predecessor: no herd (waitRecipe
 *     "watch-all-children" is the herd: every waiter watches the parent's children).
 * The fencing token is the lock node's creation zxid (its Raft log index).
 * `recipe` switches parts of this to the ways real clients get it wrong (recipe.ts).
 *
 * Leader election is the same recipe under `/election/<name>` (ZkLeaderElection).
 */
interface ZkGrantData {
  session: ZkSession;
  path: string;
}

export class ZkLockClient implements LockClient {
  private readonly grants: SessionGrants<ZkSession>;
  /** Grants not yet released, for the Curator policies' own refresh on contact. */
  private readonly held = new Set<Grant>();

  constructor(
    readonly zk: ZkClient,
    private readonly root = "/locks",
    /** How often a waiter re-reads the children without a watch event, ms. */
    private readonly pollMs = 1000,
    private readonly recipe: ZkRecipeOptions = DEFAULT_ZK_RECIPE,
  ) {
    this.grants = new SessionGrants(zk);
    // Runs after SessionGrants' own listener (registered first), so the policy's deadline wins.
    if (recipe.connectionStatePolicy !== "lease") {
      zk.contactListeners.push((s) => {
        for (const g of this.held) if ((g.data as ZkGrantData).session === s) this.refresh(g);
      });
    }
  }

  *acquire(lock: string, o: AcquireOptions): Fiber<AcquireResult> {
    const { zk } = this;
    const ctx = zk.ctx;
    const deadlineUs = ctx.monoUs() + o.waitMs * 1000;
    const opDeadline = (): number => Math.max(deadlineUs, ctx.monoUs() + requestBudgetMs(zk) * 1000);
    const s = yield* zk.ensureSession(opDeadline());
    if (!s) return { outcome: "fail", reason: "could not open a session" };
    const dir = `${this.root}/${lock}`;
    const guid = ctx.rng.token(64);
    const prefix = this.recipe.lockNodeProtection ? `_c_${guid}-lock-` : "lock-";

    // 1. Create our node (protection mode: after a lost reply, look for the GUID).
    const created = yield* this.createLockNode(s, dir, prefix, opDeadline);
    if ("outcome" in created) return created;
    const { name: myName, zxid: myZxid } = created;

    // 2-3. Wait for our turn.
    const herd = this.recipe.waitRecipe === "watch-all-children";
    for (;;) {
      if (!s.alive) return { outcome: "fail", reason: "session expired while waiting" };
      // The herd recipe watches the parent itself: any child created or deleted wakes us.
      const kids = yield* zk.request({ kind: "getChildren", sessionId: s.id, path: dir, watch: herd }, opDeadline(), true);
      if (kids.status !== "ok") {
        if (kids.status === "error" && kids.error === "session-expired") return { outcome: "fail", reason: "session expired while waiting" };
        return this.giveUp(s, "service unreachable while waiting");
      }
      const sorted = bySequence(kids.children!);
      const i = sorted.indexOf(myName);
      if (i < 0) return { outcome: "fail", reason: "our lock node is gone (session expired)" };
      if (i === 0) return { outcome: "ok", grant: this.grantOf(lock, s, `${dir}/${myName}`, myZxid) };
      if (ctx.monoUs() >= deadlineUs) return yield* this.abandonWait(s, `${dir}/${myName}`);
      if (herd) {
        // Re-list on any change of the children (or every pollMs: the watch dies with its server).
        yield* zk.waitForWatch(zk.currentServer, s.id, dir, Math.min(deadlineUs, ctx.monoUs() + this.pollMs * 1000));
        continue;
      }
      const pred = `${dir}/${sorted[i - 1]!}`;
      // getData, not exists: on a node already gone, exists would leave a watch that no
      // event ever fires (a sequential name never comes back) for the session's life.
      const ex = yield* zk.request({ kind: "get", sessionId: s.id, path: pred, watch: true }, opDeadline(), true);
      if (ex.status === "ok" && ex.stat) {
        // The watch lives on the server that answered (the leader) and dies with it:
        // re-check at least every pollMs even without an event.
        const w = yield* zk.waitForWatch(zk.currentServer, s.id, pred, Math.min(deadlineUs, ctx.monoUs() + this.pollMs * 1000));
        // The shortcut: "my predecessor's node is gone, so the lock is mine" — skipping step 2.
        if (w === "event" && this.recipe.waitRecipe === "watch-fired-shortcut" && s.alive) {
          return { outcome: "ok", grant: this.grantOf(lock, s, `${dir}/${myName}`, myZxid) };
        }
      }
    }
  }

  /** Step 1: our sequential node under `dir`, as the recipe creates it; a result when the acquire ends here. */
  private *createLockNode(s: ZkSession, dir: string, prefix: string, opDeadline: () => number): Fiber<{ name: string; zxid: number } | AcquireResult> {
    const { zk } = this;
    const ctx = zk.ctx;
    let myName: string | undefined;
    let myZxid = 0;
    while (myName === undefined) {
      if (!s.alive) return { outcome: "fail", reason: "session expired before the lock node was created" };
      if (ctx.monoUs() >= opDeadline()) return this.giveUp(s, "could not create the lock node in time");
      const r = yield* zk.request(
        { kind: "create", sessionId: s.id, path: `${dir}/${prefix}`, data: ctx.id, ephemeral: true, sequential: true, parents: true },
        opDeadline(),
        false,
      );
      if (r.status === "ok") {
        myName = r.path!.slice(dir.length + 1);
        myZxid = r.stat!.czxid;
        break;
      }
      if (r.status === "error") return { outcome: "fail", reason: `create failed: ${r.error}` };
      // Without protection there is no name to look for: create again, as a plain retry
      // loop does, and leave the first node (if it was made) in the queue ahead of ours.
      if (!this.recipe.lockNodeProtection) continue;
      const found = yield* this.findProtected(s, dir, prefix, opDeadline());
      if (found === "unreachable") return this.giveUp(s, "create's outcome unknown and the service unreachable");
      // A dead session's ephemeral nodes are gone: whatever the create did, we hold nothing.
      if (found === "expired") return { outcome: "fail", reason: "session expired before the create's outcome was known" };
      if (found) {
        myName = found.name;
        myZxid = found.czxid;
      }
    }
    return { name: myName, zxid: myZxid };
  }

  private grantOf(lock: string, s: ZkSession, path: string, zxid: number): Grant {
    const grant: Grant = {
      lock,
      secret: path,
      token: zxid,
      ttlMs: this.zk.o.sessionTimeoutMs,
      validityMs: 0,
      expiresAtMonoUs: 0,
      data: { session: s, path } satisfies ZkGrantData,
    };
    this.grants.add(grant);
    this.held.add(grant);
    this.refresh(grant);
    return grant;
  }

  /** The session's locks are trusted under the connection-state policy (lease: SessionGrants decides). */
  private trusts(s: ZkSession): boolean {
    // Under Curator's session policy only LOST counts; the session client's own give-up
    // after a silent timeout (s.closed) is not an event that policy reacts to.
    return this.recipe.connectionStatePolicy === "session" ? !s.expired : s.alive;
  }

  /** Monotonic µs until which the policy trusts `s`, counted from its last answered request. */
  private trustedUntilUs(s: ZkSession): number {
    const t = this.zk.o.sessionTimeoutMs;
    const suspendedMs = suspendedAfterMs(t);
    return s.lastHeardUs + (this.recipe.connectionStatePolicy === "standard" ? suspendedMs : suspendedMs + t) * 1000;
  }

  private refresh(g: Grant): void {
    if (this.recipe.connectionStatePolicy === "lease") return this.grants.refresh(g);
    const s = (g.data as ZkGrantData).session;
    const now = this.zk.ctx.monoUs();
    g.expiresAtMonoUs = this.trusts(s) ? this.trustedUntilUs(s) : Math.min(g.expiresAtMonoUs, now);
    g.validityMs = Math.max(0, (g.expiresAtMonoUs - now) / 1000);
  }

  /** Look for our protected node after a create with unknown outcome. */
  private *findProtected(
    s: ZkSession,
    dir: string,
    prefix: string,
    deadlineUs: number,
  ): Fiber<{ name: string; czxid: number } | undefined | "unreachable" | "expired"> {
    const kids = yield* this.zk.request({ kind: "getChildren", sessionId: s.id, path: dir, watch: false }, deadlineUs, true);
    if (kids.status === "error") return kids.error === "no-node" ? undefined : kids.error === "session-expired" ? "expired" : "unreachable";
    if (kids.status !== "ok") return "unreachable";
    const name = kids.children!.find((c) => c.startsWith(prefix));
    if (!name) return undefined;
    const st = yield* this.zk.request({ kind: "exists", sessionId: s.id, path: `${dir}/${name}`, watch: false }, deadlineUs, true);
    if (st.status !== "ok") return "unreachable";
    return st.stat ? { name, czxid: st.stat.czxid } : undefined;
  }

  /** The wait ran out: delete our node (a try-lock that timed out leaves nothing behind). */
  private *abandonWait(s: ZkSession, path: string): Fiber<AcquireResult> {
    const r = yield* this.zk.request({ kind: "delete", sessionId: s.id, path, version: -1 }, this.zk.ctx.monoUs() + requestBudgetMs(this.zk) * 1000, true);
    if (r.status === "ok" || (r.status === "error" && (r.error === "no-node" || r.error === "session-expired"))) {
      return { outcome: "fail", reason: "lock held by another client until the wait ran out" };
    }
    return this.giveUp(s, "wait ran out and our node could not be deleted");
  }

  /**
   * An outcome we cannot resolve: a node of ours may exist. Give up the whole session so
   * that its ephemerals (that node included) go when it is closed or expires.
   */
  private giveUp(s: ZkSession, reason: string): AcquireResult {
    this.zk.abandon(s);
    return { outcome: "unknown", reason };
  }

  *release(grant: Grant): Fiber<ReleaseResult> {
    this.grants.delete(grant);
    this.held.delete(grant);
    const d = grant.data as ZkGrantData;
    if (d.session.expired) return { outcome: "ok", released: false };
    const op = { kind: "delete", sessionId: d.session.id, path: d.path, version: -1 } as const;
    const deadlineUs = this.zk.ctx.monoUs() + requestBudgetMs(this.zk) * 1000;
    let r = yield* this.zk.request(op, deadlineUs, false);
    const retried = r.status === "unknown";
    if (retried) r = yield* this.zk.request(op, deadlineUs, true);
    if (r.status === "ok") return { outcome: "ok", released: true };
    // After a lost reply, "no node" may be our own first delete having worked.
    if (r.status === "error" && r.error === "no-node" && retried) return { outcome: "unknown", reason: "delete retried after a lost reply: the node is gone" };
    if (r.status === "error") return { outcome: "ok", released: false };
    // Unreachable: give up the session so its ephemeral node goes with it.
    this.zk.abandon(d.session);
    return { outcome: "unknown", reason: "delete of the lock node timed out" };
  }

  /** ZooKeeper locks have no TTL: extending is a round trip that proves the session alive and the node ours. */
  *extend(grant: Grant, _ttlMs: number): Fiber<ExtendResult> {
    const d = grant.data as ZkGrantData;
    if (this.recipe.connectionStatePolicy !== "lease") {
      // A Curator application checks its connection-state listener's verdict, not the server.
      if (this.holds(grant)) return { outcome: "ok", validityMs: grant.validityMs };
      return { outcome: "fail", reason: this.recipe.connectionStatePolicy === "standard" ? "connection SUSPENDED" : "session LOST" };
    }
    if (!d.session.alive) return { outcome: "fail", reason: "session expired" };
    const r = yield* this.zk.request(
      { kind: "exists", sessionId: d.session.id, path: d.path, watch: false },
      this.zk.ctx.monoUs() + requestBudgetMs(this.zk) * 1000,
      true,
    );
    if (r.status === "ok" && r.stat && r.stat.ephemeralOwner === d.session.id) {
      this.grants.refresh(grant);
      return { outcome: "ok", validityMs: grant.validityMs };
    }
    if (r.status === "ok" || r.status === "error") return { outcome: "fail", reason: "the lock node is no longer ours" };
    return { outcome: "unknown", reason: "timeout" };
  }

  holds(grant: Grant): boolean {
    if (this.recipe.connectionStatePolicy === "lease") return this.grants.holds(grant);
    this.refresh(grant);
    return this.trusts((grant.data as ZkGrantData).session) && this.zk.ctx.monoUs() < grant.expiresAtMonoUs;
  }
}

/** Leader election by the same recipe: the lowest sequence number under /election/<name> leads. */
export class ZkLeaderElection {
  private readonly locks: ZkLockClient;

  constructor(zk: ZkClient, pollMs = 1000) {
    this.locks = new ZkLockClient(zk, "/election", pollMs);
  }

  /** Become leader of `group`, waiting up to waitMs; the grant's token is the leadership epoch. */
  campaign(group: string, waitMs: number): Fiber<AcquireResult> {
    return this.locks.acquire(group, { ttlMs: 0, waitMs });
  }

  resign(grant: Grant): Fiber<ReleaseResult> {
    return this.locks.release(grant);
  }

  isLeader(grant: Grant): boolean {
    return this.locks.holds(grant);
  }
}

/**
 * Sequential names in sequence order (names without a sequence left out), ties in the
 * order given (a stable sort). Each name's number is read once, and the names are
 * inserted in order as they are read (a lock has a handful of children): no [number,
 * name] pair per child and no sort's copy, on every waiter's wake.
 */
export function bySequence(children: readonly string[]): string[] {
  const names: string[] = [];
  const seqs: number[] = [];
  for (let c = 0; c < children.length; c++) {
    const name = children[c]!;
    const q = sequenceOf(name);
    if (Number.isNaN(q)) continue;
    // After every name of a number up to q: ties keep the order given.
    let i = names.length;
    for (; i > 0 && seqs[i - 1]! > q; i--) {
      names[i] = names[i - 1]!;
      seqs[i] = seqs[i - 1]!;
    }
    names[i] = name;
    seqs[i] = q;
  }
  return names;
}
