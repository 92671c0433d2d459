"""The ``darshan:`` key: its spellings, which setting a step runs with, and its refusals."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jubex.definition.darshan import Darshan, darshan_of, effective, is_library
from jubex.errors import DefinitionError, Loc

HERE = Loc("study.yaml", 3, 10)


def test_each_spelling_reads_as_what_it_says(tmp_path: Path) -> None:
    lib = tmp_path / "lib" / "libdarshan.so"
    lib.parent.mkdir()
    lib.write_bytes(b"")
    assert darshan_of(None, HERE, tmp_path) is None
    assert darshan_of(False, HERE, tmp_path) == Darshan(enabled=False, loc=HERE)
    assert darshan_of(True, HERE, tmp_path) == Darshan(loc=HERE)
    assert darshan_of("linked", HERE, tmp_path) == Darshan(linked=True, loc=HERE)
    assert darshan_of("darshan/3.4.4", HERE, tmp_path) == Darshan(module="darshan/3.4.4", loc=HERE)
    relative = darshan_of("./lib/libdarshan.so", HERE, tmp_path)
    assert relative == Darshan(library=str(lib), loc=HERE)
    both = darshan_of({"module": "darshan", "library": str(lib), "enabled": False}, HERE, tmp_path)
    assert both == Darshan(enabled=False, module="darshan", library=str(lib), loc=HERE)


def test_a_library_that_is_not_there_is_refused_where_it_is_written(tmp_path: Path) -> None:
    with pytest.raises(DefinitionError) as caught:
        darshan_of("/no/such/lib/libdarshan.so", HERE, tmp_path)
    assert caught.value.loc == HERE
    assert "does not exist" in caught.value.message


@given(st.from_regex(r"[A-Za-z][A-Za-z0-9_.-]{0,12}(/[0-9][0-9.]{0,6})?", fullmatch=True))
def test_module_names_are_not_taken_for_libraries(name: str) -> None:
    if not name.endswith(".so") and ".so." not in name:
        assert not is_library(name)


@pytest.mark.parametrize("text", ["/opt/lib/libdarshan.so", "./libdarshan.so", "libdarshan.so.0"])
def test_paths_are_libraries(text: str) -> None:
    assert is_library(text)


STUDY = Darshan(loc=HERE)
PLATFORM = Darshan(module="darshan", loc=Loc("p.yaml", 5))


def test_the_step_wins_over_the_study_and_the_study_over_the_platform() -> None:
    assert effective(None, None, None, "step 's'") is None
    assert effective(None, None, PLATFORM, "step 's'") == Darshan(
        True, "darshan", "", False, PLATFORM.loc
    )
    off = Darshan(enabled=False)
    assert effective(off, STUDY, PLATFORM, "step 's'") is None
    assert effective(None, off, PLATFORM, "step 's'") is None
    # the study's true takes the platform's module
    assert effective(None, STUDY, PLATFORM, "step 's'") == Darshan(True, "darshan", "", False, HERE)
    linked = effective(Darshan(linked=True), STUDY, PLATFORM, "step 's'")
    assert linked is not None and linked.linked and linked.module == "darshan"


def test_a_platform_that_only_says_how_does_not_turn_it_on() -> None:
    how = Darshan(enabled=False, module="darshan")
    assert effective(None, None, how, "step 's'") is None
    on = effective(None, STUDY, how, "step 's'")
    assert on is not None and on.module == "darshan"


def test_true_with_nothing_that_names_darshan_is_refused_at_its_line() -> None:
    with pytest.raises(DefinitionError) as caught:
        effective(None, STUDY, None, "step 's'")
    assert caught.value.loc == HERE and "step 's'" in caught.value.message


def _validate(tmp_path: Path, darshan: str) -> subprocess.CompletedProcess[str]:
    study = tmp_path / "study.yaml"
    study.write_text(f"name: d\ndarshan: {darshan}\nsteps:\n  run:\n    do: echo hi\n")
    return subprocess.run(
        [sys.executable, "-m", "jubex", "validate", str(study)],
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("3", "expected true, false, linked"),
        ("/no/such/libdarshan.so", "does not exist"),
        ("{modul: darshan}", "did you mean 'module'"),
        ("true", "names a Darshan module or library"),
    ],
)
def test_validate_refuses_a_bad_value_with_exit_2_naming_file_and_line(
    tmp_path: Path, value: str, said: str
) -> None:
    done = _validate(tmp_path, value)
    assert done.returncode == 2, done.stderr
    assert f"{tmp_path / 'study.yaml'}:2:" in done.stderr + done.stdout
    assert said in done.stderr + done.stdout
    assert "Traceback" not in done.stderr


def test_the_xml_spelling_says_the_same(tmp_path: Path) -> None:
    from jubex.definition.load import load

    (tmp_path / "libdarshan.so").write_bytes(b"")
    (tmp_path / "s.xml").write_text(
        '<jubex name="x" darshan="./libdarshan.so">\n'
        '  <step name="run"><do>echo hi</do></step>\n'
        '  <step name="built" darshan="linked"><do>./ior</do></step>\n'
        '  <step name="off" darshan="false"><do>echo b</do></step>\n'
        "</jubex>\n"
    )
    benchmark = load(tmp_path / "s.xml")
    assert benchmark.darshan is not None
    assert benchmark.darshan.library == str(tmp_path / "libdarshan.so")
    assert benchmark.steps["run"].darshan is None
    assert benchmark.steps["built"].darshan == Darshan(
        linked=True, loc=benchmark.steps["built"].darshan.loc
    )
    off = benchmark.steps["off"].darshan
    assert off is not None and not off.enabled
