import type { ServerProcess } from "./servers/index.js";
import type { RedisEndpoint } from "../designs/real-recipe.js";

/** A server a real run started, described the same way whatever it is (real/start-servers.ts). */
export interface StartedServer {
  id: string;
  kind: "redis-server" | "redis-sentinel" | "etcd" | "zookeeper";
  process: ServerProcess;
  endpoint: RedisEndpoint;
  binary: string;
  version: string;
  versionLine: string;
  /** Redis: the AOF mode; other servers: "n/a". */
  aof: string;
}
