/**
 * Can a lock driver's clock be faked? Real mode moves a client's wall clock with libfaketime,
 * an LD_PRELOAD library that answers the C library's time calls. A runtime that reads time
 * through libc (CPython, the JVM, Node) is moved; a statically linked program cannot preload
 * it, and a Go program reads the clock through the vDSO, never calling libc. This looks at the
 * program the command starts (its first word, through `#!` interpreters) before anything runs,
 * so a clock fault on such a driver is refused by name; a runtime it cannot see through (a
 * shell pipeline, a wrapper) is left to the run's own check that the driver's clock stepped.
 *
 * CPython 3.11 and later is moved, but its time.sleep sleeps with clock_nanosleep(CLOCK_MONOTONIC,
 * TIMER_ABSTIME), which libfaketime up to 0.9.10 (Debian 12's) breaks when it leaves the
 * monotonic clock alone, as real mode has it: the call fails with EINVAL (libfaketime issue
 * #426), so every sleep of the lock client would raise. A Python driver is tried once (a sleep
 * under the library) and refused by name if it breaks.
 */
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import { basename, delimiter, isAbsolute, join, resolve } from "node:path";

/** The mark every Go binary carries in its build info section (runtime/debug.ReadBuildInfo reads it). */
const GO_BUILDINFO = Buffer.from("\xff Go buildinf:", "latin1");
const HEAD_BYTES = 4096;
const CHUNK_BYTES = 1 << 20;
/** Interpreters followed through `#!` lines: env, then the runtime. */
const SHEBANG_DEPTH_MAX = 3;
const PT_INTERP = 3;

function readAt(fd: number, len: number, pos: number): Buffer {
  const buf = Buffer.alloc(len);
  const n = readSync(fd, buf, 0, len, pos);
  return buf.subarray(0, n);
}

/** The executable a word names: a path (relative to cwd), or the first match on PATH. */
function whichFile(word: string, cwd: string): string | undefined {
  const isFile = (p: string): boolean => existsSync(p) && statSync(p).isFile();
  if (word.includes("/")) {
    const p = isAbsolute(word) ? word : resolve(cwd, word);
    return isFile(p) ? p : undefined;
  }
  for (const dir of (process.env.PATH ?? "").split(delimiter)) if (dir && isFile(join(dir, word))) return join(dir, word);
  return undefined;
}

/** Does an ELF file ask for a dynamic loader (a PT_INTERP program header)? Static programs cannot preload anything. */
function elfIsDynamic(head: Buffer): boolean {
  const wide = head[4] === 2;
  const le = head[5] === 1;
  const u16 = (o: number) => (le ? head.readUInt16LE(o) : head.readUInt16BE(o));
  const u32 = (o: number) => (le ? head.readUInt32LE(o) : head.readUInt32BE(o));
  const phoff = wide ? Number(le ? head.readBigUInt64LE(0x20) : head.readBigUInt64BE(0x20)) : u32(0x1c);
  const phentsize = u16(wide ? 0x36 : 0x2a);
  const phnum = u16(wide ? 0x38 : 0x2c);
  for (let i = 0; i < phnum; i++) {
    const at = phoff + i * phentsize;
    if (at + 4 > head.length) return true; // headers past what was read: assume the common case
    if (u32(at) === PT_INTERP) return true;
  }
  return false;
}

/** Whether the file holds Go's build info mark (read in chunks, stopping at the first). */
function isGoBinary(fd: number, size: number): boolean {
  for (let pos = 0; pos < size; pos += CHUNK_BYTES - GO_BUILDINFO.length) {
    if (readAt(fd, CHUNK_BYTES, pos).includes(GO_BUILDINFO)) return true;
  }
  return false;
}

/** Why this program's clock cannot be faked, or undefined (it can, or this cannot tell). */
function programRefusal(file: string, label: string, cwd: string, depth: number): string | undefined {
  const fd = openSync(file, "r");
  try {
    const head = readAt(fd, HEAD_BYTES, 0);
    if (head.subarray(0, 2).toString("latin1") === "#!" && depth < SHEBANG_DEPTH_MAX) {
      const words = head.toString("utf8").split("\n")[0]!.slice(2).trim().split(/\s+/);
      const [interp, ...rest] = words;
      const next = interp?.endsWith("/env") ? rest.find((w) => !w.startsWith("-") && !w.includes("=")) : interp;
      const found = next ? whichFile(next, cwd) : undefined;
      return found ? programRefusal(found, `${label} (run by ${next})`, cwd, depth + 1) : undefined;
    }
    if (head.subarray(0, 4).toString("latin1") !== "\x7fELF") return undefined;
    if (isGoBinary(fd, statSync(file).size))
      return `${label} is a Go program: Go reads the clock through the vDSO, never through the C library, so libfaketime (LD_PRELOAD) cannot move its clock`;
    if (!elfIsDynamic(head)) return `${label} is statically linked: LD_PRELOAD cannot put libfaketime under it, so its clock cannot be moved`;
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The first word a shell would run: past `VAR=value` assignments and `exec`; undefined when quoting or expansions make it unclear. */
function firstProgram(command: string): string | undefined {
  for (const w of command.trim().split(/\s+/)) {
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w) || w === "exec") continue;
    return /^[\w./+-]+$/.test(w) ? w : undefined;
  }
  return undefined;
}

const PYTHON = /^python[\d.]*$/;
const SLEEP_PROBE_TIMEOUT_MS = 30_000;
/** Python programs already tried under the library, by path: the answer does not change within a process. */
const sleepsBroken = new Map<string, boolean>();

/** Does a Python's time.sleep fail under libfaketime (monotonic left alone, as real mode runs it)? */
function pythonSleepBreaks(file: string, cwd: string, faketimeLib: string): boolean {
  const known = sleepsBroken.get(file);
  if (known !== undefined) return known;
  const env = { ...process.env, LD_PRELOAD: faketimeLib, FAKETIME: "+0", DONT_FAKE_MONOTONIC: "1" };
  const r = spawnSync(file, ["-c", "import time; time.sleep(0.001)"], { cwd, env, encoding: "utf8", timeout: SLEEP_PROBE_TIMEOUT_MS });
  const broken = r.status !== 0 && /Errno 22|Invalid argument/.test(r.stderr ?? "");
  sleepsBroken.set(file, broken);
  return broken;
}

/**
 * Why real mode cannot fake this lock driver's clock, naming its program; undefined when it
 * can (or cannot tell). With `faketimeLib`, a Python driver is tried under it.
 */
export function driverClockRefusal(command: string, cwd: string, faketimeLib?: string): string | undefined {
  const word = firstProgram(command);
  const file = word ? whichFile(word, cwd) : undefined;
  if (!word || !file) return undefined;
  try {
    const why = programRefusal(file, `\`${word}\``, cwd, 0);
    if (why) return `the lock driver's program ${why}`;
    if (faketimeLib && PYTHON.test(basename(word)) && pythonSleepBreaks(file, cwd, faketimeLib))
      return `the lock driver's program \`${word}\` is a CPython whose time.sleep fails under this machine's libfaketime (EINVAL from clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME) with the monotonic clock left alone: libfaketime issue #426, fixed after 0.9.10), so a clock fault would break the lock client's sleeps rather than move its clock`;
    return undefined;
  } catch {
    return undefined;
  }
}
