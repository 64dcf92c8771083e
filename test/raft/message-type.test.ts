import { describe, expect, it } from "vitest";
import { isRaftMessageType } from "../../services/raft/api.js";

/** isRaftMessageType: the core's four types by compare, any other "raft-" type as startsWith said. */
describe("isRaftMessageType", () => {
  it("is startsWith('raft-') on the core's types, others of the prefix, and everything else", () => {
    const types = [
      "raft-append",
      "raft-append-resp",
      "raft-vote",
      "raft-vote-resp",
      "raft-snapshot",
      "raft-",
      "raft",
      "Raft-append",
      "zk-request",
      "etcd-reply",
      "",
      "x-raft-append",
    ];
    for (const t of types) expect(isRaftMessageType(t), t).toBe(t.startsWith("raft-"));
    // Built at run time (not the interned literal): still content that decides.
    expect(isRaftMessageType(["raft", "append"].join("-"))).toBe(true);
  });
});
