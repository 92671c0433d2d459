"""Result tables as text: for a terminal, for a paper, for a spreadsheet, for a program.

Every format shows missing values as missing (``—``; an empty field in CSV, ``null`` in
JSON, ``--`` in LaTeX), never as zero, and carries the table's notes (what was left out,
how many values are missing) so that a table read alone does not mislead.
"""

from __future__ import annotations

import io
import json
import math
import re
import shutil
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from itertools import repeat
from json.encoder import encode_basestring
from typing import Any, NamedTuple

from jubex.errors import UsageError, did_you_mean
from jubex.results.tables.cells import column_spec, column_texts, exact_texts
from jubex.results.tables.columns import Header, PlusMinus
from jubex.results.tables.frame import framed, padded, widths
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


class Grid(NamedTuple):
    """A table as text: its head, its body a column at a time, which columns are
    right-aligned, and how many rows the body has (also when it has no columns)."""

    head: list[str]
    columns: list[list[str]]
    right: list[bool]
    height: int

    def rows(self) -> Iterator[tuple[str, ...]]:
        return zip(*self.columns, strict=True) if self.columns else repeat((), self.height)


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
        return _jube_csv(table) if table.jube_csv else _csv(table)
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


def _right(kinds: set[type]) -> bool:
    """Right-align a column whose present values (of these types) are all numbers."""
    present = kinds - {type(None)}
    return bool(present) and all(_numeric(kind) for kind in present)


def _numeric(kind: type) -> bool:
    return issubclass(kind, int | float | PlusMinus) and not issubclass(kind, bool)


def _columns_of(table: ResultTable) -> list[list[object]]:
    return [[row[i] for row in table.rows] for i in range(len(table.headers))]


def _grid(
    table: ResultTable, missing: str, *, auto: bool = True, exact: bool = False, split: bool = False
) -> Grid:
    """Head, body as text and right-alignment per column; transposed when asked for.

    With ``auto``, a column without a declared format gets :func:`column_spec`'s decimals;
    ``exact`` writes every number in full instead (:func:`exact_value`), whatever the format;
    ``split`` gives each ``mean±std`` column as two (:func:`_split_pairs`).
    """
    headers, values = _split_pairs(table) if split else (table.headers, _columns_of(table))
    head = [h.label for h in headers]
    kinds = [set(map(type, column)) for column in values]
    if exact:
        columns = list(map(exact_texts, values, kinds))
    else:
        columns = [
            column_texts(
                column,
                h.format if h.format or not auto else column_spec(column, of),
                missing,
                floats_only=not (h.format or not auto),
                printed=h.printed and not h.jube,
                unformatted=not auto,  # JUBE writes a number without a format as Python does
                kinds=of,
            )
            for h, column, of in zip(headers, values, kinds, strict=True)
        ]
    if not table.transpose:
        return Grid(head, columns, list(map(_right, kinds)), len(table.rows))
    if not head:
        return Grid([], [], [], 0)
    # a row per column, headed by its label: the first is the head
    rows = [[label, *column] for label, column in zip(head, columns, strict=True)]
    right = [False, *(_right(set(map(type, row))) for row in zip(*values, strict=True))]
    if not table.rows:  # (zip of no columns gives no rows)
        right = [False]
    body = [list(column) for column in zip(*rows[1:], strict=True)]
    return Grid(rows[0], body or [[] for _ in rows[0]], right, len(rows) - 1)


def _notes(table: ResultTable, prefix: str = "") -> list[str]:
    return [f"{prefix}{note}" for note in table.notes]


