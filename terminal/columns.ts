/**
 * A listing's entry, "  <label>  <text>", that fits a terminal width: the label padded to
 * its column and the text wrapped at word boundaries under its own start (a hanging
 * indent), so every line stays within `width` (100 by default) however long the text.
 * A word longer than a line is kept whole on a line of its own.
 */
export const LIST_WIDTH = 100;

export function wrapEntry(label: string, labelWidth: number, text: string, width = LIST_WIDTH): string[] {
  const head = `  ${label.padEnd(labelWidth)} `;
  const indent = " ".repeat(head.length);
  const lines: string[] = [];
  let line = head;
  let empty = true;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (!empty && line.length + 1 + word.length > width) {
      lines.push(line);
      line = indent;
      empty = true;
    }
    line += (empty ? "" : " ") + word;
    empty = false;
  }
  lines.push(line.trimEnd());
  return lines;
}
