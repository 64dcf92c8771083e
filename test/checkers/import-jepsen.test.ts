/**
 * Jepsen-shaped EDN histories (test/fixtures/jepsen/, written by hand in the format
 * jepsen-io/history documents: one op map per line, :index, :time in ns stamped per
 * process, nemesis ops :info on both ends, :error on :info/:fail) through the importer
 * and the checkers: the valid ones pass, the invalid ones fail, the malformed ones are
 * refused naming the line.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseEdnHistory } from "../../checkers/import/edn.js";
import { linearizability } from "../../checkers/linearizability/index.js";
import { mutualExclusion } from "../../checkers/mutual-exclusion.js";
import { inputErrorOf } from "../helpers/input-error.js";

const text = (name: string): string => readFileSync(new URL(`../fixtures/jepsen/${name}`, import.meta.url), "utf8");
const load = (name: string) => parseEdnHistory(text(name), name);

describe("Jepsen EDN: file order is the history order, :time informational", () => {
  it("reads times that go backwards between processes, keeping file order", () => {
    const h = load("lock-ok.edn");
    expect(h).toHaveLength(20);
    // line 2's :time (10498211 ns) is earlier than line 1's; it is placed 1 µs after.
    expect(h[0].timeUs).toBe(10512);
    expect(h[1].timeUs).toBe(10513);
    for (let i = 1; i < h.length; i++) expect(h[i].timeUs).toBeGreaterThan(h[i - 1].timeUs);
    expect(h[4]).toMatchObject({ process: "nemesis", type: "info", f: "start" });
    expect(h[9]).toMatchObject({ process: "2", type: "info", f: "acquire", extra: { error: "timeout" } });
  });

  it("a lock history with a crashed acquire and its fresh process (2 -> 7) is valid", () => {
    const h = load("lock-ok.edn");
    expect(linearizability(h, { model: "mutex" }).valid).toBe(true);
    expect(mutualExclusion(h, {}).valid).toBe(true);
  });

  it("a second grant while the first is held is invalid under mutex and overlaps", () => {
    const h = load("lock-double-grant.edn");
    const lin = linearizability(h, { model: "mutex" });
    expect(lin.valid).toBe(false);
    expect(lin.summary).toMatch(/1 acquire/);
    expect(mutualExclusion(h, {}).valid).toBe(false);
  });

  it("a cas-register history with a timed-out write that took effect, a failed cas and a crashed read is valid", () => {
    expect(linearizability(load("cas-register-ok.edn"), { model: "cas-register" }).valid).toBe(true);
  });

  it("a stale read is invalid by file order, though by :time alone the read would overlap the cas", () => {
    const h = load("cas-register-bad.edn");
    const r = linearizability(h, { model: "cas-register" });
    expect(r.valid).toBe(false);
    expect(r.summary).toMatch(/read/);
    // Ordered by :time instead, the read's invoke (3296209422 ns) comes before the cas's ok: then it is valid.
    const lines = text("cas-register-bad.edn")
      .trim()
      .replace(/, :index \d+/g, "")
      .split("\n");
    const byTime = [lines[0], lines[1], lines[2], lines[4], lines[3], lines[5]].join("\n");
    expect(linearizability(parseEdnHistory(byTime, "t.edn"), { model: "cas-register" }).valid).toBe(true);
  });

  it("a nil read reads nothing (Knossos' convention), so it passes in any state", () => {
    const edn = [
      "{:type :invoke, :f :write, :value 1, :process 0}",
      "{:type :ok, :f :write, :value 1, :process 0}",
      "{:type :invoke, :f :read, :value nil, :process 1}",
      "{:type :ok, :f :read, :value nil, :process 1}",
    ].join("\n");
    expect(linearizability(parseEdnHistory(edn, "h.edn"), { model: "register" }).valid).toBe(true);
    // The same read returning 2 is judged, and fails: the nil read was not simply ignored by accident.
    const bad = edn.replace(":ok, :f :read, :value nil", ":ok, :f :read, :value 2");
    expect(linearizability(parseEdnHistory(bad, "h.edn"), { model: "register" }).valid).toBe(false);
  });

  it("a process id reused after :info (not what Jepsen emits) is accepted, read permissively", () => {
    // If p0's acquire took effect, p0's release of it is legal: no false alarm.
    const edn = [
      "{:type :invoke, :f :acquire, :process 0, :time 1000}",
      "{:type :info, :f :acquire, :process 0, :time 2000, :error :timeout}",
      "{:type :invoke, :f :release, :process 0, :time 3000}",
      "{:type :ok, :f :release, :process 0, :time 4000}",
    ].join("\n");
    expect(linearizability(parseEdnHistory(edn, "h.edn"), { model: "mutex" }).valid).toBe(true);
  });
});

describe("Jepsen EDN: jepsen.independent ([key value] tuples)", () => {
  it("--independent splits by key: each key is its own register, valid where each is", () => {
    const h = parseEdnHistory(text("independent-ok.edn"), "independent-ok.edn", { independent: true });
    expect(h[0]).toMatchObject({ lock: "0", value: 1 });
    expect(h[4]).toMatchObject({ lock: "0", f: "read" });
    expect(h[4].value).toBeUndefined();
    expect(h[8]).toMatchObject({ lock: "0", f: "cas", value: [1, 2] });
    const r = linearizability(h, { model: "cas-register" });
    expect(r.valid).toBe(true);
    expect(r.stats?.locks).toBe(2);
    // Key 1 reading 7, a value never written to it: invalid, and named by key.
    const bad = text("independent-ok.edn").replace(":ok, :f :read, :value [1 5]", ":ok, :f :read, :value [1 7]");
    const rb = linearizability(parseEdnHistory(bad, "bad.edn", { independent: true }), { model: "cas-register" });
    expect(rb.valid).toBe(false);
    expect(rb.summary).toMatch(/^register "1" is not linearizable/);
  });

  it("--independent refuses an op whose value is not a tuple, naming the line", () => {
    const e = inputErrorOf(() => parseEdnHistory("{:type :invoke, :f :write, :value 3, :process 0}", "h.edn", { independent: true }));
    expect(e.field).toBe("line 1: :value");
    expect(e.message).toMatch(/a \[key value\] tuple \(--independent\), got 3/);
  });
});

describe("Jepsen EDN: malformed histories are refused, naming file, line and field", () => {
  it.each([
    ["ok-without-invoke.edn", "line 3: :type", /an invoke of :read by process 1 before this ok/],
    ["double-invoke.edn", "line 3: :type", /a completion of the :write that process 0 invoked on line 1/],
    ["completion-f-mismatch.edn", "line 2: :f", /:write, the op process 0 invoked on line 1, got :read/],
    ["index-backwards.edn", "line 2: :index", /greater than 4 \(line 1\)/],
  ])("%s at %s", (file, field, message) => {
    const e = inputErrorOf(() => load(file));
    expect(e.field).toBe(field);
    expect(e.message.startsWith(`${file}: ${field}: `)).toBe(true);
    expect(e.message).toMatch(message);
    expect(e.message).not.toContain("\n");
  });

  it.each([
    ["{:type :fail, :f :cas, :value [1 2], :process 3}", "line 1: :type"],
    ["{:type :info, :f :write, :value 1, :process 3}", "line 1: :type"],
    ["{:type :invoke, :f :write, :value 1, :process 0, :time 1e19}", "line 1: :time"],
    ["{:type :invoke, :f :write, :value 1, :process 0, :index -1}", "line 1: :index"],
  ])("refuses %j at %s", (edn, field) => {
    expect(inputErrorOf(() => parseEdnHistory(edn, "h.edn")).field).toBe(field);
  });

  it("nemesis ops, :info on both ends with no invoke, are annotations, not errors", () => {
    const edn = "{:type :info, :f :start, :value nil, :process :nemesis}\n{:type :info, :f :start, :value :done, :process :nemesis}";
    expect(parseEdnHistory(edn, "h.edn")).toHaveLength(2);
  });
});
