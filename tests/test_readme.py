"""The README as a reader follows it: every file it names exists, and its tour runs."""

from __future__ import annotations

import configparser
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text()

needs_cc = pytest.mark.skipif(
    shutil.which("make") is None or shutil.which("cc") is None,
    reason="the tour runs jubex's kernels, which need make and a C compiler",
)


def _blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", README, re.MULTILINE | re.DOTALL)


def _tour() -> list[str]:
    """The commands of the tour's bash block, comments dropped."""
    block = next(b for b in _blocks("bash") if "jubex init" in b)
    return [re.sub(r"\s+#.*$", "", line).strip() for line in block.splitlines() if line.strip()]


def named_paths() -> set[str]:
    """Every repository path the README names: words with a slash, in text and code."""
    words = re.findall(r"(?<![\w$~/.-])\.?[\w-]+/(?:[\w.-]+/?)*", README)
    return {w for w in words if not w.startswith("runs/") and ("." in w or w.endswith("/"))}


def test_the_readme_names_files_that_exist() -> None:
    paths = named_paths()
    assert {"examples/quickstart.yaml", "docs/format.md", ".ci/run", "examples/"} <= paths
    missing = sorted(p for p in paths if not (REPO / p).exists())
    assert missing == []


def test_the_tour_definition_is_the_ior_starter_and_validates(tmp_path: Path) -> None:
    (yaml_block,) = _blocks("yaml")
    (tmp_path / "ior.yaml").write_text(yaml_block)
    done = _jubex(tmp_path, "validate", "ior.yaml")
    assert done.stdout.endswith("1 file(s) valid: 0 error(s), 0 warning(s)\n"), done.stdout
    starter = (REPO / "jubex/data/templates/ior.yaml").read_text()
    for line in ("name: ior", "  tasks: [1, 2]", "    do: build/jubex-bw -n $tasks $options"):
        assert line in yaml_block and line in starter


def _jubex(cwd: Path, *args: str, pythonpath: Path = REPO) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": str(pythonpath),
        "HOME": str(cwd),
        "XDG_CONFIG_HOME": str(cwd / ".config"),
        "XDG_STATE_HOME": str(cwd / ".state"),
        "XDG_DATA_HOME": str(cwd / ".data"),
        "XDG_CACHE_HOME": str(cwd / ".cache"),
        "COLUMNS": "200",
    }
    done = subprocess.run(
        [sys.executable, "-m", "jubex", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


def _fresh_clone(into: Path) -> Path:
    """The files a clone of this checkout holds (tracked, or new and not ignored): what a
    reader who follows the README has, and nothing a test run or a build left behind."""
    listed = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        text=True,
        check=False,
    )
    if listed.returncode != 0:
        pytest.skip("not a git checkout: no clone to follow the README in")
    clone = into / "jubex"
    for name in filter(None, listed.stdout.split("\0")):
        if (REPO / name).is_file():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(REPO / name, clone / name)
    return clone


def _install_requires() -> list[str]:
    parser = configparser.ConfigParser()
    parser.read(REPO / "setup.cfg")
    return [
        re.split(r"[<>=!~ \[;]", line)[0].lower()
        for line in parser["options"]["install_requires"].split()
    ]


def test_the_readme_install_gives_what_the_tour_uses() -> None:
    """``pip install .`` as printed installs matplotlib, which the tour's plot needs."""
    (install,) = re.findall(r"pip install (\S+)", _blocks("bash")[0])
    assert "jubex plot" in "\n".join(_tour())
    assert install == "." and "matplotlib" in _install_requires()


@needs_cc
@pytest.mark.slow
def test_the_tour_runs_in_a_fresh_clone_as_printed(tmp_path: Path) -> None:
    commands = _tour()
    assert len(commands) >= 10 and all(c.startswith("jubex ") for c in commands)
    clone = _fresh_clone(tmp_path)
    outputs = {}
    for command in commands:
        done = _jubex(clone, *shlex.split(command)[1:], pythonpath=clone)
        # compare: 1 a real regression, 4 a loss the noise of 3 repetitions cannot decide
        allowed = (0, 1, 4) if command.startswith("jubex compare") else (0,)
        assert done.returncode in allowed, f"{command}\n{done.stdout}\n{done.stderr}"
        outputs[command] = done.stdout
    assert "run runs/000001: 13 done" in outputs["jubex run ior.yaml"]  # the second run
    assert outputs["jubex result -f markdown"].startswith("### bandwidth\n")
    verdict = outputs["jubex compare 0 1 --outpath runs"].splitlines()[-1]
    assert verdict.startswith(("PASSED: ", "FAILED: ", "INCONCLUSIVE: "))
    assert "8 compared" in verdict
    assert "#SBATCH" in outputs["jubex run ior.yaml -t real -P slurm --dry-run"]
    assert (clone / "bw.svg").read_text().startswith("<?xml")
    assert (clone / "hello.yaml").is_file()
