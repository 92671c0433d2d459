"""The README as a reader follows it: every file it names exists, its tour's study is the
starter's (tests/docs/test_doc_commands.py runs the tour's commands)."""

from __future__ import annotations

import configparser
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text()


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
