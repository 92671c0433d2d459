"""A study as one HTML file: plots, tables, provenance, failures and the noise, to read
offline and to send by mail.

The file stands alone: the plots are inline SVG, the style is inline, there is no script
and no external address. Every text goes through Jinja2's autoescaping (a parameter value
or a pattern name is data, never markup); the only markup let through unescaped is the SVG
matplotlib writes, whose texts its XML writer escapes. The file is written to a temporary
name and renamed: a report is there whole or not at all.
"""

from __future__ import annotations

import importlib.util
import math
import os
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from jubex.analysis.run import missing_analysis
from jubex.definition.model import Plot
from jubex.engine import provenance
from jubex.engine.failures import failure_causes
from jubex.results.presentation.default_plots import default_plots
from jubex.results.presentation.io_profile import Profile, io_profiles
from jubex.results.presentation.plotdata import plot_table
from jubex.results.presentation.report_study import Verdict, comparisons, provenance_diff, sides
from jubex.results.samples.concurrency import SPANS
from jubex.results.tables.cells import cell_text
from jubex.results.tables.columns import PlusMinus
from jubex.results.tables.table import ResultTable, Row
from jubex.results.tables.tabulate import rows_of, run_labels, tabulate
from jubex.store.rundir import Run
from jubex.store.store import FAILED
from jubex.version import __version__

#: rows of a table shown in the report; the rest is one command away (jubex result)
MAX_ROWS = 2000
#: failed workpackages listed one by one (all are counted by reason)
MAX_FAILED = 50
#: a coefficient of variation above this is pointed out
NOISY = 0.10
#: points with fewer repetitions than this are pointed out
FEW = 3


@dataclass
class HtmlTable:
    """A result table as the template shows it: texts, alignment, notes."""

    name: str
    head: list[str]
    rows: list[list[str]]
    right: list[bool]
    notes: list[str] = field(default_factory=list)


@dataclass
class Figure:
    """One plot: its name, the inline SVG and its notes."""

    name: str
    svg: str
    notes: list[str]


@dataclass
class RunFacts:
    """What the report says about one run."""

    label: str
    name: str
    directory: str
    states: list[tuple[str, int]]
    facts: list[tuple[str, str]]
    failures: list[tuple[str, int]]
    failed: list[dict[str, str]]


def write_report(
    runs: Sequence[Run],
    path: Path,
    *,
    include_failed: bool = False,
    by: Sequence[str] | None = None,
) -> Path:
    """Write the report of ``runs`` to ``path`` (atomically); every part is made first.
    ``by`` as :func:`jubex.results.tables.tabulate.tabulate` takes it."""
    html = render_report(runs, include_failed=include_failed, by=by)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(html)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
    return path


