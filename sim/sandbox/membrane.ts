/**
 * The membrane: the one module where host code meets values of a sandbox realm
 * (docs/architecture.md, "The sandbox membrane"). Node core's primordials discipline,
 * applied on both sides of the boundary:
 *
 * - Host code never calls a realm callable or looks a method up on a realm object. It
 *   calls only the prelude's own functions (captured when the realm was made, before any
 *   library code ran), which reach library functions with the realm's captured intrinsics
 *   (`invoke`, `invokeMethod`, `settle`), read library objects in the realm (`readFields`,
 *   `describe`), and copy what library code hands a host function (`copyArgs`).
 * - Every value crossing is copied or wrapped: host data becomes realm data built by the
 *   prelude's factories (`toRealm`), a host function a realm function that calls it by its
 *   number here, a host object behind a host-backed class a number; the prelude's copies
 *   become host data (`fromRealm`) read only with the host's own intrinsics (own data
 *   properties of objects the prelude just made, typed-array getters captured below).
 * - Library functions cross the other way only as opaque references that host code hands
 *   back to `invoke`; thrown library values are read by `describe`, in the realm.
 *
 * Other host code holds realm values as `unknown` and passes them to this module;
 * test/architecture/membrane.test.ts keeps it so.
 */
import { Buffer } from "node:buffer";
import { types } from "node:util";

/** The prelude's exports (prelude.ts), as the membrane uses them. */
export interface PreludeExports {
  turnCounts: Int32Array;
  runTicks(): void;
  invoke(fn: unknown, self: unknown, args: unknown): unknown;
  invokeMethod(self: unknown, name: string, args: unknown): unknown;
  settle(self: unknown, name: string, args: unknown, token: number): void;
  list(...a: unknown[]): unknown;
  readFields(v: unknown, names: unknown): Record<string, unknown>;
  describe(e: unknown, withStack: boolean): string;
  wrapFn(id: number, name: string): unknown;
  backedOf(name: string): { adopt(h: number): object };
  bufferView(ab: ArrayBufferLike, off: number, len: number): Uint8Array;
  bufferOf(len: number): Uint8Array;
  typedOf(name: string, len: number): ArrayBufferView & ArrayLike<number> & { set(a: ArrayLike<number>): void };
  makeError(name: string, message: string, code: unknown): object;
  freshObject(): object;
  freshNull(): object;
  freshArray(): object;
  put(o: unknown, k: string | number, v: unknown): void;
  makeRequire(reqId: number, resolveId: number, cache: unknown): unknown;
  makeModule(filename: string, dirname: string): unknown;
  runModule(fn: unknown, m: unknown, require: unknown, filename: string, dirname: string): void;
  exportsOf(m: unknown): unknown;
  promisify: unknown;
  callbackify: unknown;
  timersPromises: unknown;
  queueMicrotask: unknown;
  nextTick: unknown;
  getBuffer(): unknown;
  inspect: unknown;
  format: unknown;
  globals: Record<string, unknown>;
  lazyGlobals: Record<string, { get(): unknown; set(v: unknown): void }>;
}

// The host's own intrinsics, for reading realm byte arrays without running realm code.
const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype) as object;
const getter = (o: object, k: string): ((this: unknown) => unknown) => Object.getOwnPropertyDescriptor(o, k)!.get as (this: unknown) => unknown;
const taBuffer = getter(TypedArrayPrototype, "buffer");
const taByteOffset = getter(TypedArrayPrototype, "byteOffset");
const taByteLength = getter(TypedArrayPrototype, "byteLength");
const dvBuffer = getter(DataView.prototype, "buffer");
const dvByteOffset = getter(DataView.prototype, "byteOffset");
const dvByteLength = getter(DataView.prototype, "byteLength");
const taTag = getter(TypedArrayPrototype, Symbol.toStringTag as unknown as string);
const { apply } = Reflect;
const HostObjectPrototype = Object.prototype;

/** The bytes of any typed array or DataView, the host's or a realm's, as a host Uint8Array over the same memory. */
export function bytesOf(v: ArrayBufferView): Uint8Array {
  const dv = types.isDataView(v);
  const ab = apply(dv ? dvBuffer : taBuffer, v, []) as ArrayBuffer;
  return new Uint8Array(ab, apply(dv ? dvByteOffset : taByteOffset, v, []) as number, apply(dv ? dvByteLength : taByteLength, v, []) as number);
}

/** Whether `o` (not a proxy) is the host's: its prototype chain ends at the host's Object.prototype. */
function isHostObject(o: object): boolean {
  let p: object | null = o;
  for (let i = 0; i < 64 && p !== null; i++) {
    const q: object | null = Reflect.getPrototypeOf(p);
    if (q === null) return p === HostObjectPrototype || p === o;
    p = q;
  }
  return false;
}

