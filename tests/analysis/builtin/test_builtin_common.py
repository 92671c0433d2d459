"""What every built-in analyser relies on: numbers that are checked, cut lines that are seen."""

from __future__ import annotations

import pytest

from jubex.analysis.builtin.common import Collector, cut, number
from jubex.analysis.measurement import Metric

METRICS = {
    "bw": Metric("MiB/s", True, "bandwidth", repeated=True),
    "tasks": Metric("", None, "tasks"),
}


@pytest.mark.parametrize(
    ("raw", "value"),
    [("12", 12), ("1.5", 1.5), (" 7 ", 7), ("1e400", float("inf")), (3, 3), (2.5, 2.5)],
)
def test_number_reads_what_programs_print(raw, value):
    assert number(raw) == value
    assert type(number(raw)) is type(value)


@pytest.mark.parametrize("raw", ["0.013b87", "", "1.2.3", None, True, [1], {"a": 1}])
def test_number_is_none_for_what_is_no_number(raw):
    assert number(raw) is None


def test_number_of_more_digits_than_int_reads():
    assert number("9" * 5000) == float("inf")  # int() refuses it; the Collector flags inf


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        ("nan", "'nan': not finite"),
        ("inf", "'inf': not finite"),
        ("1e400", "'1e400': not finite"),
        ("-5.0", "'-5.0': negative"),
        ("1e30", "'1e30': too large to be a measurement"),
        ("0.013b87", "'0.013b87', not a number"),
    ],
)
def test_a_broken_value_is_missing_and_fails_the_result(raw, said):
    out = Collector(METRICS)
    out.number("tasks", raw, line=12)
    result = out.result()
    assert [m.value for m in result.measurements] == [None]
    assert not result.ok
    assert result.reason == f"line 12: tasks is {said}"


def test_a_broken_per_iteration_value_is_left_out():
    out = Collector(METRICS)
    for raw in ("10.5", "nan", "11.5"):
        out.number("bw", raw)
    result = out.result()
    assert [m.value for m in result.measurements] == [10.5, 11.5]
    assert not result.ok and "bw is 'nan'" in result.reason


def test_computed_values_are_checked_too():
    out = Collector(METRICS)
    out.add("tasks", float("inf"))
    assert out.result().reason == "tasks is inf: not finite"


def test_reason_names_the_first_problems_and_counts_the_rest():
    out = Collector(METRICS)
    for line in range(1, 6):
        out.number("tasks", "x", line=line)
    reason = out.result("output ends early").reason
    assert reason.startswith("output ends early; line 1: tasks is 'x', not a number; line 2")
    assert reason.endswith("(and 2 more)")


def test_cut_is_the_unterminated_last_line():
    assert cut("a\nb\n") == ""
    assert cut("a\nTOTAL 17.7") == "TOTAL 17.7"
    assert cut("") == ""
