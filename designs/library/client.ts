/**
 * A LockClient whose every decision is made by real lock-library code running in the
 * process's sandbox realm, through an adapter module (adapter.ts has the contract).
 * The workload's fibers call the adapter; each call runs as one realm turn and the
 * fiber resumes when the library's promise settles.
 *
 * Outcomes: the adapter's acquire resolving null is a definite failure; a rejection
 * is unknown (the library gave up midway, a request may have taken effect), as is an
 * extend or release that rejects.
 */
import { InputError } from "../../sim/errors.js";
import { suspend, type Fiber } from "../../sim/fiber.js";
import type { Message, ProcessContext } from "../../sim/simulation.js";
import type { Realm } from "../../sim/sandbox/realm.js";
import type { AcquireOptions, AcquireResult, ExtendResult, Grant, LockClient, ReleaseResult } from "../types.js";
import type { ClientHub } from "../../services/redis-clients/hub.js";
import { ACQUIRED_FIELDS, EXTENDED_FIELDS, readAcquired, readExtended } from "./adapter.js";
import { LibraryError } from "../../sim/sandbox/errors.js";

interface Settled {
  ok: boolean;
  value: unknown;
}

/** What the adapter instance offers, read once in the realm (membrane.readFields). */
export interface AdapterMethods {
  extend: boolean;
  holds: boolean;
}

export class LibraryLockClient implements LockClient {
  private readonly adapterName: string;
  private readonly acquiredFields: unknown;
  private readonly extendedFields: unknown;

  constructor(
    private readonly ctx: ProcessContext,
    private readonly realm: Realm,
    private readonly hub: ClientHub,
    /** The adapter instance: a realm value the host only hands back to the membrane. */
    private readonly adapter: unknown,
    private readonly methods: AdapterMethods,
    /** The adapter's name and file; `tokenRequired` when the run fences writes (a grant without a token is then refused). */
    private readonly from: { name: string; file: string; tokenRequired: boolean },
  ) {
    this.adapterName = from.name;
    this.acquiredFields = realm.membrane.names(...ACQUIRED_FIELDS);
    this.extendedFields = realm.membrane.names(...EXTENDED_FIELDS);
  }

  private *call(method: "acquire" | "release" | "extend", args: unknown[]): Fiber<Settled> {
    const { membrane } = this.realm;
    return yield* suspend<Settled>((resume) => {
      this.realm.enter(`${this.adapterName}.${method}()`, () =>
        // Arguments are made in the realm: a host object's constructor chain leads to the host.
        membrane.settle(this.adapter, method, membrane.list(...args.map((a) => membrane.toRealm(a))), (ok, value) =>
          this.realm.later(() => resume({ ok, value })),
        ),
      );
    });
  }

  /** Why a call rejected, as library code's error says it (read in the realm). */
  private reasonOf(e: unknown): string {
    return this.realm.membrane.describe(e);
  }

  /** A result's fields, read in the realm; a non-object is named as the adapter's mistake. */
  private fields(v: unknown, names: unknown, what: string): Record<string, unknown> {
    if (v === null || typeof v !== "object") throw new LibraryError("adapter", `${this.adapterName}.${what}`, new Error(`expected an object, got ${typeof v}`));
    return this.realm.membrane.readFields(v, names);
  }

  *acquire(lock: string, opts: AcquireOptions): Fiber<AcquireResult> {
    const r = yield* this.call("acquire", [lock, { ttlMs: opts.ttlMs, waitMs: opts.waitMs }]);
    if (!r.ok) return { outcome: "unknown", reason: this.reasonOf(r.value) };
    if (r.value === null || r.value === undefined || r.value === false) return { outcome: "fail", reason: `${this.adapterName} did not acquire the lock` };
    const got = readAcquired(this.fields(r.value, this.acquiredFields, "acquire() result"), this.adapterName);
    if (this.from.tokenRequired && got.token === undefined) {
      // Going on would have the resource refuse every write ("no-token"): a run that fences nothing.
      throw new InputError(
        this.from.file,
        "acquire() result",
        `a fencing token (a number, { handle, token }) on every grant: this scenario's workload.fencing checks one on each write, and this adapter returned none; run a scenario without fencing, or return the token your lock issues`,
      );
    }
    const grant: Grant = {
      lock,
      secret: got.secret ?? "",
      ttlMs: opts.ttlMs,
      validityMs: 0,
      expiresAtMonoUs: 0,
      data: got.handle,
      ...(got.token !== undefined ? { token: got.token } : {}),
    };
    this.believe(grant, got.validityMs, "acquire() result");
    return { outcome: "ok", grant };
  }

  *release(grant: Grant): Fiber<ReleaseResult> {
    const r = yield* this.call("release", [grant.data]);
    if (!r.ok) return { outcome: "unknown", reason: this.reasonOf(r.value) };
    return { outcome: "ok", released: r.value !== false };
  }

  *extend(grant: Grant, ttlMs: number): Fiber<ExtendResult> {
    if (!this.methods.extend) return { outcome: "fail", reason: `${this.adapterName} has no extend` };
    const r = yield* this.call("extend", [grant.data, ttlMs]);
    if (!r.ok) return { outcome: "unknown", reason: this.reasonOf(r.value) };
    if (r.value === null || r.value === undefined || r.value === false) return { outcome: "fail", reason: `${this.adapterName} refused to extend` };
    const got = readExtended(r.value === true ? true : this.fields(r.value, this.extendedFields, "extend() result"), this.adapterName);
    this.believe(grant, got.validityMs, "extend() result");
    if (got.handle !== undefined) grant.data = got.handle;
    return { outcome: "ok", validityMs: grant.validityMs };
  }

  /**
   * What the workload believes of a grant, from what the adapter reported (the adapter
   * contract, docs/your-own-lock.md): with holds(), holds() is the belief (a validity, if
   * reported too, says when to start asking); without it, the reported validity from now.
   * Neither is an input error: a whole TTL assumed from the reply would outlast the key
   * on any slow link, and blame a correct lock for it.
   */
  private believe(grant: Grant, validityMs: number | undefined, what: string): void {
    const hasHolds = this.methods.holds;
    if (validityMs === undefined && !hasHolds) {
      throw new InputError(
        this.from.file,
        what,
        "a validityMs (how long your lock still believes it holds, counted from before its request) or a holds(handle) method: with neither, lockstep cannot know when your lock stops trusting the grant",
      );
    }
    grant.validityMs = validityMs ?? grant.ttlMs;
    grant.expiresAtMonoUs = this.ctx.monoUs() + (validityMs ?? 0) * 1000;
    if (hasHolds) grant.beliefFromHolds = validityMs === undefined ? "unreported" : "with-validity";
    else delete grant.beliefFromHolds;
  }

  /** The library's own belief, asked synchronously (adapter.holds), else the validity it reported. */
  holds(grant: Grant): boolean {
    if (this.methods.holds) {
      const { membrane } = this.realm;
      const held = this.realm.enter(`${this.adapterName}.holds()`, () => membrane.invokeMethod(this.adapter, "holds", membrane.list(grant.data)));
      return held === true;
    }
    return this.ctx.monoUs() < grant.expiresAtMonoUs;
  }

  onMessage(from: string, msg: Message): void {
    this.hub.onMessage(from, msg);
  }
}
