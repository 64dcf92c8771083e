/**
 * The attack catalogue: every attack by name (one file each in this folder). The CLI
 * and scenario tooling refer to attacks only through this list.
 */
import type { Attack } from "./types.js";
import { holderPauseBeforeWrite } from "./holder-pause-before-write.js";
import { lateRelease } from "./late-release.js";
import { serverClockJump } from "./server-clock-jump.js";
import { extendAfterLapse } from "./extend-after-lapse.js";
import { waiterDeadline } from "./waiter-deadline.js";
import { slowAcquire } from "./slow-acquire.js";
import { lostAcquireReply } from "./lost-acquire-reply.js";
import { holderPartitioned } from "./holder-partitioned.js";
import { clientClockJump } from "./client-clock-jump.js";
import { asyncFailover } from "./async-failover.js";
import { crashRestartNoFsync } from "./crash-restart-no-fsync.js";
import { delayedRelease } from "./delayed-release.js";
import { lossyNetwork } from "./lossy-network.js";
import { clientClockSlow } from "./client-clock-slow.js";
import { leaderCrash } from "./leader-crash.js";
import { leaderIsolated } from "./leader-isolated.js";
import { leaderCrashDuringAcquire } from "./leader-crash-during-acquire.js";
import { holderPauseDuringRelease } from "./holder-pause-during-release.js";
import { slowHolderLink } from "./slow-holder-link.js";
import { longHoldRenewal } from "./long-hold-renewal.js";
import { acquireReplyDelayed } from "./acquire-reply-delayed.js";
import { waiterClockJump } from "./waiter-clock-jump.js";
import { releaseReplyDelayed } from "./release-reply-delayed.js";

export type { Attack, Compiled, CompiledScenario, LockUnderTest } from "./types.js";
export { profileOfLock } from "./lease.js";

export const ATTACKS: readonly Attack[] = [
  holderPauseBeforeWrite,
  lateRelease,
  extendAfterLapse,
  waiterDeadline,
  slowAcquire,
  serverClockJump,
  lostAcquireReply,
  holderPartitioned,
  clientClockJump,
  asyncFailover,
  crashRestartNoFsync,
  delayedRelease,
  lossyNetwork,
  clientClockSlow,
  leaderCrash,
  leaderIsolated,
  leaderCrashDuringAcquire,
  holderPauseDuringRelease,
  slowHolderLink,
  longHoldRenewal,
  acquireReplyDelayed,
  waiterClockJump,
  releaseReplyDelayed,
];

export function attackByName(name: string): Attack | undefined {
  return ATTACKS.find((a) => a.name === name);
}
