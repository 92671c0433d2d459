// jubex site: filters over each listing's own JSON, downloads of what is shown, and the
// history chart (BokehJS, copied into the site; its script, like this one, is deferred:
// fetched while the page is read, run in order once it is). Texts go in as text, never as
// HTML.
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

// A listing's rows are built as they come into sight, JUBEX_ROWS at a time: a listing of
// thousands (a long history's runs, the runs of a centre) is never built and laid out at
// once, and the filters and downloads still cover every row.
const JUBEX_ROWS = 100;

function jubexRow(data, i) {
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
}

function jubexListing(form) {
  const table = document.getElementById(form.dataset.table);
  const data = JSON.parse(document.getElementById(form.dataset.table + "-data").textContent);
  const body = table.tBodies[0];
  const csv = form.querySelector("a.csv");
  const json = form.querySelector("a.json");
  const shown = form.querySelector(".shown");
  const written = document.getElementById(form.dataset.table + "-more");
  if (written) written.hidden = true;  // its "without a script" no longer holds
  let urls = [];
  let kept = [];
  // past the last row built, a mark that builds the next ones when it nears the sight
  const end = document.createElement("div");
  table.after(end);
  const sight = new IntersectionObserver((seen) => {
    if (!seen.some((e) => e.isIntersecting) || body.rows.length >= kept.length) return;
    const next = kept.slice(body.rows.length, body.rows.length + JUBEX_ROWS);
    body.append(...next.map((i) => jubexRow(data, i)));
    sight.unobserve(end);  // observed anew: told again if the mark is still in sight
    sight.observe(end);
  }, { rootMargin: "0px 0px 1000px 0px" });
  sight.observe(end);
  const value = (name) => {
    const input = form.elements.namedItem(name);
    return input ? input.value.trim() : "";
  };
  // the rows the filters keep; and the chart's, unless it was drawn with these filters
  function draw(chart) {
    const site = value("site"), benchmark = value("benchmark"), parameter = value("parameter");
    const since = value("since"), until = value("until");
    const f = data.filters;
    kept = [];
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
    body.replaceChildren(...kept.slice(0, JUBEX_ROWS).map((i) => jubexRow(data, i)));
    sight.unobserve(end);
    sight.observe(end);
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
    if (chart && typeof window.jubexChart === "function") window.jubexChart(since, until);
  }
  form.addEventListener("input", () => draw(true));
  form.addEventListener("change", () => draw(true));
  form.addEventListener("submit", (event) => event.preventDefault());
  return () => draw(false);
}

// Each dot is a point the canvas draws and the hover searches: past JUBEX_DOTS, the newest
// runs whose repetitions fit are drawn as dots and the spread of every run as a band from
// its least to its greatest repetition, so the extremes and the change points all stay in
// sight and a long history draws as fast as a short one.
const JUBEX_DOTS = 2500;
const JUBEX_GREY = "#57606a";

function jubexDotted(runs) {
  let count = 0;
  let first = runs.length;
  while (first > 0 && count + runs[first - 1].values.length <= JUBEX_DOTS) {
    first -= 1;
    count += runs[first].values.length;
  }
  return runs.slice(first);
}

// "YYYY-MM-DD HH:MM" in UTC, as the page writes dates, to the milliseconds Bokeh draws
function jubexTime(date) {
  return Date.parse(date.replace(" ", "T") + "Z");
}

// A run's mean that is not a number (no finite repetition) breaks the line there
function jubexNumber(value) {
  return value === null || value === undefined ? NaN : value;
}

