import type { RawFault, RawScenario } from "./play.js";
import { findFaultDef } from "../faults/index.js";

/**
 * The fault timeline the student edits: one row per fault step on the run's true-time
 * axis. A bar's body or left edge moves the start (atMs, or delayMs after its trigger
 * event), its right edge the duration (a pause, a crash, a partition's window), and the
 * arrow head of a kind with a size (a clock jump's deltaMs: its `looks.playgroundSize`)
 * that size. Every handle also takes the arrow keys (100 ms, with Shift 1 s), and the
 * table below the axis has each value as a number field.
 */
/** "start", "duration", or the name of the kind's size handle ("jump"). */
type Field = string;

/** The size a kind lets the playground edit, if any (faults/<kind>.ts). */
const sizeOf = (f: RawFault) => findFaultDef(f.kind)?.looks.playgroundSize;
type Edit = (raw: RawScenario) => void;

const SVG = "http://www.w3.org/2000/svg";
const ROW_H = 34;
const ML = 150;
const MR = 24;
const MT = 24;
const SNAP_MS = 10;

export interface Editor {
  draw(startsMs: Array<number | null>, durationMs: number): void;
}

/** `onPreview`: the edit a drag would make if let go now (the page shows its verdict meanwhile). */
export function createEditor(
  svgHost: HTMLElement,
  tableHost: HTMLElement,
  raw: () => RawScenario,
  onEdit: (e: Edit) => void,
  onPreview: (e: Edit) => void,
): Editor {
  const ed = new FaultEditor(svgHost, raw, onEdit, onPreview);
  return {
    draw(s, durationMs) {
      ed.starts = s;
      ed.spanMs = Math.max(1, durationMs);
      ed.redraw();
      drawFaultTable(tableHost, raw().faults ?? [], onEdit);
    },
  };
}

class FaultEditor {
  starts: Array<number | null> = [];
  spanMs = 1;
  private drag: { i: number; field: Field; x0: number; v0: number; v: number } | null = null;
  private focusAfter: string | null = null;

  constructor(
    private readonly host: HTMLElement,
    private readonly raw: () => RawScenario,
    private readonly onEdit: (e: Edit) => void,
    private readonly onPreview: (e: Edit) => void,
  ) {
    // On the window, not the handle: the handle is drawn anew on every move.
    window.addEventListener("pointermove", (ev) => {
      const d = this.drag;
      if (!d) return;
      const v = snap(d.v0 + (ev.clientX - d.x0) * this.msPerPx());
      if (v === d.v) return;
      d.v = v;
      this.redraw();
      this.onPreview(this.setValue(d.i, d.field, v));
    });
    window.addEventListener("pointerup", () => this.finishDrag());
    window.addEventListener("pointercancel", () => this.finishDrag());
  }

  private widthPx(): number {
    return Math.max(280, this.host.getBoundingClientRect().width);
  }
  private xOf(ms: number): number {
    return ML + (Math.max(0, Math.min(this.spanMs, ms)) / this.spanMs) * (this.widthPx() - ML - MR);
  }
  private msPerPx(): number {
    return this.spanMs / (this.widthPx() - ML - MR);
  }

  /** The value a handle edits, as the scenario has it now (start in true time). */
  private valueOf(i: number, field: Field): number {
    const f = this.raw().faults![i]!;
    if (field === "duration") return f.durationMs ?? 0;
    if (field !== "start") return (f[sizeOf(f)!.field] as number | undefined) ?? 0;
    return this.startOf(i) ?? 0;
  }
  private startOf(i: number): number | null {
    const f = this.raw().faults![i]!;
    if (f.atMs !== undefined) return f.atMs + (f.delayMs ?? 0);
    return this.starts[i] ?? null;
  }
  private shown(i: number, field: Field): number {
    const d = this.drag;
    return d && d.i === i && d.field === field ? d.v : this.valueOf(i, field);
  }
  private setValue(i: number, field: Field, v: number): Edit {
    const fired = this.starts[i] ?? 0;
    return (r) => {
      const f = r.faults![i]!;
      if (field === "duration") f.durationMs = Math.max(SNAP_MS, Math.round(v));
      else if (field !== "start") f[sizeOf(f)!.field] = Math.round(v);
      else if (f.atMs !== undefined) f.atMs = Math.max(0, Math.round(v - (f.delayMs ?? 0)));
      // Triggered by an event: the start moves by changing the delay after the trigger.
      else f.delayMs = Math.max(0, Math.round(v - (fired - (f.delayMs ?? 0))));
    };
  }

