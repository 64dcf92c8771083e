import { describe, expect, it } from "vitest";
import { colourVerdicts, colourWanted } from "../../cli/colour.js";

describe("verdict colour", () => {
  const text = "lockstep run x\n  ok   mutual-exclusion   fine\n  FAIL fencing            bad\n  n/a  liveness           none\noutcome: FAIL ok\n";

  it("is wanted only on a TTY with NO_COLOR unset or empty", () => {
    expect(colourWanted({ isTTY: true }, {})).toBe(true);
    expect(colourWanted({ isTTY: true }, { NO_COLOR: "" })).toBe(true);
    expect(colourWanted({ isTTY: true }, { NO_COLOR: "1" })).toBe(false);
    expect(colourWanted({ isTTY: false }, {})).toBe(false);
    expect(colourWanted({}, {})).toBe(false);
  });

  it("colours the marks at the start of verdict lines and nothing else; off leaves the text as it was", () => {
    expect(colourVerdicts(text, false)).toBe(text);
    const on = colourVerdicts(text, true);
    expect(on).toContain("  \u001b[32mok\u001b[0m   mutual-exclusion");
    expect(on).toContain("  \u001b[31;1mFAIL\u001b[0m fencing");
    expect(on).toContain("  \u001b[33mn/a\u001b[0m  liveness");
    expect(on).toContain("\noutcome: FAIL ok\n");
    // Without the escapes it is the same text, column for column.
    // eslint-disable-next-line no-control-regex -- the terminal escapes are what is stripped
    expect(on.replace(/\u001b\[[0-9;]*m/g, "")).toBe(text);
  });
});
