"""Tabulate: result tables from the rows of a run store, and comparison of two result sets.

``build_table`` filters, groups, summarizes, derives and sorts; ``render`` writes a table in
one of :data:`FORMATS`; ``compare`` decides whether a candidate is worse than its baseline
beyond the noise. All of it is pure: rows in, values and strings out.
"""

from jubex.results.compare import Comparison, PointComparison, compare
from jubex.results.formats import FORMATS, render
from jubex.results.stats import STATISTICS, Summary, summarize
from jubex.results.table import Header, PlusMinus, ResultTable, Row, build_table
from jubex.results.units import UnitError, convert

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
    "convert",
    "render",
    "summarize",
]
