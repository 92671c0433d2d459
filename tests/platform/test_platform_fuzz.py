"""Broken platform files: a clean error naming file and line, never an exception escaping."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jubex.errors import ErrorList, JubexError
from jubex.platform.load import load_platform

SHIPPED = sorted((Path(__file__).resolve().parents[2] / "platforms").rglob("*.yaml"))


@pytest.mark.parametrize(
    "body",
    [
        "{{ " + "(" * 3000 + "1" + ")" * 3000 + " }}",  # the parser's stack
        "{% if 1 %}" * 150 + "1" + "{% endif %}" * 150,  # Python's indentation limit
        "{% for i in [1] %}" * 25 + "1" + "{% endfor %}" * 25,  # Python's nested blocks
    ],
    ids=["parentheses", "ifs", "loops"],
)
def test_a_template_nested_past_the_stack_is_refused(tmp_path: Path, body: str) -> None:
    path = tmp_path / "deep.yaml"
    path.write_text("name: deep\nextends: slurm\ntemplate: |\n  " + body + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "jubex", "platform", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert f"{path}:4:3: error: template of platform 'deep' nests too deeply" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_template_holding_a_number_too_long_to_read_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "long.yaml"
    path.write_text("name: long\nextends: slurm\ntemplate: |\n  {{ " + "9" * 5000 + " }}\n")
    with pytest.raises(JubexError) as raised:
        load_platform(str(path))
    assert "template of platform 'long' holds a number of more than 4,300 digits" in str(
        raised.value
    )
    assert raised.value.loc is not None and raised.value.loc.line == 4


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(SHIPPED)).read_bytes())
    at = draw(st.integers(0, len(data) - 1))
    kind = draw(st.sampled_from(["flip", "cut", "nest", "number"]))
    if kind == "flip":
        data[at] ^= 1 << draw(st.integers(0, 7))
    elif kind == "cut":
        del data[at:]
    elif kind == "nest":
        depth = draw(st.integers(10, 3000))
        opening, closing = draw(
            st.sampled_from([("[", "]"), ("(", ")"), ("{% if 1 %}", "{% endif %}")])
        )
        data[at:at] = (opening * depth + "1" + closing * depth).encode()
    else:
        data[at:at] = draw(st.sampled_from(["9" * 5000, "1e400", "\\0"])).encode()
    return bytes(data)


@settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=mutated())
def test_mutated_platform_files_load_or_are_refused(data: bytes, tmp_path: Path) -> None:
    path = tmp_path / "platform.yaml"
    path.write_bytes(data)
    try:
        load_platform(str(path))
    except ErrorList as exc:
        assert all(e.loc is not None for e in exc.errors)
    except JubexError as exc:
        assert exc.loc is not None or "platform" in exc.message
