/**
 * The figures of the how-to-play pages: numbered markers and arrows drawn as SVG over each
 * generated image (their places come from assets/img/figures/figures.json, written by
 * `make figures` beside the images), and the "your turn" step-through.
 *
 * No words here: the numbers are digits, and every caption is in the page in both languages.
 */

const SVG = "http://www.w3.org/2000/svg";
const MARK_R = 11;

function svgEl(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

function arrowHead(x1, y1, x2, y2, size) {
  const a = Math.atan2(y2 - y1, x2 - x1);
  const p = (da) => `${x2 - size * Math.cos(a + da)},${y2 - size * Math.sin(a + da)}`;
  return `${x2},${y2} ${p(0.45)} ${p(-0.45)}`;
}

/** The overlay of one figure: arrows first, then the numbered markers on top. */
export function overlay(layout) {
  const { width: w, height: h } = layout;
  const svg = svgEl("svg", { class: "fig-marks", viewBox: `0 0 ${w} ${h}`, "aria-hidden": "true", focusable: "false" });
  const px = ([x, y]) => [(x * w) / 100, (y * h) / 100];
  for (const a of layout.arrows) {
    const [x1, y1] = px(a.from);
    const [x2, y2] = px(a.to);
    const g = svgEl("g", { class: `fig-arrow fig-arrow-${a.style}` });
    g.append(svgEl("line", { class: "halo", x1, y1, x2, y2 }), svgEl("line", { class: "stroke", x1, y1, x2, y2 }));
    if (a.style === "no") {
      const mx = (x1 + x2) / 2;
      const my = (y1 + y2) / 2;
      const d = 5;
      g.append(
        svgEl("circle", { class: "no-disc", cx: mx, cy: my, r: 10 }),
        svgEl("path", {
          class: "no-cross",
          d: `M${mx - d} ${my - d}L${mx + d} ${my + d}M${mx + d} ${my - d}L${mx - d} ${my + d}`,
        }),
      );
    } else {
      g.append(svgEl("polygon", { class: "head", points: arrowHead(x1, y1, x2, y2, 13) }));
    }
    svg.append(g);
  }
  for (const m of layout.markers) {
    const [cx, cy] = px(m.at);
    const x = Math.min(Math.max(cx, MARK_R + 1), w - MARK_R - 1);
    const y = Math.min(Math.max(cy, MARK_R + 1), h - MARK_R - 1);
    const g = svgEl("g", { class: "fig-marker" });
    g.append(svgEl("circle", { cx: x, cy: y, r: MARK_R }));
    const text = svgEl("text", { x, y, "text-anchor": "middle", "dominant-baseline": "central" });
    text.textContent = String(m.n);
    g.append(text);
    svg.append(g);
  }
  return svg;
}

function drawMarks(media, layouts) {
  media.querySelector(".fig-marks")?.remove();
  const img = [...media.querySelectorAll("img[data-figure]")].find((i) => !i.hidden);
  const layout = img && layouts[img.dataset.figure];
  if (layout) media.append(overlay(layout));
}

/** The step-through: one image at a time, Previous and Next buttons (and the arrow keys
 * while focus is inside), the current step's caption marked. The change fades in, unless
 * the reader asked for reduced motion (CSS). */
function initSteps(box, layouts) {
  const media = box.querySelector(".fig-media");
  const imgs = [...media.querySelectorAll("img[data-figure]")];
  const items = [...box.querySelectorAll(".fig-keys > li")];
  const prev = box.querySelector("[data-step=prev]");
  const next = box.querySelector("[data-step=next]");
  const status = box.querySelector(".step-status");
  let at = 0;
  function show(i) {
    const hadFocus = box.contains(document.activeElement);
    at = Math.max(0, Math.min(imgs.length - 1, i));
    imgs.forEach((img, k) => {
      img.hidden = k !== at;
      // Fetch the next image ahead, so the step after is ready when asked for.
      if (k === at || k === at + 1) img.loading = "eager";
    });
    items.forEach((li, k) => {
      if (k === at) li.setAttribute("aria-current", "step");
      else li.removeAttribute("aria-current");
    });
    media.classList.remove("fade");
    void media.offsetWidth; // restart the fade
    media.classList.add("fade");
    drawMarks(media, layouts);
    prev.disabled = at === 0;
    next.disabled = at === imgs.length - 1;
    // A button that becomes disabled drops the focus: hand it to the other one.
    if (hadFocus && (document.activeElement?.disabled || !box.contains(document.activeElement))) {
      (at === 0 ? next : prev).focus();
    }
    status.textContent = status.dataset.template.replace("{n}", String(at + 1)).replace("{total}", String(imgs.length));
    box.dataset.at = String(at + 1);
  }
  prev.addEventListener("click", () => show(at - 1));
  next.addEventListener("click", () => show(at + 1));
  box.addEventListener("keydown", (ev) => {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    if (ev.key === "ArrowRight") show(at + 1);
    else if (ev.key === "ArrowLeft") show(at - 1);
    else if (ev.key === "Home") show(0);
    else if (ev.key === "End") show(imgs.length - 1);
    else return;
    ev.preventDefault();
  });
  show(0);
}

export async function initFigures() {
  const source = document.querySelector("[data-figures-src]");
  if (!source) return;
  const answer = await fetch(source.dataset.figuresSrc);
  if (!answer.ok) return;
  const layouts = await answer.json();
  for (const media of document.querySelectorAll(".fig:not(.steps) .fig-media")) drawMarks(media, layouts);
  for (const box of document.querySelectorAll(".fig.steps")) initSteps(box, layouts);
}
