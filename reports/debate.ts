import type { RunRecord } from "./types.js";
import { escapeHtml as e, page } from "./html.js";
import { BASE_STYLE } from "./run-style.js";
import { DEBATE, SOURCES, type DebateClaim, type DebateRound, type DebateTest } from "./debate-claims.js";
import type { Outcome } from "../checkers/run-all.js";
import { THUMB_STYLE } from "./debate-thumb.js";

/**
 * The debate view: the Redlock debate round by round, Kleppmann's claims beside
 * antirez's, each with the scenarios that test it, the outcome of the run and whether
 * the claim is borne out — a page a teacher can walk a class through. Static HTML.
 */
export interface DebateEntry {
  claim: DebateClaim;
  scenario: string;
  /** The run, when the scenario exists and was run. */
  record?: RunRecord;
  /** Link to that run's report, relative to the debate page. */
  report?: string;
  /** Whether that run challenged the lock (checkers/challenge.ts, by its scenario's rule). */
  challenged?: boolean;
  /** Whether some acquire in that run failed (a refusal, for tests with testedBy "refusal"). */
  refused?: boolean;
  /** That run's timeline thumbnail (reports/debate-thumb.ts). */
  thumb?: string;
  /** The same scenario over many seeds. */
  seeds?: SeedTally;
  /** Link into the playground at this scenario (`lockstep playground`), relative to the debate page. */
  playground?: string;
}

/** A test's runs over seeds from..to, each classified as classify() does. */
export interface SeedTally {
  from: number;
  to: number;
  borneOut: number;
  notBorneOut: number;
  /** Runs that did not test the claim: safe but not challenged (nor, for a refusal test, a failed acquire). */
  untested: number;
  /** 95% Wilson interval of borneOut / (borneOut + notBorneOut). */
  ci95: [number, number];
}

export type Bearing = "borne-out" | "not-borne-out" | "untested" | "not-run";

/**
 * One run against one test of a claim. A run that came out safe without being challenged
 * (checkers/challenge.ts) put nothing to the test (nobody could have overlapped), so it neither
 * bears a claim out nor refutes it: it is `untested`, never "not borne out".
 */
export function classify(test: DebateTest, outcome: Outcome, challenged: boolean, refused = false): Exclude<Bearing, "not-run"> {
  const tested = test.testedBy === "refusal" ? refused || challenged : challenged;
  // not-challenged is a safe run the challenge rule found vacuous; a refusal can still test a claim.
  const judged = outcome === "not-challenged" ? "safe" : outcome;
  if (judged === "safe" && !tested) return "untested";
  return test.supportedBy.includes(judged) ? "borne-out" : "not-borne-out";
}

export function bearingOf(entry: DebateEntry): Bearing {
  if (!entry.record) return "not-run";
  const test = entry.claim.tests.find((t) => t.scenario === entry.scenario);
  if (!test) return "not-borne-out";
  return classify(test, entry.record.verdicts.outcome, entry.challenged ?? true, entry.refused ?? false);
}

const BEARING_TEXT: Record<Bearing, string> = {
  "borne-out": "borne out",
  "not-borne-out": "not borne out",
  untested: "not tested by this run (the run was not challenged, and no refusal to judge)",
  "not-run": "not run (no such scenario yet)",
};

const pct = (x: number) => `${+(x * 100).toFixed(x >= 0.1 ? 0 : 1)}%`;

export function tallyText(t: SeedTally): string {
  const tested = t.borneOut + t.notBorneOut;
  const n = tested + t.untested;
  const span = `seeds ${t.from}–${t.to}`;
  const untested = t.untested > 0 ? `; ${t.untested} of ${n} did not test it` : "";
  if (tested === 0) return `${span}: no run tested the claim${untested}`;
  return `${span}: borne out in ${t.borneOut} of ${tested} (${pct(t.borneOut / tested)}, 95% interval ${pct(t.ci95[0])}–${pct(t.ci95[1])})${untested}`;
}

