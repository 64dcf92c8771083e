/** The models the linearizability checker can use, by name. */
import type { CheckContext } from "../../types.js";
import type { AnyModel } from "../model.js";
import { fencingLockModel } from "./fencing-lock.js";
import { leaseLockModel } from "./lease-lock.js";
import { mutexModel } from "./mutex.js";
import { casRegisterModel, registerModel } from "./register.js";

export const MODEL_NAMES = ["mutex", "lease-lock", "fencing-lock", "register", "cas-register"] as const;
export type ModelName = (typeof MODEL_NAMES)[number];

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
      return registerModel;
    case "cas-register":
      return casRegisterModel;
  }
}
