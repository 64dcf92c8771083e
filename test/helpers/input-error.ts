import { expect } from "vitest";
import { InputError } from "../../sim/errors.js";
import { parseScenario } from "../../scenarios/schema.js";

/** Run `f`, which must throw an InputError; return it (any other outcome fails the test). */
export function inputErrorOf(f: () => unknown): InputError {
  try {
    f();
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error("expected an InputError");
}

/** The smallest scenario parseScenario accepts: tests spread it and break one field. */
export const MINIMAL_SCENARIO = {
  name: "t",
  story: "a story",
  design: "redis-setnx",
  expect: "safe",
  durationMs: 1000,
  clients: 2,
  workload: { ttlMs: 1000 },
} as const;

/** The InputError parseScenario gives for `raw`, read as if from bad.json. */
export function scenarioErrorOf(raw: unknown): InputError {
  return inputErrorOf(() => parseScenario(raw, "bad.json"));
}

/** The shape every scenario input error has: bad.json, the field's path, the message, one line. */
export function expectScenarioError(e: InputError, field: string, message: RegExp): void {
  expect(e.file).toBe("bad.json");
  expect(e.field).toBe(field);
  expect(e.message).toMatch(message);
  expect(e.message.startsWith(`bad.json: ${field}: `)).toBe(true);
  expect(e.message).not.toMatch(/\n/);
}
