/**
 * run --trace: every command a Redis node executes, kept out of the history (so tracing
 * changes no history byte) and shown folded per node in the report.
 */
import { describe, expect, it } from "vitest";
import { runScenario } from "../../harness/runner.js";
import { loadScenario } from "../../scenarios/index.js";
import { historyToJsonl } from "../../sim/history.js";
import type { TraceRecord } from "../../sim/simulation.js";
import { renderCommandTrace, TRACE_ROWS_PER_NODE_MAX } from "../../reports/command-trace.js";

function traced(name: string): { trace: TraceRecord[]; jsonl: string } {
  const trace: TraceRecord[] = [];
  const run = runScenario(loadScenario(name), 1, {}, { traceSink: (r) => trace.push(r) });
  return { trace, jsonl: historyToJsonl(run.history) };
}

describe("command trace", () => {
  it("tracing changes no history byte, for the model and for a real library", () => {
    for (const name of ["redis-release-delayed-del", "library-redlock-v4-baseline"]) {
      const plain = historyToJsonl(runScenario(loadScenario(name), 1).history);
      const { trace, jsonl } = traced(name);
      expect(jsonl).toBe(plain);
      expect(trace.length).toBeGreaterThan(10);
    }
  });

  it("holds the command behind each key-deleted note: c1's late DEL, at its instant", () => {
    const { trace } = traced("redis-release-delayed-del");
    const run = runScenario(loadScenario("redis-release-delayed-del"), 1);
    const deleted = run.history.find((e) => e.f === "key-deleted" && (e.value as { by?: string }).by === "c1")!;
    const at = trace.filter((r) => r.timeUs === deleted.timeUs && r.process === deleted.process);
    expect(at.map((r) => r.data)).toEqual([
      {
        from: "c1",
        command: "DEL lock:order:123",
        reply: "(integer) 1",
        wallMs: (deleted.value as { wallMs: number }).wallMs,
        key: "lock:order:123",
        // Whose key it was: the value c2's SET wrote, and its expiry, gone after the DEL.
        changes: [{ key: "lock:order:123", before: { value: expect.stringMatching(/.+/), expireAtWallMs: expect.any(Number) }, after: null }],
      },
    ]);
    const setByC2 = trace.find((r) => (r.data as { from?: string; reply: string }).from === "c2" && (r.data as { reply: string }).reply === "OK")!;
    const was = (at[0]!.data as { changes: Array<{ before: { value: string } }> }).changes[0]!.before.value;
    expect((setByC2.data as { changes: Array<{ after: { value: string } }> }).changes[0]!.after.value).toBe(was);
  });

  it("a real library's commands are traced as sent (EVALSHA, NOSCRIPT, then EVAL)", () => {
    const { trace } = traced("library-redlock-v4-baseline");
    const first = trace.find((r) => r.process === "redis-1")!.data as { command: string; reply: string };
    expect(first.command).toMatch(/^evalsha [0-9a-f]{40} 1 order:123 /);
    expect(first.reply).toBe("(error) NOSCRIPT No matching script. Please use EVAL.");
    expect(trace.some((r) => /^eval /i.test((r.data as { command: string }).command))).toBe(true);
  });

  it("renders folded per node (no open attribute), escaped, capped with a pointer to trace.jsonl", () => {
    const rec = (i: number, process: string, command: string): TraceRecord => ({
      timeUs: i,
      process,
      kind: "redis-command",
      data: { from: "c1", command, reply: "OK" },
    });
    const trace = [rec(1, "redis-2", "SET <b>k</b> v"), ...Array.from({ length: TRACE_ROWS_PER_NODE_MAX + 5 }, (_, i) => rec(i, "redis-1", "GET k"))];
    const html = renderCommandTrace(trace);
    expect(html.match(/<details class="trace-node"/g)).toHaveLength(2);
    expect(html).not.toMatch(/<details[^>]* open/);
    expect(html).toContain("SET &lt;b&gt;k&lt;/b&gt; v");
    expect(html).toContain(`redis-1: ${TRACE_ROWS_PER_NODE_MAX + 5} commands (the first ${TRACE_ROWS_PER_NODE_MAX} shown; all in trace.jsonl)`);
    expect(html.indexOf('data-node="redis-1"')).toBeLessThan(html.indexOf('data-node="redis-2"'));
    expect(renderCommandTrace(undefined)).toBe("");
  });
});
