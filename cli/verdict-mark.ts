import type { CheckResult } from "../checkers/types.js";

/** The four-letter mark before a checker's line: a skipped checker is "n/a", not a pass it never judged. */
export const verdictMark = (r: Pick<CheckResult, "valid" | "skipped">): string =>
  r.skipped !== undefined ? "n/a " : r.valid === true ? "ok  " : r.valid === false ? "FAIL" : "??  ";
