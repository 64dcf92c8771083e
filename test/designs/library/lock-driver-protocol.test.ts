// The lock-driver protocol's checks (docs/lock-protocol.md), without processes: which reply
// lines are the protocol and which stop the run, naming what is wrong; which drivers' clocks
// libfaketime cannot move (refused by name before anything runs); and a lock driver refused
// by the simulator and put on a Redis scenario by --lock-cmd.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DriverProtocolError, parseReplyLine, readAcquire, readClock, readExtend, readInit, readRelease } from "../../../designs/library/driver-protocol.js";
import { driverClockRefusal } from "../../../designs/library/driver-runtime.js";
import { attackByName } from "../../../attacks/index.js";
import { parseScenario } from "../../../scenarios/schema.js";
import { loadScenario } from "../../../scenarios/index.js";
import { withLockDriver } from "../../../scenarios/with-lock-driver.js";
import { planReal } from "../../../real/plan.js";
import { runScenario } from "../../../harness/runner.js";
import { inputErrorOf } from "../../helpers/input-error.js";

const scratch = mkdtempSync(join(tmpdir(), "lockstep-driver-protocol-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const protocolError = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    if (e instanceof DriverProtocolError) return e.message;
    throw e;
  }
  throw new Error("expected a DriverProtocolError");
};

describe("lock-driver protocol: reply lines", () => {
  it("reads the replies the protocol defines, optional fields left out", () => {
    expect(parseReplyLine('{"id":3,"granted":true,"validityMs":998.5,"secret":"ab"}')).toMatchObject({ id: 3 });
    expect(readAcquire({ granted: true, validityMs: 998.5, secret: "ab", token: 7 })).toEqual({ granted: true, validityMs: 998.5, secret: "ab", token: 7 });
    expect(readAcquire({ granted: false })).toEqual({ granted: false });
    expect(readAcquire({ granted: true, validityMs: 900, monoMs: 123.5 })).toEqual({ granted: true, validityMs: 900, monoMs: 123.5 });
    expect(readRelease({ released: false })).toBe(false);
    expect(readExtend({ extended: true })).toEqual({ extended: true });
    expect(readClock({ wallMs: 1.7e12 })).toBe(1.7e12);
    const init = readInit({ protocol: 1, ops: ["extend", "fly"], versions: { python: "3.11", n: 3 }, name: "x" });
    expect([...init.ops]).toEqual(["extend"]);
    expect(init.versions).toEqual({ python: "3.11" });
    expect(parseReplyLine('{"id":4,"error":"ConnectionError: refused"}').error).toBe("ConnectionError: refused");
  });

  it("a line that is not the protocol's is named for what it lacks", () => {
    expect(protocolError(() => parseReplyLine("acquired it"))).toBe("expected one JSON object per line");
    expect(protocolError(() => parseReplyLine("[1]"))).toBe("expected a JSON object");
    expect(protocolError(() => parseReplyLine('{"granted":true}'))).toMatch(/expected "id"/);
    expect(protocolError(() => parseReplyLine('{"id":1.5}'))).toMatch(/expected "id"/);
    expect(protocolError(() => parseReplyLine('{"id":1,"error":7}'))).toMatch(/"error" to be a string/);
    expect(protocolError(() => readAcquire({ granted: "yes" }))).toBe('expected "granted": true or false');
    expect(protocolError(() => readAcquire({ granted: true, validityMs: "1000" }))).toMatch(/"validityMs": a number of ms/);
    expect(protocolError(() => readRelease({}))).toMatch(/"released"/);
    expect(protocolError(() => readExtend({ extended: true, validityMs: 900, monoMs: "now" }))).toMatch(/"monoMs": its CLOCK_MONOTONIC reading in ms/);
    expect(protocolError(() => readInit({ name: "x" }))).toMatch(/"protocol": the protocol version it speaks \(lockstep speaks 1\)/);
  });
});

