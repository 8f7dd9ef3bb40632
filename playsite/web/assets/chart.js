// Charts drawn as SVG by the pages themselves: a line with a band (a rating and its deviation),
// stacked bars (results per period) and intervals (each bot's strength). No library, no
// inline style (the page's CSP forbids it): colours come from CSS classes and custom
// properties, so the charts follow the light and dark themes. Every chart is an image with a
// title and a description in words, and its numbers stay readable without it (the callers
// keep a table or a list beside it).

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 640;
// Drawn at the container's own width, so that text keeps its size on a phone and a desktop.
const widthOf = (container) => Math.max(280, Math.round(container.getBoundingClientRect().width) || WIDTH);

function node(name, attributes = {}, text = null) {
  const made = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) made.setAttribute(key, String(value));
  if (text !== null) made.textContent = text;
  return made;
}

// Draw now and again whenever the container's width changes (a rotated phone, a resized window).
export function drawAtWidth(container, draw) {
  let drawnAt = null;
  const redraw = () => {
    const width = Math.round(container.getBoundingClientRect().width);
    if (width === drawnAt) return;
    drawnAt = width;
    draw();
  };
  redraw();
  if (typeof ResizeObserver === "function") new ResizeObserver(redraw).observe(container);
}

// Round, evenly spaced ticks covering [low, high]: the first at or below `low`, the last at or
// above `high`, so every mark drawn lies between two labelled lines (a deviation's whisker
// never runs past the last label).
export function ticks(low, high, count = 5) {
  if (!(high > low)) return [low];
  const raw = (high - low) / Math.max(1, count - 1);
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw);
  const out = [];
  const last = Math.ceil(high / step - 1e-9) * step;
  for (let value = Math.floor(low / step + 1e-9) * step; value <= last + step * 1e-9; value += step) out.push(Number(value.toFixed(6)));
  return out;
}

function frame(container, { title, description, height, className, width }) {
  const svg = node("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", class: `chart ${className}`, preserveAspectRatio: "xMidYMid meet" });
  const id = `chart-${Math.random().toString(36).slice(2, 9)}`;
  svg.setAttribute("aria-labelledby", `${id}-title ${id}-desc`);
  svg.append(node("title", { id: `${id}-title` }, title), node("desc", { id: `${id}-desc` }, description));
  container.replaceChildren(svg);
  return svg;
}

function empty(container, text) {
  const note = document.createElement("p");
  note.className = "chart-empty";
  note.textContent = text;
  container.replaceChildren(note);
}

const MARGIN = { left: 48, right: 12, top: 12, bottom: 28 };

function axes(svg, width, height, yTicks, y, xLabels) {
  const grid = node("g", { class: "chart-grid" });
  for (const value of yTicks) {
    grid.append(node("line", { x1: MARGIN.left, x2: width - MARGIN.right, y1: y(value), y2: y(value) }));
    grid.append(node("text", { x: MARGIN.left - 6, y: y(value) + 4, "text-anchor": "end", class: "chart-tick" }, String(Math.round(value))));
  }
  for (const { x, text } of xLabels) {
    const { anchor, at } = placed(x, text, width);
    grid.append(node("text", { x: at, y: height - 8, "text-anchor": anchor, class: "chart-tick" }, text));
  }
  svg.append(grid);
}

const TICK_CHAR_PX = 7.2; // a character of the 12 px labels, digits being the widest they hold
const LABEL_GAP_PX = 10;

// Where a label under the x axis stands: near an edge it is anchored to it, so it never leaves
// the picture; `left` and `right`, the room its text takes.
function placed(x, text, width) {
  const anchor = x > width - 70 ? "end" : x < 70 ? "start" : "middle";
  const at = anchor === "end" ? Math.min(x + 6, width - 2) : anchor === "start" ? Math.max(x - 6, 2) : x;
  const size = text.length * TICK_CHAR_PX;
  const left = anchor === "end" ? at - size : anchor === "start" ? at : at - size / 2;
  return { anchor, at, left, right: left + size };
}

function shortDate(at) {
  return new Date(at).toLocaleDateString(undefined, { month: "short", day: "numeric" });
}

// The time of day in the reader's own way, as the lists beside the graphs write it ("5:28 AM" in
// the US, "05:28" in Britain): a 24-hour clock here and a 12-hour one there misread each other.
function shortTime(at, seconds = false) {
  return new Date(at).toLocaleTimeString(undefined, {
    hour: "numeric", minute: "2-digit", ...(seconds ? { second: "2-digit" } : {}),
  });
}

