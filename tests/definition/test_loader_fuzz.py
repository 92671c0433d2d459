"""Any mutation of a real definition gives a clean error or a valid run, never a traceback.

Seeds are the repository's examples and JUBE corpus files (those whose parameters run no
shell command); hypothesis flips bytes, cuts, duplicates, nests and puts huge numbers in,
and each input goes through ``validate``, ``info`` and ``run --dry-run`` in-process with
``JUBEX_DEBUG`` set, so an unexpected exception fails the test instead of being reported.
The long campaign is ``bench/fuzz_inputs.py``.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jubex.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
SEEDS = [
    p
    for p in [
        *sorted((ROOT / "examples").glob("*.yaml")),
        *sorted((ROOT / "examples").glob("*.xml")),
        *sorted((ROOT / "tests/jube/corpus").glob("*.xml")),
        *sorted((ROOT / "tests/jube/corpus").glob("*.yaml")),
    ]
    if "shell" not in p.read_text().lower() and not p.name.endswith(".expected.yaml")
]
COMMANDS = (["validate"], ["info"], ["run", "--dry-run"])


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, bytes]:
    seed = draw(st.sampled_from(SEEDS))
    data = bytearray(seed.read_bytes())
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, max(len(data) - 1, 0)))
        kind = draw(st.sampled_from(["flip", "cut", "duplicate", "nest", "number", "delete"]))
        if kind == "flip" and data:
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif kind == "cut":
            del data[at:]
        elif kind == "duplicate":
            end = min(len(data), at + draw(st.integers(1, 200)))
            data[at:at] = data[at:end] * draw(st.integers(2, 50))
        elif kind == "nest":
            depth = draw(st.integers(50, 5000))
            opening, closing = draw(st.sampled_from([("[", "]"), ("{a: ", "}"), ("(", ")")]))
            data[at:at] = (opening * depth + "1" + closing * depth).encode()
        elif kind == "number":
            data[at:at] = draw(
                st.sampled_from(["9" * 5000, "1e400", "-0", "1" * 30, "nan"])
            ).encode()
        else:
            del data[at : at + draw(st.integers(1, 100))]
    return seed.suffix, bytes(data)


def run_all(path: Path) -> list[int]:
    """Exit codes of the three commands; any exception other than a JubexError escapes."""
    codes = []
    for command in COMMANDS:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            codes.append(
                main(
                    [
                        *command,
                        str(path),
                        *(["--outpath", str(path.parent)] if "run" in command else []),
                    ]
                )
            )
    return codes


@pytest.mark.skipif(not SEEDS, reason="no seed definitions")
@settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(case=mutated())
def test_mutated_definitions_never_raise(
    case: tuple[str, bytes], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUBEX_DEBUG", "1")
    suffix, data = case
    path = tmp_path / f"input{suffix}"
    path.write_bytes(data)
    for code in run_all(path):
        assert code in (0, 1, 2)