/** Host classes whose instances cross as the prelude's host-backed class of the same name, by a number. */
export type BackedClasses = ReadonlyArray<readonly [string, unknown]>;

export class Membrane {
  /** Host functions the realm calls by number (prelude wrapFn), and host objects behind host-backed classes. */
  private readonly hostFns: Array<(...a: unknown[]) => unknown>;
  private readonly handles: object[] = [];
  private readonly wrappers = new WeakMap<object, unknown>();
  /** Realm errors made from host errors, to the host error (an InputError stays one). */
  private readonly hostErrorOf = new WeakMap<object, unknown>();
  private readonly trusted = new WeakSet<object>();
  private readonly settling = new Map<number, (ok: boolean, value: unknown) => void>();
  private nextToken = 1;

  constructor(
    private readonly p: PreludeExports,
    private readonly realmDate: DateConstructor,
    private readonly realmJsonParse: (text: string) => unknown,
    private readonly backed: () => BackedClasses,
    /** Host functions the prelude already calls by number (bridge.ts PRELUDE_HOST_FNS). */
    firstHostFns: ReadonlyArray<(...a: unknown[]) => unknown>,
  ) {
    this.hostFns = [...firstHostFns];
  }

  /** A host proxy built on purpose over realm objects (builtins.ts): passes unchanged. */
  trust<T>(v: T): T {
    if (v !== null && (typeof v === "object" || typeof v === "function")) this.trusted.add(v as object);
    return v;
  }

  /** The host error a realm error was made from, if it was. */
  hostError(v: unknown): unknown {
    return v !== null && typeof v === "object" ? this.hostErrorOf.get(v) : undefined;
  }

  // ---- host -> realm -------------------------------------------------------------------

  /** A host value as a realm value: primitives as they are, realm values unchanged, the rest copied or wrapped. */
  toRealm(v: unknown): unknown {
    if (v === null || (typeof v !== "object" && typeof v !== "function")) return v;
    const o = v as object;
    if (types.isProxy(o) || this.trusted.has(o) || !isHostObject(o)) return v;
    const hit = this.wrappers.get(o);
    if (hit !== undefined) return hit;
    if (typeof v === "function") return this.hostFunction(v as (...a: unknown[]) => unknown);
    if (ArrayBuffer.isView(v)) return this.bytesToRealm(v);
    if (v instanceof Error) return this.error(v);
    if (Array.isArray(v)) return this.array(v);
    if (v instanceof Date) return Reflect.construct(this.realmDate, [v.getTime()]);
    if (types.isPromise(v)) throw new TypeError("a host promise cannot cross into a sandbox realm");
    for (const [name, cls] of this.backed()) {
      if (v instanceof (cls as new () => object)) return this.p.backedOf(name).adopt(this.handle(o));
    }
    return this.object(o);
  }

  /** JSON data as realm data (objects whose prototypes are the realm's). */
  fromJson(v: unknown): unknown {
    return apply(this.realmJsonParse, undefined, [JSON.stringify(v)]);
  }

  /** A realm array of realm values (already converted). */
  list(...a: unknown[]): unknown {
    return apply(this.p.list, undefined, a);
  }

  /** A host error as a realm error of the same name, message and code. */
  error(e: Error): Error {
    const code = (e as { code?: unknown }).code;
    const r = this.p.makeError(String(e.name), String(e.message), typeof code === "string" || typeof code === "number" ? code : undefined);
    this.hostErrorOf.set(r, e);
    return r as Error;
  }

  /** A realm error named `name` (a Redis reply error, a connection error). */
  makeError(name: string, message: string): unknown {
    return this.p.makeError(name, message, undefined);
  }

  /** The realm function that calls host function `f` (its arguments copied by the prelude, then `fromRealm`). */
  hostFunction(f: (...a: unknown[]) => unknown, name = f.name): unknown {
    const hit = this.wrappers.get(f);
    if (hit !== undefined) return hit;
    const w = this.p.wrapFn(this.fnId(f), name);
    this.wrappers.set(f, w);
    for (const k of Object.keys(f)) this.p.put(w, k, this.toRealm((f as unknown as Record<string, unknown>)[k]));
    return w;
  }

  /** The number the prelude calls host function `f` by. */
  fnId(f: (...a: unknown[]) => unknown): number {
    this.hostFns.push(f);
    return this.hostFns.length - 1;
  }

  /** A host object behind a host-backed class: its number. */
  handle(o: object): number {
    this.handles.push(o);
    return this.handles.length - 1;
  }

  handleObject(h: unknown): object {
    const o = typeof h === "number" ? this.handles[h] : undefined;
    if (o === undefined) throw new TypeError("Illegal invocation");
    return o;
  }

