"""Whatever a file holds, reading it gives problems to report, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jubex.api import validate
from jubex.errors import JubexError

WORDS = [
    "name",
    "parameters",
    "parametersets",
    "steps",
    "do",
    "use",
    "depend",
    "zip",
    "values",
    "range",
    "start",
    "stop",
    "step",
    "factor",
    "expr",
    "where",
    "tag",
    "files",
    "copy",
    "results",
    "columns",
    "stats",
    "patterns",
    "regex",
    "include",
    "init_with",
    "analyse",
    "iterations",
    "resources",
    "nodes",
    "a",
    "b",
    "run",
    "x.yaml",
    "${a}",
    "$a",
    "1",
    "mean",
]
scalars = st.one_of(
    st.sampled_from(WORDS), st.integers(-3, 5), st.booleans(), st.none(), st.floats(0, 2)
)
trees = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(WORDS), inner, max_size=4)
    ),
    max_leaves=25,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(WORDS), trees, max_size=6))
def test_any_tree_of_known_words_gives_problems_not_a_traceback(
    tmp_path_factory: pytest.TempPathFactory, tree: dict
) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "d.yaml"
    path.write_text(yaml.safe_dump(tree))
    problems = validate([path])
    assert all(isinstance(p, JubexError) and str(p) for p in problems)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200))
def test_arbitrary_bytes_give_problems_not_a_traceback(
    tmp_path_factory: pytest.TempPathFactory, data: bytes
) -> None:
    path = tmp_path_factory.mktemp("bytes") / "d.yaml"
    path.write_bytes(data)
    assert all(isinstance(p, JubexError) for p in validate([path]))


def test_a_directory_is_reported_not_raised(tmp_path: Path) -> None:
    (problem,) = validate([tmp_path])
    assert "cannot read" in problem.message
