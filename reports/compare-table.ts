import type { CompareMatrix } from "./types.js";
import { cellAt, challengeOf, ciText, designsWithCells, pct } from "./compare-cells.js";

/**
 * The comparison as a terminal table: a row per scenario, a column per design; each
 * cell "violations/runs rate [95% CI]" and, where a seed failed, one failing seed to
 * replay. Plain text (no colour codes), so it pastes into an issue or a review.
 */
export function formatCompareTable(matrix: CompareMatrix): string {
  const designs = designsWithCells(matrix);
  const header = ["scenario", ...designs];
  const rows: string[][] = matrix.scenarios.map((s) => [
    s,
    ...designs.map((d) => {
      const c = cellAt(matrix, d, s);
      if (!c || c.runs === 0) return "—";
      const challenge = challengeOf(c);
      const tag = challenge === "unchallenged" ? " not challenged" : challenge === "partly" ? ` challenged ${c.availability!.challengedRuns}/${c.runs}` : "";
      const live = c.livenessLosses ? ` liveness lost ${c.livenessLosses}/${c.runs}` : "";
      const base = `${c.violations}/${c.runs} ${pct(c.violationRate)} [${ciText(c)}]${tag}${live}`;
      return c.failingSeed !== undefined ? `${base} seed ${c.failingSeed}` : base;
    }),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  const out = [
    `violation rate over seeds ${matrix.seeds.from}..${matrix.seeds.to} (violations/runs, rate, 95% Wilson interval; "not challenged": no run met the scenario's challenge (by default a grant while another client still believed it held), so 0% proves nothing; "liveness lost": runs where a lock was not granted in time, not a safety violation; a failing seed to replay)`,
    line(header),
    widths.map((w) => "-".repeat(w)).join("  "),
    ...rows.map(line),
  ];
  return out.join("\n") + "\n";
}
