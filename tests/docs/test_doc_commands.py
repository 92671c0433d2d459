"""The documented commands are tests: every shell and Python block of README.md and docs/
runs here as printed, in a scratch copy of the checkout's data, or is marked.

A block is marked by an HTML comment on the line before its fence (docs/design.md,
"Documented commands are tests"), options separated by ``;``:

- ``syntax=REASON``: needs a cluster, a site or files of the reader's; its ``jubex``
  command lines are parsed, not run
- ``skip=REASON``: not even parsed (a synopsis, a template with placeholders)
- ``exit=0,1``: the exit statuses a command may end with (default 0);
  ``exit.compare=0,1,4`` only for ``jubex compare``
- ``file=NAME``: a YAML (or other) block written to NAME in the scratch directory
- ``study``: the scratch directory holds ``ior.yaml`` (``jubex init ior``) and a run of it
  in ``runs/``, made once for every document that asks
- ``setup=COMMAND``: a shell command run first, for what the text around the block says
- ``slurm``: the block talks to the scheduler of the machine (``platform detect``): the
  test Slurm cluster (tests/conftest.py) is it

Blocks of one document run in order in one scratch directory, as a reader follows them; a
Python block runs after the document's Python blocks before it, as one session. Every
``jubex`` command line of every block is parsed with jubex's own parser first, so an option
that does not exist fails even in a block that only needs a cluster. The walk-throughs of
examples/ are run by tests/examples/test_walkthroughs.py (```bash: here, ```sh: a site's);
here their command lines are parsed. A console block
shows output under its ``$`` lines: each shown line must match a line of the output, with
every number standing for any number (the shape, not the figures).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from jubex.cli.main import build_parser

REPO = Path(__file__).resolve().parents[2]
DOCUMENTS = sorted([REPO / "README.md", *(REPO / "docs").glob("*.md")])
#: documents whose commands are parsed here, and why they are not run
NOT_RUN = {
    "docs/performance.md": "measurements: bench/'s scripts, minutes each, some on Slurm",
    **{
        f"examples/{p.name}": "run by tests/examples/test_walkthroughs.py"
        for p in (REPO / "examples").glob("*.md")
    },
}
#: what a reader at the checkout's root has beside the package: examples, definitions, data
CHECKOUT_DATA = ("examples", "benchmarks", "platforms", "tests/data", "tests/jube/corpus")
SHELL = ("bash", "sh", "console", "shell")
FENCE = re.compile(r"^(?:<!-- check: (?P<marks>.*?) -->\n)?```(?P<lang>[\w-]*)\n(?P<body>.*?)^```$",
                   re.MULTILINE | re.DOTALL)  # fmt: skip
NUMBER = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?")


@dataclass(frozen=True)
class Block:
    """One fenced block of a document and its marks."""

    doc: str
    line: int
    language: str
    text: str
    marks: dict[str, str] = field(default_factory=dict)

    def where(self) -> str:
        return f"{self.doc}:{self.line}"

    def exits(self, command: str) -> set[int]:
        sub = _words(command)[1:2]
        chosen = self.marks.get(f"exit.{sub[0]}" if sub else "", self.marks.get("exit", "0"))
        return {int(code) for code in chosen.split(",")}


def blocks_of(path: Path, text: str | None = None) -> list[Block]:
    text = path.read_text() if text is None else text
    found = []
    for match in FENCE.finditer(text):
        marks = {}
        for option in filter(None, (o.strip() for o in (match["marks"] or "").split(";"))):
            key, _, value = option.partition("=")
            marks[key.strip()] = value.strip()
        line = text.count("\n", 0, match.start("lang")) + 1
        rel = str(path.relative_to(REPO)) if path.is_relative_to(REPO) else path.name
        found.append(Block(rel, line, match["lang"], match["body"], marks))
    return found


@dataclass(frozen=True)
class Command:
    """One shell command of a block (continuations joined) and the output shown under it."""

    line: str
    shown: tuple[str, ...] = ()


def commands_of(block: Block) -> list[Command]:
    joined = block.text.replace("\\\n", " ")
    if block.language != "console":
        lines = (line for line in joined.splitlines() if line.strip())
        return [Command(line.strip()) for line in lines if not line.lstrip().startswith("#")]
    commands: list[Command] = []
    for line in joined.splitlines():
        if line.startswith("$ "):
            commands.append(Command(line[2:].strip()))
        elif commands and line.strip():
            commands[-1] = Command(commands[-1].line, (*commands[-1].shown, line))
    return commands


def _words(command: str) -> list[str]:
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    return list(lexer)


def jubex_argvs(command: str) -> Iterator[list[str]]:
    """The argument lists of the ``jubex`` commands of a shell line (``&&``, ``||``, ``|``
    and ``;`` separate commands; redirections are dropped)."""
    argv: list[str] = []
    redirect = False
    for word in [*_words(command), ";"]:
        if word in ("&&", "||", "|", ";", "&"):
            if argv[:1] == ["jubex"]:
                yield argv[1:]
            argv, redirect = [], False
        elif word in (">", ">>", "<", "2>", "&>"):
            redirect = True
        elif redirect:
            redirect = False
        else:
            argv.append(word)


def check_syntax(block: Block) -> None:
    """Each jubex command line of the block parses: its command, options and choices exist."""
    for command in commands_of(block):
        for argv in jubex_argvs(command.line):
            name = next((a for a in argv if not a.startswith("-")), None)
            parser = build_parser(name or "")
            try:
                _, unknown = parser.parse_known_args(argv)
            except SystemExit as exc:
                raise AssertionError(f"{block.where()}: `{command.line}` does not parse") from exc
            assert not unknown, f"{block.where()}: `{command.line}`: unknown {unknown}"


def shape(line: str) -> re.Pattern[str]:
    """A shown output line as a pattern: numbers stand for any number, spaces for any run of
    spaces, a trailing ellipsis for the rest of the line."""
    text = line.strip().removesuffix("…")
    parts = [re.escape(p) for p in NUMBER.split(text)]
    pattern = NUMBER.pattern.join(parts)
    return re.compile(re.sub(r"(\\ )+", r"\\s+", pattern))


def check_shape(block: Block, command: Command, output: str) -> None:
    lines = [line.strip() for line in output.splitlines()]
    for shown in command.shown:
        if shown.strip() in ("...", "…"):
            continue
        pattern = shape(shown)
        assert any(pattern.match(line) for line in lines), (
            f"{block.where()}: `{command.line}` shows {shown.strip()!r}, "
            f"which no output line matches:\n{output}"
        )


# -- running ----------------------------------------------------------------------------------


def _environment(scratch: Path, shims: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PATH": f"{shims}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(REPO),
        "HOME": str(scratch),
        "XDG_CONFIG_HOME": str(scratch / ".config"),
        "XDG_STATE_HOME": str(scratch / ".state"),
        "XDG_DATA_HOME": str(scratch / ".data"),
        "XDG_CACHE_HOME": str(scratch / ".cache"),
        "COLUMNS": "200",
        "MPLBACKEND": "Agg",
    }


def _shell(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="session")
def shims(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``jubex`` on PATH as a reader has it after ``pip install .``: this checkout's code."""
    bin_dir = tmp_path_factory.mktemp("bin")
    shim = bin_dir / "jubex"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m jubex "$@"\n')
    shim.chmod(0o755)
    return bin_dir


