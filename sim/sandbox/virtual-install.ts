/**
 * One virtual install: the paths library code sees (__filename, require.resolve, stack
 * frames, fs errors) are fixed virtual ones, the same in any folder lockstep or the
 * adapter is installed in. The adapter's folder is VIRTUAL_ROOT; a package file is
 * VIRTUAL_ROOT/node_modules/ and its path after the first node_modules folder; any other
 * module keeps its place relative to the adapter's folder.
 *
 * Reading goes the other way: a virtual path is mapped to the real file through the
 * folders of the modules loaded so far, resolved to where it really points (symlinks
 * included), and read only when that target lies in a loaded package or the adapter's
 * folder.
 */
import { realpathSync } from "node:fs";
import { dirname, posix, relative, sep } from "node:path";

export const VIRTUAL_ROOT = "/app/";
/** The `events` package's files are Node's builtin in the sandbox. */
const EVENTS_NAME = "node:events";

/** A real path's virtual name, the folders library code may then read in, and (virtual, real) folder pairs in the order noted. */
interface Mapping {
  virtual: string;
  roots: string[];
  notes: string[];
}
const mappings = new Map<string, Mapping>();

export class VirtualInstall {
  /** Virtual folder -> real folder, for every folder of a loaded module and its package. */
  private readonly folders = new Map<string, string>();
  /** Real folders library code may read in: the adapter's, other modules outside node_modules, and each loaded package. */
  private readonly roots = new Set<string>();

  constructor(
    private readonly adapterDir: string,
    private readonly eventsDir?: string,
  ) {
    this.folders.set("/app", adapterDir);
    this.roots.add(realOrSame(adapterDir));
  }

  /** The virtual path of real file `real`, its folders noted for reading back. */
  virtualOf(real: string): string {
    // What a path maps to depends only on the two folders and the path: worked out once per worker.
    const key = `${this.adapterDir}\0${this.eventsDir ?? ""}\0${real}`;
    let m = mappings.get(key);
    if (m === undefined) mappings.set(key, (m = this.mapping(real)));
    for (const r of m.roots) this.roots.add(r);
    for (let i = 0; i < m.notes.length; i += 2) this.note(m.notes[i]!, m.notes[i + 1]!);
    return m.virtual;
  }

  private mapping(real: string): Mapping {
    if (this.eventsDir !== undefined && real.startsWith(this.eventsDir + sep)) return { virtual: EVENTS_NAME, roots: [], notes: [] };
    const parts = real.split(sep);
    const nm = parts.indexOf("node_modules");
    if (nm >= 0) {
      const pkgEnd = nm + (parts[nm + 1]?.startsWith("@") ? 3 : 2);
      const pkgReal = parts.slice(0, pkgEnd).join(sep);
      const v = posix.join("/app/node_modules", ...parts.slice(nm + 1));
      return {
        virtual: v,
        roots: [pkgReal],
        notes: [posix.join("/app/node_modules", ...parts.slice(nm + 1, pkgEnd)), pkgReal, posix.dirname(v), dirname(real)],
      };
    }
    const v = posix.join("/app", relative(this.adapterDir, real).split(sep).join("/"));
    return { virtual: v, roots: [dirname(real)], notes: [posix.dirname(v), dirname(real)] };
  }

  private note(virtualDir: string, realDir: string): void {
    if (!this.folders.has(virtualDir)) this.folders.set(virtualDir, realDir);
  }

  /** The real path a virtual path names: through the deepest noted folder it lies in; undefined outside every one. */
  realOf(virtual: string): string | undefined {
    const v = posix.resolve("/", virtual);
    for (let d = v; ; d = posix.dirname(d)) {
      const real = this.folders.get(d);
      if (real !== undefined) return d === v ? real : real + sep + posix.relative(d, v).split("/").join(sep);
      if (d === "/") return undefined;
    }
  }

  /** Where a virtual path really leads (symlinks followed), if library code may read it; undefined if not. */
  readableTarget(virtual: string): { real: string | undefined; target: string | undefined } {
    const real = this.realOf(virtual);
    if (real === undefined) return { real, target: undefined };
    const target = realOrSame(real);
    const ok = [...this.roots].some((r) => target === r || target.startsWith(r + sep));
    return { real, target: ok ? target : undefined };
  }
}

/** A path's real target, or the path itself when it does not exist (its read then fails as ENOENT). */
function realOrSame(p: string): string {
  try {
    return realpathSync.native(p);
  } catch {
    return p;
  }
}
