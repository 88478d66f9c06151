/**
 * The evaluation graph of a Poker Squares review, as plain SVG: the expected final total
 * before the first card and after each placement (the last point is the score), par as a
 * dashed line, the marked placements as dots, the placements made after a hint as rings and
 * the step on show as a vertical line.
 * A click moves to the nearest placement; the keyboard path is the mistakes list and the
 * step controls, and the graph's text alternative sums it up.
 */

import { t } from "../core/i18n.js";

const NS = "http://www.w3.org/2000/svg";
const W = 320;
const H = 170;
const PAD = { left: 34, right: 10, top: 10, bottom: 22 };

function node(tag, attrs = {}, text = null) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== null) el.textContent = text;
  return el;
}

/** The 26 values drawn: the start estimate, then the expected total after each placement. */
export function graphValues(review) {
  return [review.start_estimate, ...review.steps.map((s, i) => (i === 24 ? review.total : s.expected))];
}

export function drawGraph(container, review, { current, onPick }) {
  const values = graphValues(review);
  const all = [...values, review.par];
  let lo = Math.min(...all);
  let hi = Math.max(...all);
  const margin = Math.max(2, (hi - lo) * 0.08);
  lo = Math.max(0, Math.floor(lo - margin));
  hi = Math.ceil(hi + margin);
  const x = (i) => PAD.left + (i * (W - PAD.left - PAD.right)) / 25;
  const y = (v) => PAD.top + ((hi - v) * (H - PAD.top - PAD.bottom)) / (hi - lo || 1);

  const marked = review.steps.filter((s) => s.mark).length;
  const hinted = review.steps.filter((s) => s.hinted).length;
  const svg = node("svg", { viewBox: `0 0 ${W} ${H}`, class: "graph-svg", role: "img" });
  let label = t("rv.graph_label", { start: review.start_estimate.toFixed(1), total: review.total, marked });
  if (hinted) label += `${t("rv.sentence_gap")}${t("rv.graph_hinted", { n: hinted })}`;
  svg.setAttribute("aria-label", label);
  for (const v of [lo, Math.round((lo + hi) / 2), hi]) {
    svg.append(node("line", { x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v), class: "grid-line" }));
    svg.append(node("text", { x: PAD.left - 4, y: y(v) + 4, class: "axis", "text-anchor": "end" }, String(v)));
  }
  for (const i of [1, 5, 10, 15, 20, 25]) {
    svg.append(node("text", { x: x(i), y: H - 6, class: "axis", "text-anchor": "middle" }, String(i)));
  }
  svg.append(
    node("line", { x1: PAD.left, x2: W - PAD.right, y1: y(review.par), y2: y(review.par), class: "par-line" }),
  );
  svg.append(
    node(
      "text",
      { x: W - PAD.right, y: y(review.par) - 3, class: "axis par-text", "text-anchor": "end" },
      t("rv.par_short", { par: review.par }),
    ),
  );
  svg.append(node("line", { x1: x(current), x2: x(current), y1: PAD.top, y2: H - PAD.bottom, class: "now-line" }));
  const points = values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  svg.append(node("polyline", { points, class: "eval-line" }));
  review.steps.forEach((s, i) => {
    if (!s.hinted) return;
    const ring = node("circle", { cx: x(i + 1), cy: y(values[i + 1]), r: 7, class: "ring hint" });
    ring.dataset.step = String(i + 1);
    svg.append(ring);
  });
  review.steps.forEach((s, i) => {
    if (!s.mark) return;
    const dot = node("circle", {
      cx: x(i + 1),
      cy: y(values[i + 1]),
      r: s.mark === "blunder" ? 5 : 4,
      class: `dot mark-${s.mark}`,
    });
    dot.dataset.step = String(i + 1);
    svg.append(dot);
  });
  svg.append(node("circle", { cx: x(25), cy: y(review.total), r: 4, class: "dot final" }));
  svg.addEventListener("click", (ev) => {
    const box = svg.getBoundingClientRect();
    const px = ((ev.clientX - box.left) / box.width) * W;
    const i = Math.round(((px - PAD.left) * 25) / (W - PAD.left - PAD.right));
    onPick(Math.max(1, Math.min(25, i)));
  });
  container.replaceChildren(svg);
}
