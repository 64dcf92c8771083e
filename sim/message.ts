/** A message between processes. `rpcId` marks a request; `inReplyTo` its reply. */
export interface Message {
  type: string;
  rpcId?: number;
  inReplyTo?: number;
  [field: string]: unknown;
}

export type RpcResult<T = Message> = { ok: true; reply: T } | { ok: false; error: "timeout" };
