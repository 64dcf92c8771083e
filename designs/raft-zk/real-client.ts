// The ZooKeeper lock recipe on the real node-zookeeper-client, step for step as
// designs/raft-zk/lock.ts models it (recipes.md "Locks"; Curator's LockInternals):
//  1. create `<dir>/_c_<guid>-lock-` EPHEMERAL_SEQUENTIAL (the GUID finds our node again
//     if the create's reply is lost: Curator's protection mode), then read its creation
//     zxid (exists → stat.czxid): the fencing token;
//  2. getChildren(dir) without a watch; the lowest sequence number holds the lock;
//  3. otherwise getData(next-lower node, watch) and, when it is gone, the watch fires or
//     watchPollMs passes, go back to 2. Each waiter watches only its predecessor. getData,
//     not exists, as Curator does: on a node already gone it fails with no-node and leaves
//     no watch, where exists would leave one waiting for a creation that never comes.
//
// Sessions: one client (one ZooKeeper session) at a time, with the timeout the server
// negotiated. node-zookeeper-client pings only after a third of the timeout of silence and
// does not say when a ping was answered, so the recipe keeps its own heartbeat, as the
// model's session client does: an exists("/") every heartbeatIntervalMs; any answered
// request touches the session at the server, so the send time of the latest answered one
// is when the session was last known alive. A grant is believed until then plus the
// negotiated timeout less clockDriftMarginMs; the library's `expired` ends it at once.
// The library retries nothing (retries: 0): a create whose reply is lost is found by its
// GUID, never sent twice.
import { randomBytes } from "node:crypto";
import zookeeper, { type Client, type Stat, type ZkError } from "node-zookeeper-client";
import type { ZkLockRecipeConfig } from "./real-plan.js";
import { type RealGrant, type RealLockClient, type RealClientFactory } from "../real-client.js";
import type { AcquireResult, ExtendResult, ReleaseResult } from "../types.js";
import { packageVersion } from "../real-packages.js";

type ZkConfig = ZkLockRecipeConfig;

interface Session {
  client: Client;
  alive: boolean;
  /** The timeout the server granted, ms (ZooKeeper clamps the request to 2–20 ticks). */
  timeoutMs: number;
  /** Run µs: send time of the latest request the service answered on this session. */
  lastHeardUs: number;
  heartbeat?: NodeJS.Timeout;
}

/** What one call gave: its value, a ZooKeeper error code, or no answer within the budget. */
type Call<T> = { ok: true; value: T } | { ok: false; code: number | "timeout" };

const { CreateMode, Exception, State } = zookeeper;
/** Backstop on wait rounds and protected-create retries; the deadlines are the real bounds. */
const ROUNDS_MAX = 100_000;
const SEQUENCE_DIGITS = 10;

function czxidOf(stat: Stat): number {
  const b = stat.czxid;
  return Buffer.isBuffer(b) ? Number(b.readBigInt64BE(0)) : Number(b);
}

const sequenceOf = (name: string): number => Number(name.slice(-SEQUENCE_DIGITS));

export class ZkLockRecipe implements RealLockClient {
  private session: Session | undefined;
  private readonly held = new Set<RealGrant>();
  private readonly closed: Client[] = [];
  onRefresh?: (g: RealGrant) => void;

  constructor(
    private readonly cfg: ZkConfig,
    private readonly nowUs: () => number,
  ) {}

  /** Open the first session now (a ZooKeeper client connects before it is used). */
  async connect(): Promise<void> {
    const s = await this.openSession(Number.POSITIVE_INFINITY);
    if (!s) throw new Error(`no ZooKeeper session from ${this.cfg.connectString}`);
  }

  /** The negotiated session timeout, for the run's record. */
  notes(): string[] {
    const s = this.session;
    return s ? [`ZooKeeper session timeout: requested ${this.cfg.sessionTimeoutMs} ms, negotiated ${s.timeoutMs} ms`] : [];
  }

