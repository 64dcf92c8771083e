/**
 * EDN import keeps values exact and distinct: big integers, keywords vs strings,
 * characters; the reader takes discards and character literals; registers may start at
 * a given value. Each conflation case is judged invalid.
 */
import { describe, expect, it } from "vitest";
import { parseEdnHistory } from "../../checkers/import/edn.js";
import { canonicalEdn, ednValue } from "../../checkers/import/edn-values.js";
import { linearizability } from "../../checkers/linearizability/index.js";

/** A write then a read by two processes, in Knossos' vector form. */
const writeRead = (written: string, read: string): string =>
  `[{:process 0, :type :invoke, :f :write, :value ${written}}
    {:process 0, :type :ok, :f :write, :value ${written}}
    {:process 1, :type :invoke, :f :read, :value nil}
    {:process 1, :type :ok, :f :read, :value ${read}}]`;
const judged = (edn: string, initialValue?: unknown) =>
  linearizability(parseEdnHistory(edn, "h.edn"), { model: "register", ...(initialValue !== undefined ? { initialValue } : {}) }).valid;

describe("EDN values, exact", () => {
  it("integers above 2^53 stay exact: a read of a neighbour is not the write", () => {
    expect(judged(writeRead("9007199254740993", "9007199254740993"))).toBe(true);
    expect(judged(writeRead("9007199254740993", "9007199254740992"))).toBe(false);
    expect(judged(writeRead("12345678901234567890N", "12345678901234567891"))).toBe(false);
    expect(judged(writeRead("5N", "5"))).toBe(true); // as Clojure: (= 5N 5)
  });

  it("keywords, strings, symbols and characters are told apart", () => {
    expect(judged(writeRead(":a", ":a"))).toBe(true);
    expect(judged(writeRead(":a", '"a"'))).toBe(false);
    expect(judged(writeRead("a", '"a"'))).toBe(false);
    expect(judged(writeRead("\\a", '"a"'))).toBe(false);
    expect(judged(writeRead("\\]", "\\]"))).toBe(true);
    expect(canonicalEdn(ednValue('[:a "a" a \\a \\newline 9007199254740993]'))).toBe('[:a "a" a \\a \\u000a 9007199254740993]');
  });

  it("reads discards and character literals, at the top and inside forms", () => {
    const edn = `#_ {:process 9, :type :invoke, :f :write, :value 1}
{:process 0, :type :invoke, :f :write, :value \\] #_ :ignored}
; a comment
{:process 0, :type :ok, :f :write, :value \\]}`;
    const h = parseEdnHistory(edn, "h.edn");
    expect(h.map((e) => [e.process, e.type, canonicalEdn(e.value)])).toEqual([
      ["0", "invoke", "\\]"],
      ["0", "ok", "\\]"],
    ]);
  });

  it("a register may start at a given value, as Knossos' registers starting at 0", () => {
    const readFirst = `[{:process 1, :type :invoke, :f :read, :value nil} {:process 1, :type :ok, :f :read, :value 0}]`;
    expect(judged(readFirst)).toBe(false);
    expect(judged(readFirst, 0)).toBe(true);
    expect(judged(readFirst, ednValue(":zero"))).toBe(false);
  });
});

describe("check --initial-value", () => {
  it("takes an EDN value, and refuses one it cannot read, naming the flag", async () => {
    const { main } = await import("../../cli/main.js");
    const { writeFileSync, mkdtempSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { tmpdir } = await import("node:os");
    const file = join(mkdtempSync(join(tmpdir(), "edn-init-")), "h.edn");
    writeFileSync(file, `[{:process 1, :type :invoke, :f :read, :value nil} {:process 1, :type :ok, :f :read, :value 0}]`);
    const err: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    const out = process.stdout.write.bind(process.stdout);
    process.stderr.write = ((s: string) => (err.push(String(s)), true)) as typeof process.stderr.write;
    process.stdout.write = (() => true) as typeof process.stdout.write;
    try {
      expect(await main(["check", file, "--model", "register", "--initial-value", "0"])).toBe(0);
      expect(await main(["check", file, "--model", "register"])).toBe(3);
      expect(await main(["check", file, "--model", "register", "--initial-value", "{:a"])).toBe(2);
    } finally {
      process.stderr.write = write;
      process.stdout.write = out;
    }
    expect(err.join("")).toMatch(/--initial-value: .*one EDN or JSON value/);
  });
});
