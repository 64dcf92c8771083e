// Design `library` with `lockCmd`, in a real client process: the lock is a driver process of
// any language speaking docs/lock-protocol.md on its stdin/stdout (real-driver-process.ts starts
// it), and this recipe maps its replies onto the workload's outcomes exactly as the adapter
// path maps an adapter's (designs/library/real-client.ts), so a driver and an adapter of the
// same lock are judged alike:
//   acquire: {granted: false} → fail; {granted: true, validityMs?, token?, secret?} → ok; {error} → unknown.
//   release: {released} → ok; {error} → unknown.      extend: no extend op, or {extended: false} → fail.
//   belief:  the reported validity from the reply, else the driver's holds op (polled); neither is the driver's error.
// The workload (real/child/workload.ts) stays in this process, so the protected resource's
// reads and writes go through lockstep; a pause stops this process and the driver's group together.
import { DriverFailedError, DriverProcess } from "./real-driver-process.js";
import {
  LOCK_PROTOCOL_VERSION,
  readAcquire,
  readClock,
  readExtend,
  readHolds,
  readInit,
  readRelease,
  type DriverOp,
  type InitReply,
  type Validity,
} from "./driver-protocol.js";
import type { DriverRecipeConfig } from "./real-plan.js";
import { errorText, type RealGrant, type RealLockClient, type RealClientFactory } from "../real-client.js";
import type { AcquireResult, ExtendResult, ReleaseResult } from "../types.js";

type DriverConfig = DriverRecipeConfig;

/** A belief with no reported end: far past any run; a poll of holds ends it. */
const UNTIL_HOLDS_SAYS_NO_US = Number.MAX_SAFE_INTEGER;
/** Rounding allowed when a driver's monoMs is checked against the request's round trip, µs. */
const MONO_SLACK_US = 1_000;
/** How often a belief without a reported validity asks the driver's holds, ms (one request in flight at most). */
const HOLDS_POLL_MS = 1;

export class DriverRecipe implements RealLockClient {
  private driver: DriverProcess | undefined;
  private init: InitReply | undefined;
  private grants = 0;
  private readonly polls = new Map<RealGrant, NodeJS.Timeout>();
  onRefresh?: (g: RealGrant) => void;
  /** Told once if the driver fails as a process (the client reports it; the run stops). */
  onFailure?: (err: DriverFailedError) => void;

  constructor(
    private readonly cfg: DriverConfig,
    private readonly nowUs: () => number,
    private readonly clientId: string,
    private readonly initTimeoutMs: number,
  ) {}

  private get d(): DriverProcess {
    if (!this.driver) throw new Error("lock driver used before connect()");
    return this.driver;
  }