def _pretty(table: ResultTable, grid: Grid, width: int | None) -> str:
    """A rich table whose body is one multi-line cell per column.

    Cells do not wrap, so this renders exactly like one rich row per table row, but rich
    lays out 1 cell per column instead of thousands: about 3x faster on large tables.
    """
    if width and _natural_width(grid) > width:
        if FOOTNOTED & set(grid.head) and not table.transpose:
            table, grid = _text_as_footnotes(table, grid)
        if _natural_width(grid) > width:
            fitted = _fitting_columns(table, grid, width)
            if fitted is None:
                return _blocks(table, grid, width)
            table, grid = fitted
    head, columns, right = grid.head, grid.columns, grid.right
    plain = framed(table.name, head, columns, right)
    if plain is None and any("\n" in "".join(column) for column in columns):
        columns = [[cell.replace("\n", " ") for cell in column] for column in columns]
        plain = framed(table.name, head, columns, right)
    if plain is not None:  # the frame rich would draw, without rich's layout per row
        return "\n".join([*plain, *(note.rstrip() for note in table.notes)]) + "\n"
    from rich import box  # rich only for this style: the others start without it
    from rich.console import Console
    from rich.table import Table as RichTable
    from rich.text import Text

    out = RichTable(
        title=Text(table.name), box=box.SIMPLE_HEAD, show_edge=False, min_width=len(table.name)
    )
    for label, is_right in zip(head, right, strict=True):
        out.add_column(Text(label), justify="right" if is_right else "left", no_wrap=True)
    if grid.height:
        out.add_row(*(Text("\n".join(column)) for column in columns))
    buffer = io.StringIO()
    console = Console(
        file=buffer,
        width=max(_natural_width(grid), len(table.name)),
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
    head = grid.head
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
    head, columns, right = grid.head, grid.columns, grid.right
    picked = [columns[i] for i in keep]
    return Grid([head[i] for i in keep], picked, [right[i] for i in keep], grid.height)


def _widths(grid: Grid) -> list[int]:
    """Each column's width: its longest cell or label."""
    return widths(grid.head, grid.columns)


def _natural_width(grid: Grid) -> int:
    """The width of a pretty table whose cells do not wrap."""
    return 4 + sum(width + 3 for width in _widths(grid))


def _text_as_footnotes(table: ResultTable, grid: Grid) -> tuple[ResultTable, Grid]:
    """The columns of remarks (a table's flags, a comparison's notes) as footnote marks
    (``[1]``) with their texts right under the table, before its notes (a comparison's
    verdict stays the last line): long texts should not cost a table its layout."""
    at = [i for i, label in enumerate(grid.head) if label in FOOTNOTED]
    texts: list[str] = []
    marked = []
    for row in grid.rows():
        cells = list(row)
        for i in at:
            text = cells[i].strip()
            if text and text != "—":
                texts.append(text)
                cells[i] = f"[{len(texts)}]"
        marked.append(cells)
    notes = [*(f"[{n}] {text}" for n, text in enumerate(texts, 1)), *table.notes]
    columns = [list(column) for column in zip(*marked, strict=True)] or grid.columns
    return replace(table, notes=notes), grid._replace(columns=columns)


def _blocks(table: ResultTable, grid: Grid, width: int) -> str:
    """One block of ``label  value`` lines per row: a table too wide for the terminal."""
    head = grid.head
    label_width = max(len(h) for h in head)
    room = max(width - label_width - 2, 20)
    import textwrap  # only for a table too wide for the terminal

    lines = [table.name]
    for number, row in enumerate(grid.rows(), 1):
        lines.append(f"-[ {number} ]".ljust(min(width, label_width + 2 + room), "-"))
        for label, cell in zip(head, row, strict=True):
            wrapped = textwrap.wrap(cell.replace("\n", " "), room) or [""]
            lines.append(f"{label:<{label_width}}  {wrapped[0]}".rstrip())
            lines += [" " * (label_width + 2) + more for more in wrapped[1:]]
    # notes stay whole lines (the terminal wraps them): a script reads a comparison's
    # verdict from the last line
    return "".join(f"{line}\n" for line in [*lines, *_notes(table)])


def _aligned(table: ResultTable, grid: Grid) -> str:
    sizes = _widths(grid)
    head = [[label] for label in grid.head]
    lines = [
        *(padded(head, sizes, grid.right, "  ") if head else [""]),
        "  ".join("-" * w for w in sizes),
        *(padded(grid.columns, sizes, grid.right, "  ") if head else [""] * grid.height),
    ]
    if table.notes:
        lines += ["", *_notes(table)]
    return "\n".join(lines) + "\n"


def _csv(table: ResultTable) -> str:
    """RFC 4180: one header line, one line per row, CRLF line ends, fields quoted where
    they must be; nothing else (the notes are for readers: the other formats show them,
    and the flags are a column)."""
    return _csv_lines(_grid(table, "", exact=True, split=True), table.separator, "\r\n")


def _jube_csv(table: ResultTable) -> str:
    """A JUBE file's table as JUBE writes it: formatted values and nothing else (the notes
    go to standard error, as every CSV table's do)."""
    return _csv_lines(_grid(table, "", auto=False, split=True), table.separator, "\n")


def _csv_lines(grid: Grid, separator: str, ending: str) -> str:
    import csv  # only for the tables asked for as CSV

    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=separator, lineterminator=ending)
    writer.writerow(grid.head)
    writer.writerows(grid.rows())
    return buffer.getvalue()


def _markdown(table: ResultTable, grid: Grid) -> str:
    def escaped(cells: list[str]) -> list[str]:
        return [c.replace("|", "\\|") for c in cells] if "|" in "".join(cells) else cells

    columns = [escaped(column) for column in grid.columns]
    head = " | ".join(escaped(grid.head))
    rule = "| " + " | ".join("---:" if r else ":---" for r in grid.right) + " |"
    body = map(" | ".join, grid._replace(columns=columns).rows())
    lines = [f"### {table.name}", "", f"| {head} |", rule, *(f"| {line} |" for line in body)]
    if table.notes:
        lines += ["", *_notes(table, "- ")]
    return "\n".join(lines) + "\n"


