/**
 * What of the host a sandbox realm may use, by name: the host classes behind the
 * prelude's host-backed classes, Node's Buffer methods written into its Buffer class, and
 * the host functions the prelude wraps as it starts. bridge.ts serves them, membrane.ts
 * converts their values.
 */
import { Buffer } from "node:buffer";
import { createHash, createHmac } from "node:crypto";
import { Stats } from "node:fs";
import { StringDecoder } from "node:string_decoder";

/** Instances of these cross as the prelude's host-backed class of the same name, by a number. */
export type BackedClasses = ReadonlyArray<readonly [string, unknown]>;

type Fn = (...a: unknown[]) => unknown;

/** Host functions the prelude wraps as it starts: the first numbers of every membrane's table. */
export const PRELUDE_HOST_FNS: readonly Fn[] = [atob, btoa, structuredClone] as Fn[];

/** Host classes the prelude's host-backed classes construct, by name. */
export const CONSTRUCTIBLE: Record<string, new (...a: never[]) => object> = {
  URL,
  URLSearchParams,
  TextEncoder,
  TextDecoder,
};

export const STATIC_OK: Record<string, readonly string[]> = { URL: ["canParse"] };

/** Host classes whose instances cross as the realm's host-backed class of the same name. */
let backedClasses: BackedClasses | undefined;
export const BACKED_CLASSES = (): BackedClasses =>
  (backedClasses ??= [
    ["URL", URL],
    ["URLSearchParams", URLSearchParams],
    ["TextEncoder", TextEncoder],
    ["TextDecoder", TextDecoder],
    ["StringDecoder", StringDecoder],
    ["Hash", createHash("sha1").constructor],
    ["Hmac", createHmac("sha1", "k").constructor],
    ["Stats", Stats],
  ]);

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