def _scratch(into: Path) -> Path:
    """A scratch directory with the checkout's data, as a reader at its root sees it."""
    for name in CHECKOUT_DATA:
        shutil.copytree(REPO / name, into / name, ignore=shutil.ignore_patterns("runs"))
    return into


@pytest.fixture(scope="session")
def study(tmp_path_factory: pytest.TempPathFactory, shims: Path) -> Path:
    """One study made once for the documents that show commands on a study's runs: the IOR
    starter (``jubex init ior``), run once into ``runs/``."""
    where = tmp_path_factory.mktemp("study")
    env = _environment(where, shims)
    for command in ("jubex init ior", "jubex run ior.yaml -q"):
        done = _shell(command, where, env)
        assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    return where


def run_document(doc: Path, scratch: Path, shims: Path, study: Path | None) -> int:
    """Runs a document's blocks in order; the number of commands run."""
    env = _environment(scratch, shims)
    ran = 0
    python: list[str] = []
    for block in blocks_of(doc):
        if block.language not in (*SHELL, "python") and "file" not in block.marks:
            continue
        reason = block.marks.get("skip", block.marks.get("syntax"))
        assert reason != "", f"{block.where()}: a block not run says why (skip=REASON)"
        if block.language in SHELL and "skip" not in block.marks:
            check_syntax(block)
        if reason is not None:
            continue
        if "file" in block.marks:
            (scratch / block.marks["file"]).write_text(block.text)
            continue
        if "study" in block.marks and study is not None and not (scratch / "runs").exists():
            shutil.copy(study / "ior.yaml", scratch / "ior.yaml")
            shutil.copytree(study / "runs", scratch / "runs")
        if "setup" in block.marks:
            done = _shell(block.marks["setup"], scratch, env)
            assert done.returncode == 0, f"{block.where()}: setup failed\n{done.stderr}"
        if block.language == "python":
            python.append(block.text)
            (scratch / "block.py").write_text("\n".join(python))
            commands = [Command(f"{shlex.quote(sys.executable)} block.py")]
        else:
            commands = commands_of(block)
        for command in commands:
            done = _shell(command.line, scratch, env)
            ran += 1
            report = f"{block.where()}: `{command.line}`\n{done.stdout[-4000:]}\n{done.stderr}"
            assert "Traceback" not in done.stderr, report
            assert done.returncode in block.exits(command.line), report
            check_shape(block, command, done.stdout)
    return ran


