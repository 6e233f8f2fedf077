// A stacked bar chart of reports per day and host, drawn as SVG by hand (no library, no inline style:
// colours come from classes in console.css, so dark mode and the CSP both hold).
import { h, s } from "./dom.js";

const SERIES = 8; // colours s0..s7 in console.css; hosts beyond the 7 busiest share the last one

/** The last `count` UTC days as YYYY-MM-DD, oldest first. */
export function lastDays(count, now = new Date()) {
  const days = [];
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  for (let i = count - 1; i >= 0; i--) days.push(new Date(today - i * 86400000).toISOString().slice(0, 10));
  return days;
}

/** Groups [{host, day, count}] into series: [{host, counts: Map(day → n), total}], busiest first. */
export function seriesOf(rows, days) {
  const inRange = new Set(days);
  const byHost = new Map();
  for (const row of rows) {
    if (!inRange.has(row.day)) continue;
    const entry = byHost.get(row.host) || { host: row.host, counts: new Map(), total: 0 };
    entry.counts.set(row.day, (entry.counts.get(row.day) || 0) + row.count);
    entry.total += row.count;
    byHost.set(row.host, entry);
  }
  const series = [...byHost.values()].sort((a, b) => b.total - a.total || a.host.localeCompare(b.host));
  if (series.length <= SERIES) return series;
  const other = { host: `${series.length - SERIES + 1} other hosts`, counts: new Map(), total: 0 };
  for (const entry of series.slice(SERIES - 1)) {
    for (const [day, n] of entry.counts) other.counts.set(day, (other.counts.get(day) || 0) + n);
    other.total += entry.total;
  }
  return [...series.slice(0, SERIES - 1), other];
}

/** The top of the y axis: 4, 10, 20, 40, 100, 200, 400, 1000, … (even, so the middle tick is whole). */
function niceMax(value) {
  if (value <= 4) return 4;
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 4, 10].map((m) => m * power).find((m) => m >= value);
}

/** The chart and its legend. `rows`: [{host, day, count}]; `days`: the x axis. */
export function reportsChart(rows, days) {
  const series = seriesOf(rows, days);
  const totals = days.map((day) => series.reduce((sum, entry) => sum + (entry.counts.get(day) || 0), 0));
  const max = niceMax(Math.max(0, ...totals));
  const width = 720, height = 240, left = 40, right = 8, top = 10, bottom = 28;
  const plotWidth = width - left - right, plotHeight = height - top - bottom;
  const step = plotWidth / days.length;
  const barWidth = Math.max(2, step * 0.72);
  const y = (n) => top + plotHeight - (n / max) * plotHeight;
  const total = totals.reduce((a, b) => a + b, 0);

  const svg = s("svg", {
    viewBox: `0 0 ${width} ${height}`, class: "chart", role: "img", "aria-labelledby": "chart-title chart-desc",
    "data-total": total,
  },
    s("title", { id: "chart-title" }, `Failure reports per day, last ${days.length} days`),
    s("desc", { id: "chart-desc" },
      total === 0 ? "No reports in this period."
        : `${total} reports in all; ` + series.map((e) => `${e.host}: ${e.total}`).join(", ") + "."));

  for (const fraction of [0, 0.5, 1]) {
    const value = max * fraction;
    svg.append(
      s("line", { class: "grid", x1: left, x2: width - right, y1: y(value), y2: y(value) }),
      s("text", { class: "axis", x: left - 6, y: y(value) + 4, "text-anchor": "end" }, String(value)));
  }
  days.forEach((day, i) => {
    const x = left + i * step + (step - barWidth) / 2;
    let base = 0;
    series.forEach((entry, index) => {
      const n = entry.counts.get(day) || 0;
      if (!n) return;
      svg.append(s("rect", {
        class: `bar s${index}`, x: x.toFixed(1), y: y(base + n).toFixed(1), width: barWidth.toFixed(1),
        height: Math.max(1, y(base) - y(base + n)).toFixed(1), "data-host": entry.host, "data-day": day, "data-count": n,
      }, s("title", {}, `${day} · ${entry.host}: ${n} report${n === 1 ? "" : "s"}`)));
      base += n;
    });
    if (i % 5 === (days.length - 1) % 5) {
      const last = i === days.length - 1; // anchored at its end, so that it stays inside the chart
      svg.append(s("text", {
        class: "axis", x: (last ? x + barWidth : x + barWidth / 2).toFixed(1), y: height - 8,
        "text-anchor": last ? "end" : "middle",
      }, day.slice(5)));
    }
  });

  const legend = h("ul", { class: "legend", "aria-label": "Hosts in the chart" },
    series.map((entry, index) =>
      h("li", {}, h("span", { class: `swatch s${index}`, "aria-hidden": "true" }), `${entry.host} (${entry.total})`)));
  return h("figure", { class: "chart-box" }, svg, series.length ? legend : h("p", { class: "muted" }, "No reports in the last 30 days."));
}
