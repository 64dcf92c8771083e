import { closeSync, lstatSync, mkdirSync, rmdirSync, openSync, readSync, renameSync, unlinkSync, writeFileSync, type Stats } from "node:fs";
import { basename, dirname, join } from "node:path";
import { InputError } from "../sim/errors.js";

/**
 * How lockstep writes its output files. Each file is written whole to a temporary
 * name beside it and renamed over the target, so a reader never sees half a file;
 * and before anything is written:
 *
 * - what is in the way and is not a regular file (a directory, a device such as
 *   /dev/full, a symlink, a FIFO) is never replaced: temp-and-rename would replace the
 *   node itself;
 * - a regular file is replaced only if lockstep wrote it (`writtenByLockstep`), or with
 *   `force` (the command's --force);
 * - on any failure (a full disk, a read-only directory) every temporary file is
 *   removed and the error names the target path, not the temporary one.
 *
 * Temporary files still open are listed in `liveTemps`, so an interrupt handler can
 * remove them.
 */
export interface SafeWriteOptions {
  /** Replace regular files lockstep did not write. */
  force?: boolean;
  /** The flag that chose the path, for messages (default "--out"). */
  flag?: string;
}

const live = new Set<string>();

/** Temporary files written and not yet renamed or removed (this thread's). */
export function liveTemps(): ReadonlySet<string> {
  return live;
}

/** Remove every live temporary file (an interrupt handler's job). */
export function removeLiveTemps(): void {
  for (const t of [...live]) removeQuietly(t);
}

