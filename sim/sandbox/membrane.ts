/**
 * The membrane: the one module where host code meets values of a sandbox realm
 * (docs/architecture.md, "The sandbox membrane"). Node core's primordials discipline,
 * applied on both sides of the boundary:
 *
 * - Host code never calls a realm callable or looks a method up on a realm object. It
 *   calls only the prelude's own functions (captured when the realm was made, before any
 *   library code ran), which reach library functions with the realm's captured intrinsics
 *   (`invoke`, `invokeMethod`, `settle`), read library objects in the realm (`readFields`,
 *   `describe`), and copy what library code hands a host function (`copyArgs`; a
 *   command's argv with one spread, `argvFunction`).
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
import vm from "node:vm";
import { PRELUDE_SOURCE } from "./prelude.js";
import { BACKED_CLASSES, BUFFER_METHODS, BUFFER_STATICS, PRELUDE_HOST_FNS, type BackedClasses } from "./host-surface.js";

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
  wrapArgvFn(id: number, name: string): unknown;
  backedOf(name: string): { adopt(h: number): object };
  bufferView(ab: ArrayBufferLike, off: number, len: number): Uint8Array;
  bufferOf(len: number): Uint8Array;
  typedOf(name: string, len: number): ArrayBufferView & ArrayLike<number> & { set(a: ArrayLike<number>): void };
  makeError(name: string, message: string, code: unknown): object;
  freshObject(): object;
  freshNull(): object;
  freshArray(): object;
  put(o: unknown, k: string | number, v: unknown): void;
  objectOf(nullProto: boolean, ...kv: unknown[]): object;
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
  /** JSON.stringify as the realm had it before library code ran. */
  stringify: unknown;
  call(fn: unknown, n: number, a: unknown, b: unknown, c: unknown): unknown;
  globals: Record<string, unknown>;
  lazyGlobals: Record<string, { get(): unknown; set(v: unknown): void }>;
}

/**
 * Every key of the prelude's exports, in one order: the membrane keeps them on a host object
 * made in this order, so host code loads them from one host shape whatever realm they came
 * from (a load from the realm's own object sees a new shape per realm, and optimized host
 * code that kept a dead realm's shape is thrown away at the next full GC).
 */
const PRELUDE_KEYS: Record<keyof PreludeExports, true> = {
  turnCounts: true,
  runTicks: true,
  invoke: true,
  invokeMethod: true,
  settle: true,
  list: true,
  readFields: true,
  describe: true,
  wrapFn: true,
  wrapArgvFn: true,
  backedOf: true,
  bufferView: true,
  bufferOf: true,
  typedOf: true,
  makeError: true,
  freshObject: true,
  freshNull: true,
  freshArray: true,
  put: true,
  objectOf: true,
  makeRequire: true,
  makeModule: true,
  runModule: true,
  exportsOf: true,
  promisify: true,
  callbackify: true,
  timersPromises: true,
  queueMicrotask: true,
  nextTick: true,
  getBuffer: true,
  inspect: true,
  format: true,
  stringify: true,
  call: true,
  globals: true,
  lazyGlobals: true,
};
const PRELUDE_KEY_LIST = Object.keys(PRELUDE_KEYS) as Array<keyof PreludeExports>;

