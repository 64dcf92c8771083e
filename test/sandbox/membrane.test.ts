/**
 * Issue 46's promises beyond the escape corpus: library code that never returns stops the
 * run (exit 7) naming the process and its turn, with the seed and the replay line; a
 * library that reads its own stack depth is caught by --check-determinism in run and
 * sweep, which say what one process cannot vary; and nothing a run does survives into the
 * next: a seed run after others, hostile probes and a hang among them, gives the bytes it
 * gives alone in a fresh process.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../cli/main.js";
import { EXIT } from "../../harness/exit-codes.js";
import { packageRoot } from "../../sim/paths.js";
import { loadScenario } from "../../scenarios/index.js";
import { parseScenario } from "../../scenarios/schema.js";
import { runScenario } from "../../harness/runner.js";
import { historyToJsonl } from "../../sim/history.js";
import { captureStdio } from "../helpers/capture-stdio.js";
import { corpusScenario } from "./corpus-runner.js";

const io = captureStdio();
const root = packageRoot();

function tmp(): string {
  mkdirSync(join(root, "test-output"), { recursive: true });
  return mkdtempSync(join(root, "test-output", "membrane-"));
}

/** A scenario file that runs `probe` (relative to test/sandbox/) through the corpus adapter. */
function probeFile(dir: string, probe: string): string {
  const file = join(dir, "probe.json");
  writeFileSync(file, JSON.stringify(corpusScenario(probe)));
  return file;
}

afterEach(() => {
  delete process.env.LOCKSTEP_WATCHDOG_MS;
});

describe("no hang, ever", () => {
  it("a spin in library code stops the run: exit 7 naming the process and its turn, with the seed and the replay line", async () => {
    process.env.LOCKSTEP_WATCHDOG_MS = "1000";
    const dir = tmp();
    const file = probeFile(dir, "./corpus/hang-spin.cjs");
    expect(await main(["run", file, "--seed", "4", "--out", join(dir, "a")])).toBe(EXIT.stopped);
    expect(io.err).toContain("library code on c1 did not return in corpus-adapter.cjs.acquire()");
    expect(io.err).toContain("seed: 4");
    expect(io.err).toContain(`replay: npx lockstep run ${file} --seed 4`);
  });

  it("an await loop stops a sweep the same way, and the sweep still says so (exit 7)", async () => {
    process.env.LOCKSTEP_WATCHDOG_MS = "1000";
    const dir = tmp();
    const file = probeFile(dir, "./corpus/hang-await-loop.cjs");
    expect(await main(["sweep", file, "--seeds", "1..2", "--workers", "1", "--out", join(dir, "s")])).toBe(EXIT.stopped);
    expect(io.err).toContain("did not return");
  });

  it("a rejection whose promise has a null prototype is reported, never rethrown: the sweep writes its summary", async () => {
    const dir = tmp();
    const file = probeFile(dir, "./corpus/rejection-null-prototype.cjs");
    expect(await main(["sweep", file, "--seeds", "1..3", "--workers", "1", "--out", join(dir, "s")])).not.toBe(EXIT.internal);
    expect((JSON.parse(readFileSync(join(dir, "s", "summary.json"), "utf8")) as { runs: number }).runs).toBe(3);
  });
});

describe("--check-determinism", () => {
  it("catches a library that reads its own stack depth, in run and in sweep", async () => {
    const dir = tmp();
    const file = probeFile(dir, "./leaky/stack-depth.cjs");
    expect(await main(["run", file, "--seed", "1", "--out", join(dir, "a")])).not.toBe(EXIT.stopped);
    expect(await main(["run", file, "--seed", "1", "--check-determinism", "--out", join(dir, "b")])).toBe(EXIT.stopped);
    expect(io.err).toContain("nondeterministic: seed 1 gave two different histories");
    io.err = "";
    expect(await main(["sweep", file, "--seeds", "1..2", "--workers", "1", "--check-determinism", "--out", join(dir, "s")])).toBe(EXIT.stopped);
    expect(io.err).toContain("nondeterministic");
  });

  it("says plainly what one process cannot vary", async () => {
    const dir = tmp();
    expect(await main(["run", "library-redis-semaphore-baseline", "--seed", "2", "--check-determinism", "--out", join(dir, "a")])).toBe(EXIT.ok);
    expect(io.out).toContain("determinism: seed 2 gave the same history twice; the second run started 2000 frames deeper on the stack");
    expect(io.out).toContain("locale, time zone and install folder cannot differ within one process");
  });
});

describe("nothing survives a run", () => {
  it("a seed run after hostile probes and a hang gives the bytes it gives alone in a fresh process", () => {
    const dir = tmp();
    const alone = join(dir, "alone");
    spawnSync(process.execPath, [join(root, "bin", "lockstep.js"), "run", "library-redlock-v4-baseline", "--seed", "3", "--out", alone], { encoding: "utf8" });
    const fresh = readFileSync(join(alone, "history.jsonl"), "utf8");
    process.env.LOCKSTEP_WATCHDOG_MS = "1000";
    for (const probe of ["global-host-state", "membrane-intrinsics", "membrane-proto-accessors", "date-real-constructor", "hang-spin"]) {
      const s = parseScenario(corpusScenario(`./corpus/${probe}.cjs`), "probe.json");
      try {
        runScenario(s, 1);
      } catch {
        // a probe that stops its run (the hang) is part of what ran before
      }
    }
    // Only the probes run under the short bound: a whole library run is one slice, which a loaded machine may take seconds over.
    delete process.env.LOCKSTEP_WATCHDOG_MS;
    runScenario(loadScenario("library-redlock-v4-baseline"), 5);
    expect(historyToJsonl(runScenario(loadScenario("library-redlock-v4-baseline"), 3).history)).toBe(fresh);
  });
});
