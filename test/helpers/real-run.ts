/**
 * One real run as every real-mode test starts it, with what must hold on every run asserted:
 * every process it ever started is gone, its temp dir is removed, and its own run checks
 * (real/run-checks.ts) passed — a run failing those is not evidence of anything.
 */
import { existsSync } from "node:fs";
import { expect } from "vitest";
import type { RealPlan } from "../../real/plan.js";
import { recordRealRun, type RealRunRecord } from "../../real/record.js";
import { runRealOnce, type RealRunOptions, type RealRunOutput } from "../../real/run.js";
import { isGone } from "./processes.js";

export async function runRealChecked(
  plan: RealPlan,
  opts: Omit<RealRunOptions, "run" | "runs"> & Partial<Pick<RealRunOptions, "run" | "runs">>,
  label = "",
): Promise<{ run: RealRunOutput; record: RealRunRecord }> {
  const at = label ? `${label}: ` : "";
  const run = await runRealOnce(plan, { run: 1, runs: 1, ...opts });
  for (const pid of run.pidsEver) expect(isGone(pid), `${at}pid ${pid} still running`).toBe(true);
  expect(existsSync(run.dir), `${at}temp dir ${run.dir}`).toBe(false);
  const record = recordRealRun(plan, run);
  for (const c of record.real.checks) expect(c.ok, `${at}${c.name}: ${c.detail}`).toBe(true);
  return { run, record };
}
