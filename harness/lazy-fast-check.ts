import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type * as FastCheck from "fast-check";

/**
 * fast-check, loaded at first use: only scenarios with a nemesis (and explore, shrink)
 * draw from it, and loading it costs every process and sweep thread ~26 ms. It is the
 * package's ES module build, required synchronously (Node >= 20.19 requires ES modules),
 * so it is the very instance `import fc from "fast-check"` gives elsewhere: arbitraries
 * built here and run by another module's fc.assert come from one copy of fast-check.
 * Older Node cannot require an ES module; there the CommonJS build is the fallback.
 */
let loaded: typeof FastCheck | undefined;

export function fastCheck(): typeof FastCheck {
  if (loaded) return loaded;
  const req = createRequire(import.meta.url);
  const pkgFile = req.resolve("fast-check/package.json");
  const pkg = JSON.parse(readFileSync(pkgFile, "utf8")) as { exports: { ".": { import: { default: string } } } };
  try {
    loaded = (req(join(dirname(pkgFile), pkg.exports["."].import.default)) as { default: typeof FastCheck }).default;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ERR_REQUIRE_ESM") throw e;
    loaded = req("fast-check") as typeof FastCheck;
  }
  return loaded;
}
