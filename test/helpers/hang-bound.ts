/**
 * A test's timeout, or a wait's bound inside a test, is a guard against a hang, never an
 * assertion on speed: its base (what an idle machine needs, with room) is stretched by the
 * machine's load as real mode's waits are (real/servers/deadlines.ts: × (1 + 1-minute load
 * per core), at most × 20), read when the test file is collected. On a loaded machine (two
 * busy loops per core, `npm run test:load`) a slow test passes; a hang still ends.
 */
import { loadTolerantMs } from "../../real/servers/deadlines.js";

export const hangBoundMs = (baseMs: number): number => loadTolerantMs(baseMs);