export function renderDebatePage(entries: DebateEntry[]): string {
  const byClaim = new Map<string, DebateEntry[]>();
  for (const en of entries) byClaim.set(en.claim.id, [...(byClaim.get(en.claim.id) ?? []), en]);
  const known = new Set(DEBATE.flatMap((r) => r.claims.map((c) => c.id)));
  // A round whose claims no run can test is still part of the debate: shown, said untested.
  const rounds: DebateRound[] = DEBATE.filter((r) => r.claims.some((c) => byClaim.has(c.id) || c.tests.length === 0));
  const others = [...new Map(entries.filter((en) => !known.has(en.claim.id)).map((en) => [en.claim.id, en.claim])).values()];
  if (others.length) rounds.push({ title: "Other claims", question: "", claims: others });

  const sections = rounds
    .map((round, ri) => {
      const side = (who: DebateClaim["who"]) =>
        round.claims
          .filter((c) => c.who === who)
          .map((c) => claimCard(c, byClaim.get(c.id) ?? []))
          .join("\n") || `<p class="none">—</p>`;
      return `<section class="round" id="round-${ri + 1}">
<h2><span class="n">${ri + 1}</span> ${e(round.title)}</h2>
${round.question ? `<p class="question"><b>Ask the class:</b> ${e(round.question)}</p>` : ""}
<div class="sides">
<div class="side mk"><h3>Kleppmann</h3>${side("Kleppmann")}</div>
<div class="side az"><h3>antirez</h3>${side("antirez")}</div>
</div>
</section>`;
    })
    .join("\n");

  const ran = entries.filter((en) => en.record);
  const seeds = [...new Set(ran.map((en) => en.record!.seed))];
  const scenariosRun = new Set(ran.map((en) => en.scenario)).size;
  const body = `<header class="top">
<h1>The Redlock debate, replayed</h1>
<p class="explain">In February 2016 Martin Kleppmann argued that Redlock, Redis's distributed lock, is unsafe; Salvatore Sanfilippo (antirez), its author, replied. Each claim below sits beside the lockstep scenarios that test it: a deterministic simulation of exactly the situation the claim describes, with its outcome and whether that outcome bears the claim out. Click a scenario to open its run report and see the timeline.</p>
<p class="explain">Each claim is first given in its author's own words, quoted and linked to the passage (a paraphrase says so), then restated. A run that came out safe but not challenged (no client granted the lock while another still believed it held it, or the scenario's own challenge unmet) tested nothing (nobody could have overlapped): it is counted as not testing the claim, never as refuting it. Rates over seeds come with 95% Wilson intervals.</p>
<p class="explain">${scenariosRun} scenario${scenariosRun === 1 ? "" : "s"} run${seeds.length ? `, seed${seeds.length === 1 ? "" : "s"} ${e(seeds.join(", "))}` : ""}. Replay any of them with the command in its report.</p>
<ul class="sources">${Object.values(SOURCES)
    .map((s) => `<li>[${e(s.key)}] <a href="${e(s.url)}">${e(s.title)}</a></li>`)
    .join("")}</ul>
</header>
<main class="debate">
${sections}
<section class="round takeaway">
<h2>What to take away</h2>
<ul>
<li>Every lease-based lock lets a paused client act after its lease ended; only the resource, checking a fencing token, can stop the stale write.</li>
<li>Redlock's safety rests on bounded clock error and on nodes that do not forget: clock jumps and restarts without persistence break it.</li>
<li>antirez's fixes work where the simulation gives them their assumptions (drift within the allowance, fsync always, a delayed restart, the second clock read) — and the runs show what happens when those assumptions fail.</li>
</ul>
</section>
</main>
<footer>lockstep debate · generated by <code>lockstep debate</code></footer>`;
  return page({ title: "lockstep: the Redlock debate", style: BASE_STYLE + DEBATE_STYLE + THUMB_STYLE, body });
}

function claimCard(c: DebateClaim, entries: DebateEntry[]): string {
  const src = SOURCES[c.source];
  const rows = entries
    .map((en) => {
      const test = c.tests.find((t) => t.scenario === en.scenario);
      const b = bearingOf(en);
      const name =
        (en.report ? `<a href="${e(en.report)}">${e(en.scenario)}</a>` : e(en.scenario)) +
        (en.playground ? ` <a class="play" href="${e(en.playground)}">change its faults in the playground</a>` : "");
      const outcome = en.record
        ? `<span class="badge outcome-${e(en.record.verdicts.outcome)}">${e(en.record.verdicts.outcome.replace(/-/g, " "))}</span> <span class="seed">seed ${en.record.seed}</span>`
        : "";
      const seeds = en.seeds ? `<div class="seeds">${e(tallyText(en.seeds))}</div>` : "";
      return `<tr class="b-${b}" data-scenario="${e(en.scenario)}"><td class="scn">${name}${en.thumb ? `<a class="thumb-link" href="${e(en.report ?? "")}">${en.thumb}</a>` : ""}</td><td>${e(test?.shows ?? "")}${seeds}</td><td class="out">${outcome}</td><td class="bearing">${e(BEARING_TEXT[b])}</td></tr>`;
    })
    .join("");
  // Over seeds where there are tallies; else the one run each.
  let yes = 0;
  let no = 0;
  for (const en of entries) {
    if (en.seeds) {
      yes += en.seeds.borneOut;
      no += en.seeds.notBorneOut;
    } else {
      const b = bearingOf(en);
      if (b === "borne-out") yes++;
      if (b === "not-borne-out") no++;
    }
  }
  const runs = ranCount(entries);
  const overall =
    c.tests.length === 0
      ? `<p class="overall untested">No run tests this claim: ${e(c.untestedBecause ?? "no scenario for it yet")}.</p>`
      : entries.length === 0 || runs === 0
        ? `<p class="overall untested">Not run.</p>`
        : yes + no === 0
          ? `<p class="overall untested">No run tested it: every run was safe but not challenged.</p>`
          : no === 0
            ? `<p class="overall yes">Borne out by every run that tested it (${yes}).</p>`
            : yes === 0
              ? `<p class="overall no">Not borne out by any of the ${no} runs that tested it.</p>`
              : `<p class="overall partly">Borne out by ${yes} of ${yes + no} runs that tested it: read which.</p>`;
  const passage = `${src.url}#:~:text=${encodeURIComponent(c.words.split(" ").slice(0, 8).join(" "))}`;
  const words = c.verbatim
    ? `<blockquote class="words verbatim"><q>${e(c.words)}</q></blockquote>`
    : `<blockquote class="words paraphrase"><span class="tag">paraphrase, not a quote</span> ${e(c.words)}</blockquote>`;
  return `<article class="claim" id="claim-${e(c.id)}">
${words}
<p class="src">— ${e(c.who)}, <a class="passage" href="${e(passage)}">[${e(src.key)}] ${e(c.section)}</a></p>
<p class="restated"><span class="tag">in short (lockstep's paraphrase)</span> ${e(c.claim)}</p>
${overall}
${rows ? `<table class="tests"><thead><tr><th>scenario, one run</th><th>what it shows; over many seeds</th><th>outcome</th><th>the claim is</th></tr></thead><tbody>${rows}</tbody></table>` : ""}
</article>`;
}

