"""The IO500 score as printed, and the one jubex computes beside it.

Every IO500 harness prints its score; the printed figure is the value (``score``). The
harness of 2017 and of most of 2018 printed bandwidth x IOPS as its TOTAL, the pre-release
scripts of 2017 bandwidth in MB/s x IOPS, and every later version the geometric mean of the
two. jubex computes that geometric mean from the printed bandwidth and metadata scores as
``score_computed`` (GiB/s and kIOPS, the units of today's lists), so that runs of every
year can be set side by side, and says so in ``score_note`` where the two differ.
"""

from __future__ import annotations

import math

from jubex.analysis.builtin.common import Collector

#: scores are printed to about 6 significant digits: closer than this, the two agree
_AGREE = 1e-4


def add_computed(
    out: Collector,
    suffix: str,
    bw: float | None,
    md: float | None,
    printed: float | None,
    printed_as: str = "",
) -> None:
    """``score{suffix}_computed`` from ``bw`` (GiB/s) and ``md`` (kIOPS), and a note when
    it is not what the harness printed (``printed_as``: what the harness multiplied)."""
    if bw is None or md is None:
        return
    computed = math.sqrt(bw * md)
    out.add(f"score{suffix}_computed", computed)
    if printed is not None and abs(printed - computed) > _AGREE * max(computed, printed):
        if not printed_as:
            product = _close(printed, bw * md)
            printed_as = "bandwidth x IOPS" if product else "not their geometric mean"
        out.add(
            "score_note",
            f"the harness printed score{suffix} {printed:.12g} ({printed_as}); the geometric mean "
            f"of score{suffix}_bw and score{suffix}_md, score{suffix}_computed, is {computed:.6g}",
        )


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= _AGREE * max(abs(a), abs(b))
