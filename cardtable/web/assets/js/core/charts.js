/**
 * Plain SVG histograms (no library, no bitmap): players or deals per score, grouped into
 * bins when the scores spread wide. The SVG is an image with a text alternative; the numbers
 * are also in the page's tables.
 */

const NS = "http://www.w3.org/2000/svg";
const W = 360;
const H = 170;
const PAD = { left: 34, right: 8, top: 10, bottom: 26 };
const MAX_BINS = 24;
const MIN_SPAN = 12;

function node(tag, attrs = {}, text = null) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== null) el.textContent = text;
  return el;
}

/** Bins over [min, max] of the totals: [{lo, hi, count}], at most MAX_BINS of equal width. */
export function bins(points) {
  if (!points.length) return [];
  let lo = Math.min(...points.map((p) => p.total));
  let hi = Math.max(...points.map((p) => p.total));
  // A few close scores still get a scale around them, not one bar across the whole chart.
  if (hi - lo + 1 < MIN_SPAN) {
    lo = Math.max(0, lo - Math.floor((MIN_SPAN - (hi - lo + 1)) / 2));
    hi = lo + MIN_SPAN - 1;
  }
  const width = Math.max(1, Math.ceil((hi - lo + 1) / MAX_BINS));
  const out = [];
  for (let start = lo; start <= hi; start += width) out.push({ lo: start, hi: start + width - 1, count: 0 });
  for (const p of points) out[Math.floor((p.total - lo) / width)].count += p.count;
  return out;
}

/**
 * Draws the histogram of `points` ([{total, count}]) into `container`. `mark` (a total) is
 * drawn highlighted: the player's own score. `label` is the chart's text alternative.
 */
export function drawHistogram(container, points, { mark = null, label = "" } = {}) {
  const data = bins(points);
  const svg = node("svg", { viewBox: `0 0 ${W} ${H}`, class: "histogram", role: "img", "aria-label": label });
  svg.append(node("title", {}, label));
  if (!data.length) {
    container.replaceChildren(svg);
    return svg;
  }
  const top = Math.max(...data.map((b) => b.count));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const barW = plotW / data.length;
  const y = (v) => PAD.top + plotH - (v * plotH) / top;
  svg.append(
    node("line", { x1: PAD.left, y1: PAD.top + plotH, x2: W - PAD.right, y2: PAD.top + plotH, class: "axis" }),
  );
  svg.append(node("text", { x: PAD.left - 4, y: PAD.top + 8, class: "tick", "text-anchor": "end" }, String(top)));
  svg.append(node("text", { x: PAD.left - 4, y: PAD.top + plotH, class: "tick", "text-anchor": "end" }, "0"));
  data.forEach((b, i) => {
    const x = PAD.left + i * barW;
    const mine = mark !== null && mark >= b.lo && mark <= b.hi;
    if (b.count > 0) {
      svg.append(
        node("rect", {
          x: x + 1,
          y: y(b.count),
          width: Math.max(1, barW - 2),
          height: PAD.top + plotH - y(b.count),
          class: mine ? "bar mine" : "bar",
          "data-lo": b.lo,
          "data-hi": b.hi,
        }),
      );
    }
  });
  // Scale: the first, middle and last bin's range. The first label starts at its bar's left
  // edge and the last ends at its bar's right edge, so neither runs past the drawing (a
  // centred "112–119" under the last bar was cut to "112–11"); the SVG scales as a whole, so
  // this holds at any width.
  const ticks = [...new Set([0, Math.floor((data.length - 1) / 2), data.length - 1])];
  for (const i of ticks) {
    const b = data[i];
    const last = i === data.length - 1 && data.length > 1;
    const first = i === 0;
    const anchor = last ? "end" : first ? "start" : "middle";
    const x = last ? PAD.left + (i + 1) * barW : first ? PAD.left + i * barW : PAD.left + (i + 0.5) * barW;
    svg.append(
      node(
        "text",
        { x, y: H - 8, class: "tick", "text-anchor": anchor, "data-tick": i },
        b.lo === b.hi ? String(b.lo) : `${b.lo}–${b.hi}`,
      ),
    );
  }
  container.replaceChildren(svg);
  return svg;
}