def render_report(
    runs: Sequence[Run], *, include_failed: bool = False, by: Sequence[str] | None = None
) -> str:
    """The report as HTML text."""
    import jinja2

    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("jubex.results.presentation", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    drawable = importlib.util.find_spec("matplotlib") is not None
    rows = _rows(runs)
    plots = default_plots(runs[0].benchmark, rows)
    results = tabulate(runs, include_failed=include_failed, rows=rows, by=by)
    labels = run_labels(runs)
    facts = [_run_facts(run, label) for run, label in zip(runs, labels, strict=True)]
    return environment.get_template("report.html.j2").render(
        title=" + ".join(dict.fromkeys(run.benchmark.name or run.id for run in runs)),
        version=__version__,
        made=time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        runs=facts,
        verdicts=[_html_verdict(v) for v in comparisons(runs)],
        sides=list(_sides(runs, rows, include_failed, by, drawable)),
        changed=provenance_diff(runs, [f.facts for f in facts]) if len(runs) > 1 else [],
        figures=list(_figures(runs, include_failed, rows, by, plots)) if drawable else [],
        undrawn=sorted(plots) if not drawable else [],
        tables=[_html_table(t) for t in results],
        noise=[line for t in results for line in noise_notes(t)],
        profiles=_profiles(runs, labels),
    )


def _profiles(runs: Sequence[Run], labels: Sequence[str]) -> list[Profile]:
    """Each run's Darshan profiles, named by run where there are several."""
    found = []
    for run, label in zip(runs, labels, strict=True):
        for profile in io_profiles(run):
            if len(runs) > 1:
                profile.title = f"{label} {profile.title}"
            found.append(profile)
    return found


def _rows(runs: Sequence[Run]) -> list[Row]:
    """The rows the tables and the plots of every benchmark read, read once (every value
    where one has no tables: the default table shows them all)."""
    benchmarks = {run.benchmark.name: run.benchmark for run in runs}.values()
    if not all(benchmark.tables for benchmark in benchmarks):
        return rows_of(runs)
    tables = [
        t for b in benchmarks for t in (*b.tables.values(), *map(plot_table, b.plots.values()))
    ]
    return rows_of(runs, tables)


def _figures(
    runs: Sequence[Run],
    include_failed: bool,
    rows: Sequence[Row],
    by: Sequence[str] | None,
    plots: Mapping[str, Plot],
    salt: str = "jx",
) -> Iterator[Figure]:
    """The definition's plots, else the default ones
    (:mod:`jubex.results.presentation.default_plots`), their SVG ids salted apart from every other
    figure's; one that draws a single study (a heatmap) over runs that differ is a note instead (the
    side-by-side section draws it per group), and so is one without data: an empty frame would read
    as a result."""
    if not plots:
        return
    from jubex.results.presentation.plot import EmptyPlot, draw_declared, svg
    from jubex.results.presentation.plotdata import RunsDiffer

    for number, name in enumerate(plots):
        try:
            ((plot, figure, notes),) = draw_declared(
                runs,
                [name],
                include_failed=include_failed,
                rows=rows,
                by=by,
                plots=plots,
                refuse_empty=True,
            )
        except (RunsDiffer, EmptyPlot) as exc:
            yield Figure(name, "", [exc.message])
            continue
        yield Figure(plot.title or plot.name, svg(figure, f"{salt}{number}"), notes)


@dataclass
class HtmlVerdict:
    """A comparison as the template shows it."""

    title: str
    line: str
    status: int
    table: HtmlTable | None


@dataclass
class Side:
    """One group of the runs (a site, a parameter value, a run): its tables and plots."""

    name: str
    tables: list[HtmlTable]
    figures: list[Figure]


def _html_verdict(verdict: Verdict) -> HtmlVerdict:
    table = _html_table(verdict.table) if verdict.table is not None else None
    return HtmlVerdict(verdict.title, verdict.line, verdict.status, table)


def _sides(
    runs: Sequence[Run],
    rows: Sequence[Row],
    include_failed: bool,
    by: Sequence[str] | None,
    drawable: bool,
) -> Iterator[Side]:
    """Each group of the runs with its own tables and plots, to set side by side."""
    for number, (name, group) in enumerate(sides(runs, rows, by)):
        own = _rows(group)
        results = tabulate(group, include_failed=include_failed, rows=own, by=by)
        salt = f"jx{number}s"
        plots = default_plots(group[0].benchmark, own)
        figures = list(_figures(group, include_failed, own, by, plots, salt)) if drawable else []
        yield Side(name, [_html_table(t) for t in results], figures)


def _html_table(table: ResultTable) -> HtmlTable:
    head = [h.label for h in table.headers]
    shown = table.rows[:MAX_ROWS]
    rows = [
        [cell_text(v, h, "—") for v, h in zip(row, table.headers, strict=True)] for row in shown
    ]
    right = [
        all(_is_number(row[i]) for row in shown if row[i] is not None)
        for i in range(len(table.headers))
    ]
    notes = list(table.notes)
    if len(table.rows) > MAX_ROWS:
        notes.append(
            f"the first {MAX_ROWS} of {len(table.rows)} rows; all of them: jubex result"
            f" -t {table.name}"
        )
    return HtmlTable(table.name, head, rows, right, notes)


def noise_notes(table: ResultTable) -> list[str]:
    """Per value with a mean and a spread: how large the spread is relative to the mean
    (the coefficient of variation, median and largest), how many points exceed
    :data:`NOISY`, and how many points rest on fewer than :data:`FEW` repetitions."""
    records = table.records()
    notes = []
    for base, pairs in _spreads(table, records).items():
        cvs = [abs(s / m) for m, s in pairs if m and s is not None and math.isfinite(s / m)]
        if not cvs:
            continue
        cvs.sort()
        noisy = sum(1 for cv in cvs if cv > NOISY)
        line = (
            f"table '{table.name}', {base}: coefficient of variation median"
            f" {cvs[len(cvs) // 2]:.1%}, largest {cvs[-1]:.1%}"
        )
        if noisy:
            line += f"; {noisy} of {len(cvs)} point(s) above {NOISY:.0%}"
        notes.append(line)
    for name in (n for n in table.columns if n.endswith("_n")):
        few = sum(1 for r in records if 0 < _count(r[name]) < FEW)
        if few:
            notes.append(
                f"table '{table.name}', {name.removesuffix('_n')}: {few} point(s) with fewer"
                f" than {FEW} repetitions"
            )
    return notes


def _spreads(
    table: ResultTable, records: Sequence[Mapping[str, object]]
) -> dict[str, list[tuple[float, float | None]]]:
    """Per value: (mean, std) of each row, from ``x_mean`` and ``x_std`` columns or from
    ``mean±std`` cells."""
    found: dict[str, list[tuple[float, float | None]]] = {}
    names = set(table.columns)
    for name in table.columns:
        base = name.removesuffix("_mean")
        if base != name and f"{base}_std" in names:
            found[base] = [
                (float(m), float(s) if isinstance(s, int | float) else None)
                for r in records
                if isinstance(m := r[name], int | float) and (s := r[f"{base}_std"]) is not None
            ]
    for index, name in enumerate(table.columns):
        cells = [row[index] for row in table.rows]
        pairs = [c for c in cells if isinstance(c, PlusMinus) and c.spread_name == "std"]
        if pairs and all(c.value_name == "mean" for c in pairs):
            found[name] = [(c.value, c.spread) for c in pairs if c.value is not None]
    return found


def _run_facts(run: Run, label: str) -> RunFacts:
    meta = run.meta
    states = Counter[str]()
    for (_, state), n in run.store.counts().items():
        states[state] += n
    failed = run.store.workpackages(states=[FAILED])
    # each failure's reason with the line of its output that explains it (stderr first),
    # causes that differ only in a path or a number counted as one
    causes = failure_causes(run)
    reasons = Counter({cause.text or "failed": len(cause.ids) for cause in causes})
    why = {wp_id: cause.text for cause in causes for wp_id in cause.ids}
    ids = {wp.id for wp in failed}
    reasons.update(
        f"finished, but the analysers found nothing usable: {why}"
        for wp, why in missing_analysis(run)
        if wp not in ids
    )
    return RunFacts(
        label=label,
        name=run.benchmark.name or meta.get("name", ""),
        directory=str(run.dir),
        states=sorted(states.items()),
        facts=_facts(provenance.read(run.dir), meta),
        failures=reasons.most_common(),
        failed=[
            {
                "id": str(wp.id),
                "step": wp.step,
                "point": ", ".join(f"{k}={v}" for k, v in wp.point.items()),
                "reason": why.get(wp.id) or wp.reason or "failed",
            }
            for wp in failed[:MAX_FAILED]
        ],
    )


def _facts(recorded: Mapping[str, object], meta: Mapping[str, str]) -> list[tuple[str, str]]:
    """The run's provenance and store meta as ``key, value`` lines, nested keys dotted."""
    lines = list(_flatten(recorded))
    for key, value in sorted(meta.items()):
        if key == SPANS:  # when each workpackage ran: said by the concurrency notes
            continue
        if key in ("created", "started", "finished") and _is_float(value):
            value = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(value)))
        lines.append((f"store.{key}", value))
    return lines


def _flatten(value: object, prefix: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield from _flatten(item, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(value, list) and not all(isinstance(v, str | int | float) for v in value):
        for index, item in enumerate(value):
            yield from _flatten(item, f"{prefix}[{index}]")
    elif isinstance(value, list):
        yield prefix, " ".join(str(v) for v in value)
    else:
        yield prefix, str(value)


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _is_number(value: object) -> bool:
    return isinstance(value, int | float | PlusMinus) and not isinstance(value, bool)


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