/** The prelude's exports on a host object of one shape (read once, before any library code runs). */
function hostExports(realmExports: PreludeExports): PreludeExports {
  const out: Record<string, unknown> = {};
  for (const k of PRELUDE_KEY_LIST) out[k] = realmExports[k];
  return out as unknown as PreludeExports;
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

/**
 * Append the elements of `a`, an array the prelude made (own data properties), to `out` as
 * strings: false when `a` is not an array or an element is neither a string nor a number
 * (only its typeof is read). A number's string is the language's, as String(x) in the realm.
 */
function stringsInto(a: unknown, out: string[]): boolean {
  if (!Array.isArray(a)) return false;
  const n = a.length;
  for (let i = 0; i < n; i++) {
    const x: unknown = a[i];
    if (typeof x === "string") out.push(x);
    else if (typeof x === "number") out.push(String(x));
    else return false;
  }
  return true;
}

/** Globals whose real counterparts on the context's own global read the host: never deletable. */
const PINNED = new Set(["Date", "Error", "Intl", "WeakRef", "FinalizationRegistry"]);

/** Put the prelude's globals on the context's global object (the null-prototype sandbox). */
function installGlobals(sandbox: Record<string, unknown>, p: PreludeExports): void {
  for (const [name, value] of Object.entries(p.globals)) {
    // Node formats this realm's stacks with the global Error's prepareStackTrace: not replaceable.
    Object.defineProperty(sandbox, name, { value, writable: name !== "Error", enumerable: false, configurable: !PINNED.has(name) });
  }
  for (const [name, { get }] of Object.entries(p.lazyGlobals)) {
    let built: unknown;
    let isBuilt = false;
    Object.defineProperty(sandbox, name, {
      get: () => (isBuilt ? built : ((isBuilt = true), (built = get()))),
      set: (v: unknown) => {
        isBuilt = true;
        built = v;
      },
      configurable: !PINNED.has(name),
      enumerable: false,
    });
  }
}

/** Node's Buffer methods, written into the prelude's Buffer class body (they are identifiers). */
const BUFFER_CLASS_BODY = [
  ...BUFFER_METHODS.map((m) => `${m}(...a) { return host.bufferCall(${JSON.stringify(m)}, this, copyArgs(a)); }`),
  ...BUFFER_STATICS.map((m) => `static ${m}(...a) { return host.bufferStatic(${JSON.stringify(m)}, copyArgs(a)); }`),
].join("\n      ");
const PRELUDE = new vm.Script(PRELUDE_SOURCE.replace("/*BUFFER_METHODS*/", BUFFER_CLASS_BODY), { filename: "lockstep:prelude" });

/** The prelude's functions module-loader.ts and builtins.ts build modules of. */
export type RealmModules = Pick<
  PreludeExports,
  | "makeRequire"
  | "makeModule"
  | "exportsOf"
  | "runModule"
  | "freshObject"
  | "freshNull"
  | "promisify"
  | "callbackify"
  | "timersPromises"
  | "inspect"
  | "format"
  | "stringify"
>;

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

  private readonly p: PreludeExports;
  private readonly turnCounts: Int32Array;
  private readonly realmDate: DateConstructor;
  private readonly realmJsonParse: (text: string) => unknown;
  private readonly backed: () => BackedClasses = BACKED_CLASSES;

  /**
   * Run the prelude in `context` (before any library code) over `bridge`, and put its
   * globals on the context's global object `sandbox`.
   */
  constructor(context: vm.Context, sandbox: Record<string, unknown>, bridge: Record<string, unknown>) {
    [this.realmDate, this.realmJsonParse] = vm.runInContext("[Date, JSON.parse]", context) as [DateConstructor, (t: string) => unknown];
    this.p = hostExports((PRELUDE.runInContext(context) as (h: unknown) => PreludeExports)(bridge));
    // The turn's counts as a host Int32Array over the realm's memory: one host shape, as above.
    const counts = this.p.turnCounts;
    this.turnCounts = new Int32Array(apply(taBuffer, counts, []) as ArrayBuffer, apply(taByteOffset, counts, []) as number, 2);
    // The host functions the prelude wrapped as it started, by their numbers (bridge.ts).
    this.hostFns = [...PRELUDE_HOST_FNS];
    installGlobals(sandbox, this.p);
  }

  /** The prelude's module-building functions. */
  get modules(): RealmModules {
    return this.p;
  }

  /** A new turn: its reaction count starts again (memory the prelude reads; no call into the realm). */
  beginTurn(): void {
    this.turnCounts[0] = 0;
  }

  /** Whether process.nextTick callbacks wait. */
  ticksWaiting(): boolean {
    return this.turnCounts[1] > 0;
  }

  /** Run the waiting nextTick callbacks, and those they queue, in the realm. */
  runTicks(): void {
    this.p.runTicks();
  }

  /** Queue library callback `fn(...args)` (realm values) on the realm's nextTick queue. */
  nextTick(fn: unknown, ...args: unknown[]): void {
    this.p.invoke(this.p.nextTick, undefined, this.list(fn, ...args));
  }

  /** A realm Buffer of `n` zero bytes. */
  bufferOf(n: number): Uint8Array {
    return this.p.bufferOf(n);
  }

  /** A host proxy built on purpose over realm objects (builtins.ts): passes unchanged. */
  trust<T>(v: T): T {
    if (v !== null && (typeof v === "object" || typeof v === "function")) this.trusted.add(v as object);
    return v;
  }

  /** Whether `v` is a host object (not a proxy, its prototype chain the host's): safe for host code to read. */
  isHostValue(v: unknown): boolean {
    return v !== null && (typeof v === "object" || typeof v === "function") && !types.isProxy(v) && isHostObject(v);
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

  /**
   * The realm function `(link, head, tail?, done)` that calls host function `f(link, argv,
   * done)` when every element of head and tail is a string or a number (argv: their strings),
   * and returns true; false, calling nothing, when one is not (the caller flattens it itself).
   */
  argvFunction(f: (link: number, argv: string[], done: unknown) => void, name = f.name): unknown {
    return this.p.wrapArgvFn(this.fnId(f as (...a: unknown[]) => unknown), name);
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
    const items = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) items[i] = this.toRealm(v[i]);
    return apply(this.p.list, undefined, items);
  }

  private object(o: object): unknown {
    // A cycle in host data (path.posix.posix) ends at the object already being copied.
    if (this.copying.has(o)) return undefined;
    this.copying.add(o);
    try {
      return this.objectNow(o);
    } finally {
      this.copying.delete(o);
    }
  }

  private readonly copying = new Set<object>();

  private objectNow(o: object): unknown {
    const keys = Object.keys(o);
    const kv = new Array<unknown>(2 * keys.length + 1);
    kv[0] = Reflect.getPrototypeOf(o) === null;
    for (let i = 0; i < keys.length; i++) {
      kv[2 * i + 1] = keys[i];
      kv[2 * i + 2] = this.toRealm((o as Record<string, unknown>)[keys[i]!]);
    }
    const r = apply(this.p.objectOf, undefined, kv) as object;
    this.wrappers.set(o, r);
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

  /** The bridge's `callArgv` (argvFunction): head and tail are arrays the prelude copied with Array.of, or null. */
  callArgv(id: number, link: unknown, head: unknown, tail: unknown, done: unknown): boolean {
    const f = this.hostFns[id];
    if (f === undefined) throw this.error(new TypeError("not a function"));
    const argv: string[] = [];
    if (!stringsInto(head, argv) || (tail !== undefined && !stringsInto(tail, argv))) return false;
    this.guardHost(() => apply(f, undefined, [link, argv, done]));
    return true;
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
    if (args.length <= 3) return this.p.call(fn, args.length, args[0], args[1], args[2]);
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
