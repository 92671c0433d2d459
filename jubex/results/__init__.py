"""Tabulate: result tables from the rows of a run store, and comparison of two result sets.

``tabulate`` reads runs into their tables; ``build_table`` filters, groups, summarizes,
derives and sorts rows; ``render`` writes a table in one of :data:`FORMATS`; ``compare``
decides whether a candidate is worse than its baseline beyond the noise
(``compare_runs`` for two runs). Only ``tabulate``, ``compare_runs`` and ``deliver`` touch
runs; the rest is pure: rows in, values and strings out.
"""

from jubex.results.comparison.compare import Comparison, PointComparison, compare
from jubex.results.comparison.compare_runs import compare_runs
from jubex.results.delivery.deliver import deliver, report
from jubex.results.samples.units import UnitError, convert
from jubex.results.statistics.stats import STATISTICS, Summary, summarize
from jubex.results.tables.formats import FORMATS, render, render_all
from jubex.results.tables.table import Header, PlusMinus, ResultTable, Row, build_table
from jubex.results.tables.tabulate import tabulate

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
