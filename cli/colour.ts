/**
 * Colour for the verdict marks on a terminal: FAIL red, ok green, n/a and ?? yellow.
 * Only when the stream is a TTY and NO_COLOR (https://no-color.org) is unset or empty,
 * so piped output and files stay plain text. Applied after the text is made
 * printable, so the escapes added here are the only ones in it.
 */
const SGR: Record<string, string> = { FAIL: "31;1", "ok  ": "32", "n/a ": "33", "??  ": "33" };

export function colourWanted(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === "");
}

/** Colours the mark at the start of each verdict line ("  FAIL checker ..."); other text is untouched. */
export function colourVerdicts(text: string, on: boolean): string {
  if (!on) return text;
  return text.replace(
    /^( {2})(FAIL|ok {2}|n\/a |\?\? {2})( )/gm,
    (_, lead: string, mark: string, sp: string) => `${lead}\u001b[${SGR[mark]}m${mark.trimEnd()}\u001b[0m${mark.slice(mark.trimEnd().length)}${sp}`,
  );
}
