import { Command } from "commander";
import { fileURLToPath } from "node:url";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { registerCheck } from "../cli/commands/check.js";
import { EXIT } from "../harness/exit-codes.js";
import { takeExitCode } from "../cli/exit-state.js";
import { InputError } from "../sim/errors.js";

const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/histories/${name}`, import.meta.url));
const jepsen = (name: string): string => fileURLToPath(new URL(`./fixtures/jepsen/${name}`, import.meta.url));

/** Run `lockstep check ...args` in-process; returns stdout, stderr and the exit code the action set. */
async function check(...args: string[]): Promise<{ out: string; err: string; code: number }> {
  const program = new Command().exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
  registerCheck(program);
  let out = "";
  let err = "";
  const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  const spyErr = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    err += String(chunk);
    return true;
  });
  try {
    takeExitCode();
    await program.parseAsync(["check", ...args], { from: "user" });
    return { out, err, code: takeExitCode() };
  } finally {
    spy.mockRestore();
    spyErr.mockRestore();
  }
}

afterEach(() => {
  takeExitCode();
});

describe("lockstep check", () => {
  it("a good history exits 0 and prints every checker's verdict", async () => {
    const { out, code } = await check(fixture("mutex-ok.jsonl"), "--model", "mutex");
    expect(code).toBe(EXIT.ok);
    for (const name of ["linearizability", "fencing", "liveness"]) expect(out).toContain(name);
    expect(out).toMatch(/ok\s+linearizability\s+linearizable under the mutex model/);
  });

  it("a double grant exits 3 and shows the witness as a timeline", async () => {
    const { out, code } = await check(fixture("mutex-double-grant.jsonl"), "--model", "mutex");
    expect(code).toBe(EXIT.safetyViolation);
    expect(out).toContain("FAIL linearizability");
    expect(out).toContain("longest linearizable prefix: 2 ops");
    expect(out).toMatch(/cannot take effect next:\n\s+#\d+ c2 acquire/);
  });

  it("reads Jepsen EDN by extension", async () => {
    expect((await check(fixture("jepsen-lock-bad.edn"))).code).toBe(EXIT.safetyViolation);
    expect((await check(fixture("register-6824-ok.edn"), "--model", "register")).code).not.toBe(EXIT.safetyViolation);
  });

  it("a valid cas-register history exits 0 with linearizability alone; the lock checkers do not apply", async () => {
    for (const args of [[jepsen("cas-register-ok.edn")], [jepsen("cas-register-ok.edn"), "--model", "cas-register"]]) {
      const { out, code } = await check(...args);
      expect(code).toBe(EXIT.ok);
      expect(out).toContain("model cas-register");
      expect(out).toMatch(/ok\s+linearizability\s+linearizable under the cas-register model/);
      for (const name of ["mutual-exclusion", "lost-updates", "fencing", "liveness"])
        expect(out).toMatch(new RegExp(`n/a\\s+${name}\\s+not applicable: a lock checker`));
    }
    const six = await check(fixture("register-6824-ok.edn"));
    expect(six.code).toBe(EXIT.ok);
    expect(six.out).toContain("model register");
  });

  it("an invalid cas-register history exits 3", async () => {
    const { out, code } = await check(jepsen("cas-register-bad.edn"));
    expect(code).toBe(EXIT.safetyViolation);
    expect(out).toContain("FAIL linearizability");
    expect(out).toContain("the register is not linearizable");
  });

  it("a completion stamped before its own invoke is named in a note (stderr, and in --json), not silently clamped", async () => {
    const { err, code } = await check(jepsen("ok-before-invoke.edn"));
    expect(code).toBe(EXIT.ok);
    expect(err).toBe(
      "lockstep: note: 1 completion is stamped before its own invoke (first: line 4, process 1: invoked at 5000 µs, completed at 4000 µs); the file's order is kept, so its time was raised to 1 µs after the event before it\n",
    );
    const json = JSON.parse((await check(jepsen("ok-before-invoke.edn"), "--json")).out) as { notes?: string[] };
    expect(json.notes).toHaveLength(1);
    // Jepsen's :time running backwards between processes is normal, and gets no note.
    expect((await check(jepsen("cas-register-ok.edn"))).err).toBe("");
  });

  it("a Jepsen lock history with no TTL: liveness does not apply (it cannot judge waits), the rest judge it", async () => {
    const ok = await check(jepsen("lock-ok.edn"));
    expect(ok.code).toBe(EXIT.ok);
    expect(ok.out).toContain("model mutex");
    expect(ok.out).toMatch(/n\/a\s+liveness\s+not applicable: no TTL known \(pass --ttl-ms/);
    expect(ok.out).toMatch(/ok\s+mutual-exclusion/);
    const bad = await check(jepsen("lock-double-grant.edn"));
    expect(bad.code).toBe(EXIT.safetyViolation);
    expect(bad.out).toMatch(/FAIL mutual-exclusion/);
  });

  it.each([
    [[jepsen("list-append.edn")], /list-append\.edn: line 1: :f: an op the register model has \(read, write\), got :append$/],
    [[jepsen("lock-ok.edn"), "--model", "cas-register"], /lock-ok\.edn: line 1: :f: an op the cas-register model has \(read, write, cas\), got :acquire$/],
    [[fixture("mutex-ok.jsonl"), "--model", "register"], /mutex-ok\.jsonl: line 1: f: an op the register model has \(read, write\), got "acquire"$/],
    [[jepsen("double-invoke.edn")], /double-invoke\.edn: line 3: :type: a completion of the :write/],
  ])("an op the model lacks, or a malformed history, is refused by name: %j", async (args, message) => {
    const err = await check(...args).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).message).toMatch(message);
  });

  it("a jepsen.independent history is refused without --independent (judged whole, every key would be one register), judged per key with it", async () => {
    const err = await check(jepsen("independent-ok.edn")).catch((e: unknown) => e);
    expect((err as InputError).message).toMatch(/independent-ok\.edn: line 5: :value: nil for a read's invoke; .* pass --independent/);
    const { code, out } = await check(jepsen("independent-ok.edn"), "--independent");
    expect(code).toBe(EXIT.ok);
    expect(out).toMatch(/ok\s+linearizability\s+linearizable under the cas-register model: \d+ ops on 2 lock\(s\)/);
  });

  it("--ttl-ms selects lease-lock, and --drift-ppm widens when a lease may lapse", async () => {
    const strict = await check(fixture("lease-drift.jsonl"), "--ttl-ms", "100", "--json");
    const j = JSON.parse(strict.out) as { results: { checker: string; valid: unknown; summary: string }[] };
    const lin = j.results.find((r) => r.checker === "linearizability")!;
    expect(lin.valid).toBe(false);
    expect(lin.summary).toContain("lease-lock");
    const loose = await check(fixture("lease-drift.jsonl"), "--ttl-ms", "100", "--drift-ppm", "10000", "--json");
    const lin2 = (JSON.parse(loose.out) as typeof j).results.find((r) => r.checker === "linearizability")!;
    expect(lin2.valid).toBe(true);
  });

  it("an exhausted search budget exits 5 when nothing else failed", async () => {
    const { code, out } = await check(fixture("mutex-many-info.jsonl"), "--model", "mutex", "--states-max", "10");
    expect(out).toContain("search budget hit");
    expect(code).toBe(EXIT.unknown);
  });

  it("--steps-max: a tiny work budget turns a passing history into unknown (exit 5), naming the flag", async () => {
    expect((await check(jepsen("lock-ok.edn"))).code).toBe(EXIT.ok);
    const { code, out } = await check(jepsen("lock-ok.edn"), "--steps-max", "2");
    expect(code).toBe(EXIT.unknown);
    expect(out).toMatch(/\?\?\s+mutual-exclusion .*raise it with --steps-max N/);
    expect(out).toMatch(/\?\?\s+linearizability .*raise stepsMax with --steps-max N/);
    expect(out).toContain("outcome: unknown");
    const err = await check(jepsen("lock-ok.edn"), "--steps-max", "1" + "0".repeat(20)).catch((e: unknown) => e);
    expect((err as InputError).message).toMatch(/--steps-max: a number no greater than 1000000000000/);
  });

  it("--out DIR writes the run report of the imported history, the violation marked, marked as imported", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lockstep-check-"));
    try {
      const out = join(dir, "r");
      const { code, out: text } = await check(jepsen("lock-double-grant.edn"), "--out", out);
      expect(code).toBe(EXIT.safetyViolation);
      expect(text).toContain(`wrote ${join(out, "report.html")}`);
      const html = readFileSync(join(out, "report.html"), "utf8");
      expect(html).toContain("imported history: not a lockstep run, nothing to replay");
      expect(html).toContain(`<code id="replay-command">npx lockstep check ${jepsen("lock-double-grant.edn")}</code>`);
      expect(html).not.toContain("replay this run");
      expect(html).not.toContain("true time, as only a simulator knows it");
      expect(html).toContain("imported: no expected verdict");
      expect(html).toContain("What went wrong");
      expect(html).toMatch(/<span class="ck">mutual-exclusion<\/span> 0 held lock/);
      expect(existsSync(join(out, ".report.html.tmp"))).toBe(false);
      // Bad input writes nothing.
      const bad = join(dir, "bad");
      await check(jepsen("double-invoke.edn"), "--out", bad).catch(() => undefined);
      expect(existsSync(bad)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a history without :time speaks in positions, not µs: the witness, a note, and the page (header, axis, steps, linearization)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lockstep-check-order-"));
    try {
      const out = join(dir, "r");
      const r = await check(fixture("cas-register-bad.edn"), "--out", out);
      expect(r.code).toBe(EXIT.safetyViolation);
      expect(r.out).toContain("#4 2 read -> ok 1 [#4, #5] cannot take effect");
      expect(r.out).not.toMatch(/\d+µs/);
      expect(r.err).toBe(
        "lockstep: note: the history has no :time: its events are judged in file order, and times are their positions in the file (#n), not µs\n",
      );
      const html = readFileSync(join(out, "report.html"), "utf8");
      expect(html).toContain("<dt>history</dt><dd>6 events, no times: positions in the file</dd>");
      expect(html).not.toMatch(/history spans|µs\)|\d µs/);
      expect(html).toContain("<b>note:</b> the history has no :time");
      expect(html).toContain('<span class="lin-t">[#4 – #5]</span>');
      expect(html).toContain("no times in the history: each event at its position in the file (#n)");
      // Beside a FAIL, the empty step list never says "no violations".
      expect(html).not.toContain("no violations");
      expect(html).toContain("what failed (linearizability) is under &quot;What went wrong&quot; above");
      // A timed history keeps its µs.
      expect((await check(jepsen("cas-register-bad.edn"))).out).toMatch(/\[\d+µs, \d+µs\]/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("what the terminal notes about the file (a clamped completion) is on the page too", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lockstep-check-note-"));
    try {
      const r = await check(jepsen("ok-before-invoke.edn"), "--out", join(dir, "r"));
      const note = r.err.replace(/^lockstep: note: /, "").trim();
      expect(note).toMatch(/^1 completion is stamped before its own invoke/);
      expect(readFileSync(join(dir, "r", "report.html"), "utf8")).toContain(`<b>note:</b> ${note.replace(/'/g, "&#39;")}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a clamped completion is left out of the page's latency, and the page says so: p50 is the real grant's 7.719 ms, not 1 µs", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lockstep-check-clamp-"));
    try {
      const r = await check(jepsen("lock-double-grant.edn"), "--out", join(dir, "r"));
      expect(r.err).toMatch(/note: 1 completion is stamped before its own invoke/);
      const html = readFileSync(join(dir, "r", "report.html"), "utf8");
      const section = html.slice(html.indexOf("<h2>Acquire latency"), html.indexOf("</section>", html.indexOf("<h2>Acquire latency")));
      expect(section).toContain("1 grant is left out: its completion is stamped before its own invoke in the file");
      // 0's grant waited 18.231904 − 10.512345 ms; 1's clamped grant (1 µs) is not counted.
      expect(section).toContain("1 grant. p50 <b>7.719 ms</b>");
      expect(section).not.toMatch(/1 µs|0\.001 ms/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a folder is refused as the history argument (not --format), pointing at a run folder's history.jsonl", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lockstep-check-folder-"));
    try {
      const bare = (await check(dir).catch((e: unknown) => e)) as InputError;
      expect(bare).toBeInstanceOf(InputError);
      expect(bare.message).toBe(`${dir}: <history>: a history file (lockstep JSONL or Jepsen EDN), got a folder`);
      writeFileSync(join(dir, "history.jsonl"), "");
      const run = (await check(dir).catch((e: unknown) => e)) as InputError;
      expect(run.message).toBe(
        `${dir}: <history>: a history file (lockstep JSONL or Jepsen EDN), got a folder; a run's folder: its history is ${join(dir, "history.jsonl")}`,
      );
      expect(run.message).not.toContain("--format");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a liveness loss exits 4", async () => {
    expect((await check(fixture("liveness-stuck.jsonl"), "--ttl-ms", "1000")).code).toBe(EXIT.livenessViolation);
  });

  it.each([
    [["malformed-line3.jsonl"], /malformed-line3\.jsonl: line 3: /],
    [["malformed-unclosed.edn"], /malformed-unclosed\.edn: line 3: /],
    [["mutex-ok.jsonl", "--model", "semaphore"], /--model: one of mutex, lease-lock/],
    [["mutex-ok.jsonl", "--format", "xml"], /--format: jsonl or edn/],
    [["mutex-ok.jsonl", "--ttl-ms", "soon"], /--ttl-ms: a non-negative number/],
    [["does-not-exist.jsonl"], /does-not-exist\.jsonl: file: a readable history file \(ENOENT\)/],
  ])("bad input %j is an InputError naming what is wrong (main prints it and exits 2)", async (args, message) => {
    const [file, ...rest] = args;
    const err = await check(fixture(file), ...rest).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).message).toMatch(message);
    expect((err as InputError).message).not.toMatch(/\n\s+at /);
  });
});
