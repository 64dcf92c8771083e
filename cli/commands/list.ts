import type { Command } from "commander";
import { DESIGNS } from "../../designs/index.js";
import { allScenarios } from "../../scenarios/index.js";
import { CHECKERS } from "../../checkers/index.js";
import { BUILTIN_ADAPTERS } from "../../designs/library/adapter.js";
import { ATTACKS } from "../../attacks/index.js";
import { CAUSES } from "../../causes/index.js";
import { printable } from "../../terminal/printable.js";

export function registerList(program: Command): void {
  program
    .command("list")
    .description("name the designs, scenarios, attacks, causes and checkers lockstep knows")
    .action(() => {
      const out: string[] = ["designs:"];
      for (const d of DESIGNS) out.push(`  ${d.name.padEnd(22)} ${d.description}`);
      out.push("lock libraries (run any Redis scenario on one: <scenario>@<library> or --lock <library>):");
      for (const [name, a] of Object.entries(BUILTIN_ADAPTERS)) out.push(`  ${name.padEnd(22)} ${a.description}`);
      out.push("scenarios:");
      const scenarios = allScenarios();
      const nameWidth = Math.max(...scenarios.map((s) => s.name.length));
      for (const s of scenarios) out.push(`  ${s.name.padEnd(nameWidth)} ${s.design.padEnd(15)} expect ${s.expect.padEnd(18)} ${s.title}`);
      out.push("attacks (faults by intent, compiled for each lock; lockstep audit runs them):");
      const attackWidth = Math.max(...ATTACKS.map((a) => a.name.length));
      for (const a of ATTACKS) out.push(`  ${a.name.padEnd(attackWidth)} ${a.title}`);
      out.push("causes (what went wrong in a lock's code; lockstep audit reports its findings by them):");
      const causeWidth = Math.max(...CAUSES.map((c) => c.name.length));
      for (const c of CAUSES) out.push(`  ${c.name.padEnd(causeWidth)} ${c.title}`);
      out.push("checkers:");
      for (const c of CHECKERS) out.push(`  ${c.name.padEnd(22)} ${c.kind.padEnd(9)} ${c.description}`);
      process.stdout.write(out.map(printable).join("\n") + "\n");
    });
}