describe("lock-driver clocks: what libfaketime can move", () => {
  it("refuses a Go program and a statically linked one by name; a C runtime, and a script run by one, pass", () => {
    expect(driverClockRefusal("etcd --version", scratch)).toMatch(/`etcd` is a Go program: Go reads the clock through the vDSO/);
    expect(driverClockRefusal("/sbin/ldconfig -p", scratch)).toMatch(/`\/sbin\/ldconfig` is statically linked: LD_PRELOAD cannot/);
    expect(driverClockRefusal("python3 driver.py", scratch)).toBeUndefined();
    const script = join(scratch, "go-driver.sh");
    writeFileSync(script, "#!/usr/bin/env etcd\n");
    chmodSync(script, 0o755);
    expect(driverClockRefusal("FOO=1 ./go-driver.sh", scratch)).toMatch(/`\.\/go-driver\.sh` \(run by etcd\) is a Go program/);
    expect(driverClockRefusal("python3 -c 'x'", scratch)).toBeUndefined();
    expect(driverClockRefusal("$DRIVER", scratch)).toBeUndefined(); // cannot tell: the run's own clock check decides
  });

  it("a CPython whose sleeps this machine's libfaketime breaks is refused naming the bug; the refusal agrees with trying it", () => {
    const lib = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";
    // What the refusal stands for, seen directly: time.sleep under the library, the monotonic clock left alone.
    const env = { ...process.env, LD_PRELOAD: lib, FAKETIME: "+0", DONT_FAKE_MONOTONIC: "1" };
    const tried = spawnSync("python3", ["-c", "import time; time.sleep(0.001)"], { env, encoding: "utf8" });
    const breaks = tried.status !== 0 && /Errno 22/.test(tried.stderr);
    const why = driverClockRefusal("python3 examples/python-redis-py/driver.py", scratch, lib);
    if (breaks) expect(why).toMatch(/`python3` is a CPython whose time\.sleep fails under this machine's libfaketime .*issue #426/);
    else expect(why).toBeUndefined();
  });

  it("a clock attack on a Go driver is refused before anything starts, naming the step and the program", () => {
    const lock = { design: "library", designOptions: { lockCmd: "etcd --lock", lockCmdCwd: scratch, nodes: 1 }, label: "etcd --lock" };
    const compiled = attackByName("client-clock-jump")!.compile(lock);
    if (!compiled.ok) throw new Error(compiled.refusal);
    const e = inputErrorOf(() => planReal(parseScenario(JSON.parse(JSON.stringify(compiled.scenario)), "<attack>"), 1));
    expect(e.field).toBe("faults[0]");
    expect(e.message).toMatch(/clock-jump of c1 .*: the lock driver's program `etcd` is a Go program/);
    // A pause needs no clock: the same driver is planned.
    const pause = attackByName("holder-pause-before-write")!.compile(lock);
    if (!pause.ok) throw new Error(pause.refusal);
    expect(planReal(parseScenario(JSON.parse(JSON.stringify(pause.scenario)), "<attack>"), 1).design.clients).toMatch(/lock driver `etcd --lock`/);
  });
});

describe("lock drivers outside real mode, and --lock-cmd", () => {
  it("the simulator refuses a lock driver, naming designOptions.lockCmd; exactly one of adapter and lockCmd", () => {
    const s = withLockDriver(loadScenario("naive-gc-pause"), "python3 driver.py", scratch);
    expect(s.design).toBe("library");
    expect(s.designOptions).toMatchObject({ lockCmd: "python3 driver.py", lockCmdCwd: scratch, nodes: 1 });
    const e = inputErrorOf(() => runScenario(s, 1));
    expect(e.field).toBe("designOptions.lockCmd");
    expect(e.message).toMatch(/runs in real mode only \(lockstep real, lockstep audit --real\)/);
    const both = { ...s, designOptions: { ...(s.designOptions as Record<string, unknown>), adapter: "setnx-reference" } };
    expect(inputErrorOf(() => planReal(both, 1)).message).toMatch(/exactly one of adapter \(a module\) and lockCmd/);
    expect(inputErrorOf(() => withLockDriver(loadScenario("etcd-lease-baseline"), "x", scratch)).field).toBe("--lock-cmd");
  });
});
