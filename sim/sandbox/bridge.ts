/**
 * The host side of a realm's prelude: the only host functions the prelude holds, in a
 * closure library code cannot reach. Each takes and returns primitives or realm values
 * (through the seal), and clock reads count against the turn's budget.
 */
import { Buffer } from "node:buffer";
import { REACTIONS_PER_TURN_MAX } from "./bounds.js";
import type { Seal } from "./seal.js";

type Fn = (...a: unknown[]) => unknown;

/** Host classes the prelude's host-backed classes construct, by name. */
const CONSTRUCTIBLE: Record<string, new (...a: never[]) => object> = {
  URL,
  URLSearchParams,
  TextEncoder,
  TextDecoder,
};

const STATIC_OK: Record<string, readonly string[]> = { URL: ["canParse"] };

const isAccessor = (proto: object, k: string): boolean => {
  const d = Object.getOwnPropertyDescriptor(proto, k);
  return d !== undefined && (d.get !== undefined || d.set !== undefined);
};
export const BUFFER_METHODS = Object.getOwnPropertyNames(Buffer.prototype).filter(
  (k) =>
    /^[A-Za-z_$][\w$]*$/.test(k) &&
    k !== "constructor" &&
    k !== "toJSON" &&
    !isAccessor(Buffer.prototype, k) &&
    typeof (Buffer.prototype as unknown as Record<string, unknown>)[k] === "function",
);
export const BUFFER_STATICS = ["from", "alloc", "allocUnsafe", "allocUnsafeSlow", "byteLength", "concat", "compare", "isEncoding", "copyBytesFrom"].filter(
  (k) => typeof (Buffer as unknown as Record<string, unknown>)[k] === "function",
);

let tzFixed = false;
/**
 * The sandbox's time zone is UTC: V8 has one zone per process, so the process is set to
 * it (Node re-reads TZ when it is assigned). Nothing in the simulator reads local time.
 */
function fixTimeZone(): void {
  if (tzFixed) return;
  tzFixed = true;
  if (process.env.TZ !== "UTC") process.env.TZ = "UTC";
}

/** What of its realm the bridge uses (realm.ts's Realm; a structural type keeps the import one-way). */
export interface BridgeRealm {
  readonly host: { wallMs(): number; monoUs(): number; random(): number };
  clockRead(): void;
  queueTick(fn: (...a: unknown[]) => unknown, args: unknown[]): void;
  escapeError(call: string, detail?: string): Error;
  bound(what: string, detail: string): Error;
  readonly timers: {
    arm(fn: (...a: unknown[]) => unknown, ms: unknown, args: unknown[], kind: number): number;
    clear(id: unknown): void;
    refresh(id: number): void;
  };
  fillRandom<A extends ArrayBufferView>(a: A): A;
  randomUUID(): string;
}

export function hostBridge(realm: BridgeRealm, seal: () => Seal): Record<string, unknown> {
  fixTimeZone();
  const h = realm.host;
  const onBuffer = (self: unknown): Buffer => {
    const u = self as Uint8Array;
    if (!ArrayBuffer.isView(u)) throw new TypeError("a Buffer method was called on something that is not a Buffer");
    return Buffer.from(u.buffer, u.byteOffset, u.byteLength);
  };
  const call = (f: () => unknown): unknown => {
    try {
      return seal().toRealm(f());
    } catch (e) {
      throw seal().toRealm(e);
    }
  };
  const args = (a: unknown[]): unknown[] => a.map((x) => seal().toHost(x));
  return {
    nodeVersion: process.version,
    nodeVersions: JSON.stringify(process.versions),
    reactionsMax: REACTIONS_PER_TURN_MAX,
    wallMs: () => {
      realm.clockRead();
      return Math.floor(h.wallMs());
    },
    monoMs: () => {
      realm.clockRead();
      return h.monoUs() / 1000;
    },
    random: () => h.random(),
    fillRandom: (a: unknown) => {
      if (!ArrayBuffer.isView(a)) throw seal().toRealm(new TypeError('The "typedArray" argument must be an instance of a typed array'));
      return realm.fillRandom(a);
    },
    randomUUID: () => realm.randomUUID(),
    escape: (call: string, detail: string) => realm.escapeError(call, detail),
    overBudget: (n: number) => {
      throw realm.bound(
        "an endless chain of promise reactions",
        `${n} promise reactions and nextTick callbacks queued in one turn; the chain never lets simulated time move`,
      );
    },
    queueTick: (fn: (...a: unknown[]) => unknown, args: unknown[]) => realm.queueTick(fn, args),
    armTimer: (fn: (...a: unknown[]) => unknown, ms: unknown, args: unknown[], kind: number) => realm.timers.arm(fn, ms, args, kind),
    clearTimer: (id: unknown) => realm.timers.clear(id),
    refreshTimer: (id: number) => realm.timers.refresh(id),
    apply: (fn: Fn, self: unknown, a: unknown[], newTarget: unknown) => seal().apply(fn, self, a, newTarget),
    // The host object itself goes back: the prelude keeps it where library code cannot see it.
    construct: (name: string, a: unknown[]) => {
      const C = CONSTRUCTIBLE[name] as unknown as (new (...x: unknown[]) => object) | undefined;
      try {
        if (!C) throw new TypeError(`Illegal constructor ${name}`);
        return new C(...args(a));
      } catch (e) {
        throw seal().toRealm(e);
      }
    },
    invoke: (self: Record<string, Fn>, m: string, a: unknown[]) => call(() => self[m](...args(a))),
    invokeList: (self: Record<string, () => Iterable<unknown>>, m: string) => call(() => [...self[m]()]),
    getProp: (self: Record<string, unknown>, p: string) => call(() => self[p]),
    setProp: (self: Record<string, unknown>, p: string, v: unknown) =>
      call(() => {
        self[p] = seal().toHost(v);
      }),
    applyStatic: (name: string, m: string, a: unknown[]) => {
      if (!STATIC_OK[name]?.includes(m)) throw seal().toRealm(new TypeError(`${name}.${m} is not supported in the sandbox`));
      return call(() => (CONSTRUCTIBLE[name] as unknown as Record<string, Fn>)[m](...args(a)));
    },
    bufferCall: (m: string, self: unknown, a: unknown[]) =>
      call(() => {
        const b = onBuffer(self);
        const r = (Buffer.prototype as unknown as Record<string, Fn>)[m].apply(b, args(a));
        // Methods that return their receiver (fill, swap16...) return the realm Buffer itself.
        return r === b ? self : r;
      }),
    bufferStatic: (m: string, a: unknown[]) => call(() => (Buffer as unknown as Record<string, Fn>)[m](...args(a))),
    atob,
    btoa,
    structuredClone,
  };
}
