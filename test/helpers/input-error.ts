import { InputError } from "../../sim/errors.js";

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
