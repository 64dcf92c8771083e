/**
 * Build step (`npm run build` runs it after tsc): bundles the compiled CLI, dist/cli/main.js,
 * into dist/cli/bundle/ with esbuild, one chunk per lazily loaded command. Node's ES module
 * loader pays per file (resolve, an asynchronous read, compile, link; commander's CommonJS
 * files through the export lexer), and a `check` of a tiny history loads about forty files:
 * bundled, start-up is a handful. bin/lockstep.js sends `check` here and every other
 * command to the unbundled dist/cli/main.js, so the code that finds files by its own location
 * (`import.meta.url`: the sweep's worker, real mode's child) keeps running from where tsc put it.
 *
 * Packages stay external except commander and edn-data (small, pure JavaScript), so
 * what the sandbox and real mode require is found in node_modules as before.
 */
import { build } from "esbuild";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { packageRoot } from "../sim/paths.js";

const BUNDLED_PACKAGES = new Set(["commander", "edn-data"]);

export async function bundleCli(root = packageRoot()): Promise<string> {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Record<string, Record<string, string> | undefined>;
  const external = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).filter((name) => !BUNDLED_PACKAGES.has(name));
  const outdir = join(root, "dist", "cli", "bundle");
  rmSync(outdir, { recursive: true, force: true });
  await build({
    entryPoints: [join(root, "dist", "cli", "main.js")],
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    external,
    // commander's CommonJS requires node:events etc.; an ES module bundle needs a require for them.
    banner: { js: 'import { createRequire as __lockstepCreateRequire } from "node:module"; const require = __lockstepCreateRequire(import.meta.url);' },
    logLevel: "warning",
  });
  return outdir;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  bundleCli().catch((e: unknown) => {
    process.stderr.write(`lockstep: bundling the CLI failed: ${String((e as Error)?.message ?? e)}\n`);
    process.exitCode = 1;
  });
}
