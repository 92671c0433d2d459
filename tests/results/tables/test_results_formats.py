import csv
import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.errors import UsageError
from jubex.language.values import Size
from jubex.results.tables import formats
from jubex.results.tables.cells import exact_value
from jubex.results.tables.formats import FORMATS, _json_value, render
from jubex.results.tables.table import FLAGS, Header, PlusMinus, ResultTable


@pytest.fixture
def result():
    headers = [
        Header("api", "api"),
        Header("transfer", "transfer", "B"),
        Header("write_bw_mean", "write_bw_mean", "GiB/s", ".2f", True, missing=1),
        Header("write_bw_pm", "write", "GiB/s", ".1f"),
        Header("n", "n"),
    ]
    rows = [
        ["POSIX", Size(4096, "4KiB"), 1.23456, PlusMinus(1.25, 0.05), 3],
        ["MPI|IO_&", Size(1 << 20, "1MiB"), None, PlusMinus(None, None), 0],
    ]
    return ResultTable("bw", headers, rows, ["1 failed workpackage(s) left out"])


def test_pretty_keeps_a_note_on_one_line_below_a_narrow_table() -> None:
    narrow = ResultTable("t", [Header("n", "n")], [[1]], ["2 failed workpackage(s) left out"])
    lines = render(narrow, "pretty", width=80).splitlines()
    assert lines[-1] == "2 failed workpackage(s) left out"


def test_pretty_is_plain_text_with_notes(result):
    text = render(result, "pretty", width=200)
    assert "\x1b" not in text
    assert "write_bw_mean [GiB/s]" in text and "1.23" in text and "1.2 ± 0.1" in text
    assert "4KiB" in text and "—" in text
    assert "1 failed workpackage(s) left out" in text


def test_aligned_columns_line_up(result):
    lines = render(result, "aligned").splitlines()
    head, rule, first, second = lines[:4]
    assert head.startswith("api") and set(rule.replace(" ", "")) == {"-"}
    assert first.index("1.23") + 4 == second.index("—") + 1  # numbers right-aligned
    assert lines[-1] == "1 failed workpackage(s) left out"


def test_csv_reads_back_with_missing_as_empty_and_a_spread_in_its_own_field(result):
    text = render(result, "csv")
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == [
        "api",
        "transfer [B]",
        "write_bw_mean [GiB/s]",
        "write mean [GiB/s]",
        "write std [GiB/s]",
        "n",
    ]
    # every number in full, whatever the column's format; no comment lines (RFC 4180)
    assert rows[1] == ["POSIX", "4KiB", "1.23456", "1.25", "0.05", "3"]
    assert rows[2] == ["MPI|IO_&", "1MiB", "", "", "", "0"]
    assert len(rows) == 3 and text.endswith("\r\n") and text.count("\r\n") == 3


def test_csv_names_the_halves_of_a_pair_after_its_statistics():
    headers = [Header("bw_mean±ci95", "bw_mean±ci95", "MiB/s")]
    table = ResultTable("t", headers, [[PlusMinus(136.8, 18.8, "mean", "ci95")]])
    assert render(table, "csv").splitlines() == ["bw_mean [MiB/s],bw_ci95 [MiB/s]", "136.8,18.8"]
    assert "136.8 ± 18.8" in render(table, "pretty", width=80)


def test_csv_uses_the_table_separator(result):
    result.separator = ";"
    assert render(result, "csv").splitlines()[1] == "POSIX;4KiB;1.23456;1.25;0.05;3"


def test_json_keeps_types_units_and_notes(result):
    document = json.loads(render(result, "json"))
    assert document["columns"][2] == {
        "name": "write_bw_mean",
        "title": "write_bw_mean",
        "unit": "GiB/s",
        "higher_is_better": True,
        "missing": 1,
    }
    first, second = document["rows"]
    assert first["transfer"] == 4096 and first["write_bw_mean"] == 1.23456
    assert first["write_bw_pm"] == {"mean": 1.25, "std": 0.05}
    assert second["write_bw_mean"] is None and second["n"] == 0
    assert document["notes"] == ["1 failed workpackage(s) left out"]


def test_markdown_escapes_pipes_and_aligns_numbers(result):
    lines = render(result, "markdown").splitlines()
    assert lines[:2] == ["### bw", ""]
    assert lines[3] == "| :--- | ---: | ---: | ---: | ---: |"
    assert "MPI\\|IO_&" in lines[5]
    assert lines[-1] == "- 1 failed workpackage(s) left out"


