import { conditionFor, defineFault, forDuration, linkList, parseLinks } from "./def.js";

declare module "./def.js" {
  interface FaultStepFields {
    /** duplicate: the chance each message on the links is delivered twice. */
    duplicateRate?: number;
  }
}

/**
 * Message duplication: a retransmitting network or a proxy replaying a request. The
 * simulator's links already deliver a second copy at their duplicateRate; this window
 * raises it on some links and puts the network's default back after durationMs.
 * No explore arbitrary: a new choice among explore's would change what every seed draws.
 */
export const duplicate = defineFault({
  name: "duplicate",
  doc: "deliver each message on `links` twice with probability duplicateRate for durationMs",
  fields: ["links", "duplicateRate"],
  needsTarget: false,
  parse(f, step) {
    step.links = parseLinks(f);
    step.duplicateRate = f.number("duplicateRate", { min: 0, max: 1 });
  },
  links: (step) => step.links!,
  apply(ctx, step) {
    conditionFor(ctx, step, "duplicateRate", step.duplicateRate!);
  },
  real: {
    refused:
      "the links are TCP connections, which deliver each byte once (the receiving kernel drops a duplicated segment), so duplication needs a proxy that replays whole requests of each design's protocol; not in real mode yet",
  },
  semantics: { instant: false, holdsUpProgress: true },
  looks: { family: "duplicate", timeline: { at: "span" } },
  report: { start: (m) => `messages between ${m.who} are duplicated at rate ${m.num("duplicateRate")}${m.dur}${m.note}` },
  describe: (s) => `duplicate ${Math.round(s.duplicateRate! * 100)}% of messages on ${linkList(s.links!)}${forDuration(s)}`,
});
