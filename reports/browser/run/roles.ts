/**
 * Raft servers' role bands: a thin strip along the bottom of each server's lane, one
 * segment per (role, term), labelled inside the segment only. A label never runs past
 * its own band, so a later role is never hidden under an earlier one's words; a band
 * too short for words keeps its colour and its tooltip.
 */
import * as d3 from "d3";
import { fmtT } from "../format.js";
import { D, LANE_H, ML, S, laneId, laneY } from "./model.js";
import type { AnySel } from "./model.js";

const ROLE_COLORS: Record<string, string> = { leader: "#1f5fa8", candidate: "#e0a100", follower: "#b9c7dd" };
const BAND_H = 9;

/** The words on a band: as long as fits in `px`, else shorter, else none. */
export function roleLabel(role: string, term: number, leader: string | undefined, px: number): string {
  const forms = [
    role === "follower" && leader ? `follower of ${leader}, term ${term}` : `${role}, term ${term}`,
    `${role} t${term}`,
    `${role[0]!.toUpperCase()}${term}`,
  ];
  return forms.find((f) => f.length * 5.6 + 6 <= px) ?? "";
}

export function drawRoles(g: AnySel, a: number, b: number): void {
  const xz = S.xz;
  const rows = (D.roles ?? []).map((r, i) => ({ r, i })).filter((d) => d.r.e >= a && d.r.s <= b);
  g.selectAll("g.role")
    .data(rows, (d: any) => d.i)
    .join((en) => {
      const e = en.append("g");
      e.append("rect");
      e.append("text").attr("class", "role-label");
      e.append("title");
      return e;
    })
    .each(function (d) {
      const x0 = Math.max(ML, xz(d.r.s));
      const x1 = Math.min(ML + S.W, xz(d.r.e));
      const y = laneY(d.r.lane) + LANE_H - BAND_H - 1;
      const sel = d3.select(this);
      sel
        .attr("class", "role")
        .attr("data-lane", laneId(d.r.lane))
        .attr("data-role", d.r.role)
        .attr("data-term", d.r.term)
        .attr("data-s", d.r.s)
        .attr("data-e", d.r.e);
      sel
        .select("rect")
        .attr("x", x0)
        .attr("y", y)
        .attr("width", Math.max(0, x1 - x0))
        .attr("height", BAND_H)
        .attr("fill", ROLE_COLORS[d.r.role] ?? "#999")
        .attr("fill-opacity", 0.85)
        .attr("stroke", "#fff")
        .attr("stroke-width", 0.5);
      const label = roleLabel(d.r.role, d.r.term, d.r.leader, x1 - x0);
      sel
        .select("text")
        .attr("x", x0 + 3)
        .attr("y", y + BAND_H - 1.5)
        .attr("font-size", 8.5)
        .attr("fill", d.r.role === "follower" ? "#223" : "#fff")
        .text(label);
      sel.select("title").text(`${laneId(d.r.lane)}: ${d.r.role}${d.r.leader ? ` of ${d.r.leader}` : ""} in term ${d.r.term}, ${fmtT(d.r.s)} – ${fmtT(d.r.e)}`);
    });
}
