"""A point whose repetitions are no single population is said to be so, not marked as a
third of outliers: two groups (a read from the page cache or from the disk), executions
that differ, too many far values to be outliers. A value that stands apart is still
marked."""

from __future__ import annotations

import random
import re
from pathlib import Path
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import chdtrc
from scipy.stats import kruskal

from jubex.cli.main import main
from jubex.results.comparison.compare import compare
from jubex.results.samples.rows import executions_of, result_rows
from jubex.results.statistics import spread
from jubex.results.statistics.flags import OUTLIER_ALPHA, flag, side_warnings
from jubex.results.statistics.split_critical import CRITICAL, FIRST, LEVEL
from jubex.results.statistics.spread import (
    CALIBRATED,
    _best_split,
    _best_split_plain,
    _beyond,
    _kruskal_at_least,
    _rank_sums,
    _rank_sums_plain,
    _split_critical,
    chi2_sf,
    drawn_split_critical,
    examine,
    few,
    kruskal_p,
)
from jubex.results.statistics.stats import outliers, summarize, t_quantile
from jubex.store.rundir import open_run

#: five executions of ``ior -i 5`` at each access, real IOR 4.1.0+dev (SOURCES.md)
OUTPUTS = Path(__file__).resolve().parents[2] / "data" / "outputs" / "ior" / "clio_i5"

STUDY = f"""
name: clio
parameters:
  access: [ssf, fpp]
steps:
  ior:
    iterations: 5
    do: cat {OUTPUTS}/${{access}}_run$(($jube_wp_iteration + 1)).txt
    analyse: [ior]
results:
  ior:
    group_by: [access]
    columns: [access, {{name: write_bw, stats: [n, mean]}}, {{name: read_bw, stats: [mean]}}]
"""


def _values(access: str, operation: str) -> list[list[float]]:
    """The values of each execution, as IOR prints them (``read  20900  ...  0``)."""
    row = re.compile(rf"^{operation}\s+([\d.]+)\s+[\d.]+\s+[\d.]+\s+\d+\s.*\s\d+\s*$", re.M)
    return [
        [float(m.group(1)) for m in row.finditer(path.read_text())]
        for path in sorted(OUTPUTS.glob(f"{access}_run*.txt"))
    ]


def test_the_pooled_test_marks_ten_of_twenty_five_real_values():
    """What the table said before: 10 of 25 repetitions 'outliers' at two of four points."""
    for access, operation in (("ssf", "read"), ("fpp", "write")):
        executions = _values(access, operation)
        assert [len(e) for e in executions] == [5] * 5
        assert len(outliers([v for e in executions for v in e])) == 10


