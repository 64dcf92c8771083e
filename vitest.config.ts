import { defineConfig } from "vitest/config";
import { loadTolerantMs } from "./real/servers/deadlines.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // A bound for hangs, not a speed test: stretched by the machine's load when the suite
    // starts (test/helpers/hang-bound.ts does the same for a test's own, longer bound).
    testTimeout: loadTolerantMs(120_000),
    hookTimeout: loadTolerantMs(120_000),
    // The JSON file lets .ci/run print a plain "N passed, N failed" closing line.
    reporters: ["default", ["json", { outputFile: "test-output/vitest-results.json" }]],
  },
});
