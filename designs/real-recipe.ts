/**
 * What real mode's driver tells a client process to run: the module of the design's real
 * client and everything it needs (each design's real-plan.ts declares and builds its
 * recipe config; its real client module runs it). The driver and the client process
 * exchange it as JSON (real/protocol.ts).
 */
export interface RedisEndpoint {
  id: string;
  host: string;
  port: number;
}

/** A recipe config: which module runs it, and the design's own fields (its real-plan.ts declares them). */
export interface RecipeConfig {
  /**
   * The client module under designs/ ("redis-setnx/real-client.js"); it exports
   * createRealClient (designs/real-client.ts RealClientFactory).
   */
  client: string;
  /** What the recipe runs, for messages ("setnx"). */
  kind: string;
}
