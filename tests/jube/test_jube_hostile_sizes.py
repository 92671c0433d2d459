"""JUBE files of hostile sizes are refused or read in bounded time, with the count and
the limit (the real CLI, timed as a user sees it)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from jubex.definition.jube.nodes import Node

BENCHMARK = """<?xml version="1.0"?>
<jube>
  <benchmark name="b" outpath="runs" {attrs}>
    <parameterset name="p"><parameter name="n">1</parameter></parameterset>
    <step name="s"><use>p</use><do>echo $n</do></step>
  </benchmark>
</jube>
"""


def jubex(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jubex", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_100000_attributes_are_refused_with_the_count_and_the_limit(tmp_path: Path) -> None:
    attrs = " ".join(f'a{i}="x"' for i in range(100_000))
    (tmp_path / "b.xml").write_text(BENCHMARK.format(attrs=attrs))
    for command in (["validate"], ["info"], ["run", "--dry-run"]):
        done = jubex(tmp_path, *command, "b.xml")
        assert done.returncode != 0 and "Traceback" not in done.stderr
        assert "has 100,002 attributes, more than the 1,000" in done.stdout + done.stderr


def test_many_unknown_attributes_are_said_ten_at_a_time(tmp_path: Path) -> None:
    attrs = " ".join(f'a{i}="x"' for i in range(500))
    (tmp_path / "b.xml").write_text(BENCHMARK.format(attrs=attrs))
    done = jubex(tmp_path, "validate", "b.xml")
    assert done.returncode == 0, done.stdout + done.stderr
    said = done.stdout + done.stderr
    assert said.count("is not one JUBE reads") == 10
    assert "has 490 more attributes JUBE does not read" in said


def test_a_file_of_many_benchmarks_is_read_once_and_each_benchmark_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each of N benchmarks used to read and prepare the whole file again (N²: 54.6 s at
    N = 1,000); now the file is parsed once for validate, and every benchmark is still
    checked (a fault in the last one is found) and named in at most ten names."""
    from jubex import api
    from jubex.definition.jube import source

    parsed: list[Path] = []

    def counted(path: Path, include_path: Sequence[Path] = ()) -> source.Node:
        parsed.append(path)
        return read_tree(path, include_path)

    read_tree = source.read_tree
    monkeypatch.setattr(source, "read_tree", counted)
    one = '<benchmark name="b{i}" outpath="runs"><parameterset name="p"><parameter name="n">1'
    one += '</parameter></parameterset><step name="s"><use>{use}</use><do>echo $n</do></step>'
    one += "</benchmark>\n"
    body = "".join(one.format(i=i, use="p" if i < 299 else "q") for i in range(300))
    (tmp_path / "b.xml").write_text(f'<?xml version="1.0"?>\n<jube>\n{body}</jube>\n')
    problems = [str(p) for p in api.validate([tmp_path / "b.xml"])]
    assert len(parsed) == 1, len(parsed)
    assert any("300 benchmarks (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, ... 290 more)" in p
               for p in problems), problems  # fmt: skip
    assert any("'q'" in p for p in problems), problems  # the last benchmark's unknown set
    (tmp_path / "b.xml").write_text(
        f'<?xml version="1.0"?>\n<jube>\n{one.format(i=0, use="p")}</jube>\n'
    )
    assert not [p for p in api.validate([tmp_path / "b.xml"]) if "'q'" in str(p)]  # reread