def test_real_ior_points_are_said_to_be_two_groups(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "clio.yaml").write_text(STUDY)
    out = tmp_path / "runs"
    assert main(["run", str(tmp_path / "clio.yaml"), "--outpath", str(out), "-q"]) == 0
    capsys.readouterr()
    assert main(["result", str(out), "-f", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("access,write_bw_n,") and lines[0].endswith(",flags")
    ssf, fpp = lines[1:]
    assert ssf.startswith("ssf,25,") and fpp.startswith("fpp,25,")
    assert "outlier" not in ssf + fpp
    assert ssf.endswith('read_bw cv 60.5%; bimodal: read_bw 10 near 3370, 15 near 21380"')
    assert fpp.endswith(
        'bimodal: write_bw 15 near 2790, 10 near 8330, read_bw 6 near 3375, 19 near 22090"'
    )
    assert main(["result", str(out), "-f", "aligned"]) == 0
    assert "2 bimodal point(s) (two groups of values" in capsys.readouterr().out


def test_a_row_that_merges_the_iterations_keeps_each_ones_samples_apart(tmp_path: Path) -> None:
    """JUBE's reduce: one row per point, whose samples still say which execution gave them."""
    study = STUDY.replace("    analyse: [ior]\n", "").replace(
        "results:", "analysers:\n  merged: {builtin: ior, step: ior, reduce: true}\nresults:"
    )
    (tmp_path / "clio.yaml").write_text(study)
    out = tmp_path / "runs"
    assert main(["run", str(tmp_path / "clio.yaml"), "--outpath", str(out), "-q"]) == 0
    ssf, _ = result_rows(open_run(next(out.iterdir())))
    assert ssf["reduced"] and ssf["executions"]["read_bw"] == tuple((i, 5) for i in range(5))
    assert [v for _, e in executions_of(ssf, "read_bw") for v in e] == [
        v for e in _values("ssf", "read") for v in e
    ]
    assert flag([ssf], ["read_bw"]).text() == (
        "noisy: read_bw cv 60.5%; bimodal: read_bw 10 near 3370, 15 near 21380"
    )


def test_a_merged_row_is_flagged_as_its_executions():
    rng = random.Random(1)
    means = [1000, 1100, 950, 1200, 1050]
    executions = [[rng.gauss(m, 2) for _ in range(5)] for m in means]
    executions[3][2] += 40
    merged = {
        "bw": executions[0][0],
        "samples": {"bw": tuple(v for e in executions for v in e)},
        "executions": {"bw": tuple((i, 5) for i in range(5))},
        "jube_wp_iteration": 0,
    }
    assert flag([merged], ["bw"]).text() == (
        "noisy: bw cv 8.6%; runs differ: bw cv 9.4% between executions, 0.8% within; "
        "outlier: bw 1244.78 (iteration 3, repetition 3 of 5)"
    )


def _rows(*executions: list[float]) -> list[dict[str, object]]:
    """Rows of one point, one per execution, with a program's own repetitions."""
    return [
        {"bw": values[0], "samples": {"bw": values}, "jube_wp_iteration": i}
        for i, values in enumerate(executions)
    ]


def test_executions_that_differ_are_said_to_and_their_values_tested_within():
    rng = random.Random(1)
    means = [1000, 1100, 950, 1200, 1050]
    executions = [[rng.gauss(m, 2) for _ in range(5)] for m in means]
    assert len(outliers([v for e in executions for v in e])) == 0  # five clusters: unseen
    text = flag(_rows(*executions), ["bw"]).text()
    assert text == "noisy: bw cv 8.3%; runs differ: bw cv 9.1% between executions, 0.2% within"
    executions[3][2] += 40  # one repetition far from its own execution
    text = flag(_rows(*executions), ["bw"]).text()
    assert text.endswith("; outlier: bw 1244.78 (iteration 3, repetition 3 of 5)"), text


def test_one_execution_each_is_one_population_as_before():
    rows = [
        {"bw": v, "jube_wp_iteration": i}
        for i, v in enumerate([1000, 1001, 1002, 1003, 1004, 1503])
    ]
    assert flag(rows, ["bw"]).text() == "noisy: bw cv 18.8%; outlier: bw 1503 (iteration 5)"


def _noise(seed: int, n: int) -> list[float]:
    rng = random.Random(seed)
    return [rng.gauss(1000, 10) for _ in range(n)]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10**6), n=st.integers(6, 60), where=st.integers(0, 59))
def test_a_single_far_value_among_normal_noise_is_still_marked(seed, n, where):
    values = _noise(seed, n)
    where %= n
    values[where] = 1000 + 10**5
    found = examine([[v] for v in values])
    assert where in found.outliers and found.groups is None and not found.many


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 10**6),
    runs=st.integers(2, 8),
    reps=st.integers(3, 6),
    where=st.integers(0, 47),
)
def test_a_single_far_value_among_clustered_executions_is_still_marked(seed, runs, reps, where):
    rng = random.Random(seed)
    means = [rng.gauss(1000, 30) for _ in range(runs)]
    executions = [[rng.gauss(m, 1) for _ in range(reps)] for m in means]
    where %= runs * reps
    executions[where // reps][where % reps] += 10**4
    assert where in examine(executions).outliers


@settings(max_examples=60, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10**6), low=st.integers(1, 30), high=st.integers(1, 30))
def test_two_clusters_never_mark_more_than_a_few_and_say_they_are_groups(seed, low, high):
    values = _noise(seed, low) + [v + 10**4 for v in _noise(seed + 1, high)]
    random.Random(seed).shuffle(values)
    n = len(values)
    found = examine([[v] for v in values])
    assert len(found.outliers) <= few(n)
    if min(low, high) > few(n) and n >= 6:
        assert found.groups is not None
        assert (found.groups.low[0], found.groups.high[0]) == (low, high)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(
    st.lists(
        st.lists(st.floats(allow_nan=False) | st.integers(0, 3), min_size=1, max_size=8),
        min_size=1,
        max_size=8,
    )
)
def test_never_more_than_a_few_outliers_whatever_the_values(executions):
    found = examine(executions)
    n = sum(map(len, executions))
    assert len(found.outliers) <= few(n)
    assert all(0 <= i < n for i in found.outliers)


