import { describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../cli/main.js";
import { EXIT } from "../cli/exit-codes.js";
import { printable } from "../cli/printable.js";
import { captureStdio } from "./helpers/capture-stdio.js";

const io = captureStdio();
const tmp = () => mkdtempSync(join(tmpdir(), "lockstep-hostile-"));
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe("messages from data print as one plain line", () => {
  it("printable escapes newlines, NULs and terminal escapes, and leaves plain text alone", () => {
    expect(printable("a\nb\u0000c\u001b]0;owned\u0007d\u009b2J")).toBe("a\\nb\\x00c\\x1b]0;owned\\x07d\\x9b2J");
    expect(printable("order:123 — ok")).toBe("order:123 — ok");
  });

  it("a scenario file of terminal escapes and NULs that is not JSON: exit 2, one line, no raw control characters", async () => {
    const file = join(tmp(), "evil.json");
    writeFileSync(file, '{"name": "\u001b[2J\u001b]0;pwned\u0007\u0000x');
    expect(await main(["run", file])).toBe(EXIT.badInput);
    expect(io.err).toMatch(/evil\.json: \(file\): expected valid JSON/);
    expect(io.err.trimEnd().split("\n")).toHaveLength(1);
    expect(io.err).not.toMatch(CONTROL);
  });

  it("a scenario name with escapes is echoed escaped", async () => {
    expect(await main(["run", "nope\u001b[2J"])).toBe(EXIT.badInput);
    expect(io.err).toContain("nope\\x1b[2J");
    expect(io.err).not.toMatch(CONTROL);
  });

  it("a scenario nested 100,000 deep is refused by depth, not by a stack overflow", async () => {
    const file = join(tmp(), "deep.json");
    writeFileSync(file, "[".repeat(100_000) + "]".repeat(100_000));
    expect(await main(["run", file])).toBe(EXIT.badInput);
    expect(io.err).toMatch(/deep\.json: \(file\): expected JSON nested at most 64 deep/);
  });
  // Each of these reached the event queue as time Infinity (exit 1, a stack trace).
  const base = { name: "huge", design: "redis-setnx", durationMs: 1000, clients: 1, workload: { locks: ["L"], ttlMs: 100 } };
  const huge: [string, Record<string, unknown>, RegExp][] = [
    ["a fault's atMs", { ...base, faults: [{ kind: "pause", target: "c1", atMs: 1e308, durationMs: 10 }] }, /faults\[0\]\.atMs: expected a number >= 0, at most 1000000000000 in size/],
    ["a fault's durationMs", { ...base, faults: [{ kind: "pause", target: "c1", atMs: 1, durationMs: 1e308 }] }, /faults\[0\]\.durationMs: expected a number >= 0, at most/],
    ["workload.ttlMs", { ...base, workload: { locks: ["L"], ttlMs: 1e308 } }, /workload\.ttlMs: expected an integer >= 1, at most/],
    ["workload.thinkMs", { ...base, workload: { locks: ["L"], ttlMs: 100, thinkMs: 1e308 } }, /workload\.thinkMs: expected a number >= 0, at most/],
    ["a clock's offsetMs", { ...base, clocks: { c1: { offsetMs: -1e308 } } }, /clocks\.c1\.offsetMs: expected a number, at most/],
  ];
  for (const [what, scenario, message] of huge) {
    it(`${what} of 1e308 is refused by the validator: exit 2, one line naming the field`, async () => {
      const file = join(tmp(), "huge.json");
      writeFileSync(file, JSON.stringify(scenario));
      expect(await main(["run", file, "--out", join(tmp(), "out")])).toBe(EXIT.badInput);
      expect(io.err).toMatch(message);
      expect(io.err.trimEnd().split("\n")).toHaveLength(1);
      expect(io.err).not.toMatch(/\n\s+at /);
    });
  }
});
