/**
 * Text from data (file contents, lock names, client ids) on its way to the terminal:
 * control characters (C0, DEL, C1 — newlines, NULs, escape sequences that clear the
 * screen or retitle the window) become visible escapes, so a message is always one
 * plain line whatever the data holds.
 */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex -- the control characters are what it replaces
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => {
    if (c === "\n") return "\\n";
    if (c === "\r") return "\\r";
    if (c === "\t") return "\\t";
    return `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`;
  });
}

/** Several lines of text from data: each line made printable, the line breaks kept. */
export function printableLines(text: string): string {
  return text.split("\n").map(printable).join("\n");
}

/**
 * JSON for the terminal (`--json`): JSON.stringify escapes C0 controls in strings but
 * leaves DEL and the C1 controls (U+0080–U+009F, e.g. U+009B, a one-character CSI)
 * raw; they become \u escapes too, and the text is the same JSON value.
 */
export function terminalJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`) + "\n";
}