def _needs(doc: Path, mark: str) -> bool:
    return any(mark in block.marks for block in blocks_of(doc))


@pytest.mark.parametrize(
    "doc", [d for d in DOCUMENTS if str(d.relative_to(REPO)) not in NOT_RUN], ids=lambda d: d.name
)
def test_the_documented_commands_run_as_printed(
    doc: Path, tmp_path: Path, shims: Path, request: pytest.FixtureRequest
) -> None:
    if shutil.which("make") is None or shutil.which("cc") is None:
        pytest.skip("the documents run jubex's kernels, which need make and a C compiler")
    if _needs(doc, "slurm"):
        request.getfixturevalue("slurm")  # sets SLURM_CONF for the commands
    study = request.getfixturevalue("study") if _needs(doc, "study") else None
    run_document(doc, _scratch(tmp_path), shims, study)


def test_the_documents_not_run_here_name_only_options_that_exist() -> None:
    assert len(NOT_RUN) > 5
    for doc in NOT_RUN:
        for block in blocks_of(REPO / doc):
            if block.language in SHELL and "skip" not in block.marks:
                check_syntax(block)


# -- the checks themselves --------------------------------------------------------------------


def test_a_wrong_option_in_a_document_fails(tmp_path: Path) -> None:
    """A planted option that does not exist fails the check, in a block run or parsed only."""
    readme = (REPO / "README.md").read_text()
    assert "--dry-run" in readme
    for mark in ("", "<!-- check: syntax=a cluster's -->\n"):
        doc = tmp_path / "planted.md"
        doc.write_text(f"{mark}```bash\njubex run ior.yaml --dry-rnu   # planted\n```\n")
        (block,) = blocks_of(doc)
        with pytest.raises(AssertionError, match=r"does not parse|unknown"):
            check_syntax(block)


def test_a_wrong_exit_status_or_shape_fails(tmp_path: Path, shims: Path) -> None:
    doc = tmp_path / "planted.md"
    doc.write_text("```console\n$ jubex status nowhere\n```\n")
    with pytest.raises(AssertionError, match="jubex status nowhere"):
        run_document(doc, tmp_path, shims, None)
    doc.write_text("```console\n$ jubex help format\nno such line 42\n```\n")
    with pytest.raises(AssertionError, match="no output line matches"):
        run_document(doc, tmp_path, shims, None)
    doc.write_text("<!-- check: exit=2 -->\n```sh\njubex status nowhere\n```\n")
    assert run_document(doc, tmp_path, shims, None) == 1


def test_marks_and_shapes_read_as_documented() -> None:
    text = (
        "<!-- check: syntax=a site's; exit.compare=0,1,4 -->\n```sh\n"
        "jubex compare 0 1 --table ior \\\n    --tolerance 5% || echo $?   # gate\n"
        "jubex query bw db:x -f csv > bw.csv\n```\n"
    )
    doc = REPO / "planted.md"
    (block,) = blocks_of(doc, text)
    assert block.marks == {"syntax": "a site's", "exit.compare": "0,1,4"}
    commands = commands_of(block)
    assert [list(jubex_argvs(c.line)) for c in commands] == [
        [["compare", "0", "1", "--table", "ior", "--tolerance", "5%"]],
        [["query", "bw", "db:x", "-f", "csv"]],
    ]
    assert block.exits(commands[0].line) == {0, 1, 4} and block.exits(commands[1].line) == {0}
    assert shape(" score_bw     1.706   GiB/s").match("score_bw 17,001.2 GiB/s")
    assert not shape(" score_bw     1.706   GiB/s").match("score_md 1.706 GiB/s")
    assert shape("invalid_reason  stonewall 2s != 300s; Runtime…").match(
        "invalid_reason stonewall 5s != 300s; Runtime is short"
    )
