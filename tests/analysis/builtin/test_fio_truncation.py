"""A fio output cut anywhere after its job results fails: every group its jobs ran in needs
its ``Run status group`` totals (fio 3.33, two groups: tests/data/outputs/SOURCES.md)."""

from __future__ import annotations

import pytest

from jubex.analysis import builtin
from tests.analysis.conftest import OUTPUTS

TWO_GROUPS = (OUTPUTS / "fio" / "v3.33_normal_two_groups.txt").read_text()


def test_the_whole_output_of_two_groups_passes():
    assert builtin.get("fio").parse(TWO_GROUPS).ok


@pytest.mark.parametrize(
    ("marker", "said"),
    [
        ("Run status group 1", "ends before 'Run status group 1'"),  # cut after group 0's totals
        ("   READ: bw=", "ends before the read total of 'Run status group 1'"),
        ("Run status group 0", "ends before fio's 'Run status group' totals"),
    ],
)
def test_an_output_cut_before_a_groups_totals_fails(marker, said):
    cut = TWO_GROUPS[: TWO_GROUPS.index(marker)]
    result = builtin.get("fio").parse(cut)
    assert not result.ok and said in result.reason, result.reason
