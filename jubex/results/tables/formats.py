"""Result tables as text: for a terminal, for a paper, for a spreadsheet, for a program.

Every format shows missing values as missing (``—``; an empty field in CSV, ``null`` in
JSON, ``--`` in LaTeX), never as zero, and carries the table's notes (what was left out,
how many values are missing) so that a table read alone does not mislead.
"""

from __future__ import annotations

import csv
import decimal
import io
import json
import math
import re
import shutil
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import replace

from jubex.errors import UsageError, did_you_mean
from jubex.results.tables.columns import Header, PlusMinus
from jubex.results.tables.frame import framed
from jubex.results.tables.table import FLAGS, ResultTable

#: format name -> what it is for (shown in help texts)
FORMATS = {
    "pretty": "a framed table for the terminal",
    "aligned": "plain aligned columns",
    "csv": "RFC 4180 comma-separated values: a header line, then every number in full",
    "json": "an object with columns (units) and rows, notes included",
    "markdown": "a GitHub-flavoured Markdown table",
    "latex": "a booktabs tabular",
}

Grid = tuple[list[str], list[list[str]], list[bool]]
#: a fixed-point format spec (``.2f``, ``>10,.1f``): its decimals
_FIXED = re.compile(r"^(.*\.)(\d+)f$")
#: columns of remarks a pretty table too wide for the terminal shows as footnotes
FOOTNOTED = {FLAGS, "note"}


def terminal_width() -> int | None:
    """The width tables must fit: ``COLUMNS``, else the terminal's; None when not a terminal."""
    return shutil.get_terminal_size(fallback=(0, 0)).columns or None


def render(table: ResultTable, fmt: str | None = None, *, width: int | None = None) -> str:
    """``table`` written in format ``fmt`` (one of :data:`FORMATS`; default: its style).

    A pretty table wider than ``width`` (default: :func:`terminal_width`; 0: no limit) is
    shown one record per block instead.
    """
    fmt = fmt or table.style
    if fmt == "json":
        return _json(table)
    if fmt not in FORMATS:
        raise UsageError(
            f"unknown table format '{fmt}'; expected one of {', '.join(FORMATS)}",
            hint=did_you_mean(fmt, FORMATS),
        )
    if fmt == "csv":
        if table.jube_csv:
            return _jube_csv(table, _grid(_split_pairs(table), "", auto=False))
        return _csv(_split_pairs(table))
    # a JUBE run's table shows its numbers as JUBE prints them: unformatted, as Python does
    grid = _grid(table, "--" if fmt == "latex" else "—", auto=not table.jube_csv)
    if fmt == "pretty":
        return _pretty(table, grid, terminal_width() if width is None else width)
    if fmt == "aligned":
        return _aligned(table, grid)
    if fmt == "markdown":
        return _markdown(table, grid)
    return _latex(table, grid)


def render_all(tables: Sequence[ResultTable], fmt: str | None = None) -> str:
    """Several tables, a blank line apart, each in ``fmt`` or else its own style."""
    return "\n".join(render(table, fmt) for table in tables)


def format_value(
    value: object, spec: str | None, missing: str, *, floats_only: bool = False
) -> str:
    """How a cell reads: formatted numbers, sizes as written, ``missing`` for no value.

    With ``floats_only``, ``spec`` (a column's chosen decimals) leaves whole numbers be.
    """
    if value is None:
        return missing
    if isinstance(value, PlusMinus):
        shown = format_value(value.value, spec, missing, floats_only=floats_only)
        if value.spread is None:
            return f"{shown} ± {missing}" if missing and value.value is not None else shown
        spread = format_value(value.spread, spec, missing, floats_only=floats_only)
        return f"{shown} ± {spread}"
    if isinstance(value, bool):
        return "true" if value else "false"
    takes_spec = type(value) is float if floats_only else isinstance(value, int | float)
    if takes_spec and spec:
        try:
            return format(value, spec)
        except ValueError:
            pass
    if type(value) is float:
        return _plain_float(value)
    return str(value)  # parameters (sizes, durations, ...) read as they were written


