/**
 * The boundary between the host and a sandbox realm. A value host code hands to library
 * code goes through `toRealm`: a host function becomes a realm function that calls it
 * (so its `.constructor` is the realm's Function, not the host's, which would evaluate
 * code with the real `process` in scope), a host Buffer becomes a realm Buffer, host
 * errors, arrays and plain objects become realm copies. A realm value going to a host
 * function goes through `toHost`: realm byte arrays become host Buffers over the same
 * memory; everything else passes as it is (host code may touch realm objects).
 *
 * Host proxies over realm objects that builtins.ts builds on purpose (modules whose every
 * property access is checked) are registered with `trust` and pass unchanged.
 */
import { Buffer } from "node:buffer";
import { createHash, createHmac } from "node:crypto";
import { Stats } from "node:fs";
import { StringDecoder } from "node:string_decoder";

export interface SealPrelude {
  wrapFn(fn: unknown, name: string): (...a: unknown[]) => unknown;
  backedOf(name: string): { adopt(h: object): object };
  bufferView(ab: ArrayBufferLike, off: number, len: number): Uint8Array;
  bufferOf(len: number): Uint8Array;
  typedOf(name: string, len: number): ArrayBufferView & ArrayLike<number> & { set(a: ArrayLike<number>): void };
  makeError(name: string, message: string, code: unknown): Error;
  freshObject(): Record<string, unknown>;
  freshNull(): Record<string, unknown>;
  getBuffer(): unknown;
}

/** Host classes whose instances cross as the realm's host-backed class of the same name. */
const BACKED: Array<[string, () => unknown]> = [
  ["URL", () => URL],
  ["URLSearchParams", () => URLSearchParams],
  ["TextEncoder", () => TextEncoder],
  ["TextDecoder", () => TextDecoder],
  ["StringDecoder", () => StringDecoder],
  ["Hash", () => createHash("sha1").constructor],
  ["Hmac", () => createHmac("sha1", "k").constructor],
  ["Stats", () => Stats],
];
let backedClasses: Array<[string, unknown]> | undefined;

export class Seal {
  private readonly cache = new WeakMap<object, unknown>();
  /** Realm errors made from host errors, to the host error (an InputError stays one). */
  readonly hostErrorOf = new WeakMap<object, unknown>();
  private readonly trusted = new WeakSet<object>();

  constructor(
    private readonly p: SealPrelude,
    private readonly realmArray: ArrayConstructor,
    private readonly realmDate: DateConstructor,
  ) {}

  trust<T>(v: T): T {
    if (v !== null && (typeof v === "object" || typeof v === "function")) this.trusted.add(v as object);
    return v;
  }

  toRealm(v: unknown): unknown {
    if (v === null || (typeof v !== "object" && typeof v !== "function")) return v;
    const o = v as object;
    // A realm value (its prototype chain ends at the realm's Object.prototype) passes.
    if (!(o instanceof Object) && Object.getPrototypeOf(o) !== null) return v;
    if (this.trusted.has(o)) return v;
    const hit = this.cache.get(o);
    if (hit !== undefined) return hit;
    if (typeof v === "function") return this.fn(v as (...a: unknown[]) => unknown);
    if (ArrayBuffer.isView(v)) return this.bytes(v);
    if (v instanceof Error) return this.error(v);
    if (Array.isArray(v)) return this.realmArray.from(v, (x) => this.toRealm(x));
    if (v instanceof Date) return new this.realmDate(v.getTime());
    if (typeof (v as { then?: unknown }).then === "function") throw new TypeError("a host promise cannot cross into a sandbox realm");
    backedClasses ??= BACKED.map(([n, c]) => [n, c()]);
    for (const [name, cls] of backedClasses) {
      if (v instanceof (cls as new () => object)) return this.p.backedOf(name).adopt(o);
    }
    return this.object(o);
  }

  toHost(v: unknown): unknown {
    if (v !== null && typeof v === "object" && !(v instanceof Object) && ArrayBuffer.isView(v)) {
      const u = v as Uint8Array;
      return Buffer.from(u.buffer, u.byteOffset, u.byteLength);
    }
    return v;
  }

  /** A host error as a realm error of the same name, message and code. */
  error(e: Error): Error {
    const r = this.p.makeError(String(e.name), String(e.message), (e as { code?: unknown }).code);
    this.hostErrorOf.set(r, e);
    return r;
  }

  /** Call host function `fn` for realm code: arguments out, result (or thrown error) in. */
  apply(fn: (...a: unknown[]) => unknown, self: unknown, args: unknown[], newTarget: unknown): unknown {
    try {
      const a = args.map((x) => this.toHost(x));
      const r = newTarget !== undefined ? Reflect.construct(fn, a) : Reflect.apply(fn, this.toHost(self), a);
      return this.toRealm(r);
    } catch (e) {
      throw this.toRealm(e);
    }
  }

  private fn(f: (...a: unknown[]) => unknown): unknown {
    const w = this.p.wrapFn(f, f.name) as unknown as Record<string, unknown>;
    this.cache.set(f, w);
    for (const k of Object.keys(f)) w[k] = this.toRealm((f as unknown as Record<string, unknown>)[k]);
    return w;
  }

  private bytes(v: ArrayBufferView): unknown {
    const realmMemory = !(v.buffer instanceof Object);
    if (Buffer.isBuffer(v)) {
      if (realmMemory) return this.p.bufferView(v.buffer, v.byteOffset, v.byteLength);
      const b = this.p.bufferOf(v.byteLength);
      b.set(v);
      return b;
    }
    const name = v.constructor.name;
    const len = (v as unknown as ArrayLike<number>).length;
    const t = this.p.typedOf(name === "DataView" ? "Uint8Array" : name, name === "DataView" ? v.byteLength : len);
    t.set(name === "DataView" ? new Uint8Array(v.buffer, v.byteOffset, v.byteLength) : (v as unknown as ArrayLike<number>));
    return t;
  }

  private object(o: object): unknown {
    const r = Object.getPrototypeOf(o) === null ? this.p.freshNull() : this.p.freshObject();
    this.cache.set(o, r);
    for (const k of Object.keys(o)) r[k] = this.toRealm((o as Record<string, unknown>)[k]);
    return r;
  }
}
