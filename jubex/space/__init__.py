"""The expand stage: typed values, ranges, safe expressions, substitution, parameter spaces."""

from jubex.space.expand import Space
from jubex.space.expr import Expr, compile_expr
from jubex.space.ranges import geometric, linear
from jubex.space.template import Template, shell_lookalikes
from jubex.space.values import Duration, Size, coerce, format_size, parse_value

__all__ = [
    "Duration",
    "Expr",
    "Size",
    "Space",
    "Template",
    "coerce",
    "compile_expr",
    "format_size",
    "geometric",
    "linear",
    "parse_value",
    "shell_lookalikes",
]
