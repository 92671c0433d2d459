"""A range bound written with a huge exponent is refused at once, not computed exactly."""

from __future__ import annotations

import pytest

from jubex.errors import DefinitionError
from jubex.language.ranges import linear


@pytest.mark.parametrize("start", ["1e-9999999", "1e9999999", "-2.5E-100000"])
def test_a_bound_of_millions_of_digits_is_refused_in_milliseconds(start: str) -> None:
    with pytest.raises(DefinitionError, match=r"needs [\d,]+ digits, more than the 4,300"):
        linear(start, "1", "0.5")


def test_ordinary_exponents_still_make_ranges() -> None:
    assert linear("1e-3", "3e-3", "1e-3") == ["0.001", "0.002", "0.003"]
