import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../cli/main.js";
import { EXIT } from "../harness/exit-codes.js";
import { captureStdio } from "./helpers/capture-stdio.js";
import { playgroundData } from "../playground/write.js";
import { runEdited } from "../playground/play.js";
import { loadScenario } from "../scenarios/index.js";
import { runScenario } from "../harness/runner.js";
import { historyToJsonl } from "../sim/history.js";
import { hangBoundMs } from "./helpers/hang-bound.js";

const io = captureStdio();
const tmp = () => mkdtempSync(join(tmpdir(), "lockstep-playground-"));

describe("lockstep playground", () => {
  it(
    "writes one offline page with the scenarios as data and no library design",
    async () => {
      const dir = tmp();
      expect(await main(["playground", "--out", dir])).toBe(EXIT.ok);
      expect(io.out).toBe(`wrote ${join(dir, "index.html")}\nopen it in a browser: everything runs in the page, no server, no network\n`);
      const html = readFileSync(join(dir, "index.html"), "utf8");
      expect(html).toContain("default-src 'none'");
      expect(html).not.toMatch(/<script[^>]+src=/);
      const data = JSON.parse(html.match(/<script type="application\/json" id="playground-data">(.*?)<\/script>/s)![1]!) as ReturnType<typeof playgroundData>;
      expect(data.designs).toEqual(["redis-setnx", "redis-fenced", "raft-zk", "etcd-lease", "redis-failover", "redlock"]);
      expect(data.scenarios.some((s) => s.raw.design === "library")).toBe(false);
      expect(data.scenarios.find((s) => s.name === "naive-gc-pause")?.claims.length).toBeGreaterThan(0);
      io.out = "";
    },
    hangBoundMs(60_000),
  );

  it("refuses to replace an index.html lockstep did not write: exit 2, one line, the file untouched", async () => {
    const dir = tmp();
    writeFileSync(join(dir, "index.html"), "my page\n");
    expect(await main(["playground", "--out", dir])).toBe(EXIT.badInput);
    expect(io.err).toBe(
      `lockstep: ${join(dir, "index.html")}: --out: expected a file lockstep wrote; this one it did not write, so it is left alone (choose another path, or --force to replace it)\n`,
    );
    expect(readFileSync(join(dir, "index.html"), "utf8")).toBe("my page\n");
    io.err = "";
  });

  it("runs a scenario as the runner does (in Node), and an edit changes the verdict", () => {
    const ngc = playgroundData().scenarios.find((s) => s.name === "naive-gc-pause")!;
    const s = loadScenario("naive-gc-pause");
    const run = runEdited(ngc.raw, 1, ngc.file);
    expect(run.historyJsonl).toBe(historyToJsonl(runScenario(s, 1).history));
    expect(run.record.verdicts.outcome).toBe("unsafe");
    expect(run.faultStartsMs[0]).toBeCloseTo(1.117, 3);
    const shorter = JSON.parse(JSON.stringify(ngc.raw)) as typeof ngc.raw;
    shorter.faults![0]!.durationMs = 8000;
    // No checker fails, but the pause ends inside the lease: by the rule derived from it the run tested nothing.
    const untested = runEdited(shorter, 1, "x.json").record.verdicts;
    expect(untested.outcome).toBe("not-challenged");
    expect(untested.results.every((c) => c.valid !== false)).toBe(true);
    // c2 asked while c1 held it and was served after: that tests the lock, and it held.
    shorter.challenge = { kind: "waiter-served" };
    expect(runEdited(shorter, 1, "x.json").record.verdicts.outcome).toBe("safe");
    // The page's copy is not changed by parsing.
    expect(shorter.faults![0]!.delayMs).toBeUndefined();
  });
});
