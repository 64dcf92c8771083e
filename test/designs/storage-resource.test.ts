import { describe, expect, it } from "vitest";
import { Simulation, type Message } from "../../sim/simulation.js";
import { RESOURCE_ID, resourceNode, type ResourceOptions } from "../../services/storage/resource.js";

/** Drive the storage node with a script of calls from one client; return the reply types. */
function script(opts: ResourceOptions, calls: Message[]): { replies: string[]; sim: Simulation } {
  const sim = new Simulation({ seed: "storage", network: { latencyUsBase: 100, latencyUsJitter: 0 } });
  sim.addProcess(RESOURCE_ID, "resource", {}, resourceNode(opts));
  const c = sim.addProcess("c", "client", {}, () => ({}));
  const replies: string[] = [];
  c.spawn(
    (function* () {
      for (const m of calls) {
        const r = yield* c.call(RESOURCE_ID, m, 100);
        replies.push(r.ok ? `${r.reply.type}${r.reply.reason ? `:${r.reply.reason}` : ""}` : "timeout");
      }
    })(),
  );
  sim.run(1_000_000);
  return { replies, sim };
}

const read = (extra: Record<string, unknown> = {}): Message => ({ type: "resource-read", lock: "L", ...extra });
const write = (counter: number, extra: Record<string, unknown> = {}): Message => ({ type: "resource-write", lock: "L", counter, ...extra });

describe("storage resource", () => {
  it("without checks accepts every write, stale or not", () => {
    const { replies } = script({ fencing: false, ownerCheck: false }, [write(1, { token: 5 }), write(2, { token: 3 }), write(3)]);
    expect(replies).toEqual(["resource-write-ok", "resource-write-ok", "resource-write-ok"]);
  });

  it("with fencing rejects a token lower than one accepted, and a missing token; equal is fine", () => {
    const { replies, sim } = script({ fencing: true, ownerCheck: false }, [write(1, { token: 5 }), write(2, { token: 5 }), write(3, { token: 4 }), write(4)]);
    expect(replies).toEqual(["resource-write-ok", "resource-write-ok", "resource-write-fail:stale-token", "resource-write-fail:no-token"]);
    const notes = sim.history.filter((e) => e.f === "storage-write").map((e) => e.type);
    expect(notes).toEqual(["ok", "ok", "fail", "fail"]);
  });

  it("with the owner check applies a write only while the writer's value still owns the resource", () => {
    const { replies } = script({ fencing: false, ownerCheck: true }, [
      read({ owner: "a" }),
      write(1, { owner: "a" }), // a owns it
      read({ owner: "b" }), // b claims it
      write(2, { owner: "a" }), // a is stale now
      write(2, { owner: "b" }),
      write(3), // no value at all
    ]);
    expect(replies).toEqual([
      "resource-read-ok",
      "resource-write-ok",
      "resource-read-ok",
      "resource-write-fail:owner-changed",
      "resource-write-ok",
      "resource-write-fail:owner-changed",
    ]);
  });
});
