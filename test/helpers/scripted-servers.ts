import { Simulation, type Message } from "../../sim/simulation.js";

/**
 * A simulation of scripted servers and one client c1, for the Raft-backed clients' request
 * path: each server answers a request with what its script returns (nothing: silent).
 * 1 ms links without jitter, so the tests can reason about send times.
 */
export function scriptedServers(seed: string, behaviour: Record<string, (msg: Message) => Message | undefined>) {
  const sim = new Simulation({ seed, network: { latencyUsBase: 1000, latencyUsJitter: 0 } });
  for (const [id, answer] of Object.entries(behaviour)) {
    sim.addProcess(id, "server", {}, (ctx) => ({
      onMessage: (from, msg) => {
        const body = answer(msg);
        if (body) ctx.reply(from, msg, body);
      },
    }));
  }
  const client = sim.addProcess("c1", "client", {}, () => ({}));
  return { sim, client };
}
