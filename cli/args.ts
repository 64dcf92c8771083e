import { availableParallelism } from "node:os";
import { InputError } from "../sim/errors.js";

/** A seed is a non-negative integer. */
export function parseSeed(text: string, flag: string): number {
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new InputError("<arg>", flag, `expected a non-negative integer, got "${text}"`);
  }
  return Number(text);
}

/** "A..B" (inclusive) or a single "N". */
export function parseSeedRange(text: string, flag: string): { from: number; to: number } {
  const m = /^(\d+)\.\.(\d+)$/.exec(text);
  if (m) {
    const from = Number(m[1]);
    const to = Number(m[2]);
    if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to)) {
      throw new InputError("<arg>", flag, `expected seeds at most ${Number.MAX_SAFE_INTEGER}, got "${text}"`);
    }
    if (to < from) throw new InputError("<arg>", flag, `expected A..B with A <= B, got "${text}"`);
    return { from, to };
  }
  const n = parseSeed(text, flag);
  return { from: n, to: n };
}

export function parsePositiveInt(text: string, flag: string): number {
  if (!/^\d+$/.test(text) || Number(text) < 1 || !Number.isSafeInteger(Number(text))) {
    throw new InputError("<arg>", flag, `expected a positive integer, got "${text}"`);
  }
  return Number(text);
}

/**
 * Worker threads: at most the machine's cores. More threads than cores only compete
 * for them (each holds a whole simulator and its heap), so a larger count is refused
 * rather than started.
 */
export function parseWorkers(text: string, flag: string, coresMax = availableParallelism()): number {
  const n = parsePositiveInt(text, flag);
  if (n > coresMax) throw new InputError("<arg>", flag, `expected at most ${coresMax} (this machine's cores), got ${n}`);
  return n;
}
