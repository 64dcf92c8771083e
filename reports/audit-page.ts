import { escapeHtml as e, page } from "./html.js";
import { attackByName } from "../attacks/index.js";

/** One row of the report card, as the audit engine (harness/audit) fills it. */
export interface AuditCardRow {
  attack: string;
  refused?: string;
  runs: number;
  unsafeRate: number;
  unsafeCi95: [number, number];
  challengedShare: number;
  reference: string;
  /** Seeds the reference recipe was unsafe on, of `runs`. */
  referenceUnsafe: number;
  finding: string;
  /** The causes a "your code" finding was traced to. */
  causes?: string[];
  /** Relative link to the counterexample's report, when one was written. */
  reportHref?: string;
  /** A schedule audit --explore generated: its story and faults. */
  generated?: { story: string; faults: string[] };
}

/** One bug in the lock's code, as the page shows it (harness/audit/diagnose.ts CauseFinding, with links made relative). */
export interface AuditPageCause {
  id: string;
  title: string;
  meaning: string;
  fix: string;
  fixCode: string;
  source: string;
  sentence: string;
  attacks: Array<{
    attack: string;
    runs: number;
    unsafeRate: number;
    unsafeCi95: [number, number];
    referenceUnsafeRate: number;
    explained: number;
    diagnosed: number;
  }>;
  counterexample?: { attack: string; seed: number; title: string; faults: string[]; evidence: string; replay: string };
  reportHref?: string;
  fileHref?: string;
  real?: { runs: number; unsafe: number; reference: { runs: number; unsafe: number }; note?: string };
}

export interface AuditPage {
  lock: string;
  reference: string;
  seeds: number;
  rows: readonly AuditCardRow[];
  causes: readonly AuditPageCause[];
  unexplained: ReadonlyArray<{ attack: string; seed: number; atUs: number; sentence: string }>;
  /** audit --explore: how many schedules were generated and judged. */
  explore?: { draws: number; seed: number; judged: number; found: number };
  /** An audit on real servers (real/audit.ts): `seeds` counts real runs, and it may have stopped early. */
  real?: { note: string; stoppedBy?: { attack: string; reason: string } };
}

const STYLE = `body{font:15px/1.45 system-ui,sans-serif;margin:2em auto;max-width:72em;padding:0 1em;color:#1d1d1f}
h1{margin-bottom:.2em}h2{margin-top:1.6em}h3{font-size:1em;margin:1.1em 0 .3em}
.lead{color:#444}.tally{font-size:1.25em;font-weight:600;padding:.6em .9em;border-radius:6px;display:inline-block}
.tally.bad{background:#fde2e2;color:#8a1010}.tally.good{background:#e3f6e3;color:#155215}
.cause{border:1px solid #e3b4b4;border-left:6px solid #c62828;border-radius:6px;padding:.4em 1.2em 1em;margin:1.4em 0;background:#fffafa}
.cause h2{margin-top:.5em;color:#8a1010}.cause .id{font:12px ui-monospace,monospace;color:#777;font-weight:normal}
.happened{background:#fff;border:1px solid #eee;border-radius:4px;padding:.5em .8em}
pre{background:#1e1e24;color:#f2f2f2;padding:.8em 1em;border-radius:5px;overflow-x:auto;font-size:13px}
code{font-family:ui-monospace,monospace;font-size:.92em}p code,td code{background:#f2f2f4;padding:0 .25em;border-radius:3px}p code{overflow-wrap:anywhere}
table{border-collapse:collapse;margin:.4em 0}td,th{border:1px solid #d6d6da;padding:.3em .6em;text-align:left;vertical-align:top}
th{background:#f5f5f7}.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.real.yes{color:#8a1010;font-weight:600}.real.no{color:#7a5b00}.real.none{color:#666}
tr.your-code td.finding{background:#fdd;color:#8a1010;font-weight:600}tr.limit td.finding{background:#ffe9c2;color:#6b4700}
tr.safe td.finding{background:#e3f6e3;color:#155215}td.finding{min-width:8.5em}.cause-id{white-space:nowrap}.real .note{font-weight:normal;color:#444}
tr.not-challenged td.finding{background:repeating-linear-gradient(135deg,#f1f1f1 0 6px,#e4e4e4 6px 12px);color:#555;font-style:italic}
table.attacks{width:100%}table.attacks td:first-child{width:34%}tr.refused td{color:#888}.about{color:#555;font-size:.9em}.unexplained{border-left:6px solid #7a5b00;background:#fffbf0;padding:.4em 1.2em;border-radius:6px}
.legend span{display:inline-block;margin-right:1.2em}.legend i{display:inline-block;width:1em;height:1em;vertical-align:-.15em;margin-right:.3em;border:1px solid #ccc}
@media (max-width:600px){body{margin:1em auto}td,th{padding:.25em .35em}.about{display:none}.num{white-space:normal}table{display:block;max-width:100%;overflow-x:auto}}`;

