import { afterEach, beforeEach, vi } from "vitest";

/** What the code under test wrote to stdout and stderr during the current test (tests may clear it). */
export interface CapturedStdio {
  out: string;
  err: string;
}

/**
 * For the CLI tests, which run main() in-process: registers hooks that capture (and
 * silence) process.stdout / process.stderr writes of each test, fresh per test.
 */
export function captureStdio(): CapturedStdio {
  const io: CapturedStdio = { out: "", err: "" };
  beforeEach(() => {
    io.out = "";
    io.err = "";
    vi.spyOn(process.stdout, "write").mockImplementation((s: string | Uint8Array) => ((io.out += String(s)), true));
    vi.spyOn(process.stderr, "write").mockImplementation((s: string | Uint8Array) => ((io.err += String(s)), true));
  });
  afterEach(() => vi.restoreAllMocks());
  return io;
}