// Up to `wanted` labels under the x axis: dates, or dates with the time of day when the
// points span less than three days (a busy bot plays a period every hour), with the seconds
// when they span less than ten minutes (periods seconds apart, as the demo runs them: the first
// label then carries the date too). Never the same label twice in a row, nor two that touch.
function spreadLabels(points, x, width) {
  const wanted = Math.max(2, Math.floor(width / 130));
  if (!points.length) return [];
  const span = new Date(points[points.length - 1].at) - new Date(points[0].at);
  const label = span < 600e3 ? (at) => shortTime(at, true)
    : span < 3 * 86400e3 ? (at) => `${shortDate(at)}, ${shortTime(at)}` : shortDate;
  const every = Math.max(1, Math.ceil(points.length / wanted));
  const chosen = points.map((p, i) => i).filter((i) => i % every === 0);
  if (chosen[chosen.length - 1] !== points.length - 1 && points.length - 1 - chosen[chosen.length - 1] >= every / 2) {
    chosen.push(points.length - 1);
  }
  const labels = chosen.map((i) => ({ x: x(i), text: label(points[i].at) }));
  const kept = labels.filter((item, n) => n === 0 || item.text !== labels[n - 1].text);
  if (span < 600e3) kept[0] = { ...kept[0], text: `${shortDate(points[chosen[0]].at)}, ${kept[0].text}` };
  // Labels that would touch are thinned: the latest period's label stays, in place of those
  // before it that it would touch (the first stays too).
  const apart = (a, b) => placed(a.x, a.text, width).right + LABEL_GAP_PX <= placed(b.x, b.text, width).left;
  const spaced = [];
  kept.forEach((item, n) => {
    if (n === kept.length - 1) {
      while (spaced.length > 1 && !apart(spaced[spaced.length - 1], item)) spaced.pop();
    }
    if (!spaced.length || apart(spaced[spaced.length - 1], item)) spaced.push(item);
  });
  return spaced;
}

// Where the i-th of `count` periods stands: the middle of its slot, in the rating graph and in
// the results bars alike, so one period is at the same place in both.
function slotX(count, plotW) {
  const slot = plotW / count;
  return (i) => MARGIN.left + slot * (i + 0.5);
}

// A rating over time: `points` are {at, rating, rd}; the band is rating ± 2 rd (about 95%).
export function ratingChart(container, points, { name = "the player" } = {}) {
  if (!points.length) return empty(container, `No rated games yet: ${name}'s graph starts with the first rated game.`);
  const height = 240;
  const first = points[0], last = points[points.length - 1];
  const best = points.reduce((a, b) => (b.rating > a.rating ? b : a));
  const description = points.length === 1
    ? `One rating period so far: ${Math.round(last.rating)} ± ${Math.round(2 * last.rd)} after ${last.games} game(s) on ${shortDate(last.at)}.`
    : `${points.length} rating periods from ${shortDate(first.at)} to ${shortDate(last.at)}: from ${Math.round(first.rating)} to `
      + `${Math.round(last.rating)} (now ± ${Math.round(2 * last.rd)}), highest ${Math.round(best.rating)} on ${shortDate(best.at)}.`;
  const width = widthOf(container);
  const svg = frame(container, { title: `Rating of ${name} over time`, description, height, className: "rating-chart", width });
  const lows = points.map((p) => p.rating - 2 * p.rd), highs = points.map((p) => p.rating + 2 * p.rd);
  const yTicks = ticks(Math.min(...lows), Math.max(...highs));
  const yMin = Math.min(yTicks[0], ...lows), yMax = Math.max(yTicks[yTicks.length - 1], ...highs);
  const plotH = height - MARGIN.top - MARGIN.bottom, plotW = width - MARGIN.left - MARGIN.right;
  const y = (v) => MARGIN.top + plotH * (1 - (v - yMin) / (yMax - yMin || 1));
  const x = slotX(points.length, plotW);
  axes(svg, width, height, yTicks, y, spreadLabels(points, x, width));
  const top = points.map((p, i) => `${x(i)},${y(p.rating + 2 * p.rd)}`);
  const bottom = points.map((p, i) => `${x(i)},${y(p.rating - 2 * p.rd)}`).reverse();
  if (points.length > 1) svg.append(node("polygon", { points: [...top, ...bottom].join(" "), class: "chart-band" }));
  else svg.append(node("line", { x1: x(0), x2: x(0), y1: y(highs[0]), y2: y(lows[0]), class: "chart-whisker" }));
  if (points.length > 1) svg.append(node("polyline", { points: points.map((p, i) => `${x(i)},${y(p.rating)}`).join(" "), class: "chart-line" }));
  points.forEach((p, i) => {
    const dot = node("circle", { cx: x(i), cy: y(p.rating), r: points.length > 30 ? 2.5 : 4, class: "chart-dot" });
    dot.append(node("title", {}, `${shortDate(p.at)}: ${Math.round(p.rating)} ± ${Math.round(2 * p.rd)}, ${p.games} game(s): +${p.wins} =${p.draws} -${p.losses}`));
    svg.append(dot);
  });
  return svg;
}

