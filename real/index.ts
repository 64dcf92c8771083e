// Real mode: a shipped scenario against real servers and real npm clients on loopback,
// judged by the simulator's checkers. docs/real-mode.md explains how it works.
export { planReal, type PlannedFault, type RealPlan } from "./plan.js";
export { nemesisLines, planRealRun, type RealNemesis } from "./nemesis.js";
export { REAL_DESIGN_NAMES } from "./designs.js";
export { runRealOnce, REAL_NOTE, DRAIN_MS, type RealRunInfo, type RealRunOutput, type RealRunOptions } from "./run.js";
export { recordRealRun, rerunCommand, writeRealArtifacts, type RealRunRecord } from "./record.js";
export { markRealReport } from "./record.js";
export { parseTimeScale, scaleScenario } from "./time-scale.js";
export { RealRunError } from "./errors.js";
