#!/usr/bin/env node
// The installed command: runs the compiled CLI (npm run build writes dist/). `check` runs
// from the bundle (dist/cli/bundle/, cli/bundle.ts: a few files to load instead of forty,
// for start-up); every other command, and the help (which loads little and measured no
// faster bundled, bench/startup.ts), from dist/cli/main.js.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
const argv = process.argv.slice(2);
const fromBundle = argv[0] === "check";
const entry = new URL("../dist/cli/main.js", import.meta.url);
const bundled = new URL("../dist/cli/bundle/main.js", import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write("lockstep: not built yet; run `npm run build` first\n");
  process.exit(1);
}
const { main } = await import((fromBundle && existsSync(fileURLToPath(bundled)) ? bundled : entry).href);
process.exitCode = await main(argv);
