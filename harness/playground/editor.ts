import type { RawFault, RawScenario } from "./play.js";

/**
 * The fault timeline the student edits: one row per fault step on the run's true-time
 * axis. A bar's body or left edge moves the start (atMs, or delayMs after its trigger
 * event), its right edge the duration (a pause, a crash, a partition's window), a clock
 * jump's arrow head its size. Every handle also takes the arrow keys (100 ms, with
 * Shift 1 s), and the table below the axis has each value as a number field.
 */
type Field = "start" | "duration" | "jump";
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

export function createEditor(svgHost: HTMLElement, tableHost: HTMLElement, raw: () => RawScenario, onEdit: (e: Edit) => void): Editor {
  let starts: Array<number | null> = [];
  let spanMs = 1;
  let drag: { i: number; field: Field; x0: number; v0: number; v: number } | null = null;

  const widthPx = (): number => Math.max(280, svgHost.getBoundingClientRect().width);
  const xOf = (ms: number): number => ML + (Math.max(0, Math.min(spanMs, ms)) / spanMs) * (widthPx() - ML - MR);
  const msPerPx = (): number => spanMs / (widthPx() - ML - MR);
  const snap = (ms: number): number => Math.round(ms / SNAP_MS) * SNAP_MS;

  /** The value a handle edits, as the scenario has it now (start in true time). */
  function valueOf(i: number, field: Field): number {
    const f = raw().faults![i]!;
    if (field === "duration") return f.durationMs ?? 0;
    if (field === "jump") return f.deltaMs ?? 0;
    return startOf(i) ?? 0;
  }
  function startOf(i: number): number | null {
    const f = raw().faults![i]!;
    if (f.atMs !== undefined) return f.atMs + (f.delayMs ?? 0);
    return starts[i] ?? null;
  }
  function setValue(i: number, field: Field, v: number): Edit {
    return (r) => {
      const f = r.faults![i]!;
      if (field === "duration") f.durationMs = Math.max(SNAP_MS, Math.round(v));
      else if (field === "jump") f.deltaMs = Math.round(v);
      else if (f.atMs !== undefined) f.atMs = Math.max(0, Math.round(v - (f.delayMs ?? 0)));
      else {
        // Triggered by an event: the start moves by changing the delay after the trigger.
        const anchor = (starts[i] ?? 0) - (f.delayMs ?? 0);
        f.delayMs = Math.max(0, Math.round(v - anchor));
      }
    };
  }
  const shown = (i: number, field: Field): number => (drag && drag.i === i && drag.field === field ? drag.v : valueOf(i, field));

  function handle(g: SVGElement, i: number, field: Field, x: number, y: number, label: string): void {
    const h = el("rect", { x: x - 5, y: y - 11, width: 10, height: 22, rx: 3, class: `handle h-${field}`, tabindex: 0, role: "slider", "aria-label": label, "aria-valuenow": Math.round(shown(i, field)), "data-fault": i, "data-field": field });
    h.addEventListener("pointerdown", (ev) => {
      ev.preventDefault();
      const v0 = valueOf(i, field);
      drag = { i, field, x0: ev.clientX, v0, v: v0 };
    });
    h.addEventListener("keydown", (ev) => {
      const step = ev.shiftKey ? 1000 : 100;
      const dir = ev.key === "ArrowRight" || ev.key === "ArrowUp" ? 1 : ev.key === "ArrowLeft" || ev.key === "ArrowDown" ? -1 : 0;
      if (!dir) return;
      ev.preventDefault();
      focusAfter = `[data-fault="${i}"][data-field="${field}"]`;
      onEdit(setValue(i, field, valueOf(i, field) + dir * step));
    });
    g.appendChild(h);
  }
  let focusAfter: string | null = null;

  // On the window, not the handle: the handle is drawn anew on every move.
  window.addEventListener("pointermove", (ev) => {
    if (!drag) return;
    drag.v = snap(drag.v0 + (ev.clientX - drag.x0) * msPerPx());
    redraw();
  });
  const finish = (): void => {
    if (!drag) return;
    const d = drag;
    drag = null;
    focusAfter = `[data-fault="${d.i}"][data-field="${d.field}"]`;
    if (d.v !== d.v0) onEdit(setValue(d.i, d.field, d.v));
    else redraw();
  };
  window.addEventListener("pointerup", finish);
  window.addEventListener("pointercancel", finish);

  function row(svg: SVGElement, f: RawFault, i: number): void {
    const y = MT + i * ROW_H + ROW_H / 2;
    const g = el("g", { class: `fault k-${f.kind}` });
    const text = el("text", { x: 8, y: y + 4, class: "row-label" });
    text.textContent = `${f.kind}${f.target ? " " + f.target : ""}`;
    g.appendChild(text);
    const s = drag && drag.i === i && drag.field === "start" ? drag.v : startOf(i);
    if (s === null) {
      const t = el("text", { x: ML + 6, y: y + 4, class: "never" });
      t.textContent = "never fired in this run (its trigger event did not happen)";
      g.appendChild(t);
      svg.appendChild(g);
      return;
    }
    const x0 = xOf(s);
    if (f.durationMs !== undefined) {
      const x1 = xOf(s + shown(i, "duration"));
      g.appendChild(el("rect", { x: x0, y: y - 9, width: Math.max(2, x1 - x0), height: 18, class: "bar" }));
      handle(g, i, "start", x0, y, `${f.kind} ${i + 1} start, ms`);
      handle(g, i, "duration", x1, y, `${f.kind} ${i + 1} duration, ms`);
    } else if (f.kind === "clock-jump") {
      const x1 = xOf(s + shown(i, "jump"));
      g.appendChild(el("line", { x1: x0, x2: x1, y1: y, y2: y, class: "jump" }));
      handle(g, i, "start", x0, y, `clock jump ${i + 1} time, ms`);
      handle(g, i, "jump", x1, y, `clock jump ${i + 1} size, ms`);
    } else {
      handle(g, i, "start", x0, y, `${f.kind} ${i + 1} time, ms`);
    }
    svg.appendChild(g);
  }

  function redraw(): void {
    const faults = raw().faults ?? [];
    const w = widthPx();
    const h = MT + Math.max(1, faults.length) * ROW_H + 8;
    const svg = el("svg", { width: w, height: h, class: "pg-svg", role: "group", "aria-label": "fault timeline: drag or use the arrow keys on a handle" });
    axis(svg, h);
    ttlMark(svg, h);
    faults.forEach((f, i) => row(svg, f, i));
    if (faults.length === 0) {
      const t = el("text", { x: ML, y: MT + 20, class: "never" });
      t.textContent = "this scenario has no faults";
      svg.appendChild(t);
    }
    svgHost.replaceChildren(svg);
    if (focusAfter) {
      (svgHost.querySelector(focusAfter) as SVGElement | null)?.focus();
      focusAfter = null;
    }
  }

  function axis(svg: SVGElement, h: number): void {
    const step = niceStep(spanMs / 8);
    for (let t = 0; t <= spanMs; t += step) {
      const x = xOf(t);
      svg.appendChild(el("line", { x1: x, x2: x, y1: MT - 6, y2: h, class: "tick" }));
      const label = el("text", { x, y: MT - 10, class: "tick-label" });
      label.textContent = `${+(t / 1000).toFixed(3)} s`;
      svg.appendChild(label);
    }
  }

  /** The lease length, from the first fault's start: where a pause becomes long enough to matter. */
  function ttlMark(svg: SVGElement, h: number): void {
    const ttlMs = raw().workload.ttlMs;
    if (typeof ttlMs !== "number") return;
    const t = el("text", { x: widthPx() - MR, y: h - 2, class: "ttl-label" });
    t.textContent = `TTL ${+(ttlMs / 1000).toFixed(3)} s`;
    svg.appendChild(t);
  }

  function table(): void {
    const faults = raw().faults ?? [];
    const rows = faults.map((f, i) => {
      const tr = document.createElement("tr");
      const name = document.createElement("th");
      name.textContent = `${i + 1}. ${f.kind}${f.target ? " " + f.target : ""}`;
      if (f.note) name.title = f.note;
      tr.appendChild(name);
      const cells: Array<[string, keyof RawFault, boolean]> = [
        [f.atMs !== undefined ? "at (ms)" : "delay after its trigger (ms)", f.atMs !== undefined ? "atMs" : "delayMs", true],
        ["lasts (ms)", "durationMs", f.durationMs !== undefined],
        ["jump (ms)", "deltaMs", f.kind === "clock-jump"],
      ];
      for (const [label, key, on] of cells) {
        const td = document.createElement("td");
        if (on) {
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
            if (!Number.isFinite(v) || (key !== "deltaMs" && v < 0)) {
              input.setCustomValidity(`${String(key)}: expected a number${key !== "deltaMs" ? " ≥ 0" : ""}`);
              input.reportValidity();
              return;
            }
            input.setCustomValidity("");
            onEdit((r) => ((r.faults![i] as Record<string, unknown>)[key] = Math.round(v)));
          });
          lab.appendChild(input);
          td.appendChild(lab);
        }
        tr.appendChild(td);
      }
      return tr;
    });
    tableHost.replaceChildren(...rows);
  }

  return {
    draw(s, durationMs) {
      starts = s;
      spanMs = Math.max(1, durationMs);
      redraw();
      table();
    },
  };
}

function niceStep(raw: number): number {
  const p = Math.pow(10, Math.floor(Math.log10(Math.max(1, raw))));
  for (const m of [1, 2, 5, 10]) if (p * m >= raw) return p * m;
  return p * 10;
}

function el(tag: string, attrs: Record<string, string | number>): SVGElement {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}
