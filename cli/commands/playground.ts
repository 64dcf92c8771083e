import type { Command } from "commander";
import { join } from "node:path";
import { writePlayground } from "../../playground/write.js";
import { printableLines } from "../../terminal/printable.js";

/**
 * `lockstep playground`: write the teaching page (DIR/index.html), which runs the
 * simulator, the built-in designs and the checkers in the browser, offline.
 */
export function registerPlayground(program: Command): void {
  program
    .command("playground")
    .description("write an offline page that runs the simulator in the browser: edit a scenario's faults, watch the verdict change")
    .option("--out <dir>", "directory for index.html (default: runs/playground)")
    .option("--force", "replace an index.html in --out that lockstep did not write")
    .action(async (opts: { out?: string; force?: boolean }) => {
      const dir = opts.out ?? join("runs", "playground");
      const path = await writePlayground(dir, { force: opts.force ?? false });
      process.stdout.write(printableLines(`wrote ${path}\nopen it in a browser: everything runs in the page, no server, no network\n`));
    });
}
