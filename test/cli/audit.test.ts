import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../../cli/main.js";
import { EXIT } from "../../harness/exit-codes.js";
import { captureStdio } from "../helpers/capture-stdio.js";
import { loadScenarioFile } from "../../scenarios/index.js";

const io = captureStdio();

describe("lockstep audit", () => {
  it("exits auditYourCode on a plain-DEL release and writes a replayable, shrunk counterexample", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "audit-")), "a");
    const code = await main([
      "audit",
      "--design",
      "redis-setnx",
      "--design-options",
      '{"release":"del"}',
      "--seeds",
      "3",
      "--attacks",
      "late-release",
      "--out",
      out,
    ]);
    expect(code).toBe(EXIT.auditYourCode);
    expect(io.out).toMatch(/late-release .* your code: release-deletes-others-key/);
    expect(io.out).toMatch(/\n1 bug in your code:\n {2}1\. Your release deletes the key whoever holds it \(release-deletes-others-key\)\n/);
    const json = JSON.parse(readFileSync(join(out, "audit.json"), "utf8"));
    expect(json.yourCode).toEqual(["late-release"]);
    expect(json.causes.map((c: { id: string }) => c.id)).toEqual(["release-deletes-others-key"]);
    const cx = json.causes[0].counterexample;
    const s = loadScenarioFile(cx.file);
    expect(s.expect).toBe("unsafe");
    // Shrunk for width, not size: the third client the attack brings stays, so the DEL's harm shows as a lost update.
    expect(cx.evidence).toMatch(/^an acknowledged update lost/);
    expect(s.clients.length).toBe(3);
    const html = readFileSync(join(out, "audit.html"), "utf8");
    expect(html).toContain('href="counterexamples/release-deletes-others-key/run/report.html"');
    expect(html).toContain('id="cause-release-deletes-others-key"');
    expect(existsSync(join(out, "counterexamples/release-deletes-others-key/run/report.html"))).toBe(true);
  });

  it("a lock that escapes the simulation stops the audit with a replay that reaches the same stop", async () => {
    const code = await main(["audit", "--lock", "test/fixtures/library/escape-socket.cjs", "--seeds", "2", "--attacks", "late-release"]);
    expect(code).toBe(EXIT.stopped);
    expect(io.err).toContain("replay: npx lockstep audit --lock test/fixtures/library/escape-socket.cjs --attacks late-release --seeds 1");
    expect(io.err).not.toContain("<attack");
  });

  it("exits ok on examples/my-lock: its unsafe attacks are the backend's limits", async () => {
    const code = await main(["audit", "--lock", "examples/my-lock/adapter.ts", "--seeds", "3"]);
    expect(code).toBe(EXIT.ok);
    expect(io.out).toMatch(/holder-pause-before-write +100%/);
    expect(io.out).toMatch(/holder-pause-before-write .* known limit of this backend/);
    expect(io.out).toContain("no finding attributed to your code");
  });

  it("refuses an unknown attack and a missing lock with one line naming the flag", async () => {
    expect(await main(["audit", "--design", "redis-setnx", "--attacks", "nope"])).toBe(EXIT.badInput);
    expect(io.err).toMatch(/--attacks/);
    expect(await main(["audit", "--seeds", "3"])).toBe(EXIT.badInput);
    expect(io.err).toMatch(/--lock\/--design/);
  });

  it("--explore: generated schedules find the two-bug lock's bugs by cause, and blame nothing in examples/my-lock", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "audit-explore-")), "a");
    expect(
      await main([
        "audit",
        "--lock",
        "test/fixtures/adapters/bugs/two-bugs.cjs",
        "--attacks",
        "waiter-deadline",
        "--seeds",
        "2",
        "--explore",
        "12",
        "--out",
        out,
      ]),
    ).toBe(EXIT.auditYourCode);
    const json = JSON.parse(readFileSync(join(out, "audit.json"), "utf8"));
    expect(json.explore).toMatchObject({ draws: 12, seed: 1 });
    expect(json.explore.found).toBeGreaterThan(0);
    const byExplore = json.causes.filter((c: { attacks: Array<{ attack: string }> }) => c.attacks.every((a) => a.attack.startsWith("explore-")));
    expect(byExplore.length).toBeGreaterThan(0);
    expect(json.unexplained).toEqual([]);
    expect(io.out).toMatch(
      /explore: 12 generated schedules \(fast-check seed 1\): \d+ unsafe on their own seed, judged against the reference on paired seeds; \d+ your code/,
    );
    expect(await main(["audit", "--lock", "examples/my-lock/adapter.ts", "--attacks", "waiter-deadline", "--seeds", "2", "--explore", "12"])).toBe(EXIT.ok);
    expect(io.out).toMatch(/explore: 12 generated schedules .*; 0 your code/);
    expect(await main(["audit", "--lock", "examples/my-lock/adapter.ts", "--explore", "5", "--shard", "1/2"])).toBe(EXIT.badInput);
    expect(io.err).toMatch(/--explore: .*no --shard/);
  }, 900_000);

  it("refuses a mistyped built-in adapter in one line: the built-in list and the nearest names, nothing run", async () => {
    expect(await main(["audit", "--lock", "redlok-v4", "--seeds", "1"])).toBe(EXIT.badInput);
    const lines = io.err.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^lockstep: --lock: a built-in adapter \(redlock-v4, redlock-v5, .*setnx-reference.*\) or a path .*; got "redlok-v4"; did you mean redlock-v4/,
    );
    expect(io.err).not.toContain("designOptions");
    expect(await main(["audit", "--lock", "./no-such-adapter.cjs", "--seeds", "1"])).toBe(EXIT.badInput);
    expect(io.err).toMatch(/--lock: an adapter module that exists \(no file at .*no-such-adapter\.cjs\)/);
  });
});