// Results per period as stacked bars: wins up from the axis, then draws, losses.
export function resultsChart(container, points, { name = "the player" } = {}) {
  if (!points.length) return empty(container, "No rated results yet.");
  const height = 160;
  const sum = (key) => points.reduce((total, p) => total + p[key], 0);
  const description = `${sum("games")} rated games over ${points.length} period(s): ${sum("wins")} won, ${sum("draws")} drawn, ${sum("losses")} lost.`;
  const width = widthOf(container);
  const svg = frame(container, { title: `Results of ${name} per rating period`, description, height, className: "results-chart", width });
  const most = Math.max(1, ...points.map((p) => p.games));
  const yTicks = ticks(0, most, 4).filter((t) => Number.isInteger(t));
  const plotH = height - MARGIN.top - MARGIN.bottom, plotW = width - MARGIN.left - MARGIN.right;
  const top = Math.max(most, yTicks[yTicks.length - 1]);
  const y = (v) => MARGIN.top + plotH * (1 - v / top);
  const slot = plotW / points.length, barW = Math.max(2, Math.min(28, slot * 0.7));
  const x = slotX(points.length, plotW);
  axes(svg, width, height, yTicks, y, spreadLabels(points, x, width));
  points.forEach((p, i) => {
    let base = 0;
    for (const [key, className] of [["wins", "chart-win"], ["draws", "chart-draw"], ["losses", "chart-loss"]]) {
      if (!p[key]) continue;
      const bar = node("rect", { x: x(i) - barW / 2, y: y(base + p[key]), width: barW, height: y(base) - y(base + p[key]), class: className });
      bar.append(node("title", {}, `${shortDate(p.at)}: ${p[key]} ${key}`));
      svg.append(bar);
      base += p[key];
    }
  });
  return svg;
}

// Each row's estimate with its interval, best first: rows are {label, value, low, high, note}.
export function intervalChart(container, rows, { title, unit = "" }) {
  if (!rows.length) return empty(container, "Nothing to show yet.");
  const rowH = 30, height = MARGIN.top + MARGIN.bottom + rows.length * rowH;
  const width = widthOf(container);
  const left = Math.min(170, Math.round(width * 0.32));
  const description = rows.map((r) => `${r.label}: ${Math.round(r.value)}${unit} (from ${Math.round(r.low)} to ${Math.round(r.high)})`).join("; ");
  const svg = frame(container, { title, description, height, className: "interval-chart", width });
  const values = rows.flatMap((r) => [r.low, r.high, r.value]);
  // A margin on both sides, so that no dot or interval's end sits on the plot's edge (against
  // the labels on the left).
  const least = Math.min(...values), most = Math.max(...values);
  const pad = (most - least || 20) * 0.08;
  const xTicks = ticks(least - pad, most + pad);
  const lo = Math.min(xTicks[0], least - pad), hi = Math.max(xTicks[xTicks.length - 1], most + pad);
  const x = (v) => left + (width - left - MARGIN.right) * ((v - lo) / (hi - lo || 1));
  const grid = node("g", { class: "chart-grid" });
  for (const value of xTicks) {
    grid.append(node("line", { x1: x(value), x2: x(value), y1: MARGIN.top, y2: height - MARGIN.bottom }));
    const tick = String(Math.round(value)).replace(/^-/, "\u2212"); // a true minus, as the tables write it
    grid.append(node("text", { x: x(value), y: height - 8, "text-anchor": "middle", class: "chart-tick" }, `${tick}${unit}`));
  }
  svg.append(grid);
  rows.forEach((r, i) => {
    const cy = MARGIN.top + rowH * (i + 0.5);
    svg.append(node("text", { x: left - 10, y: cy + 4, "text-anchor": "end", class: "chart-label" }, r.label));
    svg.append(node("line", { x1: x(r.low), x2: x(r.high), y1: cy, y2: cy, class: "chart-interval" }));
    const dot = node("circle", { cx: x(r.value), cy, r: 5, class: "chart-dot" });
    dot.append(node("title", {}, `${r.label}: ${Math.round(r.value)}${unit}, 95% interval ${Math.round(r.low)} to ${Math.round(r.high)}${r.note ? `; ${r.note}` : ""}`));
    svg.append(dot);
  });
  return svg;
}
