// `lockstep audit --real`: the attacks on real servers, N real runs on the lock and N on the
// reference recipe, with the simulated audit's table, audit.json, audit.html and exit codes.
// redis-py's Lock through the line protocol: the GC pause is the backend's limit, the
// late release is safe, what real mode cannot perform is refused with its reason (exit 0,
// no process and no temp dir left); the same driver with a plain-DEL release is "your code"
// on the delayed release (exit 9, its run kept as evidence); the Node reference recipe gets the
// same findings as a lock driver as in-process; a SIGINT writes what finished.
// Few runs each: the rows' rates are the 5-run audits' in docs/lock-protocol.md.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { AuditResult } from "../../harness/audit/run.js";
import { attackByName, type LockUnderTest } from "../../attacks/index.js";
import { RealAudit } from "../../real/audit.js";
import { hangBoundMs } from "../helpers/hang-bound.js";
import { startCli, until } from "../helpers/processes.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const cliChild = resolve(here, "../helpers/cli-child.ts");
const scratch = mkdtempSync(join(tmpdir(), "lockstep-audit-real-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const PY_DRIVER = "python3 examples/python-redis-py/driver.py";

/** Every process whose environment carries `mark` (the CLI's, its clients', their drivers'). */
function processesMarked(mark: string): number[] {
  const out: number[] = [];
  for (const e of readdirSync("/proc")) {
    if (!/^\d+$/.test(e)) continue;
    try {
      if (readFileSync(`/proc/${e}/environ`, "utf8").includes(`LOCKSTEP_TEST_MARK=${mark}`)) out.push(Number(e));
    } catch {
      /* gone, or not ours */
    }
  }
  return out;
}

/** The CLI from sources, its TMPDIR its own and its processes marked; exit code and output. */
function audit(args: string[], name: string): { code: number | null; stdout: string; stderr: string; tmp: string; mark: string } {
  const tmp = join(scratch, `${name}-tmp`);
  mkdirSync(tmp);
  const mark = `${name}-${process.pid}`;
  const env = { ...process.env, TMPDIR: tmp, LOCKSTEP_TEST_MARK: mark };
  const r = spawnSync(process.execPath, ["--import", "tsx", cliChild, "audit", "--real", ...args], {
    cwd: root,
    encoding: "utf8",
    env,
    timeout: hangBoundMs(600_000),
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, tmp, mark };
}

/** Real runs' temp dirs in a TMPDIR (tsx keeps a cache of its own there too). */
const runDirsIn = (tmp: string): string[] => readdirSync(tmp).filter((e) => e.startsWith("lockstep-real-"));

const auditJson = (dir: string): AuditResult => JSON.parse(readFileSync(join(dir, "audit.json"), "utf8")) as AuditResult;

describe("lockstep audit --real", () => {
  it(
    "redis-py's Lock: a table by attack, exit 0 (nothing is its code), every run's processes and temp dir gone",
    async () => {
      const out = join(scratch, "py-out");
      const attacks = "holder-pause-before-write,late-release,holder-pause-during-release";
      const r = audit(["--lock-cmd", PY_DRIVER, "--runs", "2", "--attacks", attacks, "--out", out], "py");
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/audit of python3 examples\/python-redis-py\/driver\.py \(reference: setnx-reference.*\), 2 real run\(s\) per attack on each/);
      expect(r.stdout).toMatch(/holder-pause-before-write\s+100%.*known limit of this backend/);
      // Its release compares the token in Lua: a release after the lease ran out deletes nothing of the next holder's.
      expect(r.stdout).toMatch(/late-release\s+0%.*\ssafe\b/);
      expect(r.stdout).toMatch(/holder-pause-during-release\s+refused: real mode cannot run it: faults\[0\]\.on: pause of c1 on c1's release invoke/);
      expect(r.stdout).toMatch(/no finding attributed to your code/);
      // Progress: a line per run, on the lock and on the reference.
      expect(r.stderr).toMatch(/1\/3 holder-pause-before-write: run 1\/2 on the lock: unsafe, [\d.]+ s/);
      expect(r.stderr).toMatch(/1\/3 holder-pause-before-write: run 2\/2 on the reference: [a-z-]+, [\d.]+ s/);
      const json = auditJson(out);
      expect(json.real).toMatchObject({ runs: 2, timeScale: 1 });
      expect(json.rows.map((x) => [x.attack, x.runs])).toEqual([
        ["holder-pause-before-write", 2],
        ["late-release", 2],
        ["holder-pause-during-release", 0],
      ]);
      expect(readFileSync(join(out, "audit.html"), "utf8")).toMatch(/2 attacks × 2 real runs on your lock on real servers/);
      expect(runDirsIn(r.tmp)).toEqual([]);
      await until("no process of the audit left", () => processesMarked(r.mark).length === 0, 10_000);
    },
    hangBoundMs(600_000),
  );

  it(
    "a plain-DEL release in a Python driver: your code on delayed-release and late-release (exit 9), its unsafe run kept with a scenario file to run it again",
    () => {
      const out = join(scratch, "del-out");
      const r = audit(
        ["--lock-cmd", "python3 test/fixtures/drivers/plain-del.py", "--runs", "1", "--attacks", "delayed-release,late-release", "--out", out],
        "del",
      );
      expect(r.code, r.stderr).toBe(9);
      expect(r.stdout).toMatch(/delayed-release\s+100%.*your code {2}\(run 1: .*counterexamples\/delayed-release\/scenario\.json\)/);
      // The storage's replies to the holder held in the driver (a cut of its storage link): it releases after the lease ran out.
      expect(r.stdout).toMatch(/late-release\s+100%.*your code/);
      expect(r.stdout).toMatch(/attributed to your code: delayed-release, late-release/);
      const row = auditJson(out).rows.find((x) => x.attack === "delayed-release")!;
      expect(row).toMatchObject({ finding: "your code", referenceUnsafe: 0, counterexampleSeed: 1 });
      expect(row.counterexample!.replay).toMatch(/^npx lockstep real .*counterexamples\/delayed-release\/scenario\.json$/);
      expect(existsSync(row.counterexample!.report)).toBe(true);
      const scenario = JSON.parse(readFileSync(row.counterexample!.file, "utf8")) as { attack?: string; designOptions: Record<string, unknown> };
      expect(scenario.designOptions).toMatchObject({ lockCmd: "python3 test/fixtures/drivers/plain-del.py", lockCmdCwd: root });
      expect(runDirsIn(r.tmp)).toEqual([]);
    },
    hangBoundMs(600_000),
  );

  it(
    "the Node reference recipe as a lock driver and as an adapter: the same finding on each attack",
    async () => {
      const attacks = ["holder-pause-before-write", "delayed-release", "extend-after-lapse"].map((n) => attackByName(n)!);
      const parentDir = join(scratch, "same");
      mkdirSync(parentDir);
      const findings = async (lock: LockUnderTest) =>
        (await new RealAudit(lock, { runs: 1, attacks, timeScale: 1, parentDir }).run()).rows.map((r) => [r.attack, r.finding]);
      const driver = { design: "library", designOptions: { lockCmd: "node examples/node-reference/driver.cjs", lockCmdCwd: root, nodes: 1 }, label: "driver" };
      const adapter = { design: "library", designOptions: { adapter: "setnx-reference", nodes: 1 }, label: "adapter" };
      const [viaDriver, inProcess] = [await findings(driver), await findings(adapter)];
      expect(viaDriver).toEqual(inProcess);
      expect(inProcess).toEqual([
        ["holder-pause-before-write", "known limit of this backend"],
        ["delayed-release", "safe"],
        ["extend-after-lapse", "safe"],
      ]);
      expect(runDirsIn(parentDir)).toEqual([]);
    },
    hangBoundMs(600_000),
  );

  it(
    "SIGINT in the second attack: exit 130; audit.json and the table hold the first, saying where it stopped; nothing is left",
    async () => {
      const out = join(scratch, "int-out");
      const tmp = join(scratch, "int-tmp");
      mkdirSync(tmp);
      const args = ["audit", "--real", "--lock", "setnx-reference", "--runs", "2", "--attacks", "delayed-release,holder-pause-before-write", "--out", out];
      const { child, printed, exited } = startCli(cliChild, args, root, tmp);
      await until("the second attack's first run", () => /2\/2 holder-pause-before-write: run 1\/2/.test(printed.stderr), hangBoundMs(300_000));
      child.kill("SIGINT");
      expect(await exited, printed.stderr).toBe(130);
      const json = auditJson(out);
      expect(json.rows.map((x) => x.attack)).toEqual(["delayed-release"]);
      expect(json.real!.stoppedBy).toEqual({ attack: "holder-pause-before-write", reason: "stopped by SIGINT" });
      expect(printed.stdout).toMatch(/STOPPED at holder-pause-before-write: stopped by SIGINT; the rows above are the attacks that finished/);
      expect(runDirsIn(tmp)).toEqual([]);
    },
    hangBoundMs(600_000),
  );
});
