/**
 * The design registry: every lock design by name. The CLI and scenario files refer
 * to designs only through this list; an unknown name is rejected with the list.
 */
import type { DesignEntry } from "./types.js";
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