  private bytesToRealm(v: ArrayBufferView): unknown {
    const bytes = bytesOf(v);
    if (Buffer.isBuffer(v) || types.isDataView(v)) {
      const b = this.p.bufferOf(bytes.byteLength);
      b.set(bytes);
      return b;
    }
    const name = String(apply(taTag, v, []));
    const t = this.p.typedOf(name, (v as unknown as ArrayLike<number>).length);
    t.set(v as unknown as ArrayLike<number>);
    return t;
  }

  private array(v: unknown[]): unknown {
    const a = this.p.freshArray();
    this.wrappers.set(v, a);
    for (let i = 0; i < v.length; i++) this.p.put(a, i, this.toRealm(v[i]));
    return a;
  }

  private object(o: object): unknown {
    const r = Reflect.getPrototypeOf(o) === null ? this.p.freshNull() : this.p.freshObject();
    this.wrappers.set(o, r);
    for (const k of Object.keys(o)) this.p.put(r, k, this.toRealm((o as Record<string, unknown>)[k]));
    return r;
  }

  // ---- realm -> host -------------------------------------------------------------------

  /**
   * The prelude's copy of what library code passed (copyArgs) as host data. Byte arrays
   * become host Buffers over the same memory, functions stay opaque realm references.
   */
  fromRealm(v: unknown): unknown {
    if (v === null || typeof v !== "object") return v;
    if (ArrayBuffer.isView(v)) return Buffer.from(bytesOf(v).buffer, bytesOf(v).byteOffset, bytesOf(v).byteLength);
    if (types.isAnyArrayBuffer(v)) return v;
    if (Array.isArray(v)) {
      const out = new Array<unknown>(v.length);
      for (let i = 0; i < out.length; i++) out[i] = this.fromRealm((v as unknown[])[i]);
      return out;
    }
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) out[k] = this.fromRealm((v as Record<string, unknown>)[k]);
    return out;
  }

  /** A prelude copy of an argument list, as a host array. */
  argsFromRealm(args: unknown): unknown[] {
    return Array.isArray(args) ? (this.fromRealm(args) as unknown[]) : [];
  }

  /** Call host function number `id` for realm code: arguments from the prelude's copy, result (or thrown error) into the realm. */
  callHost(id: number, args: unknown, isNew: boolean): unknown {
    const f = this.hostFns[id];
    if (f === undefined) throw this.error(new TypeError("not a function"));
    return this.guardHost(() => {
      const a = this.argsFromRealm(args);
      return isNew ? Reflect.construct(f, a) : apply(f, undefined, a);
    });
  }

  /** Run host work for realm code: its result into the realm, a host error as a realm error. */
  guardHost(f: () => unknown): unknown {
    try {
      return this.toRealm(f());
    } catch (e) {
      throw this.toRealm(e);
    }
  }

  // ---- host calls into library code ------------------------------------------------------

  /** Call library function `fn` (an opaque realm reference) with realm values. */
  invoke(fn: unknown, ...args: unknown[]): unknown {
    return this.p.invoke(fn, undefined, apply(this.p.list, undefined, args));
  }

  /** Call `name` on library value `self` as library code would, with a realm argument list. */
  invokeMethod(self: unknown, name: string, args: unknown): unknown {
    return this.p.invokeMethod(self, name, args);
  }

  /** Call a library function with an argument list the prelude made (a tick's, a timer's). */
  invokeWith(fn: unknown, args: unknown): unknown {
    return this.p.invoke(fn, undefined, args);
  }

  /** Start library method `name` on `self`; `done` hears how its promise settled (through the bridge's `settled`). */
  settle(self: unknown, name: string, args: unknown, done: (ok: boolean, value: unknown) => void): void {
    const token = this.nextToken++;
    this.settling.set(token, done);
    this.p.settle(self, name, args, token);
  }

  /** The bridge's `settled`: a library promise settled. */
  settled(token: unknown, ok: unknown, value: unknown): void {
    const done = typeof token === "number" ? this.settling.get(token) : undefined;
    if (done === undefined) return;
    this.settling.delete(token as number);
    done(ok === true, value);
  }

  /** Fields of a library value, read in the realm: a host object of primitives and opaque realm values. */
  readFields(v: unknown, names: unknown): Record<string, unknown> {
    const o = this.p.readFields(v, names);
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(o)) out[k] = o[k];
    return out;
  }

  /** A realm list of field names, for readFields (made once per caller). */
  names(...names: string[]): unknown {
    return this.list(...names);
  }

  /** What a thrown or rejected library value says, read in the realm; `withStack` adds where it was thrown. */
  describe(e: unknown, withStack = false): string {
    try {
      return String(this.p.describe(e, withStack));
    } catch {
      return "a value that could not be described";
    }
  }
}
