import { NEMESIS, type HistoryEvent } from "../sim/history.js";

/**
 * The events a run must keep for the checkers, when its history is streamed to a file
 * and only what checking needs is held (RunOptions.retainHistory): every client event,
 * the nemesis's faults, the storage's notes and final reads, replica states, and the
 * first event (liveness measures from it). Dropped are the servers' own notes (`info`
 * events such as key-set, repl-sent, raft-role, watch-fired): no checker reads them.
 * The kept events keep their indexes, so witnesses name the same events.
 *
 * The verdicts on the kept events equal those on the whole history (test/sim/
 * needed-events.test.ts, every shipped scenario); a checker that starts reading a
 * server's notes must be added here. A budget "unknown" counts fewer events scanned.
 */
const REPLICA_STATE = "replica-state";

export function keptForCheckers(clientIds: Iterable<string>, storageId = "storage"): (e: HistoryEvent) => boolean {
  const notes = new Set<string>([NEMESIS, storageId, ...clientIds]);
  return (e) => e.type !== "info" || e.index === 0 || notes.has(e.process) || e.f === REPLICA_STATE;
}
