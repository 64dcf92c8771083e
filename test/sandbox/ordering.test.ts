/**
 * Node's own ordering, differentially: the probes in ordering-probes.cjs run in real
 * Node (a child process) and in a sandbox realm on a simulated process, and each logs
 * the same order in both. The orders are printed.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Simulation, type ProcessContext } from "../../sim/simulation.js";
import { Realm } from "../../sim/sandbox/realm.js";
import { ModuleLoader } from "../../sim/sandbox/module-loader.js";

const PROBES = join(__dirname, "ordering-probes.cjs");

function inNode(): Record<string, string[]> {
  const src = `require(${JSON.stringify(PROBES)}).run((r) => process.stdout.write(JSON.stringify(r)))`;
  return JSON.parse(execFileSync(process.execPath, ["-e", src], { encoding: "utf8" })) as Record<string, string[]>;
}

function inSandbox(): Record<string, string[]> | undefined {
  const sim = new Simulation({ seed: "ordering" });
  let ctx!: ProcessContext;
  sim.addProcess("c1", "client", {}, (c) => {
    ctx = c;
    return {};
  });
  const rng = ctx.rng.fork("sandbox/1");
  const realm = new Realm({
    processId: "c1",
    wallMs: () => ctx.wallMs(),
    monoUs: () => ctx.monoUs(),
    setTimer: (us, fn) => {
      const h = ctx.setTimerUs(us, fn);
      return { cancel: () => ctx.cancelTimer(h) };
    },
    random: () => rng.float(),
  });
  const loader = new ModuleLoader(realm, new Map(), __dirname);
  let result: Record<string, string[]> | undefined;
  realm.enter("ordering probes", () => {
    const mod = loader.load(PROBES) as { run(report: (r: unknown) => void): void };
    mod.run((r) => {
      result = JSON.parse(JSON.stringify(r)) as Record<string, string[]>;
    });
  });
  sim.run(5_000_000);
  return result;
}

describe("ordering probes: the sandbox orders callbacks as Node does", () => {
  it("every probe logs the same order in real Node and in the sandbox", () => {
    const node = inNode();
    const sandbox = inSandbox();
    expect(sandbox).toBeDefined();
    const names = Object.keys(node);
    expect(names.length).toBeGreaterThanOrEqual(10);
    const rows = names.map(
      (n) =>
        `  ${JSON.stringify(node[n]) === JSON.stringify(sandbox![n]) ? "agree" : "DIFFER"}  ${n}: node ${node[n].join(" > ")} | sandbox ${(sandbox![n] ?? []).join(" > ")}`,
    );
    console.log(`ordering probes (${names.length}):\n${rows.join("\n")}`);
    for (const n of names) expect(sandbox![n], n).toEqual(node[n]);
  });
});