// The plot a history is drawn on, built from BokehJS's own models: the page needs BokehJS
// alone, not its plotting API (a tenth more script to fetch and run, and five glyphs a part
// where the chart draws one: no part of it is selected, hovered into another look or muted)
function jubexPlot(label) {
  const M = Bokeh.require("models");
  const time = new M.DatetimeAxis({ axis_label: "run created (UTC)",
    formatter: new M.DatetimeTickFormatter({
      microseconds: "%H:%M:%S", milliseconds: "%H:%M:%S", seconds: "%H:%M:%S",
      minsec: "%H:%M:%S", minutes: "%H:%M", hours: "%H:%M", days: "%b %d", months: "%b %Y",
      context: "%Y" }) });
  const value = new M.LinearAxis({ axis_label: label });
  time.ticker.num_minor_ticks = 5;
  value.ticker.num_minor_ticks = 5;
  const plot = new M.Figure({
    x_range: new M.DataRange1d({ default_span: 2 * 86400000 }),  // one run: a day either side
    y_range: new M.DataRange1d(), x_scale: new M.LinearScale(), y_scale: new M.LinearScale(),
    sizing_mode: "stretch_both", min_border_left: 70, toolbar_location: "right",
  });
  plot.add_layout(time, "below");
  plot.add_layout(value, "left");
  plot.add_layout(new M.Grid({ dimension: 0, ticker: time.ticker }));
  plot.add_layout(new M.Grid({ dimension: 1, ticker: value.ticker }));
  plot.add_tools(new M.PanTool(), new M.WheelZoomTool({ dimensions: "width" }),
    new M.BoxZoomTool(), new M.ResetTool(), new M.SaveTool());
  plot.toolbar.logo = null;
  return plot;
}

// One part of the plot: its glyph drawn from its source, named as the legend and tests know it
function jubexPart(plot, name, source, glyph) {
  const part = new (Bokeh.require("models").GlyphRenderer)({ name, data_source: source, glyph });
  plot.add_renderers(part);
  return part;
}

