import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../sim/paths.js";

/** lockstep's version, from package.json (its own module so start-up loads nothing else for it). */
export function lockstepVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version: string }).version;
}
