/**
 * Errors a user can act on. The CLI prints `message` alone (no stack) and exits
 * with the code below; anything else escaping is a lockstep bug.
 */
export class InputError extends Error {
  /**
   * @param file  the file (or "<arg>" for a command-line value) that is wrong
   * @param field the field path within it, e.g. "faults[2].durationMs", or a line number "line 14"
   * @param expected what was expected, in words
   */
  constructor(
    readonly file: string,
    readonly field: string,
    readonly expected: string,
  ) {
    // A command-line value has no file: the flag alone names it.
    super(file === "<arg>" ? `${field}: ${expected}` : `${file}: ${field}: ${expected}`);
    this.name = "InputError";
  }
}

/** A run hit one of its bounds (events, simulated time, queue length). */
export class SimLimitError extends Error {
  constructor(
    readonly limit: string,
    readonly value: number,
    readonly detail: string,
  ) {
    super(`simulation bound hit: ${limit} = ${value} (${detail})`);
    this.name = "SimLimitError";
  }
}

/**
 * The run was stopped because the simulation could not go on faithfully: library code
 * tried to leave it (a real socket, timer or clock), threw where nothing could catch
 * it, or used a command the simulated server does not model. The CLI prints the
 * message with the seed and the replay command (`replay` is filled in by the runner).
 */
export class SimulationStopError extends Error {
  /** `command` is the whole replay line (a file run on a lock library needs its --lock). */
  replay?: { scenario: string; seed: number; command?: string };
}
