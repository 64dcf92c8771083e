import { describe, expect, it } from "vitest";
import { Command } from "commander";
import { COMMANDS } from "../cli/commands/index.js";
import { buildProgram } from "../cli/main.js";
import { EXIT } from "../harness/exit-codes.js";
import { defaultWorkers } from "../harness/sweep/threads.js";

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

// Every command's --help ends with its exit codes and shows defaults as a user types them.
describe("each command's --help", () => {
  const helpOf = async (name: string): Promise<string> => {
    let text = "";
    const program = await buildProgram([name]);
    const cmd = program.commands.find((c) => c.name() === name)!;
    cmd.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
    cmd.outputHelp();
    return text;
  };

  for (const spec of COMMANDS) {
    it(`${spec.name}: exit codes, 2 and 1 among them; no default printed as a quoted string`, async () => {
      const help = await helpOf(spec.name);
      const codes = help.slice(help.indexOf("\nExit codes:\n"));
      expect(help).toContain("\nExit codes:\n");
      const listed = [...codes.matchAll(/^ {2}( {0,2}\d{1,3}) /gm)].map((m) => Number(m[1]));
      expect(listed).toEqual(expect.arrayContaining([EXIT.badInput, EXIT.internal]));
      expect(new Set(listed).size, "each code once").toBe(listed.length);
      expect(help).not.toMatch(/\(default: "/);
      // One way to say a default: "(default: X)", never "(default X)".
      expect(help.replace(/\s+/g, " ")).not.toMatch(/\(default [^:]/);
    });
  }

  it("a required option says so: compare's and sweep's --seeds, explore's --design", async () => {
    for (const [name, flag] of [
      ["compare", "--seeds <N|A..B>"],
      ["sweep", "--seeds <A..B>"],
      ["explore", "--design <name>"],
    ] as const) {
      const help = (await helpOf(name)).replace(/\s+/g, " ");
      const line = help.slice(help.indexOf(` ${flag} `), help.indexOf(" --", help.indexOf(` ${flag} `) + 3));
      expect(line, name).toMatch(/\(required\)$/);
    }
    // Only the mandatory ones.
    expect((await helpOf("compare")).match(/\(required\)/g)).toHaveLength(1);
  });

  it("audit lists 9 (your code); real lists 7, 1 for an invalid run, and 130; run lists 7 and 8; sweep's --workers shows this machine's number", async () => {
    expect(await helpOf("audit")).toMatch(/\n {4}9 some attack was unsafe on the lock under test/);
    const real = await helpOf("real");
    for (const c of [7, 1, 130]) expect(real).toMatch(new RegExp(`\\n {2}${String(c).padStart(3)} `));
    const run = await helpOf("run");
    for (const c of [7, 8]) expect(run).toMatch(new RegExp(`\\n {4}${c} `));
    expect(await helpOf("sweep")).toMatch(new RegExp(`\\(default: ${defaultWorkers()}, this machine's cores\\)`));
    expect(await helpOf("compare")).toMatch(/--out <dir> +output directory \(default: runs\/compare\)/);
  });
});