export function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.lockstep-tmp`);
}

const HEAD_BYTES = 4096;
/** The first line of a history (sim/history.ts) or its tail, and of a command trace (TraceRecord), as lockstep writes them. */
const LOCKSTEP_JSONL = /^\{"index":\d+,"timeUs":\d+,"process":"|^\{"timeUs":\d+,"process":"[^"]*","kind":"/;

/**
 * Whether a regular file is one lockstep writes: JSON, JSONL and HTML output that names
 * lockstep in its first 4 KiB (summaries, results.json, reports, pages), a history or its
 * tail (first line `{"index":N,"timeUs":T,`), a command trace (`{"timeUs":T,"process":`),
 * a scenario, matrix or real-mode summary as lockstep writes them (pretty JSON whose
 * first key is "name", "designs" or "scenario"), or an empty file.
 */
export function writtenByLockstep(path: string): boolean {
  let head: string;
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    head = buf.subarray(0, readSync(fd, buf, 0, HEAD_BYTES, 0)).toString("utf8");
  } finally {
    closeSync(fd);
  }
  return head.length === 0 || head.includes("lockstep") || LOCKSTEP_JSONL.test(head) || /^\{\n {2}"(name|designs|scenario)": /.test(head);
}

function kindOf(st: Stats): string {
  if (st.isDirectory()) return "a directory";
  if (st.isSymbolicLink()) return "a symbolic link";
  if (st.isCharacterDevice() || st.isBlockDevice()) return "a device";
  if (st.isFIFO()) return "a FIFO";
  if (st.isSocket()) return "a socket";
  return "not a regular file";
}

/** Refuse, before any work, a target lockstep must not replace. */
export function checkReplaceable(path: string, o: SafeWriteOptions = {}): void {
  let st: Stats;
  try {
    st = lstatSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT" || (e as NodeJS.ErrnoException).code === "ENOTDIR") return;
    throw e;
  }
  const flag = o.flag ?? "--out";
  if (!st.isFile()) throw new InputError(path, flag, `expected a regular file or nothing to write over; this is ${kindOf(st)}, which lockstep never replaces`);
  if (!o.force && !writtenByLockstep(path)) {
    throw new InputError(
      path,
      flag,
      `expected a file lockstep wrote; this one it did not write, so it is left alone (choose another path, or --force to replace it)`,
    );
  }
}

/** Refuse a directory path that is something else (a file, a device) before any work. */
export function checkOutputDir(dir: string, flag = "--out"): void {
  let st: Stats;
  try {
    st = lstatSync(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return;
    if (code === "ENOTDIR") throw new InputError(dir, flag, "expected a directory (or nothing there yet); a file is in the way of its path (ENOTDIR)");
    throw e;
  }
  if (!st.isDirectory()) throw new InputError(dir, flag, `expected a directory (or nothing there yet); this is ${st.isFile() ? "a file" : kindOf(st)}`);
}

/** rmdir from `inner` up to and including `top` (the first directory mkdir made), while empty. */
function removeEmptyDirs(top: string, inner: string): void {
  for (let d = inner, i = 0; i < 64 && d.startsWith(top); d = dirname(d), i++) {
    try {
      rmdirSync(d);
    } catch {
      return;
    }
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone (or never made): nothing to clean.
  }
  live.delete(path);
}

const DESCRIBE: Record<string, string> = {
  ENOSPC: "no space left on the device",
  EDQUOT: "disk quota exceeded",
  EROFS: "a read-only file system",
  EACCES: "permission denied",
  EPERM: "not permitted",
  ENOTDIR: "a file is in the way of its directory",
  EEXIST: "something is in the way",
  EISDIR: "it is a directory",
  EIO: "an I/O error",
};

/** A write failure as one line naming the target (not the temporary file), exit 2. */
export function writeFailed(path: string, e: unknown, o: SafeWriteOptions): InputError {
  const code = (e as NodeJS.ErrnoException).code ?? "error";
  const why = DESCRIBE[code] ? `${code}, ${DESCRIBE[code]}` : code;
  return new InputError(path, o.flag ?? "--out", `expected a writable place; the write failed (${why}) and nothing was left behind`);
}

/**
 * Write several files as one step: every target is checked first, every temporary file
 * written, and only then is each renamed into place; a failure anywhere removes every
 * temporary file, and no target is touched unless all were written.
 */
export function writeFilesSafe(files: ReadonlyArray<{ path: string; text: string } | { path: string; writtenTemp: string }>, o: SafeWriteOptions = {}): void {
  for (const f of files) checkReplaceable(f.path, o);
  const temps: string[] = [];
  const madeDirs: string[] = [];
  let current = files[0]?.path ?? "";
  try {
    for (const f of files) {
      current = f.path;
      // Written already as the run went (cli/streamed-file.ts): its temp is live, renamed with the rest.
      if ("writtenTemp" in f) {
        temps.push(f.writtenTemp);
        continue;
      }
      const made = mkdirSync(dirname(f.path), { recursive: true });
      if (made !== undefined) madeDirs.push(made);
      const tmp = tempPathFor(f.path);
      // A stale temp (a killed run) is ours to replace; `wx` then never follows a link planted there.
      removeQuietly(tmp);
      live.add(tmp);
      temps.push(tmp);
      writeFileSync(tmp, f.text, { flag: "wx" });
    }
    for (let i = 0; i < files.length; i++) {
      current = files[i]!.path;
      renameSync(temps[i]!, files[i]!.path);
      live.delete(temps[i]!);
    }
  } catch (e) {
    for (const t of temps) if (live.has(t)) removeQuietly(t);
    // Directories this write made, if still empty (rmdir refuses a non-empty one).
    for (const d of madeDirs.reverse()) removeEmptyDirs(d, dirname(current));
    if (e instanceof InputError) throw e;
    throw writeFailed(current, e, o);
  }
}

/**
 * Open the temporary file of `path` for a file written as the run goes (a streamed
 * history): made as writeFilesSafe makes its temps (`wx`, listed live so an interrupt
 * removes it), then passed to writeFilesSafe as `writtenTemp` to be renamed with the
 * rest. `madeDir` is the first directory this made, for `discardTemp`.
 */
export function openTempFor(path: string, o: SafeWriteOptions = {}): { tmp: string; fd: number; madeDir: string | undefined } {
  const tmp = tempPathFor(path);
  let madeDir: string | undefined;
  try {
    madeDir = mkdirSync(dirname(path), { recursive: true });
    removeQuietly(tmp);
    const fd = openSync(tmp, "wx");
    live.add(tmp);
    return { tmp, fd, madeDir };
  } catch (e) {
    if (madeDir !== undefined) removeEmptyDirs(madeDir, dirname(path));
    throw writeFailed(path, e, o);
  }
}

/** Remove a temp from openTempFor that was not renamed (the run failed), and the directory it made if empty. */
export function discardTemp(t: { tmp: string; madeDir: string | undefined }, path: string): void {
  if (live.has(t.tmp)) removeQuietly(t.tmp);
  if (t.madeDir !== undefined) removeEmptyDirs(t.madeDir, dirname(path));
}

export function writeTextSafe(path: string, text: string, o: SafeWriteOptions = {}): void {
  writeFilesSafe([{ path, text }], o);
}
