/**
 * The lock-driver protocol, version 1 (docs/lock-protocol.md): what lockstep sends a lock
 * driver on its stdin and what it accepts back on its stdout, one JSON object per line.
 * Pure: reading and checking lines only; designs/library/real-driver-process.ts does the I/O.
 *
 *   lockstep → driver   {"id": 1, "op": "acquire", "key": "order:123", "ttlMs": 1000, "waitMs": 4000, "grant": "c1#1"}
 *   driver → lockstep   {"id": 1, "granted": true, "validityMs": 998.2}      or {"id": 1, "error": "why"}
 *
 * A reply that does not parse, names no outstanding request, or lacks its op's fields is
 * not the protocol: the run stops, quoting the line (DriverProtocolError).
 */

export const LOCK_PROTOCOL_VERSION = 1;

export type DriverOp = "init" | "acquire" | "release" | "extend" | "holds" | "clock";

/** Ops a driver may leave out (it lists the ones it has in its init reply). */
export const OPTIONAL_OPS: readonly DriverOp[] = ["extend", "holds"];

export class DriverProtocolError extends Error {}

/** One line of the driver's stdout: a reply to request `id`, with an `error` or its op's fields. */
export interface DriverReply {
  id: number;
  error?: string;
  body: Record<string, unknown>;
}

export function parseReplyLine(line: string): DriverReply {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    throw new DriverProtocolError("expected one JSON object per line");
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) throw new DriverProtocolError("expected a JSON object");
  const body = v as Record<string, unknown>;
  if (typeof body.id !== "number" || !Number.isInteger(body.id)) throw new DriverProtocolError('expected "id": the integer id of the request it answers');
  if ("error" in body && typeof body.error !== "string") throw new DriverProtocolError('expected "error" to be a string');
  return { id: body.id, ...(typeof body.error === "string" ? { error: body.error } : {}), body };
}

function field<T>(body: Record<string, unknown>, name: string, ok: (v: unknown) => v is T, what: string): T {
  if (!ok(body[name])) throw new DriverProtocolError(`expected "${name}": ${what}`);
  return body[name] as T;
}

const isBool = (v: unknown): v is boolean => typeof v === "boolean";
const isFinite = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const isString = (v: unknown): v is string => typeof v === "string";

function optional<T>(body: Record<string, unknown>, name: string, ok: (v: unknown) => v is T, what: string): T | undefined {
  return body[name] === undefined || body[name] === null ? undefined : field(body, name, ok, what);
}

export interface InitReply {
  protocol: number;
  /** What the driver runs, e.g. "redis-py Lock". */
  name?: string;
  /** name → version of what it loaded (its runtime, its lock library). */
  versions: Record<string, string>;
  /** Which optional ops it answers. */
  ops: Set<DriverOp>;
}

export function readInit(body: Record<string, unknown>): InitReply {
  const protocol = field(body, "protocol", isFinite, `the protocol version it speaks (lockstep speaks ${LOCK_PROTOCOL_VERSION})`);
  const ops = optional(body, "ops", (v): v is unknown[] => Array.isArray(v), "a list of the optional ops it answers") ?? [];
  const versions = optional(
    body,
    "versions",
    (v): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v),
    "an object of strings",
  );
  const out: InitReply = { protocol, versions: {}, ops: new Set() };
  for (const [k, v] of Object.entries(versions ?? {})) if (typeof v === "string") out.versions[k] = v;
  for (const op of ops) if (OPTIONAL_OPS.includes(op as DriverOp)) out.ops.add(op as DriverOp);
  const name = optional(body, "name", isString, "a string");
  if (name !== undefined) out.name = name;
  return out;
}

/** A reported validity, and the driver's CLOCK_MONOTONIC instant (ms) it is counted from, when it gives one. */
export interface Validity {
  validityMs?: number;
  monoMs?: number;
}

function readValidity(body: Record<string, unknown>): Validity {
  const validityMs = optional(body, "validityMs", isFinite, "a number of ms");
  if (validityMs === undefined) return {};
  const monoMs = optional(body, "monoMs", isFinite, "its CLOCK_MONOTONIC reading in ms when it measured validityMs");
  return { validityMs, ...(monoMs !== undefined ? { monoMs } : {}) };
}

export type AcquireReply = { granted: false } | ({ granted: true; token?: number; secret?: string } & Validity);

export function readAcquire(body: Record<string, unknown>): AcquireReply {
  if (!field(body, "granted", isBool, "true or false")) return { granted: false };
  const token = optional(body, "token", isFinite, "a number (the fencing token)");
  const secret = optional(body, "secret", isString, "a string (the value it wrote)");
  return { granted: true, ...(token !== undefined ? { token } : {}), ...(secret !== undefined ? { secret } : {}), ...readValidity(body) };
}

export function readRelease(body: Record<string, unknown>): boolean {
  return field(body, "released", isBool, "true, or false when the lock was no longer its own");
}

export function readExtend(body: Record<string, unknown>): { extended: boolean } & Validity {
  const extended = field(body, "extended", isBool, "true or false");
  return { extended, ...(extended ? readValidity(body) : {}) };
}

export function readHolds(body: Record<string, unknown>): boolean {
  return field(body, "holds", isBool, "true or false");
}

export function readClock(body: Record<string, unknown>): number {
  return field(body, "wallMs", isFinite, "its wall clock, ms since the Unix epoch");
}
