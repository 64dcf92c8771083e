import { describe, expect, it } from "vitest";
import { LocalClock } from "../../sim/clock.js";

describe("LocalClock", () => {
  it("reads true time plus offset when there is no drift", () => {
    const c = new LocalClock("wall", { offsetUs: 250 });
    expect(c.read(0)).toBe(250);
    expect(c.read(1_000_000)).toBe(1_000_250);
  });

  it("gains driftPpm microseconds per true second", () => {
    const c = new LocalClock("wall", { driftPpm: 100 });
    expect(c.read(10_000_000)).toBe(10_001_000); // 10 s at +100 ppm = +1 ms
    const slow = new LocalClock("monotonic", { driftPpm: -50_000 });
    expect(slow.read(1_000_000)).toBe(950_000);
  });

  it("steps on a jump and keeps running from there", () => {
    const c = new LocalClock("wall");
    c.jump(2_000_000, 5_000_000);
    expect(c.read(2_000_000)).toBe(7_000_000);
    expect(c.read(3_000_000)).toBe(8_000_000);
    expect(c.offsetAt(3_000_000)).toBe(5_000_000);
    c.jump(3_000_000, -6_000_000); // backwards, as an operator might
    expect(c.read(3_000_000)).toBe(2_000_000);
  });

  it("refuses to jump a monotonic clock", () => {
    expect(() => new LocalClock("monotonic").jump(0, 1)).toThrow(/monotonic/);
  });

  it("changes rate from the moment of a drift change, without a step", () => {
    const c = new LocalClock("wall");
    c.setDrift(1_000_000, 1000);
    expect(c.read(1_000_000)).toBe(1_000_000);
    expect(c.read(2_000_000)).toBe(2_001_000);
  });

  it("converts a local timer duration to true time, never early", () => {
    const fast = new LocalClock("monotonic", { driftPpm: 1000 }); // local runs fast: fires sooner in true time
    expect(fast.trueDurationFor(1_001_000)).toBe(1_000_000);
    const slow = new LocalClock("monotonic", { driftPpm: -1000 });
    expect(slow.trueDurationFor(999_000)).toBe(1_000_000);
  });
});
