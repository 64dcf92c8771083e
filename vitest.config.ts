import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Sweeps and the browser test take seconds, not milliseconds; the bound is for hangs.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // The JSON file lets .ci/run print a plain "N passed, N failed" closing line.
    reporters: ["default", ["json", { outputFile: "test-output/vitest-results.json" }]],
  },
});
