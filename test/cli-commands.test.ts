import { describe, expect, it } from "vitest";
import { Command } from "commander";
import { COMMANDS } from "../cli/commands/index.js";
import { buildProgram } from "../cli/main.js";

// The top-level help is built from cli/commands/index.ts without loading any command;
// each summary must say what the loaded command says of itself.
describe("lazy command registry", () => {
  for (const spec of COMMANDS) {
    it(`${spec.name}: the summary matches the loaded command's usage and description`, async () => {
      const program = new Command();
      (await spec.load())(program);
      const real = program.commands.find((c) => c.name() === spec.name);
      expect(real, `${spec.name} registers a command of that name`).toBeDefined();
      expect(real!.description()).toBe(spec.summary);
      const args = real!.registeredArguments.map((a) => {
        const name = a.name() + (a.variadic ? "..." : "");
        return a.required ? `<${name}>` : `[${name}]`;
      });
      expect(args.join(" ")).toBe(spec.args);
    });
  }

  it("loads only the command asked for, and summaries for the rest", async () => {
    const program = await buildProgram(["list"]);
    const run = program.commands.find((c) => c.name() === "run")!;
    // The summary stub for `run` has no options: its module was never loaded.
    expect(run.options).toHaveLength(0);
    const full = await buildProgram(["run"]);
    expect(full.commands.find((c) => c.name() === "run")!.options.length).toBeGreaterThan(0);
  });
});