/** A share in percent, to a tenth where it has one: 90%, 22.5%. */
const pct = (x: number): string => `${Number((x * 100).toFixed(1))}%`;
/** An interval's ends, whole percent: the interval says "roughly", not "exactly". */
const ci = (c: readonly [number, number]): string => `[${Math.round(c[0] * 100)}%, ${Math.round(c[1] * 100)}%]`;
const bare = (label: string): string => label.replace(/ \(reference\)$/, "");

/** audit.html: the bugs in the lock's code by cause, each with its story, fix, attacks and counterexample; then every attack. */
export function renderAuditPage(p: AuditPage): string {
  const bugs = p.causes.length + p.unexplained.length;
  const attacks = p.rows.filter((r) => r.refused === undefined && !r.generated).length;
  const explored = p.explore
    ? ` Then ${p.explore.draws} generated schedules over your lock's whole API (fast-check seed ${p.explore.seed}): ${p.explore.judged} unsafe on their own seed, judged on paired seeds; ${p.explore.found} of them your code.`
    : "";
  const body = [
    `<h1>Audit of ${e(p.lock)}</h1>`,
    p.real
      ? `<p class="lead">${attacks} attacks × ${p.seeds} real runs on your lock on real servers, and as many of each on the reference recipe, <b>${e(bare(p.reference))}</b>; ${e(p.real.note)}. A finding is your code when the reference is not unsafe under the same attack, or unsafe far less often.${p.real.stoppedBy ? ` <b>Stopped at ${e(p.real.stoppedBy.attack)}: ${e(p.real.stoppedBy.reason)}</b>; the rows are the attacks that finished.` : ""}</p>`
      : `<p class="lead">${attacks} attacks × ${p.seeds} seeds on your lock, and the same attacks, schedules and seeds on the reference recipe, <b>${e(bare(p.reference))}</b>. A finding is your code when the reference is not unsafe under the same attack, or unsafe far less often.${explored}</p>`,
    bugs === 0
      ? `<p class="tally good">No bug found in your code</p>`
      : `<p class="tally bad">${p.causes.length} bug${p.causes.length === 1 ? "" : "s"} in your code${p.unexplained.length > 0 ? `, and ${p.unexplained.length} finding${p.unexplained.length === 1 ? "" : "s"} no cause explains` : ""}</p>`,
    ...p.causes.map((c, i) => causeSection(c, i + 1)),
    ...p.unexplained.map(unexplainedSection),
    attackTable(p.rows, p.causes),
  ].join("\n");
  return page({ title: `lockstep audit: ${p.lock}`, style: STYLE, body });
}

function causeSection(c: AuditPageCause, n: number): string {
  return `<section class="cause" id="cause-${e(c.id)}">
<h2>${n}. ${e(c.title)} <span class="id">${e(c.id)}</span></h2>
<p>${e(c.meaning)}</p>
<h3>What happened</h3>
<p class="happened">${e(c.sentence)}</p>
<h3>The fix</h3>
<p>${e(c.fix)}</p>
<pre><code>${e(c.fixCode)}</code></pre>
<p class="about">Source: <a href="${e(c.source)}">${e(c.source)}</a></p>
<h3>Attacks that exposed it</h3>
<table><tr><th>attack</th><th>your lock: unsafe (95% CI)</th><th>reference recipe: unsafe</th><th>runs this cause explains</th></tr>
${c.attacks.map((a) => `<tr><td>${e(a.attack)}</td><td class="num">${pct(a.unsafeRate)} ${ci(a.unsafeCi95)} of ${a.runs}</td><td class="num">${pct(a.referenceUnsafeRate)}</td><td class="num">${a.explained} of ${a.diagnosed} diagnosed</td></tr>`).join("\n")}
</table>
${counterexampleBlock(c)}
${realBlock(c)}
</section>`;
}

function counterexampleBlock(c: AuditPageCause): string {
  const x = c.counterexample;
  if (!x) return `<h3>Counterexample</h3><p class="about">None written: run the audit with --out to get one.</p>`;
  const faults = x.faults.length > 0 ? x.faults.map((f) => `<code>${e(f)}</code>`).join("; ") : "none: the workload alone shows the bug";
  return `<h3>Counterexample</h3>
<p>${c.reportHref ? `<a href="${e(c.reportHref)}">${e(x.title)}</a>` : e(x.title)}</p>
<p>What you can see happen: <b>${e(x.evidence)}</b>. Faults it keeps after shrinking: ${faults}. From the ${e(x.attack)} attack, seed ${x.seed}${c.fileHref ? ` (<a href="${e(c.fileHref)}">scenario file</a>)` : ""}.</p>
<p>Replay: <code>${e(x.replay)}</code></p>`;
}

