import { describe, expect, it } from "vitest";
import { cloneState, step, stepInto } from "../../services/raft/core/step.js";
import type { RaftEffect, RaftInput, RaftState } from "../../services/raft/core/types.js";
import { boot, cfg, type Cmd } from "./core-fixture.js";

/**
 * stepInto, the adapter's allocation-free step: the effects it writes into a reused
 * array are exactly what step returns for the same state and input, whatever the array
 * held from the step before.
 */

const longStep: RaftInput<Cmd> = { type: "election-timeout" }; // persist, timer, a vote request per peer
const shortStep: RaftInput<Cmd> = { type: "message", from: "n2", msg: { type: "raft-vote-resp", term: 1, granted: false } };

function both(s: RaftState<Cmd>, input: RaftInput<Cmd>, reused: RaftEffect<Cmd>[]): { expected: RaftEffect<Cmd>[]; got: RaftEffect<Cmd>[] } {
  const expected = step(cloneState(s), input).effects;
  stepInto(s, input, reused);
  return { expected, got: reused };
}

describe("stepInto", () => {
  it("writes step's effects, persists first, into the given array", () => {
    const { s } = boot(cfg());
    const reused: RaftEffect<Cmd>[] = [];
    const { expected, got } = both(s, longStep, reused);
    expect(got).toBe(reused);
    expect(got).toEqual(expected);
    expect(got.map((e) => e.kind)).toEqual(["persist-hard-state", "set-timer", "send", "send"]);
  });

  it("leaves nothing of a longer step before it in the array", () => {
    const { s } = boot(cfg());
    const reused: RaftEffect<Cmd>[] = [];
    stepInto(s, longStep, reused);
    expect(reused.length).toBeGreaterThan(1);
    const { expected, got } = both(s, shortStep, reused);
    expect(got).toEqual(expected);
    expect(got).toEqual([]);
  });

  it("a step into one array does not touch another caller's array", () => {
    const a = boot(cfg()).s;
    const b = boot(cfg()).s;
    const fxA: RaftEffect<Cmd>[] = [];
    const fxB: RaftEffect<Cmd>[] = [];
    stepInto(a, longStep, fxA);
    const keptA = [...fxA];
    stepInto(b, longStep, fxB);
    expect(fxA).toEqual(keptA);
  });

  it("rewrites the send and timer effects the array held into this step's, equal to step's, and makes the others new", () => {
    // A candidate's election timeout again and again: each step's effects are all of the kinds the last one left.
    const { s } = boot(cfg());
    const reused: RaftEffect<Cmd>[] = [];
    stepInto(s, longStep, reused);
    const before = [...reused];
    const { expected, got } = both(s, longStep, reused);
    expect(got).toEqual(expected);
    // The term moved on: the vote requests in the rewritten sends are this step's.
    expect(got.filter((e) => e.kind === "send").map((e) => (e as { msg: { term: number } }).msg.term)).toEqual([2, 2]);
    expect(got.map((e, i) => e === before[i])).toEqual([false, true, true, true]);
    // A step whose effects are of other kinds in those slots writes new objects there.
    const apply: RaftEffect<Cmd>[] = [{ kind: "apply", index: 9, term: 9, cmd: null }];
    const kept = apply[0];
    const r = both(s, longStep, apply);
    expect(r.got).toEqual(r.expected);
    expect(kept).toEqual({ kind: "apply", index: 9, term: 9, cmd: null });
  });
});
