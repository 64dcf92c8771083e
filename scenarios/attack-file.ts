import { InputError } from "../sim/errors.js";
import { ATTACKS, attackByName } from "../attacks/index.js";

/** The fields a scenario file naming an attack may have (the rest comes from the attack). */
const ATTACK_FILE_FIELDS = ["attack", "design", "designOptions", "name", "title", "seed", "expect"] as const;

/**
 * A scenario file may be an attack applied to a lock:
 *   { "attack": "late-release", "design": "redis-setnx", "designOptions": { "release": "del" }, "expect": "unsafe" }
 * The attack compiles for that lock (attacks/) into the scenario it stands for; the file
 * may name it, set its seed and the verdict it expects. An attack refused for that lock
 * is an input error with the attack's reason.
 */
export function scenarioFromAttackFile(raw: Record<string, unknown>, file: string): Record<string, unknown> {
  for (const k of Object.keys(raw)) {
    if (!(ATTACK_FILE_FIELDS as readonly string[]).includes(k))
      throw new InputError(file, k, `expected a field of an attack scenario (${ATTACK_FILE_FIELDS.join(", ")})`);
  }
  const name = raw.attack;
  const attack = typeof name === "string" ? attackByName(name) : undefined;
  if (!attack) throw new InputError(file, "attack", `expected one of ${ATTACKS.map((a) => a.name).join(", ")}, got ${JSON.stringify(name)}`);
  if (typeof raw.design !== "string") throw new InputError(file, "design", `expected a design name, got ${JSON.stringify(raw.design)}`);
  const designOptions = raw.designOptions;
  if (designOptions !== undefined && (typeof designOptions !== "object" || designOptions === null || Array.isArray(designOptions)))
    throw new InputError(file, "designOptions", `expected an object, got ${JSON.stringify(designOptions)}`);
  const c = attack.compile({
    design: raw.design,
    ...(designOptions !== undefined ? { designOptions: designOptions as Record<string, unknown> } : {}),
    label: raw.design,
  });
  if (!c.ok) throw new InputError(file, "attack", `expected an attack that applies to ${raw.design}; ${attack.name} does not: ${c.refusal}`);
  const out: Record<string, unknown> = JSON.parse(JSON.stringify(c.scenario)) as Record<string, unknown>;
  for (const k of ["name", "title", "seed", "expect"] as const) if (raw[k] !== undefined) out[k] = raw[k];
  return out;
}
