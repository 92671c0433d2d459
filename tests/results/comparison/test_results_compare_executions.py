"""A comparison of nested samples (several executions, each repeating its measurement, as
5 executions of ``ior -i 5``) tests the executions' means: the repetitions of one execution
are no independent samples, and taken as such they call executions that differ a change."""

import pytest
from scipy import stats

from jubex.results.comparison.compare import compare
from jubex.results.statistics.experimental_unit import units_tested

#: five repetitions around their execution's level: a spread of about 0.2 % within
WITHIN = (-2.0, -1.0, 0.0, 1.0, 2.0)
#: the levels of five executions on each side, one system: the executions differ by about 3 %
BASELINE = (1000.0, 1040.0, 1080.0, 1020.0, 1060.0)
CANDIDATE = (1000.0, 1010.0, 1040.0, 980.0, 1010.0)
#: why, said once under the comparison
NOTE = (
    "1 comparison(s) tested the means of their executions, not every repetition: the "
    "repetitions of one execution (a program's own, such as IOR's -i) share its node, files "
    "and moment and are no independent samples; n and std there are those of the "
    "executions' means"
)


def one_row_each(levels, point=1):
    """One row per execution, its repetitions as samples (per-iteration rows)."""
    return [
        {"p": point, "ok": True, "bw": level, "samples": {"bw": [level + d for d in WITHIN]}}
        for level in levels
    ]


def merged(levels):
    """One row holding every execution's repetitions (``reduce: true``)."""
    values = [level + d for level in levels for d in WITHIN]
    executions = tuple((i, len(WITHIN)) for i in range(len(levels)))
    row = {"p": 1, "ok": True, "bw": values[0], "samples": {"bw": values}}
    return [{**row, "executions": {"bw": executions}}]


def compared(baseline, candidate, direction=None, **options):
    result = compare(
        baseline, candidate, keys=("p",), metrics=("bw",), directions={"bw": direction}, **options
    )
    (item,) = result.items
    said = [n for n in result.notes if "tested the means of their executions" in n]
    assert said == ([NOTE] if "executions" in item.note else [])
    return item


@pytest.mark.parametrize("layout", [one_row_each, merged])
def test_executions_that_differ_are_no_change_when_their_means_do_not_show_one(layout):
    item = compared(layout(BASELINE), layout(CANDIDATE))
    # 25 values a side taken as independent: p = 4e-5, "changed"; the means of 5
    # executions a side: Welch's p as scipy gives it, no change shown, no equivalence either
    assert item.verdict == "inconclusive", item
    assert item.p_value == pytest.approx(
        stats.ttest_ind(CANDIDATE, BASELINE, equal_var=False).pvalue
    )
    assert item.p_value == pytest.approx(0.104, abs=1e-3)
    assert (item.baseline.n, item.candidate.n) == (5, 5)
    assert item.baseline.mean == pytest.approx(1040) and item.change == pytest.approx(-3.077, 1e-3)
    assert item.note.startswith(
        "tested on the means of 5 and 5 executions (of 25 and 25 values); baseline runs differ"
    ), item.note


def test_a_real_change_of_the_executions_is_still_found():
    item = compared(one_row_each(BASELINE), one_row_each([v * 0.8 for v in BASELINE]), True)
    assert item.verdict == "worse" and item.p_value < 1e-3


def test_one_execution_a_side_tests_its_repetitions():
    # its spread between executions is unknown: the repetitions are all there is to test
    item = compared(one_row_each(BASELINE[:1]), one_row_each(CANDIDATE[1:2]))
    assert item.verdict == "changed" and (item.baseline.n, item.candidate.n) == (5, 5)
    assert "executions" not in item.note
    # executions of one value each are their values
    assert units_tested(list(BASELINE), [1] * 5, list(CANDIDATE), [1] * 5) == (
        list(BASELINE),
        list(CANDIDATE),
    )


def test_ranks_of_five_means_cannot_reach_a_small_level_and_say_so():
    result = compare(
        one_row_each(BASELINE),
        one_row_each([v * 0.5 for v in BASELINE]),
        keys=("p",),
        metrics=("bw",),
        directions={"bw": True},
        test="mannwhitney",
        alpha=0.001,
    )
    (item,) = result.items
    assert item.verdict == "inconclusive" and result.status == 4  # a 50 % loss it cannot see
    assert (
        "Mann-Whitney's U cannot show a difference with 5 and 5 executions: its smallest p, "
        "0.004, is not below alpha/1 = 0.001 (add executions, or use --test welch)"
    ) in result.notes


def test_executions_of_one_mean_each_side_test_their_values():
    # no spread between executions is seen (as of one output read twice): the values are
    # the samples, and "no spread" is not claimed of values that have one
    item = compared(one_row_each([1000.0] * 2), one_row_each([1000.0] * 2))
    assert (item.baseline.n, item.candidate.n) == (10, 10)
    assert item.verdict == "equivalent" and "executions" not in item.note
