/** The models the linearizability checker can use, by name. */
import type { CheckContext } from "../../types.js";
import type { AnyModel } from "../model.js";
import { fencingLockModel } from "./fencing-lock.js";
import { leaseLockModel } from "./lease-lock.js";
import { mutexModel } from "./mutex.js";
import { casRegisterModel, registerModel, registerModelOf } from "./register.js";
import { multiRegisterModel, multiRegisterModelOf } from "./multi-register.js";

export const MODEL_NAMES = ["mutex", "lease-lock", "fencing-lock", "register", "cas-register", "multi-register"] as const;
export type ModelName = (typeof MODEL_NAMES)[number];

/** Whether a model speaks about locks (so the lock checkers apply) or about a register. */
export type ModelFamily = "lock" | "register";

const LOCK_MODEL_OPS = ["acquire", "release", "extend", "read", "write"] as const;

/** The client ops each model knows; a history with any other op cannot be judged by it. */
export const MODEL_OPS: Readonly<Record<ModelName, readonly string[]>> = {
  mutex: LOCK_MODEL_OPS,
  "lease-lock": LOCK_MODEL_OPS,
  "fencing-lock": LOCK_MODEL_OPS,
  register: ["read", "write"],
  "cas-register": ["read", "write", "cas"],
  "multi-register": ["txn"],
};

export const MODEL_FAMILY: Readonly<Record<ModelName, ModelFamily>> = {
  mutex: "lock",
  "lease-lock": "lock",
  "fencing-lock": "lock",
  register: "register",
  "cas-register": "register",
  "multi-register": "register",
};

/**
 * Knossos' models (knossos/model.clj) that lockstep does not check, with why, so a
 * history of one is refused by name rather than judged by a model it was not written for.
 * register, cas-register, mutex and multi-register are checked (mutex also requires the
 * releaser to be the holder: Knossos' mutex lets anyone release; Jepsen's lock tests
 * release only what they hold, where the two agree).
 */
export const KNOSSOS_REFUSED: Readonly<Record<string, { ops: readonly string[]; why: string }>> = {
  set: { ops: ["add"], why: "a grow-only set read whole" },
  "fifo-queue": { ops: ["enqueue", "dequeue"], why: "a FIFO queue" },
  "unordered-queue": { ops: ["enqueue", "dequeue"], why: "a multiset queue" },
  noop: { ops: [], why: "a model that accepts everything, so it judges nothing" },
  inconsistent: { ops: [], why: "the state a model enters on an illegal op, not a model to check with" },
};

/** Knossos' refused models whose ops these are, as words for an error ("Knossos' set model"). */
export function knossosModelsOf(f: string): string | undefined {
  const names = Object.entries(KNOSSOS_REFUSED)
    .filter(([, m]) => m.ops.includes(f))
    .map(([n]) => n);
  return names.length === 0 ? undefined : `Knossos' ${names.join(" or ")} model, which lockstep does not check`;
}

export function isModelName(name: string): name is ModelName {
  return (MODEL_NAMES as readonly string[]).includes(name);
}

/** Build a model; lease-lock takes its TTL default and drift bound from the context. */
export function makeModel(name: ModelName, ctx: CheckContext): AnyModel {
  switch (name) {
    case "mutex":
      return mutexModel;
    case "lease-lock":
      return leaseLockModel({ ttlMs: ctx.ttlMs, clockDriftPpmMax: ctx.clockDriftPpmMax });
    case "fencing-lock":
      return fencingLockModel;
    case "register":
      return ctx.initialValue === undefined ? registerModel : registerModelOf(false, ctx.initialValue);
    case "cas-register":
      return ctx.initialValue === undefined ? casRegisterModel : registerModelOf(true, ctx.initialValue);
    case "multi-register":
      return ctx.initialValue === undefined ? multiRegisterModel : multiRegisterModelOf(ctx.initialValue);
  }
}
