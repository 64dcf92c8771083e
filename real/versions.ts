// Versions of what a real run ran on: each server binary (`redis-server --version`), asked
// once per driver process, bounded.
import { execFileSync } from "node:child_process";
import { findBinary, type RequiredBinary } from "./servers/binaries.js";

const cache = new Map<string, string>();
const VERSION_TIMEOUT_MS = 5_000;

/** e.g. "Redis server v=7.0.15 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64 build=…" → "7.0.15" with the full line kept. */
export function serverVersion(binary: RequiredBinary): { binary: string; path: string; version: string; line: string } {
  const path = findBinary(binary);
  let line = cache.get(path);
  if (line === undefined) {
    try {
      line =
        execFileSync(path, ["--version"], { encoding: "utf8", timeout: VERSION_TIMEOUT_MS, stdio: ["ignore", "pipe", "pipe"] })
          .trim()
          .split("\n")[0] ?? "";
    } catch (err) {
      line = `unknown (${(err as Error).message.split("\n")[0]})`;
    }
    cache.set(path, line);
  }
  const m = /v=(\d+\.\d+\.\d+)/.exec(line) ?? /(\d+\.\d+\.\d+)/.exec(line);
  return { binary, path, version: m ? m[1]! : "unknown", line };
}
