// redlock-slow-acquire for real: five redis-servers, the real redlock package, redis-5's
// replies to c1 delayed 990 ms by c1's proxy for the first 2.5 s. What must hold on every run:
// while the delay lasts, each of c1's attempts waits ~990 ms for redis-5, longer than the
// lock's validity (1000 ms less node-redlock's 12 ms drift), so c1 is granted nothing until
// the delay is over; c2, whose links are plain, takes the lock meanwhile. Safe. The margins:
// c1's grant can only come after 2.5 s; c2's first grant comes after c1's first attempt
// frees the keys (~1 s), 1.5 s before that. Then split-vote-redlock-jitter, whose standing
// network.links (1, 10, 40 ms) must be in force from t0.
//
// Both stories stand on node-redlock's 50 ms request timeout, which a loaded machine misses
// on its own (two busy loops per core: replies take longer than 50 ms): how many grants a
// run gets is the machine's speed. So each test asserts what must hold whatever the load
// (no two holders; c1 granted nothing during the delay; every grant waited out the 40 ms
// link), and scales the rest by what the run measured: c2's grant during the delay, and the
// lock changing hands, are asserted when the run granted at all, and logged.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadScenario } from "../../scenarios/index.js";
import type { HistoryEvent } from "../../sim/history.js";
import { planReal } from "../../real/index.js";
import { runRealChecked } from "../helpers/real-run.js";

const scratch = mkdtempSync(join(tmpdir(), "lockstep-link-conditions-run-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("real mode: delay steps and standing link conditions on the proxies (×1)", () => {
  it("redlock-slow-acquire: c1 is granted nothing while redis-5's replies crawl; c2 takes the lock meanwhile; safe, every run check holding", async () => {
    const scenario = loadScenario("redlock-slow-acquire");
    const plan = planReal(scenario);
    const { run, record } = await runRealChecked(plan, { seed: scenario.seed, parentDir: scratch });
    expect(record.verdicts.safety).toBe(true);
    expect(["safe", "liveness-loss"]).toContain(record.verdicts.outcome);

    const delay = record.real.faults.find((f) => f.kind === "delay")!;
    expect(delay.startUs, "in force from t0").toBe(0);
    expect(delay.stoppedUs!, "put in force before t0").toBeLessThanOrEqual(0);
    expect(delay.resumedUs!).toBeGreaterThanOrEqual(2_500_000);
    const h: readonly HistoryEvent[] = run.history;
    const oks = (p: string) => h.filter((e) => e.process === p && e.f === "acquire" && e.type === "ok");
    expect(h.filter((e) => e.process === "nemesis" && e.f === "delay").map((e) => (e.value as { phase: string }).phase)).toEqual(["start", "end"]);
    for (const ok of oks("c1")) expect(ok.timeUs, "c1's grants come after the delay ended").toBeGreaterThanOrEqual(delay.resumedUs!);
    // c2's links are plain: granted during the delay unless the machine was too slow for its 50 ms timeouts at all.
    const c2first = oks("c2")[0];
    if (oks("c1").length + oks("c2").length > 0) expect(c2first?.timeUs, "c2, not c1, is granted first").toBeLessThan(oks("c1")[0]?.timeUs ?? Infinity);
    console.log(
      `real mode test: redlock-slow-acquire at ${record.real.load.oneMinute.max} load: c2's first grant ${c2first ? `at ${(c2first.timeUs / 1000).toFixed(0)} ms (the delay lasts 2500 ms)` : "none"}, c1's grants ${oks("c1").length}`,
    );
  });

  it("split-vote-redlock-jitter: the standing 40 ms link to redis-3 is in force (every grant waited out the 50 ms timeout); safe", async () => {
    const scenario = loadScenario("split-vote-redlock-jitter");
    const plan = planReal(scenario);
    const { run, record } = await runRealChecked(plan, { seed: scenario.seed, parentDir: scratch });
    // Never two holders; waiting longer than the liveness bound is what a loaded machine does to 50 ms timeouts.
    expect(record.verdicts.safety).toBe(true);
    expect(["safe", "liveness-loss"]).toContain(record.verdicts.outcome);
    const grants = run.history.filter((e) => e.f === "acquire" && e.type === "ok");
    // redis-3's reply takes 80 ms, past the 50 ms timeout, so no attempt ends sooner: validity ≤ 1000 − 50 − 12 (drift) ms, +1 for Date.now()'s rounding.
    for (const g of grants) expect((g.value as { validityMs: number }).validityMs).toBeLessThanOrEqual(939);
    if (grants.length > 1) expect(new Set(grants.map((g) => g.process)).size, "the lock changed hands").toBeGreaterThan(1);
    console.log(
      `real mode test: split-vote-redlock-jitter at ${record.real.load.oneMinute.max} load: ${grants.length} grants, outcome ${record.verdicts.outcome}` +
        (record.verdicts.outcome === "liveness-loss" ? ` (${record.verdicts.results.find((c) => c.checker === "liveness")?.summary ?? ""})` : ""),
    );
  });
});
