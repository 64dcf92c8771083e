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

/**
 * Whether a cell's safety figure was put to the test: "unchallenged" when no run met
 * its scenario's challenge (checkers/challenge.ts; 0% then says nothing about safety), "partly" when only some runs did, "challenged" when all did, "unknown" for
 * cells from before availability was recorded.
 */
export type Challenge = "challenged" | "partly" | "unchallenged" | "unknown";

export function challengeOf(c: CompareCell): Challenge {
  const a = c.availability;
  if (!a) return "unknown";
  if (a.challengedRuns === 0) return "unchallenged";
  return a.challengedRuns < c.runs ? "partly" : "challenged";
}

/** "412 grants · 37 failed acquires · 1.2 s idle while waiting per run" */
export function availabilityText(c: CompareCell): string {
  const a = c.availability;
  if (!a) return "";
  const idleMsPerRun = c.runs > 0 ? a.idleWhileWaitingUs / 1000 / c.runs : 0;
  return `${a.grants} grant${a.grants === 1 ? "" : "s"} · ${a.failedAcquires} failed acquire${a.failedAcquires === 1 ? "" : "s"} · ${fmtMsShort(idleMsPerRun)} per run without a holder while someone waited`;
}

/** The reason a cell was not run, if the matrix says. */
export function skipReason(m: CompareMatrix, design: string, scenario: string): string | undefined {
  return m.skipped?.find((s) => s.design === design && s.scenario === scenario)?.reason;
}

function fmtMsShort(ms: number): string {
  if (ms >= 1000) return `${+(ms / 1000).toFixed(ms >= 10_000 ? 1 : 2)} s`;
  return `${+ms.toFixed(ms >= 10 ? 0 : 1)} ms`;
}
