import { describe, expect, it } from "vitest";
import { ATTACKS, attackByName, type LockUnderTest } from "../../attacks/index.js";
import { parseScenario } from "../../scenarios/schema.js";
import { judgeChallenge } from "../../checkers/challenge.js";
import { outcomeOf } from "../helpers/scenario-sweep.js";

const SEEDS = [1, 2, 3];

function runAttack(name: string, lock: LockUnderTest) {
  const c = attackByName(name)!.compile(lock);
  if (!c.ok) throw new Error(c.refusal);
  const s = parseScenario(JSON.parse(JSON.stringify(c.scenario)), `<attack ${name}>`);
  return SEEDS.map((seed) => {
    const r = outcomeOf(s, seed);
    return { outcome: r.outcome, challenged: judgeChallenge(r.history, c.scenario.challenge).challenged };
  });
}

const setnx: LockUnderTest = { design: "redis-setnx", label: "redis-setnx" };
const setnxDel: LockUnderTest = { design: "redis-setnx", designOptions: { release: "del" }, label: "plain-del" };
const fenced: LockUnderTest = { design: "redis-fenced", label: "redis-fenced" };
const raftZk: LockUnderTest = { design: "raft-zk", label: "raft-zk" };

describe("attack catalogue", () => {
  it("names every attack once, with a story and a source", () => {
    const names = ATTACKS.map((a) => a.name);
    expect(new Set(names).size).toBe(names.length);
    for (const a of ATTACKS) expect(a.story.length > 40 && /^https?:\/\//.test(a.source)).toBe(true);
  });

  it("compiles every attack into a scenario the schema accepts, or refuses with a reason", () => {
    for (const a of ATTACKS) {
      for (const lock of [setnx, fenced, raftZk]) {
        const c = a.compile(lock);
        if (c.ok) expect(() => parseScenario(JSON.parse(JSON.stringify(c.scenario)), a.name)).not.toThrow();
        else expect(c.refusal).toMatch(/\w+/);
      }
    }
  });

  it("scales durations with the lock's lease: raft-zk's session, not the Redis TTL", () => {
    const redis = attackByName("holder-pause-before-write")!.compile(setnx);
    const zk = attackByName("holder-pause-before-write")!.compile({ ...raftZk, designOptions: { sessionTimeoutMs: 2000 } });
    expect(redis.ok && redis.scenario.faults[0]!.durationMs).toBe(1500);
    expect(zk.ok && zk.scenario.faults[0]!.durationMs).toBe(3000);
  });

  it("refuses a server clock jump where no single node holds the key", () => {
    const c = attackByName("server-clock-jump")!.compile(raftZk);
    expect(c).toEqual({ ok: false, refusal: "no single node holds the key: raft-zk is not a single Redis" });
  });
});

describe("each attack: unsafe where it must be, safe (and challenged) where it must be", () => {
  it("holder-pause-before-write: unsafe on redis-setnx, fenced on redis-fenced", () => {
    expect(runAttack("holder-pause-before-write", setnx).every((r) => r.outcome === "unsafe" && r.challenged)).toBe(true);
    expect(runAttack("holder-pause-before-write", fenced).every((r) => r.outcome === "unsafe-but-fenced" && r.challenged)).toBe(true);
  });

  it("late-release: unsafe with a plain-DEL release, safe and challenged with compare-and-delete", () => {
    expect(runAttack("late-release", setnxDel).every((r) => r.outcome === "unsafe")).toBe(true);
    expect(runAttack("late-release", setnx)).toEqual(SEEDS.map(() => ({ outcome: "safe", challenged: true })));
  });

  it("server-clock-jump: unsafe on redis-setnx", () => {
    expect(runAttack("server-clock-jump", setnx).every((r) => r.outcome === "unsafe" && r.challenged)).toBe(true);
  });
});

describe("extend-after-lapse and waiter-deadline on the designs", () => {
  it("extend-after-lapse: safe and challenged on redis-setnx (its extend checks the value)", () => {
    expect(runAttack("extend-after-lapse", setnx)).toEqual(SEEDS.map(() => ({ outcome: "safe", challenged: true })));
  });

  it("waiter-deadline: safe and challenged on redis-setnx, the waiter gives up", () => {
    expect(runAttack("waiter-deadline", setnx)).toEqual(SEEDS.map(() => ({ outcome: "safe", challenged: true })));
  });

  it("slow-acquire: never unsafe on redis-setnx, which refuses the late grant (so nothing overlaps: not challenged)", () => {
    const runs = runAttack("slow-acquire", setnx);
    expect(runs.map((r) => r.outcome === "unsafe" || r.challenged)).toEqual(SEEDS.map(() => false));
  });
});
