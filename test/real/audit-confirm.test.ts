// audit --confirm-real: each cause's counterexample replayed on real redis-server with the
// same adapter, and the reference recipe beside it. The plain-DEL fixture under
// delayed-release (an 800 ms delay of the holder's messages to Redis, from its write on):
// its release lands after a waiter took the lock and deletes the waiter's key, on real
// Redis as in the simulator; the reference recipe's compare-and-delete does nothing.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../cli/main.js";
import { EXIT } from "../../harness/exit-codes.js";
import { captureStdio } from "../helpers/capture-stdio.js";

const io = captureStdio();
const scratch = mkdtempSync(join(tmpdir(), "lockstep-confirm-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("audit --confirm-real", () => {
  it("replays the cause's counterexample on real Redis, and the reference beside it, in audit.json, audit.html and the terminal", async () => {
    const out = join(scratch, "a");
    const args = [
      "audit",
      "--lock",
      "test/fixtures/adapters/bugs/plain-del.cjs",
      "--attacks",
      "delayed-release",
      "--seeds",
      "2",
      "--out",
      out,
      "--confirm-real",
      "2",
    ];
    expect(await main(args)).toBe(EXIT.auditYourCode);
    const json = JSON.parse(readFileSync(join(out, "audit.json"), "utf8"));
    const real = json.causes[0].real;
    expect(real.runs).toBe(2);
    expect(real.reference).toEqual({ runs: 2, unsafe: 0 });
    // The delay is 0.8x the lease: it lands on real loopback too.
    expect(real.unsafe).toBeGreaterThanOrEqual(1);
    const dir = join(out, "counterexamples", "release-deletes-others-key");
    for (const d of ["real/run-1", "real/run-2", "real-reference/run-1", "real-reference/run-2"]) expect(existsSync(join(dir, d, "report.html")), d).toBe(true);
    expect(io.out).toMatch(/real Redis: reproduced [12]\/2; reference recipe unsafe 0\/2/);
    expect(readFileSync(join(out, "audit.html"), "utf8")).toMatch(/Reproduced [12]\/2 on a real redis-server; the reference recipe: unsafe 0\/2\./);
  }, 600_000);

  it("needs --out: the counterexamples it replays are written there", async () => {
    expect(await main(["audit", "--lock", "test/fixtures/adapters/bugs/plain-del.cjs", "--confirm-real", "2"])).toBe(EXIT.badInput);
    expect(io.err).toMatch(/--confirm-real: --out <dir> too/);
  });
});
