"""The lines that put a workpackage under Darshan: quoted, and no second preload of a
program linked against libdarshan already."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from jubex.definition.darshan import Darshan
from jubex.workdir.darshan import APP_EXCLUDE, LOG_NAME, darshan_lines, linked_program
from jubex.workdir.elf import needed
from jubex.workdir.script import Command, wrapper

ODD = 'it\'s a "dir" $HOME `id`'


def _run(tmp_path: Path, lines: list[str], command: str) -> subprocess.CompletedProcess[str]:
    admin = tmp_path / "admin"
    admin.mkdir(exist_ok=True)
    text, _ = wrapper(
        wp_id=0, step="s", workdir=tmp_path, admin=admin, commands=[Command(command)],
        environment={}, local=True, setup=lines,
    )  # fmt: skip
    (admin / "body.sh").write_text(text)
    return subprocess.run(["/bin/sh", str(admin / "body.sh")], capture_output=True, text=True)


def test_the_values_reach_the_commands_as_they_are(tmp_path: Path) -> None:
    work = tmp_path / ODD
    work.mkdir()
    lib = work / "libdarshan.so"
    lines = darshan_lines(Darshan(library=str(lib)), work, [Command("true")])
    done = _run(
        work, lines,
        'printf "%s\\n" "$DARSHAN_LOGFILE" "$DARSHAN_ENABLE_NONMPI" "$DARSHAN_APP_EXCLUDE" '
        '"$LD_PRELOAD"',
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (work / "stdout").read_text().splitlines() == [
        str(work / LOG_NAME), "1", APP_EXCLUDE, str(lib),
    ]  # fmt: skip


def test_an_earlier_preload_is_kept_after_darshan(tmp_path: Path) -> None:
    lines = darshan_lines(Darshan(library="/x/libdarshan.so"), tmp_path, [Command("true")])
    done = _run(tmp_path, ["export LD_PRELOAD=/y/other.so", *lines], 'printf %s "$LD_PRELOAD"')
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "stdout").read_text() == "/x/libdarshan.so:/y/other.so"


def test_a_module_that_does_not_load_fails_the_workpackage(tmp_path: Path) -> None:
    lines = darshan_lines(Darshan(module="darshan/9.9"), tmp_path, [Command("true")])
    assert lines[0] == "module load darshan/9.9 || exit $?"
    done = _run(tmp_path, ["module() { return 3; }", *lines], "echo ran")
    assert done.returncode == 3
    assert (tmp_path / "admin" / "exit").read_text() == "3\n"
    assert "ran" not in (tmp_path / "stdout").read_text()


def test_the_launchers_do_not_write_the_log_and_the_benchmark_does() -> None:
    import re

    pattern = re.compile(APP_EXCLUDE)
    for program in ("mpirun", "/usr/bin/prterun", "srun", "/bin/sh", "timeout"):
        assert pattern.search(program), program
    for program in ("ior", "/usr/bin/fio", "/opt/jubex/kernels/bw", "python3", "shell"):
        assert not pattern.search(program), program


@pytest.fixture(scope="module")
def linked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A program linked against a library named libdarshan.so (as IOR --enable-darshan is)."""
    where = tmp_path_factory.mktemp("linked")
    (where / "d.c").write_text("int darshan_stub(void) { return 0; }\n")
    (where / "main.c").write_text(
        "int darshan_stub(void);\nint main(void) { return darshan_stub(); }\n"
    )
    subprocess.run(
        ["cc", "-shared", "-fPIC", "-o", where / "libdarshan.so", where / "d.c"], check=True
    )
    subprocess.run(
        ["cc", "-o", where / "bench", where / "main.c", f"-L{where}", "-ldarshan"], check=True
    )
    return where / "bench"


def test_elf_needed_names_the_libraries_a_program_is_linked_against(linked: Path) -> None:
    assert "libdarshan.so" in needed(linked)
    assert "libdarshan.so" not in needed(Path("/bin/sh"))
    assert needed(linked.parent / "d.c") == ()


def test_a_program_linked_with_darshan_is_not_preloaded_again(linked: Path) -> None:
    work = linked.parent
    library = Darshan(library="/opt/darshan/lib/libdarshan.so")
    commands = [Command(f"mpirun -n 2 {linked} -t 1m")]
    assert linked_program(commands, work) == linked
    lines = darshan_lines(library, work, commands)
    assert not any("LD_PRELOAD" in line for line in lines)
    assert any(line.startswith("export DARSHAN_LOGFILE=") for line in lines)
    assert linked_program([Command("./bench")], work) == work / "bench"
    plain = darshan_lines(library, work, [Command("/bin/sh -c true")])
    assert any("LD_PRELOAD" in line for line in plain)


def test_a_step_that_says_linked_is_not_preloaded(tmp_path: Path) -> None:
    lines = darshan_lines(Darshan(library="/x/libdarshan.so", linked=True), tmp_path, [])
    assert not any("LD_PRELOAD" in line for line in lines)


def test_an_mpi_program_is_not_told_it_runs_without_mpi(tmp_path: Path) -> None:
    """DARSHAN_ENABLE_NONMPI makes each rank of an MPI program write its own log, and the
    first one alone is kept: half the bytes of two ranks (measured with IOR)."""
    mpicc = shutil.which("mpicc")
    assert mpicc, "Open MPI is installed wherever the tests run"
    (tmp_path / "m.c").write_text(
        "#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); return MPI_Finalize(); }\n"
    )
    subprocess.run([mpicc, "-o", tmp_path / "m", tmp_path / "m.c"], check=True)
    library = Darshan(library="/x/libdarshan.so")
    mpi = darshan_lines(library, tmp_path, [Command("$launcher ./m -t 1m")])
    assert "export DARSHAN_ENABLE_NONMPI=1" not in mpi
    assert any(line.startswith("export LD_PRELOAD=") for line in mpi)
    plain = darshan_lines(library, tmp_path, [Command("/bin/sh -c true")])
    assert "export DARSHAN_ENABLE_NONMPI=1" in plain