def _plain_float(value: float) -> str:
    """Six significant digits without an exponent across the range benchmarks report."""
    size = abs(value)
    if size == 0 or not math.isfinite(value):
        return str(value) if size else "0"
    if not 1e-3 <= size < 1e12:
        return f"{value:.6g}"
    digits = max(0, 5 - math.floor(math.log10(size)))
    text = f"{value:.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def column_spec(values: Iterable[object]) -> str | None:
    """Decimals for a column of numbers without a declared format: the same in every row,
    four significant digits for the largest value and two for the smallest, without the
    trailing zeros every row would show."""
    sizes = [
        abs(x)
        for v in values
        for x in ([v.value] if isinstance(v, PlusMinus) else [v])
        if type(x) is float and math.isfinite(x) and x != 0
    ]
    if not sizes:
        return None
    big, small = max(sizes), min(sizes)
    if not 1e-4 <= big < 1e12:
        return ".4g"
    decimals = max(3 - math.floor(math.log10(big)), 1 - math.floor(math.log10(small)))
    decimals = min(max(decimals, 0), 6)
    shown = [f"{x:.{decimals}f}" for x in sizes]
    while decimals and all(text.endswith("0") for text in shown):  # 1.500, 2.500 -> 1.5, 2.5
        decimals -= 1
        shown = [text[:-1] for text in shown]
    return f".{decimals}f"


def cell_text(value: object, header: Header, missing: str) -> str:
    """A cell as a person reads it in its column's own format (a page, not a terminal
    table): a measured value with no more decimals than it has (:func:`printed_spec`)."""
    spec = header.format
    if header.printed and not header.jube:
        spec = printed_spec(spec, value)
    return format_value(value, spec, missing)


def printed_spec(spec: str | None, value: object) -> str | None:
    """``spec`` with no more decimals than a measured ``value`` has: IOR prints rates from
    3600 MiB/s on without decimals, and its 3683 reads 3683, not 3683.0, in any column
    format -- a table does not claim a precision the program never printed."""
    if spec is None or type(value) is not float or not math.isfinite(value):
        return spec
    fixed = _FIXED.match(spec)
    if fixed is None:
        return spec
    exponent = decimal.Decimal(repr(value)).normalize().as_tuple().exponent
    decimals = max(0, -exponent) if isinstance(exponent, int) else 0
    return spec if decimals >= int(fixed[2]) else f"{fixed[1]}{decimals}f"


def _numeric(value: object) -> bool:
    return isinstance(value, int | float | PlusMinus) and not isinstance(value, bool)


def _right(values: Iterable[object]) -> bool:
    """Right-align a column whose present values are all numbers."""
    present = [v for v in values if v is not None]
    return bool(present) and all(_numeric(v) for v in present)


def _grid(table: ResultTable, missing: str, *, auto: bool = True, exact: bool = False) -> Grid:
    """Head, body as text and right-alignment per column; transposed when asked for.

    With ``auto``, a column without a declared format gets :func:`column_spec`'s decimals;
    ``exact`` writes every number in full instead (:func:`exact_value`), whatever the format.
    """
    head = [h.label for h in table.headers]
    if exact:
        body = [[exact_value(v) for v in row] for row in table.rows]
    else:
        specs = [
            (h.format, False)
            if h.format or not auto
            else (column_spec(row[i] for row in table.rows), True)
            for i, h in enumerate(table.headers)
        ]
        printed = [h.printed and not h.jube for h in table.headers]
        body = [
            [
                str(v)  # JUBE writes a number without a format as Python does
                if not auto and not spec and type(v) is float
                else format_value(v, printed_spec(spec, v) if p else spec, missing, floats_only=fo)
                for v, p, (spec, fo) in zip(row, printed, specs, strict=True)
            ]
            for row in table.rows
        ]
    if not table.transpose:
        return head, body, [_right(row[i] for row in table.rows) for i in range(len(head))]
    if not head:
        return [], [], []
    columns = [[label, *(row[i] for row in body)] for i, label in enumerate(head)]
    return columns[0], columns[1:], [False, *(_right(row) for row in table.rows)]


def _notes(table: ResultTable, prefix: str = "") -> list[str]:
    return [f"{prefix}{note}" for note in table.notes]


