import { build } from "esbuild";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { fastCheck } from "../harness/lazy-fast-check.js";

// A sweep thread (and the sweep command's own thread) loads its modules before its first seed:
// a fixed cost paid once per thread. Packages and modules that only some scenarios or designs
// use are loaded at first use (createRequire or import()), so they must not be reached by
// static imports from the worker's entry. Read from the sources' import graph (esbuild's
// metafile), not from timings.
const root = fileURLToPath(new URL("..", import.meta.url));

/** Every module (relative to the repo) or package a static import chain from `entry` reaches. */
async function staticallyReached(entry: string): Promise<Set<string>> {
  const r = await build({
    entryPoints: [entry],
    absWorkingDir: root,
    bundle: true,
    write: false,
    metafile: true,
    platform: "node",
    format: "esm",
    packages: "external",
    outdir: "out",
    logLevel: "silent",
  });
  const inputs = r.metafile.inputs;
  const start = Object.keys(inputs).find((f) => entry.endsWith(f))!;
  const reached = new Set<string>([start]);
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    for (const imp of inputs[queue[i]!]!.imports) {
      if (imp.kind === "dynamic-import" || reached.has(imp.path)) continue;
      reached.add(imp.path);
      if (inputs[imp.path]) queue.push(imp.path);
    }
  }
  return reached;
}

describe("what a sweep thread loads at start", () => {
  it.each(["harness/sweep/worker.ts", "cli/commands/sweep.ts"])("%s reaches neither fast-check, fengari, esbuild nor the HTML report", async (entry) => {
    const reached = await staticallyReached(entry);
    expect(reached.has("harness/runner.ts"), "the graph was read: the simulator is reached").toBe(true);
    for (const lazy of ["fast-check", "fengari", "esbuild", "reports/run-report.ts"])
      expect(
        [...reached].filter((p) => p === lazy),
        lazy,
      ).toEqual([]);
  });

  it("fast-check loaded lazily is the same instance a static import gives (one copy, whoever builds the arbitraries)", async () => {
    const imported = (await import("fast-check")).default;
    expect(fastCheck()).toBe(imported);
  });
});
