// jubex site: filters over each listing's own JSON, downloads of what is shown, and the
// history chart (plotly.js, copied into the site, loaded after the page). Texts go in as
// text, never as HTML.
"use strict";

function jubexFormat(cell) {
  if (cell === null || cell === undefined) return "";
  if (typeof cell === "number") return Number.isInteger(cell) ? String(cell) : cell.toPrecision(4);
  return String(cell);
}

function jubexCsv(columns, rows) {
  const quote = (v) => {
    const text = v === null || v === undefined ? "" : String(v);
    return /[",\n\r]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
  };
  return [columns, ...rows].map((r) => r.map(quote).join(",")).join("\n") + "\n";
}

function jubexListing(form) {
  const table = document.getElementById(form.dataset.table);
  const data = JSON.parse(document.getElementById(form.dataset.table + "-data").textContent);
  const body = table.tBodies[0];
  const csv = form.querySelector("a.csv");
  const json = form.querySelector("a.json");
  const shown = form.querySelector(".shown");
  let urls = [];
  const value = (name) => {
    const input = form.elements.namedItem(name);
    return input ? input.value.trim() : "";
  };
  function draw() {
    const site = value("site"), benchmark = value("benchmark"), parameter = value("parameter");
    const since = value("since"), until = value("until");
    const f = data.filters;
    const kept = [];
    data.rows.forEach((row, i) => {
      if (site && f.site !== undefined && String(row[f.site]) !== site) return;
      if (benchmark && f.benchmark !== undefined && String(row[f.benchmark]) !== benchmark) return;
      if (parameter && f.parameter !== undefined) {
        const point = String(row[f.parameter]);
        if (!parameter.split(/[, ]+/).filter(Boolean).every((p) => point.includes(p))) return;
      }
      if (f.date !== undefined) {
        const day = String(row[f.date]).slice(0, 10);
        if (since && day < since) return;
        if (until && day > until) return;
      }
      kept.push(i);
    });
    body.replaceChildren(...kept.map((i) => {
      const tr = document.createElement("tr");
      data.rows[i].forEach((cell, c) => {
        const td = document.createElement("td");
        const link = data.hrefs[i][c];
        if (link) {
          const a = document.createElement("a");
          a.href = data.root + link;
          a.textContent = jubexFormat(cell);
          td.appendChild(a);
        } else {
          td.textContent = jubexFormat(cell);
        }
        tr.appendChild(td);
      });
      return tr;
    }));
    shown.textContent = String(kept.length);
    urls.forEach((u) => URL.revokeObjectURL(u));
    const rows = kept.map((i) => data.rows[i]);
    const records = rows.map((r) => Object.fromEntries(data.columns.map((c, j) => [c, r[j]])));
    urls = [
      URL.createObjectURL(new Blob([jubexCsv(data.columns, rows)], { type: "text/csv" })),
      URL.createObjectURL(new Blob([JSON.stringify(records, null, 1)], { type: "application/json" })),
    ];
    csv.href = urls[0];
    json.href = urls[1];
    if (typeof window.jubexChart === "function") window.jubexChart(since, until);
  }
  form.addEventListener("input", draw);
  form.addEventListener("change", draw);
  form.addEventListener("submit", (event) => event.preventDefault());
  draw();
}

// plotly reads labels as its own small HTML: a run's text is made plain first
function jubexPlain(text) {
  return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

// plotly.js is some 5 MB of script: it is loaded once the page (its table and filters) is
// shown, and the chart drawn when it has arrived, so that the page never waits for it
function jubexLoadChart() {
  const holder = document.getElementById("chart");
  if (!holder || !holder.dataset.script || !document.getElementById("series-data")) return;
  const script = document.createElement("script");
  script.src = holder.dataset.script;
  script.addEventListener("load", jubexHistory);
  document.body.appendChild(script);
}

// Each dot is an element of the drawing: 25,000 of them (5,000 runs of 5 repetitions) take
// seconds to draw. Past JUBEX_DOTS, the newest runs whose repetitions fit are drawn as dots
// and the spread of every run as a band from its least to its greatest repetition (two
// lines, however many runs), so the extremes and the change points all stay in sight.
const JUBEX_DOTS = 2500;

function jubexDotted(runs) {
  let count = 0;
  let first = runs.length;
  while (first > 0 && count + runs[first - 1].values.length <= JUBEX_DOTS) {
    first -= 1;
    count += runs[first].values.length;
  }
  return runs.slice(first);
}

function jubexSpread(runs, dotted) {
  if (dotted === runs.length) return [];
  const spread = runs.filter((r) => r.values.length);
  const x = spread.map((r) => r.date);
  const line = { width: 0, color: "rgba(87,96,106,0.45)" };
  return [
    { x, y: spread.map((r) => Math.min(...r.values)), mode: "lines", type: "scatter", line,
      hoverinfo: "skip", showlegend: false },
    { x, y: spread.map((r) => Math.max(...r.values)), mode: "lines", type: "scatter", line,
      fill: "tonexty", fillcolor: "rgba(87,96,106,0.25)", hoverinfo: "skip",
      name: "spread (least to greatest repetition)" },
  ];
}

function jubexHistory() {
  const holder = document.getElementById("chart");
  const source = document.getElementById("series-data");
  if (!holder || !source || typeof Plotly === "undefined") return;
  holder.replaceChildren();
  const data = JSON.parse(source.textContent);
  // the runs come as columns (a third of the text of a record each)
  const every = data.run.map((run, i) => ({
    run, date: data.date[i], values: data.values[i], mean: data.mean[i], mark: data.mark[i],
  }));
  window.jubexChart = function (since, until) {
    const inside = (date) =>
      (!since || date.slice(0, 10) >= since) && (!until || date.slice(0, 10) <= until);
    const runs = every.filter((r) => inside(r.date));
    const dotted = jubexDotted(runs);
    const dots = { x: [], y: [], text: [] };
    dotted.forEach((r) => r.values.forEach((v) => {
      dots.x.push(r.date); dots.y.push(v); dots.text.push(jubexPlain(r.run));
    }));
    const marked = runs.filter((r) => r.mark);
    const unit = data.unit ? " [" + jubexPlain(data.unit) + "]" : "";
    const dotsName = dotted.length < runs.length
      ? "repetitions (the newest " + dotted.length + " runs)" : "repetitions";
    const traces = [
      ...jubexSpread(runs, dotted.length),
      { x: dots.x, y: dots.y, text: dots.text, mode: "markers", type: "scatter",
        name: dotsName, marker: { size: 4, color: "rgba(87,96,106,0.45)" } },
      { x: runs.map((r) => r.date), y: runs.map((r) => r.mean), text: runs.map((r) => jubexPlain(r.run)),
        mode: "lines", type: "scatter", name: "mean of the run", line: { color: "#0969da" } },
      { x: marked.map((r) => r.date), y: marked.map((r) => r.mean),
        text: marked.map((r) => jubexPlain(r.run + ": " + r.mark)), mode: "markers", type: "scatter",
        name: "change point", marker: { size: 13, color: "rgba(0,0,0,0)",
          line: { width: 2, color: "#cf222e" } } },
    ];
    const notes = data.annotations.filter((a) => inside(a.date));
    const layout = {
      margin: { t: 30, r: 20, b: 50, l: 70 },
      xaxis: { title: { text: "run created (UTC)" } },
      yaxis: { title: { text: jubexPlain(data.metric) + unit } },
      legend: { orientation: "h", y: 1.12 },
      shapes: notes.map((a) => ({ type: "line", xref: "x", yref: "paper", x0: a.date,
        x1: a.date, y0: 0, y1: 1, line: { color: "#9a6700", dash: "dot" } })),
      annotations: notes.map((a) => ({ x: a.date, y: 1, xref: "x", yref: "paper", text: jubexPlain(a.text),
        showarrow: false, xanchor: "left", yanchor: "top", font: { color: "#9a6700" } })),
    };
    Plotly.react(holder, traces, layout, { displaylogo: false, responsive: true });
  };
  const chosen = (name) => {
    const input = document.querySelector("form.filters [name=" + name + "]");
    return input ? input.value.trim() : "";
  };
  window.jubexChart(chosen("since"), chosen("until"));
}

document.querySelectorAll("form.filters").forEach(jubexListing);
if (document.readyState === "complete") jubexLoadChart();
else window.addEventListener("load", jubexLoadChart);
