import { describe, expect, it } from "vitest";
import { resolve } from "node:path";
import { runAudit, runAuditOnThreads } from "../../harness/audit/run.js";
import { attackByName, type LockUnderTest } from "../../attacks/index.js";

describe("the audit on worker threads", () => {
  it("gives the rows one thread gives, in the same order, findings included", async () => {
    const lock: LockUnderTest = {
      design: "library",
      designOptions: { adapter: resolve("test/fixtures/adapters/bugs/plain-del.cjs"), nodes: 1 },
      label: "plain-del",
    };
    const attacks = ["late-release", "holder-pause-before-write", "server-clock-jump"].map((n) => attackByName(n)!);
    const seen: string[] = [];
    const threaded = await runAuditOnThreads(lock, { seeds: 4, attacks, workers: 2, progress: (done, of, row) => seen.push(`${done}/${of} ${row.attack}`) });
    const single = runAudit(lock, { seeds: 4, attacks });
    expect(threaded).toEqual(single);
    expect(threaded.yourCode).toContain("late-release");
    expect(seen).toEqual(["1/3 late-release", "2/3 holder-pause-before-write", "3/3 server-clock-jump"]);
  });
});
