// The version of an npm package as this process resolves it (what it actually loads).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);

export function packageVersion(name: string): string {
  // Walk up from the package's main file to its package.json (not every package exports it).
  let dir = dirname(require.resolve(name));
  for (let i = 0; i < 8; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string; version?: string };
      if (pkg.name === name && typeof pkg.version === "string") return pkg.version;
    } catch {
      /* no package.json here: go up */
    }
    dir = dirname(dir);
  }
  return "unknown";
}
