import { InputError } from "../../sim/errors.js";
import { Fields } from "../../sim/validate.js";
import { checkJsonDepth } from "../../sim/json-depth.js";
import { attacksOfShard, type AuditResult } from "./run.js";
import type { CauseFinding, UnexplainedFinding } from "./diagnose.js";
import { CAUSES } from "../../causes/index.js";

/** Does this parsed JSON look like an audit.json (rather than a sweep's summary.json)? */
export function isAuditJson(raw: unknown): boolean {
  return typeof raw === "object" && raw !== null && "yourCode" in raw && "rows" in raw;
}

/** An audit.json written by `lockstep audit`, its fields checked enough to merge it. */
export function parseAuditFile(raw: unknown, file: string): AuditResult {
  checkJsonDepth(raw, file);
  const f = Fields.root(file, raw, "");
  const attacks = f.stringArray("attacks");
  const shard = f.has("shard") ? f.object("shard") : undefined;
  const rows = f.array("rows").map((row, i) => {
    const r = f.item("rows", i, row);
    r.string("attack");
    r.string("finding");
    return row as AuditResult["rows"][number];
  });
  return {
    lock: f.string("lock"),
    reference: f.string("reference"),
    seeds: f.number("seeds", { integer: true, min: 1 }),
    attacks,
    ...(shard ? { shard: { index: shard.number("index", { integer: true, min: 1 }), count: shard.number("count", { integer: true, min: 1 }) } } : {}),
    rows,
    yourCode: f.stringArray("yourCode"),
    // Read as written (merge only joins them); an audit.json from before causes has none.
    causes: f.has("causes") ? (f.array("causes") as CauseFinding[]) : [],
    unexplained: f.has("unexplained") ? (f.array("unexplained") as UnexplainedFinding[]) : [],
  };
}

/**
 * The shards of one audit (`audit --shard i/n`), as the unsharded audit would have
 * written them: rows in the attacks' order. Refused, naming the file: shards of different
 * audits (lock, reference, seeds, attacks), a shard twice, a shard missing, or a shard
 * whose rows are not the attacks it was dealt.
 */
export function mergeAudits(inputs: ReadonlyArray<{ file: string; audit: AuditResult }>): AuditResult {
  const first = inputs[0]!;
  const count = first.audit.shard?.count ?? 1;
  const seen = new Map<number, string>();
  for (const { file, audit } of inputs) {
    for (const k of ["lock", "reference", "seeds"] as const) {
      if (audit[k] !== first.audit[k]) throw new InputError(file, k, `expected the same ${k} as ${first.file} (${first.audit[k]}), got ${audit[k]}`);
    }
    if (audit.attacks.join(",") !== first.audit.attacks.join(",")) throw new InputError(file, "attacks", `expected the same attacks as ${first.file}`);
    const index = audit.shard?.index ?? 1;
    if ((audit.shard?.count ?? 1) !== count) throw new InputError(file, "shard.count", `expected ${count}, as in ${first.file}`);
    if (seen.has(index)) throw new InputError(file, "shard.index", `expected a shard not given before (shard ${index}/${count} is also ${seen.get(index)})`);
    seen.set(index, file);
    const dealt = attacksOfShard(audit.attacks, { index, count }).join(",");
    if (audit.rows.map((r) => r.attack).join(",") !== dealt)
      throw new InputError(file, "rows", `expected the rows of the attacks shard ${index}/${count} is dealt: ${dealt}`);
  }
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !seen.has(i));
  if (missing.length > 0) throw new InputError(first.file, "shard", `expected all ${count} shards; missing: ${missing.map((i) => `${i}/${count}`).join(", ")}`);
  const byAttack = new Map(inputs.flatMap(({ audit }) => audit.rows.map((r) => [r.attack, r] as const)));
  const rows = first.audit.attacks.map((a) => byAttack.get(a)!);
  const { lock, reference, seeds, attacks } = first.audit;
  const causes = mergeCauses(
    inputs.map((x) => x.audit.causes),
    attacks,
  );
  const unexplained = inputs.flatMap((x) => x.audit.unexplained).sort((a, b) => attacks.indexOf(a.attack) - attacks.indexOf(b.attack));
  return { lock, reference, seeds, attacks, rows, yourCode: rows.filter((r) => r.finding === "your code").map((r) => r.attack), causes, unexplained };
}

/** One finding per cause across shards: their attacks joined, the widest counterexample kept (and its real result). */
function mergeCauses(shards: ReadonlyArray<readonly CauseFinding[]>, attacks: readonly string[]): CauseFinding[] {
  const byId = new Map<string, CauseFinding>();
  for (const c of shards.flat()) {
    const seen = byId.get(c.id);
    if (!seen) {
      byId.set(c.id, { ...c, attacks: [...c.attacks] });
      continue;
    }
    seen.attacks.push(...c.attacks);
    const wider = (x: CauseFinding): number => (x.counterexample ? x.counterexample.evidenceRank * 1e12 + x.counterexample.evidenceSpanUs : -1);
    if (wider(c) > wider(seen)) byId.set(c.id, { ...c, attacks: seen.attacks });
  }
  const order = (id: string): number => CAUSES.findIndex((c) => c.name === id);
  for (const c of byId.values()) c.attacks.sort((a, b) => attacks.indexOf(a.attack) - attacks.indexOf(b.attack));
  return [...byId.values()].sort((a, b) => order(a.id) - order(b.id));
}
