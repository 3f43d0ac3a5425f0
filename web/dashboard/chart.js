// A line chart in SVG: the current period, a dashed line for the period
// it is compared with, a hover and keyboard readout. No library.

const NS = "http://www.w3.org/2000/svg";

function el(name, attrs, parent) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

// nice rounds v up to 1, 2 or 5 times a power of ten.
function nice(v) {
  const p = Math.pow(10, Math.floor(Math.log10(v)));
  for (const m of [1, 2, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

// scale returns the top of the y axis and its step: about four steps of
// a nice size, whole ones for whole counts.
function scale(max, whole) {
  if (!(max > 0)) return { top: whole ? 4 : 1, step: whole ? 1 : 0.25 };
  let step = nice(max / 4);
  if (whole) step = Math.max(1, Math.ceil(step));
  return { top: Math.ceil(max / step) * step, step };
}

// lineChart draws into container. points: [{key, label, value}], a
// value null for a bucket still in the future (the axis runs to the
// range's end, the line stops at the last bucket begun); compare:
// [{label, value}] or null (aligned by index), fmt: value -> text, name:
// what is drawn ("Visitors"). The svg's data-last is the key of the last
// point drawn.
// The chart is drawn at the container's size in pixels (so its text
// keeps its size on a phone) and again when that size changes.
export function lineChart(container, opts) {
  if (container._chartObserver) container._chartObserver.disconnect();
  let width = 0;
  const draw = () => {
    const w = Math.round(container.clientWidth) || 1000;
    if (w === width) return;
    width = w;
    drawChart(container, w, opts);
  };
  draw();
  if (typeof ResizeObserver === "function") {
    container._chartObserver = new ResizeObserver(draw);
    container._chartObserver.observe(container);
  }
}

function drawChart(container, W, { points, compare, fmt, name, tip }) {
  container.replaceChildren();
  const H = W < 600 ? 200 : 260, L = 44, R = 10, T = 12, B = 26;
  const n = points.length;
  let drawn = n; // the points begun: the rest are in the future
  while (drawn > 0 && points[drawn - 1].value === null) drawn--;
  const vals = points.slice(0, drawn).map((p) => p.value || 0);
  const cvals = compare ? compare.map((p) => p.value || 0) : [];
  const all = [...vals, ...cvals];
  const { top: max, step } = scale(Math.max(0, ...all), all.every(Number.isInteger));
  const x = (i) => (n <= 1 ? L + (W - L - R) / 2 : L + (i * (W - L - R)) / (n - 1));
  const y = (v) => T + (H - T - B) * (1 - v / max);
  const svg = el("svg", {
    class: "chart", viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img", tabindex: "0",
    "aria-label": `${name} chart, ${drawn === n ? n : `${drawn} of ${n}`} points. Use the left and right arrow keys to read each point.`,
    "data-points": n, "data-drawn": drawn, "data-last": drawn ? points[drawn - 1].key || points[drawn - 1].label : "",
  }, container);
  for (let v = 0; v <= max + step / 2; v += step) {
    el("line", { class: "grid", x1: L, x2: W - R, y1: y(v), y2: y(v), "vector-effect": "non-scaling-stroke" }, svg);
    const t = el("text", { class: "axis", x: L - 6, y: y(v) + 4, "text-anchor": "end" }, svg);
    t.textContent = fmt(v, true);
  }
  const every = Math.max(1, Math.ceil(n / Math.max(2, Math.floor(W / 110))));
  points.forEach((p, i) => {
    if (i === n - 1 ? n > 1 && i % every !== 0 && i % every < every / 2 : i % every !== 0) return;
    const t = el("text", { class: "axis", x: x(i), y: H - 8, "text-anchor": i === 0 ? "start" : i === n - 1 ? "end" : "middle" }, svg);
    t.textContent = p.short || p.label;
  });
  const path = (vs) => vs.map((v, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join("");
  if (compare && compare.length) {
    el("path", { class: "cmp", d: path(cvals.slice(0, Math.max(n, 1))), "vector-effect": "non-scaling-stroke" }, svg);
  }
  if (drawn) {
    // The bucket now is in is partial: the segment into it is dashed.
    const partial = drawn > 1 && points[drawn - 1].partial;
    const solid = partial ? vals.slice(0, drawn - 1) : vals;
    el("path", { class: "area", d: path(vals) + `L${x(drawn - 1)},${y(0)}L${x(0)},${y(0)}Z` }, svg);
    el("path", { class: "cur", d: path(solid), "vector-effect": "non-scaling-stroke" }, svg);
    if (partial) {
      const a = drawn - 2, b = drawn - 1;
      el("path", { class: "cur partial", d: `M${x(a).toFixed(1)},${y(vals[a]).toFixed(1)}L${x(b).toFixed(1)},${y(vals[b]).toFixed(1)}`, "vector-effect": "non-scaling-stroke" }, svg);
    }
  }
  const guide = el("line", { class: "hover", y1: T, y2: H - B, visibility: "hidden", "vector-effect": "non-scaling-stroke" }, svg);
  const dot = el("circle", { class: "pt", r: 5, visibility: "hidden" }, svg);
  let at = -1;
  const show = (i) => {
    if (!n) return;
    at = Math.max(0, Math.min(n - 1, i));
    guide.setAttribute("x1", x(at));
    guide.setAttribute("x2", x(at));
    guide.setAttribute("visibility", "visible");
    dot.setAttribute("cx", x(at));
    dot.setAttribute("cy", y(vals[at] || 0));
    dot.setAttribute("visibility", at < drawn ? "visible" : "hidden");
    let s = at < drawn ? `${points[at].label}: ${fmt(vals[at])} ${name.toLowerCase()}${points[at].partial ? " so far" : ""}` : `${points[at].label}: not yet`;
    if (compare && compare[at]) s += ` (previous period, ${compare[at].label}: ${fmt(cvals[at])})`;
    tip.textContent = s;
  };
  svg.addEventListener("pointermove", (ev) => {
    const r = svg.getBoundingClientRect();
    const px = ((ev.clientX - r.left) / r.width) * W;
    show(n <= 1 ? 0 : Math.round(((px - L) / (W - L - R)) * (n - 1)));
  });
  svg.addEventListener("keydown", (ev) => {
    const step = { ArrowRight: 1, ArrowLeft: -1, Home: -n, End: n }[ev.key];
    if (step === undefined) return;
    ev.preventDefault();
    show(at < 0 ? (step > 0 ? 0 : n - 1) : at + step);
  });
  tip.textContent = n ? "Point at the chart, or focus it and press the arrow keys, to read each point." : "No points in this range.";
  return svg;
}
