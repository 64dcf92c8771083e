/**
 * The host side of a realm's prelude: the only host functions the prelude holds, in a
 * closure library code cannot reach. Each takes primitives, byte arrays, opaque library
 * functions and the prelude's copies of library values, and gives back what the membrane
 * makes of host values (membrane.ts); clock reads count against the turn's budget.
 */
import { Buffer } from "node:buffer";
import { REACTIONS_PER_TURN_MAX } from "./bounds.js";
import { bytesOf, type Membrane } from "./membrane.js";
import { CONSTRUCTIBLE, PRELUDE_HOST_FNS, STATIC_OK } from "./host-surface.js";
import { VIRTUAL_ROOT } from "./virtual-install.js";

type Fn = (...a: unknown[]) => unknown;

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
  escapeError(call: string, detail?: string): Error;
  bound(what: string, detail: string): Error;
  readonly timers: {
    arm(fn: unknown, ms: unknown, args: unknown, kind: number): number;
    clear(id: unknown): void;
    refresh(id: number): void;
  };
  fillRandom<A extends ArrayBufferView>(a: A): A;
  randomUUID(): string;
}

/** A realm Buffer method's receiver as a host Buffer over the same bytes. */
function onBuffer(self: unknown): Buffer {
  if (!ArrayBuffer.isView(self)) throw new TypeError("a Buffer method was called on something that is not a Buffer");
  const b = bytesOf(self);
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

/** Host-backed classes: construct, call, read and write on the host object behind a number. */
function backedCalls(m: () => Membrane): Record<string, unknown> {
  return {
    construct: (name: string, a: unknown) =>
      m().guardHost(() => {
        const C = CONSTRUCTIBLE[name] as unknown as (new (...x: unknown[]) => object) | undefined;
        if (!C) throw new TypeError(`Illegal constructor ${name}`);
        return m().handle(new C(...m().argsFromRealm(a)));
      }),
    invoke: (h: unknown, name: string, a: unknown) => m().guardHost(() => (m().handleObject(h) as Record<string, Fn>)[name](...m().argsFromRealm(a))),
    invokeList: (h: unknown, name: string) => m().guardHost(() => [...(m().handleObject(h) as Record<string, () => Iterable<unknown>>)[name]()]),
    getProp: (h: unknown, p: string) => m().guardHost(() => (m().handleObject(h) as Record<string, unknown>)[p]),
    setProp: (h: unknown, p: string, v: unknown) =>
      m().guardHost(() => {
        (m().handleObject(h) as Record<string, unknown>)[p] = m().fromRealm(v);
      }),
    applyStatic: (name: string, fn: string, a: unknown) =>
      m().guardHost(() => {
        if (!STATIC_OK[name]?.includes(fn)) throw new TypeError(`${name}.${fn} is not supported in the sandbox`);
        return (CONSTRUCTIBLE[name] as unknown as Record<string, Fn>)[fn](...m().argsFromRealm(a));
      }),
    bufferCall: (name: string, self: unknown, a: unknown) =>
      m().guardHost(() => {
        const b = onBuffer(self);
        const r = (Buffer.prototype as unknown as Record<string, Fn>)[name].apply(b, m().argsFromRealm(a));
        // Methods that return their receiver (fill, swap16...) return the realm Buffer itself.
        return r === b ? self : r;
      }),
    bufferStatic: (name: string, a: unknown) => m().guardHost(() => (Buffer as unknown as Record<string, Fn>)[name](...m().argsFromRealm(a))),
  };
}

export function hostBridge(realm: BridgeRealm, m: () => Membrane): Record<string, unknown> {
  fixTimeZone();
  const h = realm.host;
  const bridge: Record<string, unknown> = {
    nodeVersion: process.version,
    nodeVersions: JSON.stringify(process.versions),
    reactionsMax: REACTIONS_PER_TURN_MAX,
    virtualRoot: VIRTUAL_ROOT,
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
      if (!ArrayBuffer.isView(a)) throw m().toRealm(new TypeError('The "typedArray" argument must be an instance of a typed array'));
      return realm.fillRandom(a);
    },
    randomUUID: () => realm.randomUUID(),
    escape: (call: string, detail: string) => realm.escapeError(String(call), String(detail)),
    overBudget: (n: number) => {
      throw realm.bound(
        "an endless chain of promise reactions",
        `${n} promise reactions and nextTick callbacks queued in one turn; the chain never lets simulated time move`,
      );
    },
    armTimer: (f: unknown, ms: unknown, args: unknown, kind: number) => realm.timers.arm(f, ms, args, kind),
    clearTimer: (id: unknown) => realm.timers.clear(id),
    refreshTimer: (id: number) => realm.timers.refresh(id),
    call: (id: number, args: unknown, isNew: boolean) => m().callHost(id, args, isNew === true),
    callArgv: (id: number, link: unknown, head: unknown, tail: unknown, done: unknown) => m().callArgv(id, link, head, tail, done),
    settled: (token: unknown, ok: unknown, value: unknown) => m().settled(token, ok, value),
    ...backedCalls(m),
    // The host functions the prelude wraps as it starts, by their numbers in every membrane's table.
    fn: Object.fromEntries(PRELUDE_HOST_FNS.map((f, i) => [f.name, i])),
  };
  return bridge;
}
