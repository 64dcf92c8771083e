import type { Fields } from "../../sim/validate.js";

/**
 * The lock recipe's client-side switches (designOptions of raft-zk): each picks one of
 * the ways real ZooKeeper lock clients are written, safe or not. docs/raft-zk.md,
 * "Recipe switches", gives each its source.
 *
 * connectionStatePolicy — when the application stops trusting a lock it holds:
 *   "lease"    (default) until the last answered request + session timeout − drift margin,
 *              and the pre-write check is a round trip proving the session alive;
 *   "standard" Curator's StandardConnectionStateErrorPolicy: SUSPENDED ends it, which the
 *              ZooKeeper client reaches after 2/3 of the session timeout without a reply
 *              (ClientCnxn readTimeout); the pre-write check is that state, no round trip;
 *   "session"  Curator's SessionConnectionStateErrorPolicy: only LOST ends it — a
 *              session-expired answer, or Curator's own injected expiry once SUSPENDED has
 *              lasted a session timeout (2/3 T + T after the last reply).
 * lockNodeProtection — true (default): the node name carries a GUID, so a create whose
 *   reply was lost is found again (Curator's withProtection()); false: the create is
 *   simply retried and the first node, if it was made, is left behind, ahead of ours.
 * waitRecipe — "predecessor" (default): when the watched predecessor goes, list the
 *   children again (recipes.md); "watch-fired-shortcut": a fired watch is taken to mean
 *   "I hold the lock now", which is wrong when the predecessor was a waiter that gave up;
 *   "watch-all-children": every waiter lists the children *with a watch* on the parent
 *   and re-lists whenever any child comes or goes — safe, but the herd effect recipes.md
 *   warns of ("all clients would be woken up ... even though only one client can acquire
 *   the lock"): each create or delete wakes every waiter.
 */
export const CONNECTION_STATE_POLICIES = ["lease", "standard", "session"] as const;
export type ConnectionStatePolicy = (typeof CONNECTION_STATE_POLICIES)[number];
export const WAIT_RECIPES = ["predecessor", "watch-fired-shortcut", "watch-all-children"] as const;
export type WaitRecipe = (typeof WAIT_RECIPES)[number];

export interface ZkRecipeOptions {
  connectionStatePolicy: ConnectionStatePolicy;
  lockNodeProtection: boolean;
  waitRecipe: WaitRecipe;
}

export const ZK_RECIPE_FIELDS = ["connectionStatePolicy", "lockNodeProtection", "waitRecipe"];

export const DEFAULT_ZK_RECIPE: ZkRecipeOptions = { connectionStatePolicy: "lease", lockNodeProtection: true, waitRecipe: "predecessor" };

export function parseZkRecipe(f: Fields): ZkRecipeOptions {
  return {
    connectionStatePolicy: f.oneOf("connectionStatePolicy", CONNECTION_STATE_POLICIES, DEFAULT_ZK_RECIPE.connectionStatePolicy),
    lockNodeProtection: f.boolean("lockNodeProtection", DEFAULT_ZK_RECIPE.lockNodeProtection),
    waitRecipe: f.oneOf("waitRecipe", WAIT_RECIPES, DEFAULT_ZK_RECIPE.waitRecipe),
  };
}

/** The ZooKeeper client goes Disconnected (Curator: SUSPENDED) after this much silence: ClientCnxn's readTimeout = T·2/3. */
export const suspendedAfterMs = (sessionTimeoutMs: number): number => Math.floor((sessionTimeoutMs * 2) / 3);
