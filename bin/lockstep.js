#!/usr/bin/env node
// The installed command: runs the compiled CLI (npm run build writes dist/).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
const entry = new URL("../dist/cli/main.js", import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write("lockstep: not built yet; run `npm run build` first\n");
  process.exit(1);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
