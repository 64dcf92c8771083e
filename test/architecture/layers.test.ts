import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { cycles, importGraph, rankOf } from "./imports.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** Every import that goes from a layer to a later one (sim → services → designs → … → cli). */
function backwardEdges(graph: Map<string, string[]>): string[] {
  const bad: string[] = [];
  for (const [file, targets] of graph) {
    const from = rankOf(file.split("/")[0]!)!;
    for (const target of targets) {
      const to = rankOf(target.split("/")[0]!);
      if (to !== undefined && to > from) bad.push(`${file} -> ${target}`);
    }
  }
  return bad;
}

describe("the layers", () => {
  const graph = importGraph(root);

  it("reads the whole tree (the graph is not empty)", () => {
    expect(graph.size).toBeGreaterThan(200);
    expect(graph.get("harness/runner.ts")).toContain("sim/simulation.ts");
  });

  it("sim/ imports nothing outside sim/", () => {
    const outside = [...graph].flatMap(([f, ts]) => (f.startsWith("sim/") ? ts.filter((t) => !t.startsWith("sim/")).map((t) => `${f} -> ${t}`) : []));
    expect(outside).toEqual([]);
  });

  it("no import goes from a layer to a later one", () => {
    expect(backwardEdges(graph)).toEqual([]);
  });

  it("no import cycle", () => {
    expect(cycles(graph)).toEqual([]);
  });

  it("the check can fail: a planted backward edge and a planted cycle are found", () => {
    const planted = new Map(graph);
    planted.set("sim/planted.ts", ["harness/runner.ts"]);
    planted.set("harness/runner.ts", [...(graph.get("harness/runner.ts") ?? []), "sim/planted.ts"]);
    expect(backwardEdges(planted)).toContain("sim/planted.ts -> harness/runner.ts");
    expect(cycles(planted).some((c) => c.includes("sim/planted.ts") && c.includes("harness/runner.ts"))).toBe(true);
  });
});
