import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { scenarioFiles } from "../../scenarios/index.js";
import { BUILTIN_ADAPTERS } from "../../designs/library/adapter.js";

const README = readFileSync(join(__dirname, "..", "..", "README.md"), "utf8");

/**
 * Names in README a reader would paste that are not registered: code spans that are
 * fragments (`-leader-crash-acquire`), names in the Scenarios section's table that no
 * scenario has, and `lockstep run|sweep|shrink|real <name>[@library]` commands naming
 * an unknown scenario or library.
 */
function unpasteable(markdown: string, scenarios: ReadonlySet<string>, libraries: ReadonlySet<string>): string[] {
  const bad: string[] = [];
  for (const [, span] of markdown.matchAll(/`([^`\n]+)`/g)) if (/^-[a-z0-9]/.test(span!)) bad.push(`fragment \`${span}\``);
  const section = /^## Scenarios\n([\s\S]*?)(?=^## )/m.exec(markdown)?.[1] ?? "";
  for (const row of section.split("\n").filter((l) => l.startsWith("|"))) {
    for (const [, span] of row.matchAll(/`([^`\n]+)`/g)) {
      if (/^[a-z0-9]+(-[a-z0-9]+)+$/.test(span!) && !scenarios.has(span!)) bad.push(`unknown scenario \`${span}\``);
    }
  }
  for (const [, , name] of markdown.matchAll(/lockstep (run|sweep|shrink|real) ([^\s`'"]+)/g)) {
    if (name!.startsWith("-") || name!.includes("/") || name!.startsWith("<")) continue;
    const [scenario, library] = name!.split("@");
    if (!scenarios.has(scenario!)) bad.push(`command names unknown scenario "${scenario}"`);
    if (library !== undefined && !libraries.has(library)) bad.push(`command names unknown library "${library}"`);
  }
  return bad;
}

describe("README: every scenario name can be pasted", () => {
  const scenarios = new Set(scenarioFiles().keys());
  const libraries = new Set(Object.keys(BUILTIN_ADAPTERS));

  it("finds fragments, unknown table names and unknown command names (the rule can fail)", () => {
    const old = [
      "## Scenarios",
      "| Raft-ZK | `raft-zk-baseline`, `-leader-crash-acquire` | `raft-zk-nemesiss` |",
      "## Checkers",
      "`npx lockstep run naive-gc-paus` and `lockstep sweep redlock-gc-pause@redlock-v9`",
    ].join("\n");
    expect(unpasteable(old, scenarios, libraries)).toEqual([
      "fragment `-leader-crash-acquire`",
      "unknown scenario `raft-zk-nemesiss`",
      'command names unknown scenario "naive-gc-paus"',
      'command names unknown library "redlock-v9"',
    ]);
  });

  it("README.md has none, and its Scenarios table names every shipped scenario", () => {
    expect(unpasteable(README, scenarios, libraries)).toEqual([]);
    const section = /^## Scenarios\n([\s\S]*?)(?=^## )/m.exec(README)![1]!;
    const named = new Set([...section.matchAll(/`([a-z0-9-]+)`/g)].map((m) => m[1]!).filter((n) => scenarios.has(n)));
    expect([...scenarios].filter((n) => !named.has(n))).toEqual([]);
  });
});
