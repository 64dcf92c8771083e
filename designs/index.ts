/**
 * The design registry: every lock design by name. The CLI and scenario files refer
 * to designs only through this list; an unknown name is rejected with the list.
 */
import type { DesignEntry } from "./types.js";
import type { DesignFamily, DesignProfile, DesignRuns } from "./profile.js";
import { InputError } from "../sim/errors.js";
import { redisSetnx } from "./redis-setnx/design.js";
import { redisFenced } from "./redis-fenced/design.js";
import { raftZk } from "./raft-zk/design.js";
import { etcdLease } from "./etcd-lease/design.js";
import { redisFailover } from "./redis-failover/design.js";
import { redlock } from "./redlock/design.js";
import { library } from "./library/design.js";

export const DESIGNS: DesignEntry<any>[] = [
  redisSetnx,
  redisFenced,
  // further designs register below (one line each)
  raftZk,
  etcdLease,
  redisFailover,
  redlock,
  library,
];

export function designByName(name: string): DesignEntry<any> | undefined {
  return DESIGNS.find((d) => d.name === name);
}

/** A design's profile for some options, with the facts that hold for all of them. */
export interface DesignFacts extends DesignProfile {
  family: DesignFamily;
  runs: DesignRuns;
}

/** A design's facts for options as a scenario or a lock gives them (parsed by the design's own parser, errors naming `file`). */
export function profileOf(design: string, designOptions: unknown, file: string): DesignFacts {
  const entry = designByName(design);
  if (!entry) throw new InputError(file, "design", `one of: ${DESIGNS.map((d) => d.name).join(", ")}; got "${design}"`);
  return { ...entry.profile(entry.parseOptions(designOptions, file, "designOptions")), family: entry.family, runs: entry.runs };
}
