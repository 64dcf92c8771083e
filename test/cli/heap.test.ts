import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { HEAP_GROWING_PERCENT, heapFlags } from "../../cli/heap.js";

describe("the heap growth `run` sets", () => {
  it("bounds V8's heap growth by a percentage, not by a cap that would end a big run", () => {
    const flags = heapFlags([], false);
    expect(flags).toEqual([`--heap-growing-percent=${HEAP_GROWING_PERCENT}`, "--semi-space-growth-factor=1"]);
    expect(heapFlags([], true)).toEqual([`--heap-growing-percent=${HEAP_GROWING_PERCENT}`, "--compact-on-every-full-gc"]);
    expect([...flags, ...heapFlags([], true)].some((f) => f.includes("max-old-space") || f.includes("max-semi-space"))).toBe(false);
    expect(HEAP_GROWING_PERCENT).toBeGreaterThan(0);
  });

  it("leaves a heap growth given to node alone, in either spelling", () => {
    expect(heapFlags(["--heap-growing-percent=50"], true)).toEqual([]);
    expect(heapFlags(["--heap_growing_percent=5"], false)).toEqual([]);
    expect(heapFlags(["--max-old-space-size=4096"], false)).toEqual(heapFlags([], false));
  });

  it("is a flag this node knows (setFlagsFromString would ignore an unknown one silently)", () => {
    const node = (flags: string[]) => () => execFileSync(process.execPath, [...flags, "-e", "0"], { stdio: "pipe" });
    expect(node(heapFlags([], true))).not.toThrow();
    expect(node(heapFlags([], false))).not.toThrow();
    expect(node(["--heap-growing-percentage=20"])).toThrow(/bad option/);
  });
});
