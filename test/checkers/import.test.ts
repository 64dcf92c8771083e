import { inputErrorOf } from "../helpers/input-error.js";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseEdnHistory } from "../../checkers/import/edn.js";
import { parseJsonlHistory } from "../../checkers/import/jsonl.js";
import { historyToJsonl } from "../../sim/history.js";

const text = (name: string): string => readFileSync(new URL(`../fixtures/histories/${name}`, import.meta.url), "utf8");

const inputError = inputErrorOf;

describe("import: JSONL", () => {
  it("round-trips our own format byte for byte", () => {
    const t = text("mutex-many-info.jsonl");
    expect(historyToJsonl(parseJsonlHistory(t, "x.jsonl"))).toBe(t);
  });

  it("names the line of a malformed event", () => {
    const e = inputError(() => parseJsonlHistory(text("malformed-line3.jsonl"), "malformed-line3.jsonl"));
    expect(e.message).toMatch(/^malformed-line3\.jsonl: line 3: a JSON object/);
  });

  it.each([
    ['{"timeUs":-1,"process":"c1","type":"invoke","f":"acquire"}', "line 1: timeUs"],
    ['{"timeUs":0,"process":"c1","type":"done","f":"acquire"}', "line 1: type"],
    ['{"timeUs":0,"process":"","type":"ok","f":"acquire"}', "line 1: process"],
    ['{"timeUs":0,"process":"c1","type":"ok"}', "line 1: f"],
    ['{"timeUs":0,"process":"c1","type":"ok","f":"x","lock":3}', "line 1: lock"],
    ['{"timeUs":0,"process":"c1","type":"ok","f":"x","colour":"red"}', "line 1: colour"],
    ['{"index":0,"timeUs":0,"process":"c1","type":"ok","f":"x","lock":"L","value":null,"colour":"red"}', "line 1: colour"],
    ['{"timeUs":0,"process":"c1","type":"ok","f":"x","value":1,"__proto__":{"lock":"L"}}', "line 1: __proto__"],
    ['{"index":5,"timeUs":0,"process":"c1","type":"ok","f":"x"}', "line 1: index"],
    ['{"timeUs":9,"process":"c1","type":"ok","f":"x"}\n\n{"timeUs":3,"process":"c1","type":"ok","f":"x"}', "line 3: timeUs"],
    ["[1,2]", "line 1"],
  ])("rejects %s at %s", (line, where) => {
    expect(inputError(() => parseJsonlHistory(line, "h.jsonl")).field).toBe(where);
  });
});

describe("import: JSONL pairing", () => {
  const ev = (o: Record<string, unknown>): string => JSON.stringify({ timeUs: 0, ...o });
  it.each([
    [[ev({ process: "c1", type: "ok", f: "acquire" })], "line 1: type"],
    [[ev({ process: "c1", type: "invoke", f: "read" }), ev({ process: "c1", type: "invoke", f: "write" })], "line 2: type"],
    [[ev({ process: "c1", type: "invoke", f: "read" }), "", ev({ process: "c1", type: "ok", f: "write" })], "line 3: f"],
  ])("refuses %j at %s", (lines, where) => {
    expect(inputError(() => parseJsonlHistory(lines.join("\n"), "h.jsonl")).field).toBe(where);
  });

  it("accepts annotations with no invoke, and a restarted client invoking with its old op unanswered", () => {
    const h = [
      ev({ process: "c1", type: "invoke", f: "acquire" }),
      ev({ process: "c1", type: "info", f: "lapse", value: { grantId: "c1#1" } }),
      ev({ process: "nemesis", type: "info", f: "crash", value: { phase: "start", targets: ["c1"] } }),
      ev({ process: "c1", type: "invoke", f: "acquire" }),
      ev({ process: "storage", type: "ok", f: "storage-write" }),
    ].join("\n");
    expect(parseJsonlHistory(h, "h.jsonl")).toHaveLength(5);
  });
});

describe("import: Jepsen EDN", () => {
  it("reads one map per line: ns to µs, process as string, default lock, unknown keys kept", () => {
    const h = parseEdnHistory(text("jepsen-lock-ok.edn"), "jepsen-lock-ok.edn");
    expect(h).toHaveLength(12);
    expect(h[0]).toEqual({ index: 0, timeUs: 1000, process: "0", type: "invoke", f: "acquire", lock: "lock" });
    expect(h[1].extra).toEqual({ node: "n1" });
    expect(h[3]).toMatchObject({ process: "nemesis", type: "info", f: "partition", value: { phase: "start", targets: ["n3"] } });
    expect(h[8]).toMatchObject({ type: "info", extra: { error: "timeout" } });
  });

  it("marks a completion stamped before its own invoke with its own time, clampedFromUs; no other event", () => {
    const file = new URL("../fixtures/jepsen/lock-double-grant.edn", import.meta.url);
    const h = parseEdnHistory(readFileSync(file, "utf8"), "lock-double-grant.edn");
    // Line 6: process 1 invoked at 30498211 ns and completed at 30231904 ns: raised to 1 µs after its invoke.
    expect(h[5]).toMatchObject({ process: "1", type: "ok", f: "acquire", timeUs: 30_499, clampedFromUs: 30_231 });
    expect(h.filter((e) => e.clampedFromUs !== undefined)).toHaveLength(1);
    // An invoke raised past another process's later stamp is file order, not a clamp.
    expect(
      parseEdnHistory("{:type :invoke, :f :read, :process 0, :time 5000}\n{:type :invoke, :f :read, :process 1, :time 4000}", "x.edn")[1],
    ).not.toHaveProperty("clampedFromUs");
  });

  it("reads a vector of maps, and histories without :time keep their order", () => {
    const h = parseEdnHistory(text("cas-register-ok.edn"), "cas-register-ok.edn");
    expect(h.map((e) => e.timeUs)).toEqual(h.map((_, i) => i));
    expect(h[2]).toMatchObject({ f: "cas", value: [1, 2] });
  });

  it("takes the lock from the op or its value", () => {
    const h = parseEdnHistory(
      '{:process 0 :type :invoke :f :acquire :value {:lock "a"} :time 0}\n{:process 1 :type :invoke :f :acquire :lock :b :time 5}',
      "h.edn",
    );
    expect(h.map((e) => e.lock)).toEqual(["a", "b"]);
  });

  it.each([
    ["malformed-unclosed.edn", "line 3"],
    ["malformed-type.edn", "line 2: :type"],
  ])("%s is rejected at %s", (file, where) => {
    const e = inputError(() => parseEdnHistory(text(file), file));
    expect(e.field).toBe(where);
    expect(e.message.startsWith(`${file}: ${where}: `)).toBe(true);
  });

  it.each([
    ["{:process 0 :type :invoke :f :acquire :time 5}\n{:process 0 :type :ok :f :acquire}", "line 2: :time"],
    ["{:process 0 :type :invoke :f :acquire :time 5}\n{:process 0 :type :ok :f :acquire :time -1}", "line 2: :time"],
    ["{:process 0 :type :invoke :f :acquire}\n42", "line 2"],
    ["{:process 0 :type :invoke :f :acquire}\n{:process 0 :type :ok :f :acquire]}", "line 2"],
    ['{:process 0 :type :invoke :f "acquire}', "line 1"],
    ["{:process nil :type :invoke :f :acquire}", "line 1: :process"],
    ["[{:process 0 :type :invoke :f :acquire}", "line 1"],
  ])("rejects %j at %s", (edn, where) => {
    expect(inputError(() => parseEdnHistory(edn, "h.edn")).field).toBe(where);
  });
});