def _pretty(table: ResultTable, grid: Grid, width: int | None) -> str:
    """A rich table whose body is one multi-line cell per column.

    Cells do not wrap, so this renders exactly like one rich row per table row, but rich
    lays out 1 cell per column instead of thousands: about 3x faster on large tables.
    """
    head, body, right = grid
    natural = _natural_width(grid)
    if width and natural > width and FOOTNOTED & set(head) and not table.transpose:
        table, grid = _text_as_footnotes(table, grid)
        head, body, right = grid
        natural = _natural_width(grid)
    if width and natural > width:
        fitted = _fitting_columns(table, grid, width)
        if fitted is None:
            return _blocks(table, grid, width)
        table, grid = fitted
        head, body, right = grid
        natural = _natural_width(grid)
    lines = [[cell.replace("\n", " ") for cell in row] for row in body]
    plain = framed(table.name, head, lines, right)
    if plain is not None:  # the frame rich would draw, without rich's layout per row
        return "".join(line.rstrip() + "\n" for line in [*plain, *_notes(table)])
    from rich import box  # rich only for this style: the others start without it
    from rich.console import Console
    from rich.table import Table as RichTable
    from rich.text import Text

    out = RichTable(
        title=Text(table.name), box=box.SIMPLE_HEAD, show_edge=False, min_width=len(table.name)
    )
    for label, is_right in zip(head, right, strict=True):
        out.add_column(Text(label), justify="right" if is_right else "left", no_wrap=True)
    if body:
        out.add_row(*(Text("\n".join(column)) for column in zip(*lines, strict=True)))
    buffer = io.StringIO()
    console = Console(
        file=buffer,
        width=max(natural, len(table.name)),
        color_system=None,
        force_terminal=False,
        highlight=False,
    )
    console.print(out)
    # notes below the table, unwrapped: as a caption rich would wrap them to a narrow table
    printed = [*buffer.getvalue().splitlines(), *_notes(table)]
    return "".join(line.rstrip() + "\n" for line in printed)


def _fitting_columns(table: ResultTable, grid: Grid, width: int) -> tuple[ResultTable, Grid] | None:
    """The table without its last columns, as many as it must lose to fit ``width``, and a
    note naming them; None when that would leave out half of them (a block per row then
    shows every value). The first column and the remarks are kept."""
    head = grid[0]
    keep = list(range(len(head)))
    dropped: list[int] = []
    for index in reversed(range(1, len(head))):
        if _natural_width(_columns(grid, keep)) <= width:
            break
        if head[index] not in FOOTNOTED and head[index] != "verdict":
            keep.remove(index)
            dropped.append(index)
    if _natural_width(_columns(grid, keep)) > width or 2 * len(dropped) >= len(head):
        return None
    names = ", ".join(head[i] for i in reversed(dropped))
    note = (
        f"{len(dropped)} column(s) left out to fit {width} columns: {names} "
        "(all of them: a wider terminal, or -f aligned, csv, json)"
    )
    return replace(table, notes=[note, *table.notes]), _columns(grid, keep)


def _columns(grid: Grid, keep: list[int]) -> Grid:
    head, body, right = grid
    return [head[i] for i in keep], [[r[i] for i in keep] for r in body], [right[i] for i in keep]


def _natural_width(grid: Grid) -> int:
    """The width of a pretty table whose cells do not wrap."""
    head, body, _ = grid
    return 4 + sum(max(len(c) for c in [h, *(r[i] for r in body)]) + 3 for i, h in enumerate(head))


def _text_as_footnotes(table: ResultTable, grid: Grid) -> tuple[ResultTable, Grid]:
    """The columns of remarks (a table's flags, a comparison's notes) as footnote marks
    (``[1]``) with their texts right under the table, before its notes (a comparison's
    verdict stays the last line): long texts should not cost a table its layout."""
    head, body, right = grid
    at = [i for i, label in enumerate(head) if label in FOOTNOTED]
    texts: list[str] = []
    marked = []
    for row in body:
        cells = list(row)
        for i in at:
            text = cells[i].strip()
            if text and text != "—":
                texts.append(text)
                cells[i] = f"[{len(texts)}]"
        marked.append(cells)
    notes = [*(f"[{n}] {text}" for n, text in enumerate(texts, 1)), *table.notes]
    return replace(table, notes=notes), (head, marked, right)


def _blocks(table: ResultTable, grid: Grid, width: int) -> str:
    """One block of ``label  value`` lines per row: a table too wide for the terminal."""
    head, body, _ = grid
    label_width = max(len(h) for h in head)
    room = max(width - label_width - 2, 20)
    lines = [table.name]
    for number, row in enumerate(body, 1):
        lines.append(f"-[ {number} ]".ljust(min(width, label_width + 2 + room), "-"))
        for label, cell in zip(head, row, strict=True):
            wrapped = textwrap.wrap(cell.replace("\n", " "), room) or [""]
            lines.append(f"{label:<{label_width}}  {wrapped[0]}".rstrip())
            lines += [" " * (label_width + 2) + more for more in wrapped[1:]]
    # notes stay whole lines (the terminal wraps them): a script reads a comparison's
    # verdict from the last line
    return "".join(f"{line}\n" for line in [*lines, *_notes(table)])


