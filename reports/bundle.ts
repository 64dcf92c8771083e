import { buildSync } from "esbuild";
import { join } from "node:path";
import { packageRoot } from "../sim/paths.js";

/**
 * The pages' browser code (reports/browser/, TypeScript type-checked by `npm run
 * build`) bundled by esbuild into one inline script, with the parts of d3 it imports.
 * Built on the first render in a process and kept: it needs only the sources and
 * node_modules, so it works from a fresh clone, and the same sources give the same
 * bytes, so a report stays a pure function of its run.
 */
const cache = new Map<string, string>();

export function browserScript(entry: "run"): string {
  let js = cache.get(entry);
  if (js === undefined) {
    js = buildBrowserScript(entry);
    cache.set(entry, js);
  }
  return js;
}

/** One esbuild run, uncached (the tests check two give the same bytes). */
export function buildBrowserScript(entry: "run"): string {
  const file = join(packageRoot(), "reports", "browser", entry, "main.ts");
  const out = buildSync({
    entryPoints: [file],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2018",
    minify: true,
    write: false,
    legalComments: "none",
    charset: "utf8",
    logLevel: "silent",
  });
  // Inline code must not contain "</script" (a string in d3 or ours could).
  return out.outputFiles[0]!.text.replace(/<\/script/gi, "<\\/script");
}
