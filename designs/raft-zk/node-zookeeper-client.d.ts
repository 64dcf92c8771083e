// The part of node-zookeeper-client 1.1.3 (pure JS, no types of its own) that the ZooKeeper
// recipe uses, as its README and index.js define it.
declare module "node-zookeeper-client" {
  import type { EventEmitter } from "node:events";

  export interface Stat {
    /** 64-bit zxid of the node's creation, big-endian. */
    czxid: Buffer;
    mzxid: Buffer;
    ephemeralOwner: Buffer;
  }

  export interface ZkError extends Error {
    code: number;
    getCode(): number;
    getName(): string;
  }

  export interface ZkEvent {
    type: number;
    name: string;
    path: string;
    getType(): number;
    getName(): string;
    getPath(): string;
  }

  export interface ZkState {
    name: string;
    code: number;
  }

  type Watcher = (event: ZkEvent) => void;

  export interface Client extends EventEmitter {
    connect(): void;
    close(): void;
    getState(): ZkState;
    getSessionId(): Buffer;
    /** The session timeout the server negotiated, ms (the requested one until connected). */
    getSessionTimeout(): number;
    create(path: string, data: Buffer | null, mode: number, callback: (error: ZkError | null, path: string) => void): void;
    mkdirp(path: string, callback: (error: ZkError | null, path: string) => void): void;
    remove(path: string, version: number, callback: (error: ZkError | null) => void): void;
    exists(path: string, watcher: Watcher | null, callback: (error: ZkError | null, stat: Stat | null) => void): void;
    exists(path: string, callback: (error: ZkError | null, stat: Stat | null) => void): void;
    getData(path: string, watcher: Watcher | null, callback: (error: ZkError | null, data: Buffer | null, stat: Stat) => void): void;
    getChildren(path: string, callback: (error: ZkError | null, children: string[], stat: Stat) => void): void;
  }

  export interface ClientOptions {
    sessionTimeout?: number;
    spinDelay?: number;
    retries?: number;
  }

  export function createClient(connectionString: string, options?: ClientOptions): Client;

  export const CreateMode: { PERSISTENT: number; PERSISTENT_SEQUENTIAL: number; EPHEMERAL: number; EPHEMERAL_SEQUENTIAL: number };
  export const State: Record<"DISCONNECTED" | "SYNC_CONNECTED" | "AUTH_FAILED" | "CONNECTED_READ_ONLY" | "SASL_AUTHENTICATED" | "EXPIRED", ZkState>;
  export const Exception: Record<"NO_NODE" | "NODE_EXISTS" | "CONNECTION_LOSS" | "SESSION_EXPIRED" | "OPERATION_TIMEOUT", number>;

  const zookeeper: {
    createClient: typeof createClient;
    CreateMode: typeof CreateMode;
    State: typeof State;
    Exception: typeof Exception;
  };
  export default zookeeper;
}
