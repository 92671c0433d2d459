"""Tabulate: result tables from the rows of a run store, and comparison of two result sets.

The modules sit in rooms named for what a reader asks, each importing only the rooms
before it: ``samples`` (the rows and values a table reads), ``statistics`` (summaries,
tests, spread, flags, targets), ``tables`` (building, checking and printing tables),
``comparison`` (is a candidate worse than its baseline?), ``trends`` (a metric over many
runs), ``repetitions`` (the rounds of repetitions), ``delivery`` (files, databases,
syslog) and ``presentation`` (plots, the HTML report).

``tabulate`` reads runs into their tables; ``build_table`` filters, groups, summarizes,
derives and sorts rows; ``render`` writes a table in one of :data:`FORMATS`; ``compare``
decides whether a candidate is worse than its baseline beyond the noise
(``compare_runs`` for two runs). Only ``tabulate``, ``compare_runs`` and ``deliver`` touch
runs; the rest is pure: rows in, values and strings out.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jubex.results.comparison.compare import Comparison, PointComparison, compare
    from jubex.results.comparison.compare_runs import compare_runs
    from jubex.results.delivery.deliver import deliver, report
    from jubex.results.samples.units import UnitError, convert
    from jubex.results.statistics.stats import STATISTICS, Summary, summarize
    from jubex.results.tables.formats import FORMATS, render, render_all
    from jubex.results.tables.table import Header, PlusMinus, ResultTable, Row, build_table
    from jubex.results.tables.tabulate import tabulate

#: name -> the module it comes from: imported when first asked for, so that a command
#: importing one room (``jubex result`` its tables and delivery) does not import them all
_FROM = {
    **dict.fromkeys(["Comparison", "PointComparison", "compare"], "comparison.compare"),
    "compare_runs": "comparison.compare_runs",
    **dict.fromkeys(["deliver", "report"], "delivery.deliver"),
    **dict.fromkeys(["UnitError", "convert"], "samples.units"),
    **dict.fromkeys(["STATISTICS", "Summary", "summarize"], "statistics.stats"),
    **dict.fromkeys(["FORMATS", "render", "render_all"], "tables.formats"),
    **dict.fromkeys(["Header", "PlusMinus", "ResultTable", "Row", "build_table"], "tables.table"),
    "tabulate": "tables.tabulate",
}


def __getattr__(name: str) -> object:
    if name not in _FROM:
        raise AttributeError(f"module 'jubex.results' has no attribute '{name}'")
    return getattr(importlib.import_module(f"jubex.results.{_FROM[name]}"), name)


__all__ = [
    "FORMATS",
    "STATISTICS",
    "Comparison",
    "Header",
    "PlusMinus",
    "PointComparison",
    "ResultTable",
    "Row",
    "Summary",
    "UnitError",
    "build_table",
    "compare",
    "compare_runs",
    "convert",
    "deliver",
    "render",
    "render_all",
    "report",
    "summarize",
    "tabulate",
]
