/**
 * Building blocks every lockstep page shares: escaping, embedding data and the
 * Content-Security-Policy that keeps a report offline and inert. The pages' scripts
 * (with the parts of d3 they use) are bundled from reports/browser/ (bundle.ts).
 */

const ESC: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Escape text for HTML content and attribute values. Every string from a scenario or history goes through this. */
export function escapeHtml(s: unknown): string {
  return String(s).replace(/[&<>"']/g, (c) => ESC[c]!);
}

/**
 * JSON for a <script type="application/json"> block: "<" (and the line separators
 * JS once choked on) are escaped, so no data can close the script element.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/** No network at all: only inline scripts and styles, images as data: URIs. */
export const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:";

/** The document shell: CSP, title, style, body, scripts. `body` and `scripts` are trusted markup built by the caller. */
export function page(opts: { title: string; style: string; body: string; scripts?: string[]; csp?: string }): string {
  return [
    "<!DOCTYPE html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(opts.csp ?? CSP)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(opts.title)}</title>`,
    `<style>${opts.style}</style>`,
    "</head>",
    "<body>",
    opts.body,
    ...(opts.scripts ?? []).map((s) => `<script>${s}</script>`),
    "</body>",
    "</html>",
    "",
  ].join("\n");
}

/** Embed data for the page's script to read with JSON.parse(document.getElementById(id).textContent). */
export function dataBlock(id: string, value: unknown): string {
  return `<script type="application/json" id="${escapeHtml(id)}">${jsonForScript(value)}</script>`;
}