  /** Start the driver and send it init; it answers once it has connected its lock to the servers. */
  async connect(): Promise<void> {
    const env = { ...process.env, LOCKSTEP_LOCK_PROTOCOL: String(LOCK_PROTOCOL_VERSION), LOCKSTEP_CLIENT: this.clientId };
    const d = (this.driver = new DriverProcess(this.cfg.command, this.cfg.cwd, env));
    d.onFailure = (err) => this.onFailure?.(err);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(d.failWith(`did not answer init within ${this.initTimeoutMs} ms`)), this.initTimeoutMs);
    });
    const args = { protocol: LOCK_PROTOCOL_VERSION, client: this.clientId, addresses: this.cfg.addresses, options: this.cfg.options };
    try {
      const reply = await Promise.race([d.request("init", args), late]);
      if (reply.error !== undefined) throw d.failWith(`refused init: ${reply.error}`);
      const init = d.check(reply, "init", readInit);
      if (init.protocol !== LOCK_PROTOCOL_VERSION) throw d.failWith(`speaks protocol ${init.protocol}; lockstep speaks ${LOCK_PROTOCOL_VERSION}`);
      this.init = init;
    } finally {
      clearTimeout(timer);
    }
  }

  private has(op: DriverOp): boolean {
    return this.init?.ops.has(op) ?? false;
  }

  /** One request; a reply with `error` (or the driver failing meanwhile) is an unknown outcome with that reason. */
  private async ask<T>(
    op: DriverOp,
    args: Record<string, unknown>,
    read: (body: Record<string, unknown>) => T,
  ): Promise<{ ok: true; v: T } | { ok: false; reason: string }> {
    try {
      const reply = await this.d.request(op, args);
      if (reply.error !== undefined) return { ok: false, reason: reply.error };
      return { ok: true, v: this.d.check(reply, op, read) };
    } catch (err) {
      return { ok: false, reason: errorText(err) };
    }
  }

  async acquire(lock: string, o: { ttlMs: number; waitMs: number }): Promise<AcquireResult<RealGrant>> {
    const name = `${this.clientId}#${++this.grants}`;
    const sentUs = this.nowUs();
    const r = await this.ask("acquire", { key: lock, ttlMs: o.ttlMs, waitMs: o.waitMs, grant: name }, readAcquire);
    if (!r.ok) return { outcome: "unknown", reason: r.reason };
    if (!r.v.granted) return { outcome: "fail", reason: "the lock driver did not acquire the lock" };
    const grant: RealGrant = { lock, secret: r.v.secret ?? "", ttlMs: o.ttlMs, validityMs: o.ttlMs, expiresAtUs: 0, data: name };
    if (r.v.token !== undefined) grant.token = r.v.token;
    this.believe(grant, r.v, "acquire", sentUs);
    return { outcome: "ok", grant };
  }

  async release(grant: RealGrant): Promise<ReleaseResult> {
    this.stopPoll(grant);
    const r = await this.ask("release", { grant: grant.data }, readRelease);
    return r.ok ? { outcome: "ok", released: r.v } : { outcome: "unknown", reason: r.reason };
  }

  async extend(grant: RealGrant, ttlMs: number): Promise<ExtendResult> {
    if (!this.has("extend")) return { outcome: "fail", reason: "the lock driver has no extend" };
    const sentUs = this.nowUs();
    const r = await this.ask("extend", { grant: grant.data, ttlMs }, readExtend);
    if (!r.ok) return { outcome: "unknown", reason: r.reason };
    if (!r.v.extended) return { outcome: "fail", reason: "the lock driver refused to extend" };
    grant.ttlMs = ttlMs;
    this.believe(grant, r.v, "extend", sentUs);
    return { outcome: "ok", validityMs: grant.validityMs };
  }

  /**
   * The belief, as the adapter path forms it: a reported validity, else the driver's holds
   * alone, polled every HOLDS_POLL_MS; neither is the driver's error. A validity counts from
   * the driver's `monoMs` when it gives one (CLOCK_MONOTONIC, this process's clock too), else
   * from the reply's arrival — which on a loaded machine can be tens of ms after the driver
   * measured it, so a correct lock would seem to trust its grant past its key's expiry.
   */
  private believe(grant: RealGrant, v: Validity, op: string, sentUs: number): void {
    const { validityMs, monoMs } = v;
    if (validityMs === undefined && !this.has("holds")) {
      throw this.d.failWith(
        `answered ${op} with no validityMs and has no holds op: with neither, lockstep cannot know when your lock stops trusting the grant`,
      );
    }
    grant.validityMs = validityMs ?? grant.ttlMs;
    grant.expiresAtUs = validityMs !== undefined ? this.validFromUs(monoMs, op, sentUs) + validityMs * 1000 : UNTIL_HOLDS_SAYS_NO_US;
    if (validityMs === undefined && !this.polls.has(grant)) this.pollHolds(grant);
  }

  /** The run time a validity counts from: the driver's monoMs, checked to fall inside the request's round trip. */
  private validFromUs(monoMs: number | undefined, op: string, sentUs: number): number {
    const nowUs = this.nowUs();
    if (monoMs === undefined) return nowUs;
    const atUs = monoMs * 1000 + (nowUs - Number(process.hrtime.bigint() / 1000n));
    if (atUs < sentUs - MONO_SLACK_US || atUs > nowUs + MONO_SLACK_US)
      throw this.d.failWith(
        `answered ${op} with monoMs ${monoMs}, outside the request's round trip (${(atUs - sentUs) / 1000} ms from its sending): expected its CLOCK_MONOTONIC reading in ms`,
      );
    return atUs;
  }

  /** Ask holds until it says no; the belief ends when that request was sent. */
  private pollHolds(grant: RealGrant): void {
    let inFlight = false;
    const poll = setInterval(() => {
      if (inFlight) return;
      inFlight = true;
      const sentUs = this.nowUs();
      void this.holds(grant).then((held) => {
        inFlight = false;
        if (held || this.polls.get(grant) !== poll) return;
        this.stopPoll(grant);
        grant.expiresAtUs = sentUs;
        this.onRefresh?.(grant);
      });
    }, HOLDS_POLL_MS);
    poll.unref();
    this.polls.set(grant, poll);
  }

  private stopPoll(grant: RealGrant): void {
    clearInterval(this.polls.get(grant));
    this.polls.delete(grant);
  }

  /** The driver's holds when it has one (an error counts as no), else the belief's end. */
  async holds(grant: RealGrant): Promise<boolean> {
    if (!this.has("holds")) return this.nowUs() < grant.expiresAtUs;
    const r = await this.ask("holds", { grant: grant.data }, readHolds);
    return r.ok && r.v;
  }

  /** The driver's own wall clock: the one a clock fault must move (libfaketime). */
  async wallClockMs(): Promise<number> {
    const reply = await this.d.request("clock", {});
    if (reply.error !== undefined) throw this.d.failWith(`answered clock with an error: ${reply.error}`);
    return this.d.check(reply, "clock", readClock);
  }

  processGroups(): number[] {
    return this.driver ? [this.driver.pid] : [];
  }

  packages(): Record<string, string> {
    return { "lock driver": this.cfg.command, ...(this.init?.versions ?? {}) };
  }

  notes(): string[] {
    const i = this.init;
    return [`lock driver \`${this.cfg.command}\` (pid ${this.driver?.pid}), protocol ${LOCK_PROTOCOL_VERSION}${i?.name ? `: ${i.name}` : ""}`];
  }

  /** The driver lives until this process ends (its watcher kills its group then) or the run kills it. */
  close(): void {
    for (const g of [...this.polls.keys()]) this.stopPoll(g);
  }
}

/** A lock driver's init (its runtime's start, its connections), inside the connect bound so its own line is the one said. */
const DRIVER_INIT_TIMEOUT_MS = 8_000;

/** The client process's entry to this recipe (real/child/main.ts loads this module by the recipe's `client`). */
export const createRealClient: RealClientFactory = (cfg, env) =>
  new DriverRecipe(cfg as DriverConfig, env.nowUs, env.clientId, env.loadTolerantMs(DRIVER_INIT_TIMEOUT_MS));
