/**
 * The rating's history as a plain SVG line (no library, no bitmap), drawn with the
 * statistics page's chart styles (charts.css): one point per rated match, the newest last.
 * The SVG is an image with a text alternative; the numbers are also said in words.
 */

const NS = "http://www.w3.org/2000/svg";
const W = 360;
const H = 170;
const PAD = { left: 40, right: 10, top: 12, bottom: 22 };
const MIN_SPAN = 100;

function node(tag, attrs = {}, text = null) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== null) el.textContent = text;
  return el;
}

/** The y range drawn: the ratings' own, at least MIN_SPAN points tall, on round hundreds. */
export function span(values) {
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (hi - lo < MIN_SPAN) {
    const mid = (hi + lo) / 2;
    lo = mid - MIN_SPAN / 2;
    hi = mid + MIN_SPAN / 2;
  }
  return { lo: Math.floor(lo / 50) * 50, hi: Math.ceil(hi / 50) * 50 };
}

/** Draws `points` ([{rating, provisional}], oldest first) into `container`. */
export function drawRatingLine(container, points, { label = "" } = {}) {
  const svg = node("svg", {
    viewBox: `0 0 ${W} ${H}`,
    class: "histogram rating-line",
    role: "img",
    "aria-label": label,
  });
  svg.append(node("title", {}, label));
  if (!points.length) {
    container.replaceChildren(svg);
    return svg;
  }
  const { lo, hi } = span(points.map((p) => p.rating));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const x = (i) => PAD.left + (points.length === 1 ? plotW / 2 : (i * plotW) / (points.length - 1));
  const y = (v) => PAD.top + plotH - ((v - lo) * plotH) / (hi - lo);
  svg.append(
    node("line", { x1: PAD.left, y1: PAD.top + plotH, x2: W - PAD.right, y2: PAD.top + plotH, class: "axis" }),
  );
  svg.append(node("text", { x: PAD.left - 4, y: PAD.top + 8, class: "tick", "text-anchor": "end" }, String(hi)));
  svg.append(node("text", { x: PAD.left - 4, y: PAD.top + plotH, class: "tick", "text-anchor": "end" }, String(lo)));
  const line = points.map((p, i) => `${x(i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(" ");
  svg.append(node("polyline", { points: line, class: "line" }));
  points.forEach((p, i) => {
    svg.append(node("circle", { cx: x(i), cy: y(p.rating), r: 3, class: p.provisional ? "dot provisional" : "dot" }));
  });
  svg.append(node("text", { x: PAD.left, y: H - 6, class: "tick", "text-anchor": "start" }, "1"));
  svg.append(node("text", { x: W - PAD.right, y: H - 6, class: "tick", "text-anchor": "end" }, String(points.length)));
  container.replaceChildren(svg);
  return svg;
}
