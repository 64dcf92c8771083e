import type { Command } from "commander";

/**
 * The registry of subcommands. Each command's module (with the simulator, checkers and
 * reports behind it) is imported only when that command runs, so `lockstep --help`
 * and a small `check` do not pay for loading the rest. `summary` is what the top-level
 * help shows before any module is loaded; test/cli-commands.test.ts holds it equal to
 * the loaded command's own usage and description.
 */
export interface CommandSpec {
  name: string;
  /** Arguments as commander writes them, e.g. "<scenario>". */
  args: string;
  summary: string;
  load(): Promise<(program: Command) => void>;
}

export const COMMANDS: readonly CommandSpec[] = [
  {
    name: "run",
    args: "<scenario>",
    summary: "run one scenario with one seed; write history.jsonl, results.json and report.html",
    load: async () => (await import("./run.js")).registerRun,
  },
  {
    name: "real",
    args: "[scenario]",
    summary:
      "run a scenario against real servers and real npm clients on 127.0.0.1; write history.jsonl, results.json and report.html, judged by the same checkers (not replayable)",
    load: async () => (await import("./real.js")).registerReal,
  },
  {
    name: "list",
    args: "",
    summary: "name the designs, scenarios, attacks, causes and checkers lockstep knows",
    load: async () => (await import("./list.js")).registerList,
  },
  {
    name: "check",
    args: "<history>",
    summary: "check a history recorded elsewhere (lockstep JSONL or Jepsen EDN) with the checkers that apply to it",
    load: async () => (await import("./check.js")).registerCheck,
  },
  {
    name: "sweep",
    args: "<scenario>",
    summary: "run one scenario over a range of seeds in parallel; print violation rates with 95% intervals; write summary.json and the failing seeds' reports",
    load: async () => (await import("./sweep.js")).registerSweep,
  },
  {
    name: "audit",
    args: "",
    summary:
      "run every attack that applies to a lock over many seeds (or, with --real, real runs on real servers), beside its backend's reference recipe; say which findings are your code",
    load: async () => (await import("./audit.js")).registerAudit,
  },
  {
    name: "merge",
    args: "<summaries...>",
    summary: "combine the summary.json files of sweep shards (--shard i/n) into one summary, or the audit.json files of audit shards into one audit",
    load: async () => (await import("./merge.js")).registerMerge,
  },
  {
    name: "explore",
    args: "",
    summary: "draw random fault schedules and workloads (fast-check) against a design's safety; shrink a violation to a smallest scenario file",
    load: async () => (await import("./explore.js")).registerExplore,
  },
  {
    name: "shrink",
    args: "<scenario>",
    summary: "shrink a failing run (scenario + seed) to a smallest scenario that still violates safety; write it and its report",
    load: async () => (await import("./shrink.js")).registerShrink,
  },
  {
    name: "compare",
    args: "",
    summary: "sweep every scenario on every design; write compare.html, matrix.json and one failing seed's report per cell",
    load: async () => (await import("./compare.js")).registerCompare,
  },
  {
    name: "debate",
    args: "",
    summary: "run the scenarios behind the Redlock debate's claims and write debate.html with their reports",
    load: async () => (await import("./debate.js")).registerDebate,
  },
  {
    name: "playground",
    args: "",
    summary: "write an offline page that runs the simulator in the browser: edit a scenario's faults, watch the verdict change",
    load: async () => (await import("./playground.js")).registerPlayground,
  },
];
