import { spawn } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * `lockstep audit --help | head -3`: the reader goes away while lockstep still writes. An
 * unbundled command (audit is not in the start-up bundle) wrote through process.stdout and
 * died of the unhandled EPIPE with a stack trace about half the time; the rest of the output
 * has nowhere to go, and lockstep ends quietly instead.
 */
const bin = resolve(dirname(fileURLToPath(import.meta.url)), "../bin/lockstep.js");

function readOneChunkThenClose(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.stdout.once("data", () => child.stdout.destroy());
    child.on("close", (code) => done({ code, stderr }));
  });
}

describe("a reader that goes away", () => {
  it("`audit --help` read one chunk at a time and cut off: no stack trace, exit 0 (8 tries)", async () => {
    for (let i = 0; i < 8; i++) {
      const { code, stderr } = await readOneChunkThenClose(["audit", "--help"]);
      expect(stderr, `try ${i + 1}`).toBe("");
      expect(code, `try ${i + 1}`).toBe(0);
    }
  });
});