def test_the_root_of_a_file_of_many_benchmarks_is_gone_through_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each benchmark checked the root's N children, gathered the root's sets from them and
    copied the N names (quadratic: 12.4 s of CPU to validate 5,000 benchmarks); the root is
    now gone through once per file, its faults still said, and every benchmark shares one
    tuple of the file's names."""
    from jubex import api
    from jubex.definition.jube import context

    checked: list[str] = []
    check = context.Context.check

    def counted(self: context.Context, node: Node, children: tuple[str, ...] = ()) -> None:
        checked.append(node.tag)
        check(self, node, children)

    monkeypatch.setattr(context.Context, "check", counted)
    benchmarks(tmp_path / "b.xml", 300, "1")
    text = (tmp_path / "b.xml").read_text()
    (tmp_path / "b.xml").write_text(
        text.replace("<jube>", '<jube odd="1"><parameterset name="g"/>')
    )
    problems = [str(p) for p in api.validate([tmp_path / "b.xml"])]
    assert checked.count("jube") == 1, checked.count("jube")
    assert sum("<jube> attribute 'odd' is not one JUBE reads" in p for p in problems) == 1
    (tmp_path / "b.xml").write_text(text)
    first = api.load(tmp_path / "b.xml")
    assert api.load(tmp_path / "b.xml", benchmark="b299").file_benchmarks is first.file_benchmarks


def benchmarks(path: Path, count: int, values: str) -> None:
    """A JUBE file of ``count`` benchmarks, each one step over a parameter of ``values``."""
    one = '<benchmark name="b{i}" outpath="runs"><parameterset name="p"><parameter name="n">'
    one += values + '</parameter></parameterset><step name="s"><use>p</use><do>echo $n</do>'
    one += "</step></benchmark>\n"
    body = "".join(one.format(i=i) for i in range(count))
    path.write_text(f'<?xml version="1.0"?>\n<jube>\n{body}</jube>\n')


def test_the_dry_run_of_a_file_shows_a_thousand_workpackages_in_all(tmp_path: Path) -> None:
    """The dry run printed every benchmark's every workpackage; the benchmarks of a file
    now share the 1,000 it shows."""
    benchmarks(tmp_path / "b.xml", 3, ",".join(str(i) for i in range(600)))
    done = jubex(tmp_path, "run", "--dry-run", "b.xml")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert sum(line.startswith("wp ") for line in lines) == 1_000
    assert lines[-3:] == [
        "... 200 more workpackage(s) not shown: the dry run shows 1,000 in all, 400 of them "
        "here (--all shows every one)",
        "600 workpackage(s) would run on platform 'local'; nothing was written",
        "1 more benchmark(s) not shown (b2): the dry run shows 1,000 workpackages of 100 "
        "benchmarks at most (--all shows every one; jubex validate b.xml checks each "
        "benchmark)",
    ]
    every = jubex(tmp_path, "run", "--dry-run", "--all", "b.xml")
    assert sum(line.startswith("wp ") for line in every.stdout.splitlines()) == 1_800


@pytest.mark.parametrize("command", [["validate"], ["info"], ["run", "--dry-run"]])
def test_a_parameter_of_a_million_values_is_refused_with_the_count(
    tmp_path: Path, command: list[str]
) -> None:
    """0,1,...,999999 as one parameter: info took 3 s and 364 MB, a dry run planned a
    million workpackages; it is refused with the count and the limit, as a YAML list is."""
    values = ",".join(str(i) for i in range(10**6))
    text = BENCHMARK.format(attrs="").replace('name="n">1<', f'name="n">{values}<')
    (tmp_path / "b.xml").write_text(text)
    done = jubex(tmp_path, *command, "b.xml")
    assert done.returncode == 2, done.stdout + done.stderr
    said = done.stdout + done.stderr
    assert "b.xml:4: error: a list of 1,000,000 values, more than the 10,000 a list" in said
    assert "Traceback" not in said


def test_the_dry_run_of_a_file_plans_a_hundred_benchmarks(tmp_path: Path) -> None:
    """A file of 1,000 small benchmarks took the dry run 15 s (3.5 s on an idle machine),
    each read, resolved and planned; it plans the first 100 and names the others."""
    benchmarks(tmp_path / "b.xml", 1_000, "1")
    done = jubex(tmp_path, "run", "--dry-run", "b.xml")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert sum(line.startswith("wp ") for line in lines) == 100
    assert lines[-1].startswith(
        "900 more benchmark(s) not shown (b100, b101, b102, b103, b104, b105, b106, b107, "
        "b108, b109, ... 890 more): the dry run shows 1,000 workpackages of 100 benchmarks"
    )
