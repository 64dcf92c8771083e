/**
 * The public audit(): the same rows and the same findings by cause as `lockstep audit`
 * for the same lock, seeds and attacks; the vitest example in docs/your-own-lock.md,
 * which fails when a lock regresses.
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { audit, InputError } from "../api/index.js";
import { main } from "../cli/main.js";
import { captureStdio } from "./helpers/capture-stdio.js";

captureStdio();

const ATTACKS = ["late-release", "extend-after-lapse", "waiter-deadline"];

describe("audit() in the public API", () => {
  it("gives the numbers `lockstep audit` gives, by cause", async () => {
    const lock = "test/fixtures/adapters/bugs/two-bugs.cjs";
    const r = await audit(lock, { seeds: 3, attacks: ATTACKS, workers: 1 });
    expect(r.causes.map((c) => c.id)).toEqual(["release-deletes-others-key", "extend-renews-others-key"]);
    expect(r.yourCode).toEqual(["late-release", "extend-after-lapse"]);
    const out = join(mkdtempSync(join(tmpdir(), "api-audit-")), "a");
    await main(["audit", "--lock", lock, "--seeds", "3", "--attacks", ATTACKS.join(","), "--workers", "2", "--out", out]);
    const cli = JSON.parse(readFileSync(join(out, "audit.json"), "utf8")) as typeof r;
    const numbers = (x: typeof r) => ({
      rows: x.rows.map((w) => [w.attack, w.finding, w.unsafeRate, w.referenceUnsafe, w.causes ?? []]),
      causes: x.causes.map((c) => [c.id, c.attacks.map((a) => [a.attack, a.unsafeRate, a.referenceUnsafeRate, a.explained])]),
    });
    expect(numbers(r)).toEqual(numbers(cli));
  });

  it("the docs' example: a correct lock has no cause, and the test fails when it regresses", async () => {
    // docs/your-own-lock.md, "In your own tests": this is its body.
    const ok = await audit("examples/my-lock/adapter.ts", { seeds: 2, attacks: ATTACKS, workers: 1 });
    expect(ok.causes.map((c) => c.id)).toEqual([]);
    const regressed = await audit("test/fixtures/adapters/bugs/plain-del.cjs", { seeds: 2, attacks: ATTACKS, workers: 1 });
    expect(regressed.causes.map((c) => c.id)).toEqual(["release-deletes-others-key"]);
    expect(() => expect(regressed.causes.map((c) => `${c.id}: ${c.fix}`)).toEqual([])).toThrow();
  });

  it("refuses a mistyped lock as the command does", async () => {
    await expect(audit("redlok-v4")).rejects.toThrow(InputError);
    await expect(audit("redlok-v4")).rejects.toThrow(/did you mean redlock-v4/);
  });
});
