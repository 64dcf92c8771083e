import { type Facts, type GrantFact, type KeyLife } from "./facts.js";

/**
 * A grant whose client went on believing it held the lock after Redis had expired the
 * key its acquire set: the common ground of the validity causes, which each say why.
 * A key ended by another client's command is that command's cause; one that vanished
 * (a node restart, a step of its clock) is the backend's limit; a grant whose clock
 * changed rate is the backend's limit too (a lease assumes bounded drift).
 */
export interface BeliefPastKey {
  g: GrantFact;
  /** The life whose expiry took the lock from the grant (the quorum's, on N nodes). */
  life: KeyLife;
  keyEndUs: number;
  /** How long the belief outlived the key, µs. */
  pastUs: number;
}

/** Slack before a belief counts as outliving its key: a poll of holds(), and the drift a lease model allows (1%). */
export function toleranceUs(g: GrantFact): number {
  return 2000 + (g.ttlMs ?? 0) * 10;
}

export function beliefsPastKey(f: Facts): BeliefPastKey[] {
  const out: BeliefPastKey[] = [];
  for (const g of f.grants) {
    const k = keyEndOf(f, g);
    if (!k) continue;
    const pastUs = g.beliefEndUs - k.keyEndUs;
    if (pastUs > toleranceUs(g)) out.push({ g, ...k, pastUs });
  }
  return out;
}

/**
 * When the grant lost its lock by expiry: when fewer than a quorum of its keys remained
 * (its one key, on one node). Undefined when a key of the quorum ended otherwise (another
 * client's command, a node that lost it), or the grant's clock changed rate.
 */
export function keyEndOf(f: Facts, g: GrantFact): { life: KeyLife; keyEndUs: number } | undefined {
  const nodes = new Set(f.commands.map((c) => c.node)).size;
  const quorum = Math.floor(nodes / 2) + 1;
  if (g.lives.length < quorum || drifted(f, g)) return undefined;
  const byEnd = [...g.lives].sort((a, b) => a.endUs - b.endUs);
  const life = byEnd[g.lives.length - quorum]!;
  return life.end.kind === "expired" ? { life, keyEndUs: life.endUs } : undefined;
}

/** Whether the grant's process had its clock's rate changed during the hold. */
function drifted(f: Facts, g: GrantFact): boolean {
  return f.clockRates.some((r) => r.process === g.process && r.atUs < g.beliefEndUs);
}

/** The end of the validity the client last reported (at the grant, or at its last accepted extend before `beforeUs`), true µs. */
export function reportedValidityEndUs(g: GrantFact, beforeUs: number): number | undefined {
  let end = g.validityMs !== undefined ? g.okUs + g.validityMs * 1000 : undefined;
  for (const x of g.extends) {
    if (x.ok && x.endUs <= beforeUs) end = x.validityMs !== undefined ? x.endUs + x.validityMs * 1000 : undefined;
  }
  return end;
}

/** A step back of the grant's wall clock during its hold, if any (the first). */
export function stepBack(f: Facts, g: GrantFact): Facts["clockSteps"][number] | undefined {
  return f.clockSteps.find((s) => s.process === g.process && s.atUs >= g.okUs && s.atUs < g.beliefEndUs && s.deltaMs < 0);
}