#: a few groups of a few values each, ties and integers among them (rank tests' input)
GROUPS = st.lists(
    st.lists(st.integers(0, 20) | st.floats(0, 100), min_size=2, max_size=6),
    min_size=2,
    max_size=6,
)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(GROUPS)
def test_the_kruskal_wallis_p_value_is_scipys(samples):
    pooled = [v for s in samples for v in s]
    if len(set(pooled)) < 2:
        assert kruskal_p(samples) == 1.0
        return
    assert kruskal_p(samples) == pytest.approx(kruskal(*samples).pvalue, rel=1e-9, abs=1e-12)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.integers(1, 3000), st.floats(1e-3, 20))
def test_the_chi_squared_tail_is_scipys(df, scale):
    x = df * scale
    expected = chdtrc(df, x)
    assert chi2_sf(x, df) == pytest.approx(expected, rel=1e-10, abs=1e-300)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(
    GROUPS,
    st.sampled_from([0.001, 0.01, 0.05, 0.5]),
)
def test_runs_differ_decides_as_the_exact_p_value(samples, alpha):
    p = kruskal_p(samples)
    assert _kruskal_at_least(samples, alpha) == (p >= alpha)
    assert _kruskal_at_least(samples, p) is True  # on the boundary: SciPy decides


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.floats(0, 10), st.integers(3, 2000), st.floats(0.5, 1 - 1e-9))
def test_the_outlier_score_is_tested_against_the_t_quantile(score, df, level):
    assert _beyond(score, df, level) == (score > t_quantile(df, level))


def test_a_comparison_says_a_side_is_two_groups_not_ten_outliers():
    values = [v for e in _values("ssf", "read") for v in e]
    assert side_warnings("candidate", values, summarize(values)) == [
        "noisy candidate (cv 60.5%)",
        "bimodal candidate: 10 near 3370, 15 near 21380",
    ]


def test_a_comparison_says_a_sides_runs_differ_and_marks_within_them():
    rng = random.Random(1)
    means = [1000, 1100, 950, 1200, 1050]
    executions = [[rng.gauss(m, 2) for _ in range(5)] for m in means]
    executions[3][2] += 40
    base = [{**row, "p": 1} for row in _rows(*executions)]
    cand = [{**row, "p": 1} for row in _rows(*[[v * 0.5 for v in e] for e in executions])]
    (item,) = compare(base, cand, keys=("p",), metrics=("bw",), directions={"bw": True}).items
    assert item.note.startswith(
        "tested on the means of 5 and 5 executions (of 25 and 25 values); "
        "noisy baseline (cv 8.6%); baseline runs differ (cv 9.4% between, 0.8% within); "
        "outlier in the baseline: 1244.78; noisy candidate"
    ), item.note


@pytest.mark.parametrize("n", [6, 7, 11, 64, 257, CALIBRATED])
def test_the_table_of_critical_splits_is_what_drawing_gives(n: int) -> None:
    """The default level's critical values are read from a table: the same numbers drawing
    gives, so that a table reads the same with it as without."""
    assert len(CRITICAL) == CALIBRATED - FIRST + 1
    assert _split_critical(n, LEVEL) == CRITICAL[n - FIRST] == drawn_split_critical(n, LEVEL)
    assert LEVEL == OUTLIER_ALPHA / 2


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.floats(-1e6, 1e6, allow_nan=False),
            st.integers(-3, 3).map(float),
            st.sampled_from([1000.0, 1000.0000001, 1e-300]),
        ),
        min_size=1,
        max_size=60,
    ),
    st.integers(1, 8),
)
def test_the_best_split_is_the_loops(values: list[float], smallest: int) -> None:
    """The arrays' version, which large samples take, finds the same float and cut as the
    loop over the cuts (the search as it was, kept for small samples)."""
    ordered = sorted(values)
    with patch.object(spread, "ARRAYS", 0):
        assert _best_split(ordered, smallest) == _best_split_plain(ordered, smallest)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.lists(st.one_of(st.integers(-3, 3), st.floats(-1e6, 1e6, allow_nan=False)), max_size=8),
        min_size=1,
        max_size=10,
    )
)
def test_the_ranks_in_plain_python_are_numpys(samples: list[list[float]]) -> None:
    """Small samples rank without numpy: the same sums and ties, so the same H."""
    assert _rank_sums_plain(samples) == _rank_sums(samples, [len(s) for s in samples])
