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
});
