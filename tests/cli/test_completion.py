"""Tab completes values, not only commands and flags: platform names, the parameters and
tags of the file on the line, run ids, table names, help topics and a plot's -x/-y/-g
names, through each shell's protocol (bash's for real, in bash)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RUN_YAML = """\
name: tiny
tags: [big]
parameters:
  tasks: [1, 2]
  transfer: [64k]
patterns:
  out:
    bw: {regex: '^bw: $jube_pat_int', type: int}
steps:
  run:
    iterations: 2
    do: "echo bw: $tasks"
    analyse: [out]
results:
  speeds:
    group_by: [tasks]
    columns: [tasks, {name: bw, stats: [mean]}]
"""


@pytest.fixture(scope="module")
def here(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory with a definition and one run of it, and ``jubex`` on the PATH."""
    folder = tmp_path_factory.mktemp("completion")
    (folder / "tiny.yaml").write_text(RUN_YAML)
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "jubex"
    wrapper.write_text(f'#!/bin/sh\nexec {sys.executable} -m jubex "$@"\n')
    wrapper.chmod(0o755)
    done = subprocess.run(
        [sys.executable, "-m", "jubex", "run", "tiny.yaml", "-q"],
        cwd=folder,
        env=_env(folder),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return folder


def _env(folder: Path, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "PATH": f"{folder / 'bin'}:{os.environ['PATH']}",
        "XDG_STATE_HOME": str(folder / ".state"),
        **extra,
    }


#: bash's default COMP_WORDBREAKS, which its hook passes on: '=' and ':' break words
BASH_BREAKS = " \t\n\"'><=;|&(:"


def _offered(here: Path, line: str, shell: str = "bash", **extra: str) -> list[str]:
    """What jubex answers a shell's hook for ``line``, the cursor at its end."""
    out = here / "offered.txt"
    subprocess.run(
        [sys.executable, "-m", "jubex"],
        cwd=here,
        env=_env(
            here,
            **{
                "_ARGCOMPLETE": "1",
                "_ARGCOMPLETE_SHELL": shell,
                "_ARGCOMPLETE_IFS": "\n",
                "_ARGCOMPLETE_SUPPRESS_SPACE": "1",
                "COMP_LINE": line,
                "COMP_POINT": str(len(line)),
                "_ARGCOMPLETE_STDOUT_FILENAME": str(out),
                **extra,
            },
        ),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    words = out.read_text().splitlines()
    return sorted(w.split("\t")[0].split(":")[0] if shell != "bash" else w.strip() for w in words)


@pytest.mark.parametrize(
    ("line", "wanted"),
    [
        ("jubex run tiny.yaml -P sl", ["slurm"]),
        ("jubex platform lo", ["local"]),
        ("jubex run tiny.yaml -p ", ["tasks=", "transfer="]),
        ("jubex info tiny.yaml -p tr", ["transfer="]),
        ("jubex validate tiny.yaml -t ", ["big"]),
        ("jubex status -i ", ["000000", "last"]),
        ("jubex result -i ", ["000000", "all", "last"]),
        ("jubex result -T ", ["speeds"]),
        ("jubex help shar", ["sharing"]),
        ("jubex help exit", ["exit-codes"]),
        ("jubex plot -x ta", ["tasks"]),
        ("jubex plot -g tr", ["transfer"]),
        ("jubex plot -y ", ["bw"]),
    ],
)
def test_values_are_completed(here: Path, line: str, wanted: list[str]) -> None:
    assert _offered(here, line) == wanted


@pytest.mark.parametrize("space", ["1", ""], ids=["no-space", "space"])
def test_a_parameters_values_are_offered_after_name_under_bashs_word_breaks(
    here: Path, space: str
) -> None:
    """Under bash's default word breaks the word after '=' is completed: the values as
    written (the completion library failed on the empty completion it was handed)."""
    breaks = {"_ARGCOMPLETE_COMP_WORDBREAKS": BASH_BREAKS, "_ARGCOMPLETE_SUPPRESS_SPACE": space}
    assert [w.strip() for w in _offered(here, "jubex run tiny.yaml -p transfer=", **breaks)] == [
        "64k"
    ]
    assert _offered(here, "jubex run tiny.yaml -p tasks=", **breaks) == ["1", "2"]
    assert _offered(here, "jubex run tiny.yaml -p tasks=1", **breaks) == []


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_get_the_same_values(here: Path, shell: str) -> None:
    assert _offered(here, "jubex run tiny.yaml -p ", shell) == ["tasks=", "transfer="]
    assert _offered(here, "jubex result -T ", shell) == ["speeds"]


def test_a_file_that_cannot_be_read_offers_nothing_and_breaks_nothing(here: Path) -> None:
    (here / "broken.yaml").write_text("name: [unclosed\n")
    assert _offered(here, "jubex run broken.yaml -p ") == []
    assert _offered(here, "jubex run nothing-here.yaml -t ") == []


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_bash_completes_through_its_hook(here: Path) -> None:
    """The hook `jubex completion bash` prints, sourced in a real bash, fills COMPREPLY."""
    script = (
        'eval "$(jubex completion bash)"\n'
        'COMP_LINE="jubex run tiny.yaml -P sl"; COMP_POINT=${#COMP_LINE}\n'
        "COMP_WORDS=(jubex run tiny.yaml -P sl); COMP_CWORD=4\n"
        "_python_argcomplete jubex sl -P\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    done = subprocess.run(
        ["bash", "--norc", "-c", script],
        cwd=here,
        env=_env(here),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.stdout.split() == ["slurm"], done.stderr
