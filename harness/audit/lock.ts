import { isAbsolute, resolve } from "node:path";
import { ATTACKS, attackByName, type Attack, type LockUnderTest } from "../../attacks/index.js";
import { designByName, DESIGNS } from "../../designs/index.js";
import { adapterPath, BUILTIN_ADAPTERS } from "../../designs/library/adapter.js";
import { library } from "../../designs/library/design.js";
import { InputError } from "../../sim/errors.js";
import { didYouMean } from "../../sim/suggest.js";

/** What the audit is asked to judge: an adapter (a built-in name or a path) or a built-in design. */
export interface AuditTarget {
  lock?: string;
  design?: string;
  designOptions?: Record<string, unknown>;
  /** Redis nodes an adapter talks to (default: the built-in adapter's, else 1). */
  nodes?: number;
}

/**
 * The lock under audit, checked before anything runs: exactly one of lock or design; a
 * bare word that is no built-in adapter, or a path to nothing, is one line naming
 * `--lock` with the list and the nearest names (as `run --lock` refuses it).
 */
export function lockUnderAudit(t: AuditTarget): LockUnderTest {
  if ((t.lock === undefined) === (t.design === undefined))
    throw new InputError("<arg>", "--lock/--design", "exactly one of --lock <adapter> or --design <name>");
  if (t.design !== undefined) {
    if (!designByName(t.design))
      throw new InputError(
        "<arg>",
        "--design",
        `${didYouMean(
          t.design,
          DESIGNS.map((d) => d.name),
        )}one of: ${DESIGNS.map((d) => d.name).join(", ")}`,
      );
    return { design: t.design, ...(t.designOptions ? { designOptions: t.designOptions } : {}), label: t.design };
  }
  const lock = t.lock!;
  const builtin = BUILTIN_ADAPTERS[lock];
  if (!builtin) adapterPath(lock, "<arg>", "--lock");
  const adapter = builtin || isAbsolute(lock) ? lock : resolve(lock);
  return { design: library.name, designOptions: { ...t.designOptions, adapter, nodes: t.nodes ?? builtin?.nodesDefault ?? 1 }, label: lock };
}

/** Attacks by name (all of them when none are named), refusing an unknown one with the catalogue. */
export function attacksNamed(names: readonly string[] | undefined): readonly Attack[] {
  if (names === undefined) return ATTACKS;
  return names.map((n) => {
    const a = attackByName(n.trim());
    if (!a) throw new InputError("<arg>", "--attacks", `attack names from: ${ATTACKS.map((x) => x.name).join(", ")}; got "${n}"`);
    return a;
  });
}
