import { describe, expect, it } from "vitest";
import { attackByName, type LockUnderTest } from "../../attacks/index.js";
import { attacksOfShard, runAudit, type AuditResult } from "../../harness/audit/run.js";
import { mergeAudits, parseAuditFile } from "../../harness/audit/merge.js";
import { inputErrorOf } from "../helpers/input-error.js";
import { resolve } from "node:path";

const lock: LockUnderTest = { design: "redis-setnx", label: "redis-setnx" };
const attacks = ["late-release", "holder-pause-before-write", "waiter-deadline", "server-clock-jump", "async-failover"].map((n) => attackByName(n)!);
const audit = (shard?: { index: number; count: number }): AuditResult => runAudit(lock, { seeds: 2, attacks, ...(shard ? { shard } : {}) });
const shards = (count: number) => Array.from({ length: count }, (_, i) => ({ file: `shard-${i + 1}.json`, audit: audit({ index: i + 1, count }) }));

describe("audit --shard and merge", () => {
  it("deals the attacks in turn, every attack to exactly one shard", () => {
    const names = attacks.map((a) => a.name);
    const dealt = [1, 2, 3].map((index) => attacksOfShard(names, { index, count: 3 }));
    expect(dealt).toEqual([["late-release", "server-clock-jump"], ["holder-pause-before-write", "async-failover"], ["waiter-deadline"]]);
  });

  it("merges 3 shards, given in any order, into the unsharded audit", () => {
    const whole = audit();
    const merged = mergeAudits(shards(3).reverse());
    expect(merged).toEqual(whole);
    expect(merged.yourCode).toEqual([]);
  });

  it("merges the findings by cause: each cause once, its attacks from every shard, as the unsharded audit has them", () => {
    const two: LockUnderTest = {
      design: "library",
      designOptions: { adapter: resolve("test/fixtures/adapters/bugs/two-bugs.cjs"), nodes: 1 },
      label: "two-bugs",
    };
    const some = ["late-release", "extend-after-lapse", "delayed-release", "long-hold-renewal"].map((n) => attackByName(n)!);
    const run = (shard?: { index: number; count: number }): AuditResult => runAudit(two, { seeds: 2, attacks: some, ...(shard ? { shard } : {}) });
    const whole = run();
    expect(whole.causes.map((c) => [c.id, c.attacks.map((a) => a.attack)])).toEqual([
      ["release-deletes-others-key", ["late-release", "delayed-release"]],
      ["extend-renews-others-key", ["extend-after-lapse", "long-hold-renewal"]],
    ]);
    const merged = mergeAudits([2, 1].map((index) => ({ file: `s${index}.json`, audit: run({ index, count: 2 }) })));
    expect(merged.causes.map((c) => [c.id, c.attacks])).toEqual(whole.causes.map((c) => [c.id, c.attacks]));
  });

  it("a shard's audit.json reads back as written (the merge input)", () => {
    const s = audit({ index: 2, count: 3 });
    expect(parseAuditFile(JSON.parse(JSON.stringify(s)), "shard-2.json")).toEqual(s);
  });

  it("refuses a missing shard, a shard twice, and shards of different audits, naming the file", () => {
    const three = shards(3);
    expect(inputErrorOf(() => mergeAudits(three.slice(0, 2))).message).toMatch(/shard-1.json: shard: .*missing: 3\/3/);
    expect(inputErrorOf(() => mergeAudits([...three, { ...three[1]!, file: "again.json" }])).message).toMatch(
      /again.json: shard.index: .*shard 2\/3 is also shard-2.json/,
    );
    const other = { file: "other.json", audit: { ...three[2]!.audit, seeds: 5 } };
    expect(inputErrorOf(() => mergeAudits([three[0]!, three[1]!, other])).message).toMatch(
      /other.json: seeds: expected the same seeds as shard-1.json \(2\), got 5/,
    );
    expect(inputErrorOf(() => parseAuditFile({ lock: "x", rows: [], yourCode: [] }, "bad.json")).message).toMatch(/bad.json: attacks/);
  });
});