_LATEX_SPECIAL = str.maketrans(
    {
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
)


_LATEX_CHARS = [chr(code) for code in _LATEX_SPECIAL]


def _latex(table: ResultTable, grid: Grid) -> str:
    def escaped(cells: list[str]) -> list[str]:
        text = "".join(cells)
        if not any(char in text for char in _LATEX_CHARS):
            return cells
        return [c.translate(_LATEX_SPECIAL) for c in cells]

    columns = [escaped(column) for column in grid.columns]
    body = map(" & ".join, grid._replace(columns=columns).rows())
    lines = [
        r"\begin{tabular}{" + "".join("r" if r else "l" for r in grid.right) + "}",
        r"\toprule",
        " & ".join(escaped(grid.head)) + r" \\",
        r"\midrule",
        *(line + r" \\" for line in body),
        r"\bottomrule",
        r"\end{tabular}",
        *_notes(table, "% "),
    ]
    return "\n".join(lines) + "\n"


def _split_pairs(table: ResultTable) -> tuple[list[Header], list[list[object]]]:
    """The headers and columns with each ``mean±std`` column as two: one number per field."""
    headers: list[Header] = []
    columns: list[list[object]] = []
    for header, cells in zip(table.headers, _columns_of(table), strict=True):
        paired = any(issubclass(kind, PlusMinus) for kind in set(map(type, cells)))
        pair = next((c for c in cells if isinstance(c, PlusMinus)), None) if paired else None
        if pair is None:
            headers.append(header)
            columns.append(cells)
            continue
        for part in (pair.value_name, pair.spread_name):
            name, title = _half(header.name, "_", part), _half(header.title, " ", part)
            headers.append(replace(header, name=name, title=title))
        columns.append([c.value if isinstance(c, PlusMinus) else None for c in cells])
        columns.append([c.spread if isinstance(c, PlusMinus) else None for c in cells])
    return headers, columns


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
    """The table as ``json.dumps(..., indent=2)`` writes it; its rows (most of it) written
    a column at a time, each value encoded as json encodes it."""
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
        "rows": [],
        "notes": table.notes,
    }
    names = [h.name for h in table.headers]
    if len(set(names)) < len(names):  # a row keeps the last of two same names: json's own way
        document["rows"] = [
            dict(zip(names, map(_json_value, row), strict=True)) for row in table.rows
        ]
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    text = json.dumps(document, indent=2, ensure_ascii=False)
    # the top level's keys alone start a line with two spaces: "rows" is found once
    return text.replace('\n  "rows": []', '\n  "rows": ' + _json_rows(table), 1) + "\n"


def _json_rows(table: ResultTable) -> str:
    """The rows as the list ``json.dumps(..., indent=2)`` writes at the document's first level."""
    if not table.rows:
        return "[]"
    keys = [encode_basestring(h.name).replace("%", "%%") for h in table.headers]
    row = "    {\n" + ",\n".join(f"      {key}: %s" for key in keys) + "\n    }"
    if not keys:
        return "[\n" + ",\n".join(["    {}"] * len(table.rows)) + "\n  ]"
    texts = [_json_texts(values) for values in _columns_of(table)]
    return "[\n" + ",\n".join(map(row.__mod__, zip(*texts, strict=True))) + "\n  ]"


def _json_texts(values: Sequence[object]) -> list[str]:
    """Each value as json writes it within a row: a kind of value at a time."""
    kinds = set(map(type, values))
    rules = [_json_rule(kind) for kind in kinds]
    if len(rules) == 1:
        texts = list(map(rules[0], values))
    else:
        by_kind = dict(zip(kinds, rules, strict=True))
        texts = [by_kind[type(v)](v) for v in values]
    if any(issubclass(kind, float) for kind in kinds) and "n" in "".join(texts):
        texts = [_json_text(v) if "n" in t else t for t, v in zip(texts, values, strict=True)]
    return texts


def _json_rule(kind: type) -> Callable[[Any], str]:
    """How json writes a value of ``kind``; a float's nan and inf aside (they read "nan",
    "inf": :func:`_json_texts` writes them as the nulls they are)."""
    if issubclass(kind, str):
        return encode_basestring
    if kind is bool or kind is type(None):
        return _JSON_WORDS.__getitem__
    if issubclass(kind, int):
        return int.__repr__
    if issubclass(kind, float):
        return float.__repr__
    return _json_text


_JSON_WORDS: dict[object, str] = {None: "null", True: "true", False: "false"}


def _json_text(value: object) -> str:
    """A value as json writes it within a row (a row's values are three levels deep)."""
    text = json.dumps(_json_value(value), indent=2, ensure_ascii=False)
    return text.replace("\n", "\n      ")