def test_latex_escapes_special_characters(result):
    text = render(result, "latex")
    assert r"\begin{tabular}{lrrrr}" in text and r"\bottomrule" in text
    assert r"MPI|IO\_\&" in text and r"write\_bw\_mean [GiB/s]" in text
    assert r"1.2 $\pm$ 0.1" in text and " -- " in text


def test_missing_is_never_shown_as_zero(result):
    for fmt in FORMATS:
        row = render(result, fmt).replace("\n", " ")
        assert "0.00" not in row


def test_transposed_table_puts_columns_in_rows(result):
    result.transpose = True
    lines = render(result, "aligned").splitlines()
    assert lines[0].split()[:3] == ["api", "POSIX", "MPI|IO_&"]
    assert lines[2].split() == ["transfer", "[B]", "4KiB", "1MiB"]


def test_unknown_format_lists_known_ones(result):
    with pytest.raises(UsageError) as raised:
        render(result, "markdwn")
    assert "pretty, aligned, csv, json, markdown, latex" in str(raised.value)
    assert "markdown" in raised.value.hint


def test_empty_table_renders_in_every_format():
    """No rows: the header alone, in each format's own shape."""
    empty = ResultTable("none", [Header("a", "a")], [], [])
    shown = {fmt: render(empty, fmt) for fmt in FORMATS}
    assert shown["pretty"].splitlines()[:2] == ["none", " a"]
    assert shown["aligned"] == "a\n-\n"
    assert list(csv.reader(io.StringIO(shown["csv"]))) == [["a"]]
    assert json.loads(shown["json"])["table"] == "none" and json.loads(shown["json"])["rows"] == []
    assert shown["markdown"] == "### none\n\n| a |\n| :--- |\n"
    assert "\\midrule\n\\bottomrule" in shown["latex"]
    assert set(shown) == set(FORMATS)


def test_pretty_keeps_one_line_per_row_when_it_fits(result):
    result.rows[0][0] = "two\nlines"
    lines = render(result, "pretty", width=100).splitlines()
    assert len(lines) == 1 + 1 + 1 + 2 + 1  # title, head, rule, rows, note
    assert lines[3].lstrip().startswith("two lines")


def test_pretty_too_wide_for_the_terminal_shows_a_block_per_row(result):
    lines = render(result, "pretty", width=40).splitlines()
    assert all(len(line) <= 40 for line in lines)
    assert lines[:3] == ["bw", "-[ 1 ]" + "-" * 34, "api                    POSIX"]
    assert "write [GiB/s]          1.2 ± 0.1" in lines
    assert lines[7].startswith("-[ 2 ]") and lines[-1] == "1 failed workpackage(s) left out"


def test_a_long_cell_wraps_within_its_block():
    table = ResultTable("t", [Header("a", "a"), Header("cmd", "cmd")], [["x", "word " * 20]])
    lines = render(table, "pretty", width=30).splitlines()
    assert all(len(line) <= 30 for line in lines)
    assert lines[3].startswith("cmd  word") and lines[4].startswith("     word")


def test_width_comes_from_columns(result, monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    assert render(result, "pretty").splitlines()[1].startswith("-[ 1 ]")
    monkeypatch.setenv("COLUMNS", "200")
    assert "-[ 1 ]" not in render(result, "pretty")


@pytest.mark.parametrize(
    ("values", "shown"),
    [
        ([136.83, 18.812], ["136.8", "18.8"]),  # four digits of the largest, two of the smallest
        ([1234.5678, 5678.9], ["1235", "5679"]),
        ([0.012345, 0.045], ["0.01235", "0.04500"]),
        ([1234.5, 0.25], ["1234.50", "0.25"]),
        ([2.5e13, 1.0], ["2.5e+13", "1"]),
        ([3, 4], ["3", "4"]),  # whole numbers stay whole
    ],
)
def test_undeclared_numbers_get_the_same_decimals_in_a_column(values, shown):
    table = ResultTable("t", [Header("v", "v")], [[v] for v in values])
    assert render(table, "aligned").splitlines()[2:] == [
        s.rjust(max(map(len, shown))) for s in shown
    ]


def test_a_table_slightly_too_wide_keeps_the_columns_that_fit_and_names_the_rest():
    """The quickstart's table at 80 columns was 66 lines of one-row blocks; losing its last
    value column it fits, and a note says which one and how to see all. The remarks stay."""
    headers = [
        Header("tasks", "tasks"),
        Header("transfer", "transfer"),
        Header("write_n", "write n"),
        Header("write", "write mean±std", unit="MiB/s"),
        Header("read", "read mean±std", unit="MiB/s"),
        Header(FLAGS, FLAGS),
    ]
    rows = [[t, "64KiB", 3, "159.7 ± 44.4", "7110.7 ± 1116.8", "noisy"] for t in (1, 2)]
    lines = render(ResultTable("bandwidth", headers, rows), "pretty", width=80).splitlines()
    assert all(len(line) <= 80 for line in lines[:5]) and "-[ 1 ]" not in lines
    assert lines[1].split() == [
        "tasks",
        "transfer",
        "write",
        "n",
        "write",
        "mean±std",
        "[MiB/s]",
        "flags",
    ]
    assert lines[5].startswith("1 column(s) left out to fit 80 columns: read mean±std [MiB/s]")
    assert lines[6] == "[1] noisy"


CELLS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(alphabet=st.sampled_from([*'a9 |&_%"\\{}é—\n']), max_size=5),
    st.builds(Size, st.integers(0, 2**30), st.sampled_from(["1MiB", "4KiB"])),
    st.builds(PlusMinus, st.none() | st.floats(0, 1e4), st.none() | st.floats(0, 100)),
)


