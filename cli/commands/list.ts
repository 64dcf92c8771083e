import type { Command } from "commander";
import { DESIGNS } from "../../designs/index.js";
import { allScenarios } from "../../scenarios/index.js";
import { CHECKERS } from "../../checkers/index.js";
import { BUILTIN_ADAPTERS } from "../../designs/library/adapter.js";
import { ATTACKS } from "../../attacks/index.js";
import { CAUSES } from "../../causes/index.js";
import { printable } from "../../terminal/printable.js";
import { wrapEntry } from "../../terminal/columns.js";

export function registerList(program: Command): void {
  program
    .command("list")
    .description("name the designs, scenarios, attacks, causes and checkers lockstep knows")
    .action(() => {
      const out: string[] = ["designs:"];
      const entries = (items: ReadonlyArray<[string, string]>): string[] => {
        const w = Math.max(...items.map(([name]) => name.length));
        return items.flatMap(([name, text]) => wrapEntry(name, w, text));
      };
      out.push(...entries(DESIGNS.map((d) => [d.name, d.description])));
      out.push("lock libraries (run any Redis scenario on one: <scenario>@<library> or --lock <library>):");
      out.push(...entries(Object.entries(BUILTIN_ADAPTERS).map(([name, a]) => [name, a.description])));
      out.push(...scenarioLines());
      out.push("attacks (faults by intent, compiled for each lock; lockstep audit runs them):");
      out.push(...entries(ATTACKS.map((a) => [a.name, a.title])));
      out.push("causes (what went wrong in a lock's code; lockstep audit reports its findings by them):");
      out.push(...entries(CAUSES.map((c) => [c.name, c.title])));
      out.push("checkers:");
      const checkerWidth = Math.max(...CHECKERS.map((c) => c.name.length));
      out.push(...entries(CHECKERS.map((c) => [`${c.name.padEnd(checkerWidth)} ${c.kind.padEnd(9)}`, c.description])));
      process.stdout.write(out.map(printable).join("\n") + "\n");
    });
}

/** Scenarios by design (a heading each), "name  expect verdict  title", within the listing's width. */
function scenarioLines(): string[] {
  const scenarios = allScenarios();
  const nameWidth = Math.max(...scenarios.map((s) => s.name.length));
  const expectWidth = Math.max(...scenarios.map((s) => s.expect.length));
  const out: string[] = [];
  for (const design of [...new Set(scenarios.map((s) => s.design))]) {
    out.push(`scenarios of ${design}:`);
    for (const s of scenarios.filter((x) => x.design === design)) {
      const label = `${s.name.padEnd(nameWidth)}  ${s.expect.padEnd(expectWidth)}`;
      out.push(...wrapEntry(label, label.length, s.title));
    }
  }
  return out;
}
