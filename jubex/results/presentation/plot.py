"""Plots drawn with matplotlib (the ``plot`` extra): lines, bars and heatmaps of
:class:`~jubex.results.presentation.plotdata.PlotData`, written as SVG, PNG or PDF.

matplotlib is imported when a plot is drawn, never before (it takes longer to import than
most commands take to run), and only its object API is used with the Agg canvas: no
pyplot, no global state, no display needed. Files are written to a temporary name and
renamed, so a failed plot leaves nothing half-written.
"""

from __future__ import annotations

import io
import os
import re
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from jubex.definition.model import PLOT_FORMATS, Plot
from jubex.errors import JubexError, UsageError, did_you_mean
from jubex.results.presentation.plotdata import PlotData, Series, plot_data, plot_table
from jubex.results.tables.table import Row
from jubex.results.tables.tabulate import of_one_benchmark, rows_of
from jubex.store.rundir import Run

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.ticker import Locator

#: inches; readable on a screen and in a paper's column
SIZE = (6.4, 4.2)
#: the RDF block naming the SVG's creator: addresses a mail reader need not see
_METADATA = re.compile(r"\s*<metadata>.*?</metadata>", re.DOTALL)
#: x values labelled at most along a line's axis (sizes as written: 4KiB, 1MiB)
TICKS = 12
#: a heatmap writes its values into the cells up to this many cells
ANNOTATED = 150


def draw(data: PlotData) -> Figure:
    """The figure of ``data``."""
    with _matplotlib():
        from matplotlib.figure import Figure

        figure = Figure(figsize=SIZE, layout="constrained")
        axes = figure.add_subplot()
        if data.kind == "heatmap":
            _heatmap(figure, axes, data)
        elif data.kind == "bar":
            _bars(axes, data)
        else:
            _lines(axes, data)
        axes.set_title(data.plot.title or data.plot.name)
        return figure


