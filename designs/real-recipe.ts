/**
 * What real mode's driver tells a client process to run: one recipe per design, with
 * everything it needs (each design's real-plan.ts builds its recipe; its real-client.ts
 * runs it). The driver and the client process exchange it as JSON (real/protocol.ts).
 */
export interface RedisEndpoint {
  id: string;
  host: string;
  port: number;
}

/** Which client recipe a client process runs, with everything it needs. */
export type RecipeConfig =
  | {
      kind: "setnx";
      redis: RedisEndpoint;
      /** redis-failover: find the primary through these sentinels (ioredis's Sentinel client) instead of `redis`. */
      sentinels?: RedisEndpoint[];
      masterName?: string;
      /** ioredis commandTimeout: the design's per-request socket timeout. */
      requestTimeoutMs: number;
      retryDelayMs: number;
      fencing: boolean;
    }
  | {
      kind: "redlock-v4";
      redis: RedisEndpoint[];
      requestTimeoutMs: number;
      driftFactor: number;
      retryCount: number;
      retryDelayMs: number;
      retryJitterMs: number;
    }
  | {
      /** design `library`: an adapter module (designs/library/adapter.ts) driving a lock library (designs/library/real-client.ts). */
      kind: "library";
      /** Absolute path of the adapter module, loaded with the child's own require. */
      adapterFile: string;
      /** The adapter's name as the scenario gives it (a built-in name or a path), for reasons and reports. */
      adapter: string;
      /** The servers' (or their proxies') "127.0.0.1:port", in node order. */
      addresses: string[];
      /** designOptions.options, handed to the adapter's create(). */
      options: Record<string, unknown>;
      /** Packages the adapter's own `require` gets under another name (request → installed package). */
      requireAliases?: Record<string, string>;
    }
  | {
      /** design `library` with `lockCmd`: a lock driver process speaking docs/lock-protocol.md (designs/library/real-driver.ts). */
      kind: "driver";
      /** The user's command, run by /bin/sh. */
      command: string;
      /** Its working directory (where the user gave the command). */
      cwd: string;
      /** The servers' (or their proxies') "127.0.0.1:port", in node order. */
      addresses: string[];
      /** designOptions.options, handed to the driver in its init request. */
      options: Record<string, unknown>;
    }
  | {
      /** etcd's concurrency.Mutex on the etcd3 client (designs/etcd-lease/real-client.ts). */
      kind: "etcd-mutex";
      /** Client URLs of the cluster's members (http://127.0.0.1:port). */
      endpoints: string[];
      /** The session lease's TTL, whole seconds (etcd's unit). */
      leaseTtlS: number;
      clockDriftMarginMs: number;
      /** Deadline of one gRPC call, ms (the design's requestTimeoutMs × 4, as its request budget). */
      callTimeoutMs: number;
      watchPollMs: number;
    }
  | {
      /** The ZooKeeper lock recipe on node-zookeeper-client (designs/raft-zk/real-client.ts). */
      kind: "zk-lock";
      /** host:port,host:port,… */
      connectString: string;
      sessionTimeoutMs: number;
      /** The recipe's own session heartbeat (an exists("/") call), ms. */
      heartbeatIntervalMs: number;
      clockDriftMarginMs: number;
      callTimeoutMs: number;
      watchPollMs: number;
    };