function realBlock(c: AuditPageCause): string {
  const r = c.real;
  if (!r)
    return `<h3>On real Redis</h3><p class="real none">Not run: <code>lockstep audit … --confirm-real 5</code> replays this counterexample against a real redis-server, and the reference recipe beside it.</p>`;
  if (r.runs === 0) return `<h3>On real Redis</h3><p class="real none">Not run: ${e(r.note ?? "")}</p>`;
  const cls = r.unsafe > 0 ? "yes" : "no";
  const said = r.unsafe > 0 ? `Reproduced ${r.unsafe}/${r.runs} on a real redis-server` : `Did not reproduce on a real redis-server (0/${r.runs})`;
  return `<h3>On real Redis</h3><p class="real ${cls}">${said}; the reference recipe: unsafe ${r.reference.unsafe}/${r.reference.runs}.${r.note ? ` <span class="note">${e(r.note)}</span>` : ""}</p>`;
}

function unexplainedSection(u: { attack: string; seed: number; atUs: number; sentence: string }): string {
  return `<section class="unexplained" id="unexplained-${e(u.attack)}"><h2>Unexplained: ${e(u.attack)}</h2>
<p>Your lock was unsafe under this attack where the reference was not, but no cause in lockstep's catalogue explains it. The decisive moment, seed ${u.seed}, ${(u.atUs / 1e6).toFixed(3)} s:</p>
<p class="happened">${e(u.sentence)}</p><p class="about">Its counterexample is linked in the table below.</p></section>`;
}

const FINDING_CLASS: Record<string, string> = {
  "your code": "your-code",
  "known limit of this backend": "limit",
  safe: "safe",
  "not challenged": "not-challenged",
};

function attackTable(rows: readonly AuditCardRow[], causes: readonly AuditPageCause[]): string {
  const bugNo = new Map(causes.map((c, i) => [c.id, i + 1]));
  return `<h2>Every attack</h2>
<p class="legend"><span><i style="background:#fdd"></i>your code</span><span><i style="background:#ffe9c2"></i>known limit of this backend: unsafe in the reference recipe too (fencing checked by the resource, or a consensus store, fixes it; your code cannot)</span><span><i style="background:#e3f6e3"></i>safe: challenged, never unsafe</span><span><i style="background:repeating-linear-gradient(135deg,#f1f1f1 0 4px,#e4e4e4 4px 8px)"></i>not challenged: no run tested the lock, so this is no evidence of safety</span></p>
<table class="attacks"><tr><th>attack</th><th>finding</th><th>your lock: unsafe (95% CI)</th><th>reference: unsafe</th><th>challenged</th><th></th></tr>
${rows.map((r) => rowHtml(r, bugNo)).join("\n")}
</table>`;
}

function rowHtml(r: AuditCardRow, bugNo: ReadonlyMap<string, number>): string {
  const a = attackByName(r.attack);
  const about = a
    ? a.title
    : r.generated
      ? `generated: ${r.generated.faults.length > 0 ? r.generated.faults.join("; ") : "no fault"}. ${r.generated.story}`
      : "";
  const name = `<b>${e(r.attack)}</b>${about ? `<div class="about">${e(about)}</div>` : ""}`;
  if (r.refused !== undefined) return `<tr class="refused"><td>${name}</td><td colspan="5">refused: ${e(r.refused)}</td></tr>`;
  const cls = FINDING_CLASS[r.finding] ?? "safe";
  const bug = (c: string): string => `<a href="#cause-${e(c)}">bug ${bugNo.get(c) ?? "?"}</a> <span class="about cause-id">${e(c)}</span>`;
  const link = r.causes && r.causes.length > 0 ? r.causes.map(bug).join("<br>") : r.reportHref ? `<a href="${e(r.reportHref)}">counterexample</a>` : "";
  const refRate = r.runs > 0 ? r.referenceUnsafe / r.runs : 0;
  return (
    `<tr class="${cls}"><td>${name}</td><td class="finding">${e(r.finding)}</td>` +
    `<td class="num">${pct(r.unsafeRate)} ${ci(r.unsafeCi95)} of ${r.runs}</td><td class="num">${pct(refRate)}</td>` +
    `<td class="num">${pct(r.challengedShare)}</td><td>${link}</td></tr>`
  );
}