def _aligned(table: ResultTable, grid: Grid) -> str:
    head, body, right = grid
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]

    def line(cells: list[str]) -> str:
        parts = [
            c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right, strict=True)
        ]
        return "  ".join(parts).rstrip()

    lines = [line(head), "  ".join("-" * w for w in widths), *(line(r) for r in body)]
    if table.notes:
        lines += ["", *_notes(table)]
    return "\n".join(lines) + "\n"


def exact_value(value: object) -> str:
    """A cell for a program to read: a number in full (the shortest text that reads back
    as the same float), not rounded for the eye; empty for a missing value."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if type(value) is float:
        return repr(value)
    return str(value)


def _csv(table: ResultTable) -> str:
    """RFC 4180: one header line, one line per row, CRLF line ends, fields quoted where
    they must be; nothing else (the notes are for readers: the other formats show them,
    and the flags are a column)."""
    return _csv_lines(_grid(table, "", exact=True), table.separator, "\r\n")


def _jube_csv(table: ResultTable, grid: Grid) -> str:
    """A JUBE file's table as JUBE writes it: formatted values and nothing else (the notes
    go to standard error, as every CSV table's do)."""
    return _csv_lines(grid, table.separator, "\n")


def _csv_lines(grid: Grid, separator: str, ending: str) -> str:
    head, body, _ = grid
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=separator, lineterminator=ending)
    writer.writerow(head)
    writer.writerows(body)
    return buffer.getvalue()


def _markdown(table: ResultTable, grid: Grid) -> str:
    head, body, right = grid

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    rule = "| " + " | ".join("---:" if r else ":---" for r in right) + " |"
    lines = [f"### {table.name}", "", line(head), rule, *(line(r) for r in body)]
    if table.notes:
        lines += ["", *_notes(table, "- ")]
    return "\n".join(lines) + "\n"


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "±": r"$\pm$",
}


def _latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(char, char) for char in text)


def _latex(table: ResultTable, grid: Grid) -> str:
    head, body, right = grid

    def line(cells: list[str]) -> str:
        return " & ".join(_latex_escape(c) for c in cells) + r" \\"

    lines = [
        r"\begin{tabular}{" + "".join("r" if r else "l" for r in right) + "}",
        r"\toprule",
        line(head),
        r"\midrule",
        *(line(r) for r in body),
        r"\bottomrule",
        r"\end{tabular}",
        *_notes(table, "% "),
    ]
    return "\n".join(lines) + "\n"


def _split_pairs(table: ResultTable) -> ResultTable:
    """The table with each ``mean±std`` column as two columns: one number per field."""
    headers: list[Header] = []
    pairs: list[bool] = []
    for index, header in enumerate(table.headers):
        cells = [row[index] for row in table.rows]
        pair = next((c for c in cells if isinstance(c, PlusMinus)), None)
        pairs.append(pair is not None)
        if pair is None:
            headers.append(header)
            continue
        for part in (pair.value_name, pair.spread_name):
            name, title = _half(header.name, "_", part), _half(header.title, " ", part)
            headers.append(replace(header, name=name, title=title))
    rows = [
        [
            part
            for cell, pair in zip(row, pairs, strict=True)
            for part in (
                (cell.value, cell.spread)
                if isinstance(cell, PlusMinus)
                else (None, None)
                if pair
                else (cell,)
            )
        ]
        for row in table.rows
    ]
    return replace(table, headers=headers, rows=rows)


def _half(label: str, sep: str, part: str) -> str:
    """``bw_mean±std`` as ``bw_mean`` or ``bw_std``; a label without the pair gets ``part``."""
    cut = max(label.rfind(" "), label.rfind("_")) + 1
    if "±" in label[cut:] or "+-" in label[cut:]:
        return label[:cut] + part
    return f"{label}{sep}{part}"


def _json_value(value: object) -> object:
    if isinstance(value, PlusMinus):
        return {
            value.value_name: _json_value(value.value),
            value.spread_name: _json_value(value.spread),
        }
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    return str(value)


def _json(table: ResultTable) -> str:
    document = {
        "table": table.name,
        "columns": [
            {
                "name": h.name,
                "title": h.title,
                "unit": h.unit,
                "higher_is_better": h.higher_is_better,
                "missing": h.missing,
            }
            for h in table.headers
        ],
        "rows": [
            {h.name: _json_value(v) for h, v in zip(table.headers, row, strict=True)}
            for row in table.rows
        ],
        "notes": table.notes,
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
