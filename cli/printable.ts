/**
 * Text from data (file contents, lock names, client ids) on its way to the terminal:
 * control characters (C0, DEL, C1 — newlines, NULs, escape sequences that clear the
 * screen or retitle the window) become visible escapes, so a message is always one
 * plain line whatever the data holds.
 */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => {
    if (c === "\n") return "\\n";
    if (c === "\r") return "\\r";
    if (c === "\t") return "\\t";
    return `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`;
  });
}
