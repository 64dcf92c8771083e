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
    if (to < from) throw new InputError("<arg>", flag, `expected A..B with A <= B, got "${text}"`);
    return { from, to };
  }
  const n = parseSeed(text, flag);
  return { from: n, to: n };
}

export function parsePositiveInt(text: string, flag: string): number {
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new InputError("<arg>", flag, `expected a positive integer, got "${text}"`);
  return Number(text);
}
