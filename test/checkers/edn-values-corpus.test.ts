/**
 * The corpus of composite EDN values (test/fixtures/edn-values/): each case is a pair of
 * register histories, NAME.valid.edn and NAME.invalid.edn, that differ only in the value
 * read back (or cas'd from). Maps and sets compare order-insensitively, a set never
 * equals a vector, keywords are not strings, tagged literals keep their tag, big integers
 * are exact at any depth, and lockstep's {value}/{counter} unwrap never touches them.
 * Written before the value model it tests; a false alarm fails as surely as a miss.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseEdnHistory } from "../../checkers/import/edn.js";
import { linearizability } from "../../checkers/linearizability/index.js";
import { modelForHistory } from "../../checkers/applicable.js";
import { parseJsonlHistory } from "../../checkers/import/jsonl.js";

const DIR = join(import.meta.dirname, "../fixtures/edn-values");
const files = readdirSync(DIR).filter((f) => f.endsWith(".edn"));

function verdictOf(file: string): unknown {
  const independent = file.startsWith("independent-");
  const h = parseEdnHistory(readFileSync(join(DIR, file), "utf8"), file, { independent });
  return linearizability(h, { model: modelForHistory(h, {}) }).valid;
}

describe("composite EDN values: the corpus", () => {
  it("has a valid and an invalid history for every case", () => {
    const names = new Set(files.map((f) => f.replace(/\.(in)?valid\.edn$/, "")));
    expect(names.size).toBeGreaterThanOrEqual(30);
    for (const n of names)
      expect(
        [`${n}.valid.edn`, `${n}.invalid.edn`].every((f) => files.includes(f)),
        n,
      ).toBe(true);
  });

  for (const file of files) {
    const want = file.endsWith(".invalid.edn") ? false : true;
    it(`${file} is ${want ? "linearizable" : "not linearizable"}`, () => {
      expect(verdictOf(file)).toBe(want);
    });
  }
});

describe("lockstep's own JSON history keeps its unwrap, and only its own shape", () => {
  const jsonl = (written: unknown, read: unknown) =>
    [
      { timeUs: 0, process: "c1", type: "invoke", f: "write", value: written },
      { timeUs: 1, process: "c1", type: "ok", f: "write" },
      { timeUs: 2, process: "c2", type: "invoke", f: "read" },
      { timeUs: 3, process: "c2", type: "ok", f: "read", value: read },
    ]
      .map((e) => JSON.stringify(e))
      .join("\n");
  const judge = (written: unknown, read: unknown) => linearizability(parseJsonlHistory(jsonl(written, read), "h.jsonl"), { model: "register" }).valid;

  it("a write {grantId, token, counter} is read back as {counter}", () => {
    expect(judge({ grantId: "c1#1", token: 3, counter: 5 }, { counter: 5 })).toBe(true);
    expect(judge({ grantId: "c1#1", token: 3, counter: 5 }, { counter: 4 })).toBe(false);
  });

  it("a JSON document with more than lockstep's fields is compared whole", () => {
    expect(judge({ value: 1, version: 1 }, { version: 1, value: 1 })).toBe(true);
    expect(judge({ value: 1, version: 1 }, { value: 1, version: 999 })).toBe(false);
  });
});
