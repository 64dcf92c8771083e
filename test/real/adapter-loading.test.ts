// Real mode accepts every adapter `lockstep run` accepts, compiled the same way, and refuses
// a bad one as `run` does: the shipped example (a TypeScript adapter importing a sibling
// TypeScript file as "./my-lock.js") runs on real Redis and comes out as in the simulator; an
// adapter whose require finds nothing, that has no create(), whose create() returns the wrong
// shape, that does not compile (esbuild's reason, at its line), or whose code throws while loading gets `run`'s own one line
// and exit code (2, or 7 for code that threw) — never exit 1, never a stack trace. Each real
// run is started on its own, one after another (a redis-server and two client processes).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { hangBoundMs } from "../helpers/hang-bound.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const cliChild = resolve(here, "../helpers/cli-child.ts");
const scratch = mkdtempSync(join(tmpdir(), "lockstep-adapter-loading-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The lockstep CLI from sources; its exit code and output. */
function cli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ["--import", "tsx", cliChild, ...args], { cwd: root, encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const BAD: Record<string, string> = {
  "missing-sibling.ts": `import { X } from "./nope.js";\nexport default { create() { return X; } };\n`,
  "missing-package.ts": `import x from "no-such-package-lockstep-test";\nexport default { create() { return x; } };\n`,
  "no-create.mjs": `export const foo = 1;\n`,
  "bad-shape.cjs": `module.exports = { create() { return {}; } };\n`,
  "syntax.ts": `export const x: = 1;\n`,
  "throws-at-load.ts": `throw new Error("boom at load");\nexport default {};\n`,
  "create-throws.ts": `export default { create() { throw new Error("cannot create"); } };\n`,
};

describe("real mode loads adapters as the simulator does", () => {
  it(
    "the shipped multi-file TypeScript example (adapter.ts imports ./my-lock.js) runs on real Redis: unsafe under the GC pause, as in `run`",
    () => {
      const sim = cli(["run", "naive-gc-pause", "--lock", "examples/my-lock/adapter.ts", "--out", join(scratch, "sim")]);
      const real = cli(["real", "naive-gc-pause", "--lock", "examples/my-lock/adapter.ts", "--time-scale", "0.2", "--out", join(scratch, "real")]);
      expect(sim.code, sim.stderr).toBe(3);
      // The SIGSTOP outlives the TTL by 2 s (scaled ×0.2: 3 s against 1 s), so the real run is unsafe too.
      expect(real.code, real.stderr).toBe(3);
      expect(real.stdout).toMatch(/outcome: unsafe \(expected: unsafe/);
      expect(real.stdout).toMatch(/versions: .*ioredis \d+\.\d+\.\d+/);
    },
    hangBoundMs(300_000),
  );

  it(
    "a bad adapter gets the simulator's one line and exit code in real mode (2, or 7 when its code threw), never 1",
    () => {
      const dir = join(scratch, "bad");
      mkdirSync(dir);
      for (const [name, source] of Object.entries(BAD)) {
        const file = join(dir, name);
        writeFileSync(file, source);
        const sim = cli(["run", "naive-baseline", "--lock", file, "--out", join(dir, `sim-${name}`)]);
        const real = cli(["real", "naive-baseline", "--lock", file, "--time-scale", "0.2", "--out", join(dir, `real-${name}`)]);
        const expected = name.includes("throws") ? 7 : 2;
        expect(sim.code, `${name}: ${sim.stderr}`).toBe(expected);
        expect(real.code, `${name}: ${real.stderr}`).toBe(expected);
        // The simulator adds its seed and replay lines to a stopped run; the reason line is the same.
        // Every client loads the adapter; which one's report the driver reads first is chance.
        const firstLine = (s: string) =>
          s
            .trim()
            .split("\n")[0]!
            .replace(/library code on c\d+/, "library code on c?");
        expect(firstLine(real.stderr), name).toBe(firstLine(sim.stderr));
        expect(real.stderr.trim().split("\n"), name).toHaveLength(1);
        expect(real.stderr, name).toContain(file);
        expect(real.stderr, name).not.toMatch(/\n\s+at /);
        // esbuild's own reason at its line and column, not its "Transform failed with 1 error:".
        if (name === "syntax.ts") expect(real.stderr).toMatch(/syntax\.ts: line 1, column 17: a module esbuild can compile \(Unexpected "="\)/);
      }
    },
    hangBoundMs(600_000),
  );
});
