import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, posix, relative } from "node:path";

/**
 * The source tree's import graph, read as text: each .ts file under the layered
 * folders and the relative files it imports (type-only imports included: they tie
 * the layers together just as much).
 */
export const LAYERS = [
  "sim",
  "services",
  "designs",
  "faults",
  "attacks",
  "scenarios",
  "checkers",
  "causes",
  "reports",
  "harness",
  "real",
  "playground",
  "terminal",
  "api",
  "cli",
] as const;

/** A folder's rank: an import may go to the same or a lower rank, never a higher one. api and cli are the top, side by side. */
export function rankOf(folder: string): number | undefined {
  if (folder === "cli") return LAYERS.indexOf("api");
  const i = (LAYERS as readonly string[]).indexOf(folder);
  return i < 0 ? undefined : i;
}

const IMPORT = /(?:^|[^\w.])(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+\s+from\s+)?["'](\.{1,2}\/[^"']+)["']|import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

function sourcesUnder(root: string, dir: string, out: string[]): void {
  for (const name of readdirSync(join(root, dir))) {
    const path = posix.join(dir, name);
    if (statSync(join(root, path)).isDirectory()) sourcesUnder(root, path, out);
    else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) out.push(path);
  }
}

/** Every .ts source under the given folders (repository-relative), missing folders skipped. */
export function sourcesIn(root: string, folders: readonly string[]): string[] {
  const files: string[] = [];
  for (const folder of folders) {
    try {
      sourcesUnder(root, folder, files);
    } catch {
      // a layer with no folder yet
    }
  }
  return files;
}

/** file -> the files it imports (repository-relative, .js specifiers mapped to their .ts sources). */
export function importGraph(root: string): Map<string, string[]> {
  const files = sourcesIn(root, LAYERS);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(join(root, file), "utf8");
    const targets: string[] = [];
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2]!;
      targets.push(posix.normalize(posix.join(posix.dirname(file), spec)).replace(/\.js$/, ".ts"));
    }
    graph.set(file, targets);
  }
  return graph;
}

/** The strongly connected components of more than one file (Tarjan): each is an import cycle. */
export function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const scc: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      scc.push(w);
    } while (w !== v);
    if (scc.length > 1) found.push(scc.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

export const repoRelative = (root: string, path: string): string => relative(root, path);
