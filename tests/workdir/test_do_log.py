"""The do log: JUBE's text, where JUBE puts it, written once per preparation."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jubex.definition.model import Benchmark, Do, Step
from jubex.errors import DefinitionError
from jubex.workdir.do_log import body, header, log_path, write_do_log
from jubex.workdir.prepare import StepPreparer
from jubex.workdir.script import Command
from jubex.workdir.writer import DiskWriter


def test_header_is_the_shell_and_the_environment_as_jube_writes_it() -> None:
    text = header({"A": "1", "MULTI": "one\ntwo", "Q": "it's"})
    assert text == "#!/bin/sh\n\nset A='1'\nset MULTI='one\\ntwo'\nset Q='it's'\n\n"


def test_body_changes_directory_where_a_command_runs_elsewhere() -> None:
    work = Path("/w")
    cycles = [
        [Command("a"), Command("b;", work_dir="/w/sub"), Command(";;"), Command("c")],
        [Command("a")],
    ]
    assert body(cycles, work).splitlines() == [
        "cd /w",
        "a",
        "cd /w/sub",
        "b",
        "cd /w",
        "c",
        "cd /w",
        "a",
    ]
    assert body([[Command("x")]], work, shared=True) == "cd /w\nx # shared execution\n"
    assert body([[Command("  ")]], work) == ""


@given(st.lists(st.lists(st.text("ab; \n", min_size=1, max_size=5), max_size=4), max_size=3))
def test_every_command_that_runs_is_logged_once_in_order(cycles: list[list[str]]) -> None:
    lines = body([[Command(t) for t in cycle] for cycle in cycles], Path("/w")).splitlines()
    commands = [line for line in lines if not line.startswith("cd ")]
    expected = [t.strip(";") for cycle in cycles for t in cycle if t.strip(";").strip()]
    assert "\n".join(commands) == "\n".join(expected)


def test_where_the_log_goes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LOGS", "/var/logs")
    wp = tmp_path / "000003_run"
    assert log_path("do_log", wp, {}, None) == wp / "do_log"
    assert log_path("log_$n.sh", wp, {"n": 4}, None) == wp / "log_4.sh"
    assert log_path("logs/all.sh", wp, {}, None) == tmp_path / "logs" / "all.sh"
    assert log_path("$LOGS/x", wp, {}, None) == Path("/var/logs/x")
    with pytest.raises(DefinitionError, match="not set"):
        log_path("$UNSET_SOMEWHERE/x", wp, {}, None)


def test_a_shared_log_is_started_once_and_a_private_one_written_anew(tmp_path: Path) -> None:
    shared = tmp_path / "logs" / "all.sh"
    for n in (1, 2):
        write_do_log(DiskWriter(), shared, {"A": "1"}, [[Command(f"echo {n}")]], tmp_path / str(n))
    assert shared.read_text() == (
        f"#!/bin/sh\n\nset A='1'\n\ncd {tmp_path}/1\necho 1\ncd {tmp_path}/2\necho 2\n"
    )
    private = tmp_path / "do_log"
    for _ in range(2):
        write_do_log(DiskWriter(), private, {}, [[Command("x")]], tmp_path, fresh=True)
    assert private.read_text() == f"#!/bin/sh\n\n\ncd {tmp_path}\nx\n"


def test_the_preparer_logs_each_cycle_of_a_workpackage(tmp_path: Path) -> None:
    step = Step("s", do=[Do("echo $n $jube_wp_cycle"), Do("skip", active="n > 5")], cycles=2)
    step.do_log_file = "do_log"
    benchmark = Benchmark("b", steps={"s": step}, file=str(tmp_path / "b.yaml"))
    wp_dir = tmp_path / "000000_s"
    for _ in range(2):  # prepared again after a crash: still one copy
        StepPreparer(benchmark, step, home=tmp_path).prepare(0, wp_dir, {"n": 3}, [], DiskWriter())
    lines = (wp_dir / "do_log").read_text().splitlines()
    work = wp_dir / "work"
    assert lines[0] == "#!/bin/sh"
    assert [line for line in lines if not line.startswith("set ")][-4:] == [
        f"cd {work}",
        "echo 3 0",
        f"cd {work}",
        "echo 3 1",
    ]