function ranCount(entries: DebateEntry[]): number {
  return entries.filter((x) => x.record || x.seeds).length;
}

const DEBATE_STYLE = String.raw`
header.top { padding: 18px 24px 6px; background: #fff; border-bottom: 1px solid var(--line); }
header.top .explain { max-width: 95ch; }
ul.sources { margin: 4px 0 8px; padding-left: 18px; font-size: 13px; }
main.debate { padding: 12px 24px; max-width: 1500px; }
.round { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 14px 16px; margin-bottom: 16px; }
.round h2 { font-size: 18px; }
.round h2 .n { display: inline-block; width: 26px; height: 26px; line-height: 26px; text-align: center; border-radius: 13px; background: var(--fg); color: #fff; font-size: 14px; margin-right: 4px; }
.question { margin: 2px 0 10px; font-size: 15px; }
.sides { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
.side h3 { margin: 0 0 6px; font-size: 13px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); }
.side.mk { border-top: 3px solid #3b6fb6; padding-top: 6px; }
.side.az { border-top: 3px solid #c0392b; padding-top: 6px; }
.claim { margin-bottom: 14px; }
.claim blockquote { margin: 0; font-size: 14.5px; border-left: 3px solid var(--line); padding: 2px 10px; }
.claim blockquote.paraphrase { font-style: italic; border-left-style: dashed; }
.claim .tag { font-size: 11px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); font-style: normal; margin-right: 4px; }
.claim .restated { margin: 2px 0 4px 12px; font-size: 13px; }
td.scn .thumb-link { display: block; margin-top: 4px; }
td.scn a.play { display: block; font-weight: normal; font-size: 12px; }
.seeds { color: var(--muted); margin-top: 3px; }
.seed { color: var(--muted); font-size: 11px; }
tr.b-untested td.bearing { color: var(--muted); font-weight: normal; }
.claim .src { margin: 2px 0 4px 12px; color: var(--muted); font-size: 12.5px; }
.overall { margin: 4px 0; font-weight: 600; }
.overall.yes { color: var(--ok); }
.overall.no { color: var(--bad); }
.overall.partly { color: #a15c00; }
.overall.untested { color: var(--muted); font-weight: normal; font-style: italic; }
table.tests { border-collapse: collapse; width: 100%; font-size: 13px; }
table.tests th { text-align: left; color: var(--muted); font-weight: normal; border-bottom: 1px solid var(--line); padding: 3px 6px; }
table.tests td { padding: 5px 6px; border-bottom: 1px solid #eef1f5; vertical-align: top; }
td.scn { white-space: nowrap; font-weight: 600; }
td.out { white-space: nowrap; }
td.out .badge { font-size: 11px; padding: 1px 7px; }
td.bearing { white-space: nowrap; font-weight: 600; }
tr.b-borne-out td.bearing { color: var(--ok); }
tr.b-not-borne-out td.bearing { color: var(--bad); }
tr.b-not-run td.bearing { color: var(--muted); font-weight: normal; }
.none { color: var(--muted); }
.takeaway li { margin: 4px 0; }
@media (max-width: 1000px) { .sides { grid-template-columns: 1fr; } }
`;