  private finishDrag(): void {
    const d = this.drag;
    if (!d) return;
    this.drag = null;
    this.focusAfter = `[data-fault="${d.i}"][data-field="${d.field}"]`;
    if (d.v !== d.v0) this.onEdit(this.setValue(d.i, d.field, d.v));
    else this.redraw();
  }

  private handle(g: SVGElement, i: number, field: Field, x: number, y: number, label: string): void {
    const h = el("rect", {
      x: x - 5,
      y: y - 11,
      width: 10,
      height: 22,
      rx: 3,
      class: `handle h-${field}`,
      tabindex: 0,
      role: "slider",
      "aria-label": label,
      "aria-valuenow": Math.round(this.shown(i, field)),
      "data-fault": i,
      "data-field": field,
    });
    h.addEventListener("pointerdown", (ev) => {
      ev.preventDefault();
      const v0 = this.valueOf(i, field);
      this.drag = { i, field, x0: ev.clientX, v0, v: v0 };
    });
    h.addEventListener("keydown", (ev) => {
      const dir = ev.key === "ArrowRight" || ev.key === "ArrowUp" ? 1 : ev.key === "ArrowLeft" || ev.key === "ArrowDown" ? -1 : 0;
      if (!dir) return;
      ev.preventDefault();
      this.focusAfter = `[data-fault="${i}"][data-field="${field}"]`;
      this.onEdit(this.setValue(i, field, this.valueOf(i, field) + dir * (ev.shiftKey ? 1000 : 100)));
    });
    g.appendChild(h);
  }

  private row(svg: SVGElement, f: RawFault, i: number): void {
    const y = MT + i * ROW_H + ROW_H / 2;
    const g = el("g", { class: `fault k-${f.kind}` });
    g.appendChild(text(8, y + 4, "row-label", `${f.kind}${f.target ? " " + f.target : ""}`));
    const s = this.drag && this.drag.i === i && this.drag.field === "start" ? this.drag.v : this.startOf(i);
    if (s === null) {
      g.appendChild(text(ML + 6, y + 4, "never", "never fired in this run (its trigger event did not happen)"));
    } else if (f.durationMs !== undefined) {
      const x0 = this.xOf(s);
      const x1 = this.xOf(s + this.shown(i, "duration"));
      g.appendChild(el("rect", { x: x0, y: y - 9, width: Math.max(2, x1 - x0), height: 18, class: "bar" }));
      this.handle(g, i, "start", x0, y, `${f.kind} ${i + 1} start, ms`);
      this.handle(g, i, "duration", x1, y, `${f.kind} ${i + 1} duration, ms`);
    } else if (sizeOf(f)) {
      const size = sizeOf(f)!;
      const x0 = this.xOf(s);
      const x1 = this.xOf(s + this.shown(i, size.handle));
      g.appendChild(el("line", { x1: x0, x2: x1, y1: y, y2: y, class: size.handle }));
      this.handle(g, i, "start", x0, y, `${size.name} ${i + 1} time, ms`);
      this.handle(g, i, size.handle, x1, y, `${size.name} ${i + 1} size, ms`);
    } else {
      this.handle(g, i, "start", this.xOf(s), y, `${f.kind} ${i + 1} time, ms`);
    }
    svg.appendChild(g);
  }

