import { Fields } from "../../sim/validate.js";
import { RAFT_SERVICE_FIELDS, parseRaftServiceFields, type RaftServiceOptions } from "../../services/raft-service/options.js";
import { ZK_RECIPE_FIELDS, parseZkRecipe, type ZkRecipeOptions } from "./recipe.js";

/** Bugs of the Raft-ZK service that a scenario can switch on (designOptions.bugs). */
export const RAFT_ZK_BUGS = ["followerSessionExpiry"] as const;

/** raft-zk's options: the Raft service's, plus the lock recipe's client-side switches (recipe.ts). */
export interface RaftZkOptions extends RaftServiceOptions {
  recipe: ZkRecipeOptions;
  /** Chubby-style lock-delay after a session expiry, ms (server side; 0: off). */
  lockDelayMs: number;
}

export function parseRaftZkOptions(raw: unknown, file: string, prefix: string): RaftZkOptions {
  const f = Fields.root(file, raw ?? {}, prefix).only([...RAFT_SERVICE_FIELDS, ...ZK_RECIPE_FIELDS, "lockDelayMs"]);
  return { ...parseRaftServiceFields(f, RAFT_ZK_BUGS, "zk"), recipe: parseZkRecipe(f), lockDelayMs: f.number("lockDelayMs", { min: 0, dflt: 0 }) };
}
