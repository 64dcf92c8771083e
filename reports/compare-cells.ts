import type { CompareCell, CompareMatrix } from "./types.js";

/**
 * What the comparison page and the terminal table share: finding a cell, and the
 * words and numbers a cell is shown with. Rows are scenarios, columns designs (there
 * are many more scenarios than designs, so this is the shape that fits a screen).
 */
export function cellAt(m: CompareMatrix, design: string, scenario: string): CompareCell | undefined {
  return m.cells.find((c) => c.design === design && c.scenario === scenario);
}

/** Designs that have at least one cell, in the matrix's order. */
export function designsWithCells(m: CompareMatrix): string[] {
  return m.designs.filter((d) => m.cells.some((c) => c.design === d && c.runs > 0));
}

export function pct(x: number): string {
  // Interval ends computed in floating point land a hair off 0 and 1.
  if (x < 5e-5) return "0%";
  if (x > 1 - 5e-5) return "100%";
  const p = x * 100;
  return `${p < 1 ? p.toFixed(2) : p < 10 ? p.toFixed(1) : p.toFixed(0)}%`;
}

export function ciText(c: CompareCell): string {
  return `${pct(c.ci95[0])}–${pct(c.ci95[1])}`;
}

export function seedCount(m: CompareMatrix): number {
  return m.seeds.to - m.seeds.from + 1;
}