  redraw(): void {
    const faults = this.raw().faults ?? [];
    const w = this.widthPx();
    const h = MT + Math.max(1, faults.length) * ROW_H + 8;
    const svg = el("svg", { width: w, height: h, class: "pg-svg", role: "group", "aria-label": "fault timeline: drag or use the arrow keys on a handle" });
    const step = niceStep(this.spanMs / 8);
    for (let t = 0; t <= this.spanMs; t += step) {
      const x = this.xOf(t);
      svg.appendChild(el("line", { x1: x, x2: x, y1: MT - 6, y2: h, class: "tick" }));
      svg.appendChild(text(x, MT - 10, "tick-label", `${+(t / 1000).toFixed(3)} s`));
    }
    const ttlMs = this.raw().workload.ttlMs;
    if (typeof ttlMs === "number") svg.appendChild(text(w - MR, h - 2, "ttl-label", `lease TTL ${+(ttlMs / 1000).toFixed(3)} s`));
    faults.forEach((f, i) => this.row(svg, f, i));
    if (faults.length === 0) svg.appendChild(text(ML, MT + 20, "never", "this scenario has no faults"));
    this.host.replaceChildren(svg);
    if (this.focusAfter) {
      (this.host.querySelector(this.focusAfter) as SVGElement | null)?.focus();
      this.focusAfter = null;
    }
  }
}

const snap = (ms: number): number => Math.round(ms / SNAP_MS) * SNAP_MS;

/** Each fault's values as number fields: the same edits as the handles, typed. */
function drawFaultTable(host: HTMLElement, faults: RawFault[], onEdit: (e: Edit) => void): void {
  const rows = faults.map((f, i) => {
    const tr = document.createElement("tr");
    const name = document.createElement("th");
    name.textContent = `${i + 1}. ${f.kind}${f.target ? " " + f.target : ""}`;
    if (f.note) name.title = f.note;
    tr.appendChild(name);
    const size = sizeOf(f);
    const cells: Array<[string, keyof RawFault, boolean]> = [
      [f.atMs !== undefined ? "at (ms)" : "delay after its trigger (ms)", f.atMs !== undefined ? "atMs" : "delayMs", true],
      ["lasts (ms)", "durationMs", f.durationMs !== undefined],
      [size?.column ?? "", size?.field ?? "", size !== undefined],
    ];
    for (const [label, key, on] of cells) {
      const td = document.createElement("td");
      if (on) td.appendChild(numberField(label, f, i, key, onEdit, key === size?.field && size.signed === true));
      tr.appendChild(td);
    }
    return tr;
  });
  host.replaceChildren(...rows);
}

function numberField(label: string, f: RawFault, i: number, key: keyof RawFault, onEdit: (e: Edit) => void, signed: boolean): HTMLElement {
  const lab = document.createElement("label");
  lab.textContent = label + " ";
  const input = document.createElement("input");
  input.type = "number";
  input.step = "10";
  input.value = String((f[key] as number | undefined) ?? 0);
  input.dataset.fault = String(i);
  input.dataset.key = String(key);
  input.addEventListener("change", () => {
    const v = Number(input.value);
    if (input.value.trim() === "" || !Number.isFinite(v) || (!signed && v < 0)) {
      input.setCustomValidity(`${String(key)}: expected a number${signed ? "" : " ≥ 0"}`);
      input.reportValidity();
      return;
    }
    input.setCustomValidity("");
    onEdit((r) => ((r.faults![i] as Record<string, unknown>)[key] = Math.round(v)));
  });
  lab.appendChild(input);
  return lab;
}

function niceStep(raw: number): number {
  const p = Math.pow(10, Math.floor(Math.log10(Math.max(1, raw))));
  for (const m of [1, 2, 5, 10]) if (p * m >= raw) return p * m;
  return p * 10;
}

function text(x: number, y: number, cls: string, s: string): SVGElement {
  const t = el("text", { x, y, class: cls });
  t.textContent = s;
  return t;
}

function el(tag: string, attrs: Record<string, string | number>): SVGElement {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}