def save(figure: Figure, path: Path) -> Path:
    """Write the figure in the format its suffix names, atomically."""
    fmt = path.suffix.lstrip(".").lower()
    if fmt not in PLOT_FORMATS:
        raise UsageError(
            f"cannot write a plot to '{path}': the suffix must be one of "
            f"{', '.join('.' + f for f in PLOT_FORMATS)}"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out, _matplotlib():
            figure.savefig(out, format=fmt, dpi=120, metadata=_metadata(fmt))
        os.chmod(temporary, 0o644)  # as any file written here, not mkstemp's 0600
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
    return path


def svg(figure: Figure, salt: str) -> str:
    """The figure as an ``<svg>`` element to inline in HTML: text as text (searchable,
    escaped by matplotlib's XML writer), ids salted so that several plots on one page
    never share one."""
    import matplotlib

    out = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": salt, "svg.fonttype": "none"}):
        figure.savefig(out, format="svg", metadata={"Date": None})
    text = out.getvalue()
    return _METADATA.sub("", text[text.index("<svg") :])


class EmptyPlot(UsageError):
    """A plot without data: drawn, it would look like a result."""


def refuse_if_empty(plot: Plot, data: PlotData) -> None:
    """Stop before an empty figure is written: it would look like a result."""
    if data.empty:
        why = "; ".join(data.notes) or f"no row has a value of {plot.y}"
        raise EmptyPlot(
            f"plot '{plot.name}' has no data to draw, and nothing is written: {why}",
            hint="check --filter, -y and --include-failed",
        )


def draw_declared(
    runs: Sequence[Run],
    names: Sequence[str] = (),
    *,
    include_failed: bool = False,
    rows: Sequence[Row] | None = None,
    by: Sequence[str] | None = None,
    plots: Mapping[str, Plot] | None = None,
    refuse_empty: bool = False,
) -> list[tuple[Plot, Figure, list[str]]]:
    """The definition's plots (those ``names``, default all; ``plots`` instead of them when
    given), each with its notes; every one is drawn before any is written, so a bad one
    leaves nothing behind. ``rows``: the runs' rows when already read; ``by`` as
    ``tabulate`` takes it; ``refuse_empty``: a plot without data is an error, not a blank
    image. Of runs of several benchmarks, the first one's."""
    declared = runs[0].benchmark.plots if plots is None else plots
    missing = [n for n in names if n not in declared]
    if missing:
        raise UsageError(
            f"the definition has no plot '{missing[0]}' (it has: {', '.join(declared) or 'none'})",
            hint=did_you_mean(missing[0], declared),
        )
    chosen = [declared[n] for n in names] if names else list(declared.values())
    if rows is None:
        rows = rows_of(runs, [plot_table(plot) for plot in chosen])
    runs, rows = of_one_benchmark(runs, rows)[0]
    drawn = []
    for plot in chosen:
        data = plot_data(runs, plot, include_failed=include_failed, rows=rows, by=by)
        if refuse_empty:
            refuse_if_empty(plot, data)
        drawn.append((plot, draw(data), data.notes))
    return drawn


def write_declared(runs: Sequence[Run]) -> tuple[list[Path], list[str]]:
    """Draw the definition's plots into the last run's ``plots/`` directory: the files
    written, and why each plot without data was not (a blank image would look like a
    result)."""
    folder = runs[-1].dir / "plots"
    written, refused = [], []
    for name in runs[0].benchmark.plots:
        try:
            ((plot, figure, _),) = draw_declared(runs, [name], refuse_empty=True)
        except JubexError as exc:
            refused.append(f"{exc.loc}: {exc.message}" if exc.loc else exc.message)
            continue
        written.append(save(figure, folder / f"{plot.name}.{plot.format}"))
    return written, refused


def _lines(axes: Axes, data: PlotData) -> None:
    for series in data.series:
        points = _present(series)
        if not points:
            continue
        xs, ys, errors = zip(*points, strict=True)
        shown = [e if e is not None else 0.0 for e in errors]
        axes.errorbar(
            [float(x) for x in xs if isinstance(x, int | float)],
            ys,
            yerr=None if data.plot.error == "none" else shown,
            marker="o",
            markersize=4,
            capsize=3,
            label=series.label or None,
        )
    values = sorted(x for x in data.x_values if isinstance(x, int | float))
    if data.logx:
        axes.set_xscale("log", base=2)
    if data.logx or len(values) <= TICKS:
        every = values[:: -(-len(values) // TICKS)]  # at most TICKS labels, as written
        labels = [str(v) for v in every]
        axes.set_xticks([float(v) for v in every], labels)
        axes.xaxis.set_minor_locator(_no_ticks())
        if sum(len(label) + 2 for label in labels) > 60:  # would touch: slant them
            axes.tick_params(axis="x", labelrotation=30)
    _finish(axes, data)


def _bars(axes: Axes, data: PlotData) -> None:
    categories = data.x_values
    at = {value: index for index, value in enumerate(categories)}
    width = 0.8 / max(1, len(data.series))
    for number, series in enumerate(data.series):
        points = _present(series)
        if not points:
            continue
        xs, ys, errors = zip(*points, strict=True)
        offset = (number - (len(data.series) - 1) / 2) * width
        axes.bar(
            [at[x] + offset for x in xs],
            ys,
            width,
            yerr=None if data.plot.error == "none" else [e or 0.0 for e in errors],
            capsize=3,
            label=series.label or None,
        )
    axes.set_xticks(range(len(categories)), [str(c) for c in categories])
    _finish(axes, data)


def _heatmap(figure: Figure, axes: Axes, data: PlotData) -> None:
    import numpy

    columns = data.x_values
    grid = numpy.full((len(data.row_values), len(columns)), numpy.nan)
    rows = {str(value): index for index, value in enumerate(data.row_values)}
    at = {value: index for index, value in enumerate(columns)}
    for series in data.series:
        for x, y in zip(series.xs, series.ys, strict=True):
            if y is not None:
                grid[rows[series.label], at[x]] = y
    image = axes.imshow(numpy.ma.masked_invalid(grid), aspect="auto", cmap="viridis")
    figure.colorbar(image, ax=axes, label=data.y_label)
    axes.set_xticks(range(len(columns)), [str(c) for c in columns])
    axes.set_yticks(range(len(data.row_values)), [str(r) for r in data.row_values])
    axes.set_xlabel(data.x_label)
    axes.set_ylabel(data.plot.rows or "")
    if grid.size <= ANNOTATED:
        middle = numpy.nanmean(grid) if numpy.isfinite(grid).any() else 0.0
        for (row, column), value in numpy.ndenumerate(grid):
            if numpy.isfinite(value):
                colour = "black" if value > middle else "white"
                axes.text(column, row, f"{value:.3g}", ha="center", va="center", color=colour)


def _finish(axes: Axes, data: PlotData) -> None:
    axes.set_xlabel(data.x_label)
    axes.set_ylabel(data.y_label)
    if data.plot.logy:
        axes.set_yscale("log")
    elif all(y >= 0 for s in data.series for y in s.ys if y is not None):
        axes.set_ylim(bottom=0)
    axes.grid(True, alpha=0.3)
    if any(series.label for series in data.series):
        title = ", ".join(data.plot.group) if len(data.plot.group) == 1 else None
        axes.legend(title=title, fontsize="small")


def _no_ticks() -> Locator:
    from matplotlib.ticker import NullLocator

    return NullLocator()


def _present(series: Series) -> list[tuple[object, float, float | None]]:
    """The points of a series that have a value (a missing one is left out, not zero)."""
    return [
        (x, y, e)
        for x, y, e in zip(series.xs, series.ys, series.errors, strict=True)
        if y is not None
    ]


def _metadata(fmt: str) -> dict[str, str | None]:
    """No creation date in the file: the same data gives the same file."""
    return {"Date": None} if fmt == "svg" else {"CreationDate": None} if fmt == "pdf" else {}


@contextmanager
def _matplotlib() -> Iterator[None]:
    """matplotlib imported (Agg), or a clear word on how to install it."""
    try:
        import matplotlib

        matplotlib.use("Agg")
    except ImportError:
        raise UsageError(
            "plots need matplotlib, a dependency of jubex that is missing here: "
            "pip install matplotlib"
        ) from None
    yield
