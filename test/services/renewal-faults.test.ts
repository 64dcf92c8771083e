import { describe, expect, it } from "vitest";
import { loadScenario } from "../../scenarios/index.js";
import type { HistoryEvent } from "../../sim/history.js";
import { outcomeOf } from "../helpers/scenario-sweep.js";

/**
 * Renewal under faults at the Raft level (issue 14, item 5): a 10 s hold, 2.5 times the
 * session timeout / lease TTL, kept only by pings or keepalives, while the leadership
 * changes: the leader crashes (…-long-hold-leader-crash), is stranded in a minority with
 * a follower for longer than the timeout (…-long-hold-minority-leader), or three
 * partitions in a row move it (…-long-hold-partition-churn). On every seed checked here
 * the holder keeps its lock through the changes: no lapse, a renewal and a write after
 * the faults, a release that frees, and the waiter only after it. Their 200-seed sweeps
 * (safe on each) run with every scenarios/raft-zk/ and scenarios/etcd-lease/ file
 * (test/designs/raft-zk-scenarios.test.ts, etcd-lease-scenarios.test.ts).
 */
const SEEDS = 10;
const find = (h: readonly HistoryEvent[], p: Partial<HistoryEvent>) =>
  h.filter((e) => Object.entries(p).every(([k, x]) => (e as unknown as Record<string, unknown>)[k] === x));

for (const design of ["raft-zk", "etcd-lease"] as const) {
  for (const kind of ["leader-crash", "minority-leader", "partition-churn"] as const) {
    const name = `${design}-long-hold-${kind}`;
    describe(name, () => {
      it(`c1 keeps its lock through the leader changes on seeds 1-${SEEDS}, and c2 gets it only after c1's release`, () => {
        const s = loadScenario(name);
        const faultStartUs = Math.min(...s.faults.map((f) => f.atMs!)) * 1000;
        const faultEndUs = Math.max(...s.faults.map((f) => f.atMs! + f.durationMs!)) * 1000;
        for (let seed = 1; seed <= SEEDS; seed++) {
          const r = outcomeOf(s, seed);
          const at = `seed ${seed}`;
          expect(r.outcome, at).toBe("safe");
          const h = r.history;
          expect(find(h, { process: "c1", f: "acquire", type: "ok" })[0]!.timeUs, at).toBeLessThan(faultStartUs);
          const c1release = find(h, { process: "c1", f: "release", type: "ok" })[0]!;
          // The faults reached the leadership during the hold: a leader elected after they began.
          const newLeaders = h.filter((e) => e.f === "leader" && e.type === "info" && e.timeUs > faultStartUs && e.timeUs < c1release.timeUs);
          expect(newLeaders.length, at).toBeGreaterThan(0);
          // The holder never lost contact long enough to stop trusting its lock.
          expect(find(h, { process: "c1", f: "lapse" }), at).toEqual([]);
          const renew = find(h, { process: "c1", f: "extend", type: "ok" })[0];
          expect(renew?.timeUs, at).toBeGreaterThan(faultEndUs);
          expect(find(h, { process: "c1", f: "write", type: "ok" }), at).toHaveLength(1);
          expect(c1release.value, at).toEqual({ released: true });
          // No expiry was applied before c1's release. (A leader stranded in a minority may
          // decide one, not hearing the pings that went to the majority's leader; it cannot commit.)
          const applied = h.filter((e) => (e.f === "session-expired" || e.f === "lease-revoked") && e.timeUs < c1release.timeUs);
          expect(applied, at).toEqual([]);
          for (const d of h.filter((e) => e.f === "session-expiry" || e.f === "lease-expiry")) {
            const by = (d.value as { decidedBy: string }).decidedBy;
            if (d.timeUs < c1release.timeUs) expect(kind === "minority-leader" && by.endsWith("-1"), `${at}: expiry decided by ${by}`).toBe(true);
          }
          expect(find(h, { process: "c2", f: "acquire", type: "ok" })[0]!.timeUs, at).toBeGreaterThan(c1release.timeUs);
        }
      });
    });
  }
}
