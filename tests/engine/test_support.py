"""Features the engine does not carry out yet are refused by name, with their place."""

from __future__ import annotations

import pytest

from jubex.definition.model import Benchmark, Parameter, ParameterSet, Step
from jubex.engine.support import check_supported
from jubex.errors import ErrorList


def test_every_unsupported_use_is_listed() -> None:
    b = Benchmark(
        "b",
        parametersets={
            "p": ParameterSet(
                "p",
                {
                    "x": Parameter("x", ("1",), update_mode="cycle"),
                    "y": Parameter("y", ("1",), update_mode="always"),
                },
            )
        },
    )
    with pytest.raises(ErrorList) as err:
        check_supported(b)
    assert len(err.value.errors) == 2


def test_a_plain_benchmark_passes() -> None:
    check_supported(Benchmark("b", steps={"s": Step("s")}))
