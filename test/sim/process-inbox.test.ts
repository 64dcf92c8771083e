import { describe, expect, it } from "vitest";
import { SimProcess } from "../../sim/process.js";

/** A paused process's inbox holds handler + arguments (no closure per event, issue 17), in arrival order. */
describe("SimProcess inbox", () => {
  it("runs now when running; queues in arrival order while paused, closures and handler+args alike", () => {
    const p = new SimProcess("p", "server");
    const log: string[] = [];
    const note = (a: string, b: number, c: boolean) => log.push(`${a}${b}${c ? "!" : ""}`);
    p.deliverWith(note, "now", 0, false, 0);
    p.pause(100);
    p.deliverWith(note, "x", 1, true, 0);
    p.deliver(() => log.push("closure"), 0);
    p.deliverWith(note, "y", 2, false, 0);
    p.deliverWith(note, "stale", 3, false, 7); // another incarnation's: dropped
    expect(p.queuedWhilePaused).toBe(3);
    expect(log).toEqual(["now0"]);
    p.resume();
    expect(log).toEqual(["now0", "x1!", "closure", "y2"]);
    expect(p.queuedWhilePaused).toBe(0);
  });

  it("a pause taken while draining keeps the rest queued, behind nothing, for the next resume", () => {
    const p = new SimProcess("p", "server");
    const log: string[] = [];
    p.pause(100);
    p.deliver(() => {
      log.push("a");
      p.pause(200);
    }, 0);
    p.deliver(() => log.push("b"), 0);
    p.resume();
    expect(log).toEqual(["a"]);
    p.deliver(() => log.push("c"), 0);
    expect(p.queuedWhilePaused).toBe(2);
    p.resume();
    expect(log).toEqual(["a", "b", "c"]);
  });

  it("a crash while draining drops what was still queued", () => {
    const p = new SimProcess("p", "server");
    const log: string[] = [];
    p.pause(100);
    p.deliver(() => {
      log.push("a");
      p.crash();
    }, 0);
    p.deliver(() => log.push("b"), 0);
    p.resume();
    expect(log).toEqual(["a"]);
    expect(p.queuedWhilePaused).toBe(0);
    p.restart();
    p.pause(300);
    p.deliver(() => log.push("after restart"), p.incarnation);
    p.resume();
    expect(log).toEqual(["a", "after restart"]);
  });
});
