/** The pure Raft core: types, log arithmetic and the step function. */
export * from "./types.js";
export * from "./log.js";
export { step, stepInto, initialState, cloneState, quorum, PAPER_RULES } from "./step.js";