@settings(max_examples=200, deadline=None)
@given(
    names=st.lists(st.sampled_from(["a", "b", "c%s", 'q"', "é", "a"]), max_size=4),
    cells=st.lists(st.lists(CELLS, min_size=4, max_size=4), max_size=6),
    notes=st.lists(st.text(max_size=5), max_size=2),
)
def test_json_and_csv_are_the_cells_rule_row_by_row(names, cells, notes) -> None:
    """Written a column at a time, the json is what ``json.dumps`` writes of the rows as
    mappings, and the CSV what ``csv.writer`` writes of each row's exact values."""
    headers = [Header(name, name.upper(), "s" if i % 2 else "") for i, name in enumerate(names)]
    rows = [row[: len(names)] for row in cells]
    table = ResultTable('t"é', headers, rows, notes)
    document = json.loads(render(table, "json"))
    expected = {
        "table": table.name,
        "columns": document["columns"],
        "rows": [
            {h.name: _json_value(v) for h, v in zip(headers, row, strict=True)} for row in rows
        ],
        "notes": notes,
    }
    assert render(table, "json") == json.dumps(expected, indent=2, ensure_ascii=False) + "\n"
    if any(isinstance(v, PlusMinus) for row in rows for v in row):
        return  # pairs are split in two columns: tested above
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow([h.label for h in headers])
    writer.writerows([[exact_value(v) for v in row] for row in rows])
    assert render(table, "csv") == buffer.getvalue()


@settings(max_examples=200, deadline=None)
@given(
    count=st.integers(0, 4),
    cells=st.lists(st.lists(CELLS, min_size=4, max_size=4), max_size=6),
    transpose=st.booleans(),
)
def test_aligned_markdown_and_latex_lay_out_the_cells_row_by_row(count, cells, transpose):
    """Each line is its row's cells, padded, escaped and joined as the format writes them."""
    headers = [Header(f"c{i}", f"c|{i}_") for i in range(count)]
    rows = [row[:count] for row in cells]
    table = ResultTable("t", headers, rows, ["n"], transpose=transpose)
    for fmt, missing in (("aligned", "—"), ("markdown", "—"), ("latex", "--")):
        grid = formats._grid(table, missing)
        head, body = grid.head, [list(row) for row in grid.rows()]
        assert len(body) == grid.height
        if fmt == "aligned":
            widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
            lines = [
                "  ".join(
                    c.rjust(w) if r else c.ljust(w)
                    for c, w, r in zip(cells_, widths, grid.right, strict=True)
                ).rstrip()
                for cells_ in [head, *body]
            ]
            lines.insert(1, "  ".join("-" * w for w in widths))
            assert render(table, fmt) == "\n".join([*lines, "", "n"]) + "\n"
        elif fmt == "markdown":
            head_line, *lines = [
                "| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in [head, *body]
            ]
            rule = "| " + " | ".join("---:" if r else ":---" for r in grid.right) + " |"
            expected = ["### t", "", head_line, rule, *lines, "", "- n"]
            assert render(table, fmt) == "\n".join(expected) + "\n"
        else:
            special = {"&": r"\&", "_": r"\_", "±": r"$\pm$", "{": r"\{", "}": r"\}"}
            special |= {"\\": r"\textbackslash{}", "%": r"\%"}
            lines = [
                " & ".join("".join(special.get(ch, ch) for ch in c) for c in r) + r" \\"
                for r in [head, *body]
            ]
            expected = [
                r"\begin{tabular}{" + "".join("r" if r else "l" for r in grid.right) + "}",
                r"\toprule",
                lines[0],
                r"\midrule",
                *lines[1:],
                r"\bottomrule",
                r"\end{tabular}",
                "% n",
            ]
            assert render(table, fmt) == "\n".join(expected) + "\n"
