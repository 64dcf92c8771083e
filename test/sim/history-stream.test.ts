import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { loadScenario } from "../../scenarios/index.js";
import { runScenario } from "../../harness/runner.js";
import { historyToJsonl, type HistoryEvent } from "../../sim/history.js";
import { JsonlHistoryStream } from "../../sim/history-stream.js";
import { runCheckers } from "../../checkers/run-all.js";
import { InputError } from "../../sim/errors.js";
import { checkContextFor } from "../../harness/check-context.js";
import { fixturePath, shippedScenarioNames, type DigestFixture } from "../helpers/history-digests.js";
import { hangBoundMs } from "../helpers/hang-bound.js";

/** A run whose history goes only to a JSONL stream (nothing retained): its chunks, and the run. */
function streamedRun(name: string, seed: number, bufferCharsMax: number) {
  const chunks: string[] = [];
  const stream = new JsonlHistoryStream((c) => chunks.push(c), bufferCharsMax);
  const run = runScenario(loadScenario(name), seed, {}, { historySink: stream.push, retainHistory: false });
  stream.end();
  return { chunks, run, jsonl: chunks.join(""), stream };
}

const readBack = (jsonl: string): HistoryEvent[] =>
  jsonl
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as HistoryEvent);

describe("streamed history (sim/history-stream.ts, runScenario's historySink)", () => {
  const fixture = JSON.parse(readFileSync(fixturePath(), "utf8")) as DigestFixture;

  it("gives every shipped scenario's golden bytes (seed 1) and retains no event", { timeout: hangBoundMs(240_000) }, () => {
    for (const name of shippedScenarioNames()) {
      const { jsonl, run } = streamedRun(name, 1, 4096);
      expect(run.history, name).toEqual([]);
      expect(createHash("sha256").update(jsonl).digest("hex"), `${name} seed 1: streamed bytes differ from the golden digest`).toBe(fixture[name]!["1"]);
    }
  });

  it("writes the same bytes as the in-memory run, in chunks no bigger than the buffer plus one line", () => {
    for (const [name, seed] of [
      ["naive-gc-pause", 2],
      ["naive-baseline", 3],
    ] as const) {
      const bufferCharsMax = 1000;
      const { chunks, jsonl, stream } = streamedRun(name, seed, bufferCharsMax);
      const memory = historyToJsonl(runScenario(loadScenario(name), seed).history);
      expect(jsonl).toBe(memory);
      expect(chunks.length).toBeGreaterThan(1);
      const longestLine = Math.max(...memory.split("\n").map((l) => l.length + 1));
      for (const c of chunks) expect(c.length).toBeLessThan(bufferCharsMax + longestLine);
      expect(stream.bufferedChars).toBe(0);
      expect(stream.events).toBe(memory.split("\n").length - 1);
    }
  });

  it("read back, gives the checkers the same verdicts as the in-memory history", () => {
    for (const name of ["naive-gc-pause", "naive-gc-pause-fenced", "naive-baseline"]) {
      const s = loadScenario(name);
      const memory = runCheckers(runScenario(s, 1).history, checkContextFor(s));
      const streamed = runCheckers(readBack(streamedRun(name, 1, 4096).jsonl), checkContextFor(s));
      expect(streamed, name).toEqual(memory);
    }
  });

  it("a sink that fails (a full disk) stops the run with its own error, not a library's", () => {
    for (const name of ["naive-baseline", "library-redlock-v4-baseline", "raft-zk-baseline"]) {
      let taken = 0;
      const full = new InputError("out/history.jsonl", "--out", "expected a writable place; the write failed (ENOSPC)");
      const sink = (): void => {
        if (++taken === 50) throw full;
      };
      expect(() => runScenario(loadScenario(name), 1, {}, { historySink: sink, retainHistory: false }), name).toThrow(full);
    }
  });

  it("refuses an event after end() and a buffer below one character", () => {
    const stream = new JsonlHistoryStream(() => {}, 10);
    stream.end();
    expect(() => stream.push({ index: 0, timeUs: 0, process: "c1", type: "invoke", f: "acquire", lock: undefined, value: undefined })).toThrow(/after end/);
    expect(() => new JsonlHistoryStream(() => {}, 0)).toThrow(/at least 1/);
  });
});
