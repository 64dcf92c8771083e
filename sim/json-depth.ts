import { InputError } from "./errors.js";

/** Deepest nesting a scenario or history value may have; real files stay under 10. */
export const JSON_DEPTH_MAX = 64;

/**
 * Refuses a parsed JSON value nested deeper than `depthMax`, walking it with an
 * explicit stack: the validators that follow recurse, and a 100,000-deep array would
 * overflow the call stack inside them (and inside their own error path).
 */
export function checkJsonDepth(value: unknown, file: string, field = "(file)", depthMax = JSON_DEPTH_MAX): void {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth > depthMax) throw new InputError(file, field, `expected JSON nested at most ${depthMax} deep`);
    for (const child of Object.values(v as object)) stack.push([child, depth + 1]);
  }
}
