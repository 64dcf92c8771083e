// The run report of a real run is the simulator's (reports/run-report.ts) with the parts
// that would mislead rewritten: the replay box becomes the "real run: not replayable"
// banner with the versions and the time scale, and the captions that speak of simulated
// true time speak of the driver's clock. Each rewrite looks for the text it replaces; if
// the report's markup changed, the banner goes in at the top of the body instead, so the
// mark is never lost (test/real/ checks it is there).
import { escapeHtml } from "../reports/html.js";
import type { RealRunRecord } from "./record.js";

export function realBanner(r: RealRunRecord): string {
  const e = escapeHtml;
  const servers = [...new Set(r.real.servers.map((s) => `${s.software ?? "redis-server"} ${s.version}`))].join(", ");
  const pkgs = new Map<string, string>();
  for (const c of r.real.clients) for (const [k, v] of Object.entries(c.packages)) pkgs.set(k, v);
  const clients = [...pkgs].map(([k, v]) => (k === "node" ? `node ${v}` : `${k} ${v}`)).join(", ");
  const f = r.real.timeScale.factor;
  const scale = f === 1 ? "the scenario's times as written" : `time scale ${f}: TTLs, waits, pauses and durations ×${f} (the story tells the times as written)`;
  const notApplied = r.real.notApplied.length ? ` Not applied: ${r.real.notApplied.join("; ")}.` : "";
  return (
    `<div class="replay real-run"><b>${e(r.real.note)}</b> — real servers (${e(servers)}) and real clients (${e(clients)}: ${e(r.real.clientRecipe)}) on 127.0.0.1, ` +
    `run ${r.real.run} of ${r.real.runs}, ${e(scale)}, ${(r.real.wallMs / 1000).toFixed(1)} s wall time; the seed only seeds think times.${e(notApplied)} ` +
    `Run it again (a new history): <code id="replay-command">${e(r.real.rerun ?? r.replay)}</code></div>`
  );
}

export function markRealReport(html: string, r: RealRunRecord): string {
  const banner = realBanner(r);
  let out = html;
  const replay = /<div class="replay">[\s\S]*?<\/div>/;
  out = replay.test(out) ? out.replace(replay, () => banner) : out.replace(/<body[^>]*>/, (b) => `${b}\n${banner}`);
  if (!out.includes(r.real.note)) out = banner + out; // no <body> either: still marked
  out = out.replace("<small>true time, as only a simulator knows it</small>", "<small>the driver's clock (CLOCK_MONOTONIC) from the run's start</small>");
  out = out.replace("every time is simulated true time from the start of the run", "real run: every time is CLOCK_MONOTONIC from the run's start, read by the driver and the client processes");
  out = out.replace("<dt>simulated</dt>", "<dt>scenario time</dt>");
  out = out.replace(/<title>lockstep: /, "<title>lockstep real: ");
  return out;
}