// The chart of a history page, drawn: a promise kept once its canvas is painted (the
// document idle, as BokehJS says it), or null on a page without one
function jubexHistory() {
  const holder = document.getElementById("chart");
  const source = document.getElementById("series-data");
  if (!holder || !source || typeof Bokeh === "undefined") return null;
  const M = Bokeh.require("models");
  performance.mark("jubex-chart-library");  // these marks are what bench/bench_site_render.py reports
  holder.replaceChildren();
  const data = JSON.parse(source.textContent);
  // the runs come as columns (a third of the text of a record each)
  const every = data.run.map((run, i) => ({
    run, date: data.date[i], time: jubexTime(data.date[i]), values: data.values[i],
    mean: jubexNumber(data.mean[i]), mark: data.mark[i],
  }));
  const unit = data.unit ? " [" + data.unit + "]" : "";
  const plot = jubexPlot(data.metric + unit);
  // Bokeh draws texts on a canvas and shows hover values as text: a run's text stays inert
  const columns = () => ({ x: [], y: [], run: [] });
  const sources = {
    spread: new M.ColumnDataSource({ data: { x: [], low: [], high: [] } }),
    repetitions: new M.ColumnDataSource({ data: columns() }),
    mean: new M.ColumnDataSource({ data: columns() }),
    change: new M.ColumnDataSource({ data: columns() }),
  };
  const f = (name) => ({ field: name });
  const band = jubexPart(plot, "spread", sources.spread, new M.VArea({
    x: f("x"), y1: f("low"), y2: f("high"), fill_color: JUBEX_GREY, fill_alpha: 0.25 }));
  const dots = jubexPart(plot, "repetitions", sources.repetitions, new M.Scatter({
    x: f("x"), y: f("y"), size: 4, fill_color: JUBEX_GREY, fill_alpha: 0.45, line_color: null }));
  const mean = jubexPart(plot, "mean", sources.mean, new M.Line({
    x: f("x"), y: f("y"), line_color: "#0969da", line_width: 1.5 }));
  const change = jubexPart(plot, "change point", sources.change, new M.Scatter({
    x: f("x"), y: f("y"), size: 13, fill_alpha: 0, line_color: "#cf222e", line_width: 2 }));
  plot.add_tools(new M.HoverTool({
    renderers: [dots, mean, change],
    tooltips: [["run", "@run"], ["created", "@x{%F %H:%M}"], ["value", "@y{0.[000]}"]],
    formatters: { "@x": "datetime" },
  }));
  // the legend above the plot, where it hides no data; a click on an entry hides its part
  const entry = (label, part) => new M.LegendItem({ label: { value: label }, renderers: [part] });
  const legend = new M.Legend({
    items: [entry("spread (least to greatest repetition)", band), entry("repetitions", dots),
      entry("mean of the run", mean), entry("change point", change)],
    orientation: "horizontal", click_policy: "hide", border_line_color: null,
  });
  plot.add_layout(legend, "above");
  const notes = data.annotations.map((a) => {
    const span = new M.Span({ location: a.moment * 1000, dimension: "height",
      line_color: "#9a6700", line_dash: "dotted", line_width: 1.5 });
    const label = new M.Label({ x: a.moment * 1000, y: 4, y_units: "screen",
      x_offset: 3, text: a.text, text_color: "#9a6700", text_font_size: "12px" });
    plot.add_layout(span);
    plot.add_layout(label);
    return { date: a.date, parts: [span, label] };
  });
  window.jubexChart = function (since, until) {
    const inside = (date) =>
      (!since || date.slice(0, 10) >= since) && (!until || date.slice(0, 10) <= until);
    const runs = every.filter((r) => inside(r.date));
    const dotted = jubexDotted(runs);
    const shown = columns();
    dotted.forEach((r) => r.values.forEach((v) => {
      shown.x.push(r.time); shown.y.push(v); shown.run.push(r.run);
    }));
    sources.repetitions.data = shown;
    const spread = dotted.length < runs.length ? runs.filter((r) => r.values.length) : [];
    sources.spread.data = {
      x: spread.map((r) => r.time),
      low: spread.map((r) => Math.min(...r.values)),
      high: spread.map((r) => Math.max(...r.values)),
    };
    sources.mean.data = {
      x: runs.map((r) => r.time), y: runs.map((r) => r.mean), run: runs.map((r) => r.run),
    };
    const marked = runs.filter((r) => r.mark);
    sources.change.data = {
      x: marked.map((r) => r.time), y: marked.map((r) => r.mean),
      run: marked.map((r) => r.run + ": " + r.mark),
    };
    for (const item of legend.items) {
      if (item.renderers.includes(dots)) {
        item.label = { value: dotted.length < runs.length
          ? "repetitions (the newest " + dotted.length + " runs)" : "repetitions" };
      }
      if (item.renderers.includes(band)) item.visible = spread.length > 0;
      if (item.renderers.includes(change)) item.visible = marked.length > 0;
    }
    notes.forEach((n) => n.parts.forEach((p) => { p.visible = inside(n.date); }));
  };
  const chosen = (name) => {
    const input = document.querySelector("form.filters [name=" + name + "]");
    return input ? input.value.trim() : "";
  };
  window.jubexChart(chosen("since"), chosen("until"));
  performance.mark("jubex-chart-built");  // its models and data, before BokehJS lays it out
  const drawing = new (Bokeh.require("document").Document)();
  drawing.add_root(plot);
  return Bokeh.embed.add_document_standalone(drawing, holder)
    .then(() => new Promise((painted) => {
      if (plot.document.is_idle) painted();
      else plot.document.idle.connect(painted);
    }))
    .then(() => {
      holder.dataset.drawn = "true";
      performance.mark("jubex-chart-drawn");
    });
}

// The chart first, then the listings' rows: building and laying out the rows of a long
// history (a thousand and more) would hold the chart back by as long again. Until then the
// rows the page was written with are shown, and the filters work at once.
function jubexStart() {
  const draws = [...document.querySelectorAll("form.filters")].map(jubexListing);
  const rows = () => draws.forEach((draw) => draw());
  const drawn = jubexHistory();
  if (drawn) drawn.finally(() => requestAnimationFrame(() => setTimeout(rows)));
  else rows();
}

jubexStart();
