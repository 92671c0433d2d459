"""Nothing from a definition reaches the wrapper's shell unquoted: names, values, paths."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jubex.errors import DefinitionError
from jubex.workdir.script import Command, wrapper

PIECES = ["\n", "'", '"', "`id`", "$(id)", "$HOME", ";", "&", "|", "\\", " ", "*", "~", "-x", "a"]
TEXT = st.lists(st.sampled_from(PIECES) | st.text(max_size=3), min_size=1, max_size=6).map("".join)
#: a file name: anything but NUL and '/', and not '.' or '..'
NAME = TEXT.map(lambda t: t.replace("\0", "").replace("/", "")).filter(
    lambda t: t not in ("", ".", "..")
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(value=TEXT.map(lambda t: t.replace("\0", "")), directory=NAME, output=NAME)
def test_hostile_values_and_paths_arrive_as_they_are(
    tmp_path: Path, value: str, directory: str, output: str
) -> None:
    base = tmp_path / "case"
    subprocess.run(["rm", "-rf", str(base)], check=True)
    work, admin = base / directory, base / "admin"
    work.mkdir(parents=True)
    admin.mkdir()
    text, _ = wrapper(
        wp_id=0,
        step="s",
        workdir=work,
        admin=admin,
        commands=[Command('printf %s "$V"', stdout=output)],
        environment={"V": value},
        local=True,
    )
    (admin / "body.sh").write_text(text)
    done = subprocess.run(["/bin/sh", str(admin / "body.sh")], capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
    assert (work / output).read_bytes() == value.encode()
    assert sorted(p.name for p in work.iterdir()) == sorted({output, "stdout", "stderr"})
    assert sorted(p.name for p in base.iterdir()) == sorted({directory, "admin"})


@pytest.mark.parametrize("name", ["A-B", "1X", "A;id", "A B", ""])
def test_a_name_that_is_not_a_shell_name_is_not_exported(name: str, tmp_path: Path) -> None:
    with pytest.raises(DefinitionError, match="not a shell name"):
        wrapper(wp_id=0, step="s", workdir=tmp_path, admin=tmp_path, commands=[],
                environment={name: "1"})  # fmt: skip


def test_a_nul_in_an_exported_value_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DefinitionError, match="NUL"):
        wrapper(wp_id=0, step="s", workdir=tmp_path, admin=tmp_path, commands=[],
                environment={"V": "a\0b"})  # fmt: skip
