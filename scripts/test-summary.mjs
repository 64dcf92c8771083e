// Print vitest's totals as one plain line ("N passed, N failed, N skipped") for CI logs.
import { readFileSync } from "node:fs";
const r = JSON.parse(readFileSync(new URL("../test-output/vitest-results.json", import.meta.url), "utf8"));
const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
if (r.numTotalTests === 0) process.exitCode = 1;