  /** One library call, bounded by callTimeoutMs (the library itself waits as long as it is disconnected). */
  private call<T>(start: (done: (err: ZkError | null, value: T) => void) => void): Promise<Call<T>> {
    return new Promise((resolve) => {
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        resolve({ ok: false, code: "timeout" });
      }, this.cfg.callTimeoutMs);
      start((err, value) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(err ? { ok: false, code: err.getCode() } : { ok: true, value });
      });
    });
  }

  /** A call on the session that, answered, proves the session alive at its send time. */
  private async touching<T>(s: Session, start: (done: (err: ZkError | null, value: T) => void) => void): Promise<Call<T>> {
    const sentUs = this.nowUs();
    const r = await this.call(start);
    if (r.ok || (r.code !== "timeout" && r.code !== Exception.CONNECTION_LOSS && r.code !== Exception.SESSION_EXPIRED)) this.heard(s, sentUs);
    if (!r.ok && r.code === Exception.SESSION_EXPIRED) this.expire(s);
    return r;
  }

  private heard(s: Session, sentUs: number): void {
    if (sentUs <= s.lastHeardUs) return;
    s.lastHeardUs = sentUs;
    this.refreshAll(s);
  }

  private trustedUntilUs(s: Session): number {
    return s.lastHeardUs + (s.timeoutMs - this.cfg.clockDriftMarginMs) * 1000;
  }

  private refreshAll(s: Session): void {
    for (const g of this.held) {
      if ((g.data as { session: Session }).session !== s) continue;
      g.expiresAtUs = s.alive ? this.trustedUntilUs(s) : Math.min(g.expiresAtUs, this.nowUs());
      g.validityMs = Math.max(0, (g.expiresAtUs - this.nowUs()) / 1000);
      this.onRefresh?.(g);
    }
  }

  private expire(s: Session): void {
    if (!s.alive) return;
    s.alive = false;
    clearInterval(s.heartbeat);
    this.refreshAll(s);
    if (this.session === s) this.session = undefined;
    s.client.close();
    this.closed.push(s.client);
  }

  private openSession(connectTimeoutMs: number): Promise<Session | undefined> {
    const client = zookeeper.createClient(this.cfg.connectString, { sessionTimeout: this.cfg.sessionTimeoutMs, spinDelay: 100, retries: 0 });
    return new Promise((resolve) => {
      const timer = Number.isFinite(connectTimeoutMs)
        ? setTimeout(() => {
            client.close();
            resolve(undefined);
          }, connectTimeoutMs)
        : undefined;
      client.once("connected", () => {
        clearTimeout(timer);
        // Before t0 (the eager first session) the run clock does not run yet: heard "now" at the start.
        const now = this.safeNowUs();
        const s: Session = { client, alive: true, timeoutMs: client.getSessionTimeout(), lastHeardUs: now };
        client.on("expired", () => this.expire(s));
        s.heartbeat = setInterval(() => {
          if (this.safeNowUs() === Number.NEGATIVE_INFINITY) return;
          void this.touching<Stat | null>(s, (done) => client.exists("/", done));
        }, this.cfg.heartbeatIntervalMs);
        this.session = s;
        resolve(s);
      });
      client.connect();
    });
  }

  private safeNowUs(): number {
    try {
      return this.nowUs();
    } catch {
      return Number.NEGATIVE_INFINITY;
    }
  }

  private async ensureSession(deadlineUs: number): Promise<Session | undefined> {
    const cur = this.session;
    // The eager first session was opened before t0 (not heard on the run clock yet): hear from it now.
    if (cur && cur.alive && cur.lastHeardUs === Number.NEGATIVE_INFINITY) await this.touching<Stat | null>(cur, (done) => cur.client.exists("/", done));
    if (cur && cur.alive && this.nowUs() < cur.lastHeardUs + cur.timeoutMs * 1000) return cur;
    if (cur) this.expire(cur);
    return this.openSession(Math.max(this.cfg.callTimeoutMs, (deadlineUs - this.nowUs()) / 1000));
  }

  async acquire(lock: string, o: { ttlMs: number; waitMs: number }): Promise<AcquireResult<RealGrant>> {
    const deadlineUs = this.nowUs() + o.waitMs * 1000;
    const opDeadlineUs = (): number => Math.max(deadlineUs, this.nowUs() + this.cfg.callTimeoutMs * 1000);
    const s = await this.ensureSession(opDeadlineUs());
    if (!s) return { outcome: "fail", reason: "could not open a session" };
    const { client } = s;
    const dir = `/locks/${lock}`;
    const prefix = `_c_${randomBytes(16).toString("hex")}-lock-`;

    const mk = await this.touching<string>(s, (done) => client.mkdirp(dir, done));
    if (!mk.ok && mk.code !== Exception.NODE_EXISTS) {
      if (!s.alive) return { outcome: "fail", reason: "session expired before the lock node was created" };
      return { outcome: "fail", reason: `could not create ${dir}: ${mk.code}` };
    }

    // 1. Our node (protection mode: after a lost reply, look for the GUID).
    const myName = await this.createLockNode(s, dir, prefix, lock, opDeadlineUs);
    if (typeof myName !== "string") return myName;
    const myPath = `${dir}/${myName}`;
    const st = await this.touching<Stat | null>(s, (done) => client.exists(myPath, done));
    if (!st.ok) return s.alive ? this.giveUp(s, "could not read our lock node's zxid") : { outcome: "fail", reason: "session expired after the create" };
    if (!st.value) return { outcome: "fail", reason: "our lock node is gone: the session expired" };
    const token = czxidOf(st.value);

    // 2-3. Wait for our turn.
    for (let round = 0; ; round++) {
      if (!s.alive) return { outcome: "fail", reason: "session expired while waiting" };
      if (round >= ROUNDS_MAX) return this.unlockAfterTimeout(s, myPath);
      const kids = await this.touching<string[]>(s, (done) => client.getChildren(dir, done));
      if (!kids.ok) {
        if (!s.alive) return { outcome: "fail", reason: "session expired while waiting" };
        return this.giveUp(s, "service unreachable while waiting");
      }
      const sorted = kids.value.filter((k) => /\d{10}$/.test(k)).sort((a, b) => sequenceOf(a) - sequenceOf(b));
      const at = sorted.indexOf(myName);
      if (at < 0) return { outcome: "fail", reason: "our lock node is gone: the session expired" };
      if (at === 0) break;
      if (this.nowUs() >= deadlineUs) return this.unlockAfterTimeout(s, myPath);
      const predecessor = `${dir}/${sorted[at - 1]!}`;
      const untilUs = Math.min(deadlineUs, this.nowUs() + this.cfg.watchPollMs * 1000);
      let fired: () => void = () => {};
      const watchFired = new Promise<void>((r) => (fired = r));
      const got = await this.touching<Buffer | null>(s, (done) => client.getData(predecessor, () => fired(), done));
      if (!got.ok && got.code === Exception.NO_NODE) continue; // gone already: re-read the children
      if (!got.ok) {
        if (!s.alive) return { outcome: "fail", reason: "session expired while waiting" };
        return this.giveUp(s, "service unreachable while waiting");
      }
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([watchFired, new Promise<void>((r) => (timer = setTimeout(r, Math.max(0, (untilUs - this.nowUs()) / 1000))))]);
      clearTimeout(timer);
    }

    const grant: RealGrant = {
      lock,
      secret: myPath,
      token,
      ttlMs: s.timeoutMs,
      validityMs: 0,
      expiresAtUs: this.trustedUntilUs(s),
      data: { session: s, path: myPath, czxid: token },
    };
    grant.validityMs = Math.max(0, (grant.expiresAtUs - this.nowUs()) / 1000);
    this.held.add(grant);
    return { outcome: "ok", grant };
  }

  /** Step 1: our sequential node's name under `dir`; a result when the acquire ends here. */
  private async createLockNode(s: Session, dir: string, prefix: string, lock: string, opDeadlineUs: () => number): Promise<string | AcquireResult<RealGrant>> {
    const { client } = s;
    let myName: string | undefined;
    for (let round = 0; myName === undefined; round++) {
      if (!s.alive) return { outcome: "fail", reason: "session expired before the lock node was created" };
      if (this.nowUs() >= opDeadlineUs() || round >= ROUNDS_MAX) return this.giveUp(s, "could not create the lock node in time");
      const r = await this.touching<string>(s, (done) => client.create(`${dir}/${prefix}`, Buffer.from(lock), CreateMode.EPHEMERAL_SEQUENTIAL, done));
      if (r.ok) {
        myName = r.value.slice(dir.length + 1);
        break;
      }
      if (r.code !== "timeout" && r.code !== Exception.CONNECTION_LOSS) return { outcome: "fail", reason: `create failed: ${r.code}` };
      const kids = await this.touching<string[]>(s, (done) => client.getChildren(dir, done));
      if (!kids.ok) {
        if (!s.alive) return { outcome: "fail", reason: "session expired before the create's outcome was known" };
        continue;
      }
      myName = kids.value.find((k) => k.startsWith(prefix));
    }
    return myName!;
  }

  /** The wait ran out: delete our node so it does not hold the queue. */
  private async unlockAfterTimeout(s: Session, path: string): Promise<AcquireResult<RealGrant>> {
    const r = await this.touching<void>(s, (done) => s.client.remove(path, -1, (err) => done(err, undefined)));
    if (r.ok || r.code === Exception.NO_NODE || !s.alive) return { outcome: "fail", reason: "lock held by another client until the wait ran out" };
    return this.giveUp(s, "wait ran out and our lock node could not be deleted");
  }

  /** An outcome we cannot resolve: close the session so whatever node we may own goes with it. */
  private giveUp(s: Session, reason: string): AcquireResult<RealGrant> {
    this.expire(s);
    return { outcome: "unknown", reason };
  }

  async release(grant: RealGrant): Promise<ReleaseResult> {
    this.held.delete(grant);
    const d = grant.data as { session: Session; path: string };
    if (!d.session.alive) return { outcome: "ok", released: false };
    const r = await this.touching<void>(d.session, (done) => d.session.client.remove(d.path, -1, (err) => done(err, undefined)));
    if (r.ok) return { outcome: "ok", released: true };
    if (r.code === Exception.NO_NODE || r.code === Exception.SESSION_EXPIRED) return { outcome: "ok", released: false };
    this.expire(d.session);
    return { outcome: "unknown", reason: `delete of the lock node: ${r.code}` };
  }

  /** ZooKeeper locks have no TTL of their own: extending proves the session alive and the node ours. */
  async extend(grant: RealGrant, _ttlMs: number): Promise<ExtendResult> {
    const d = grant.data as { session: Session; path: string; czxid: number };
    if (!d.session.alive) return { outcome: "fail", reason: "session expired" };
    const r = await this.touching<Stat | null>(d.session, (done) => d.session.client.exists(d.path, done));
    if (!r.ok) return d.session.alive ? { outcome: "unknown", reason: String(r.code) } : { outcome: "fail", reason: "session expired" };
    if (!r.value || czxidOf(r.value) !== d.czxid) return { outcome: "fail", reason: "the lock node is no longer ours" };
    grant.expiresAtUs = this.trustedUntilUs(d.session);
    grant.validityMs = Math.max(0, (grant.expiresAtUs - this.nowUs()) / 1000);
    return { outcome: "ok", validityMs: grant.validityMs };
  }

  holds(grant: RealGrant): boolean {
    const s = (grant.data as { session: Session }).session;
    return s.alive && s.client.getState() === State.SYNC_CONNECTED && this.nowUs() < this.trustedUntilUs(s);
  }

  packages(): Record<string, string> {
    return { "node-zookeeper-client": packageVersion("node-zookeeper-client") };
  }

  close(): void {
    const s = this.session;
    if (s) {
      clearInterval(s.heartbeat);
      s.client.close();
    }
  }
}

/** The client process's entry to this recipe (real/child/main.ts loads this module by the recipe's `client`). */
export const createRealClient: RealClientFactory = (cfg, env) => new ZkLockRecipe(cfg as ZkConfig, env.nowUs);
