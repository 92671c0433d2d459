"""Which point gets which workpackage id, as JUBE 2.7.1 gives them.

Each expectation below is JUBE 2.7.1's own: the file was planned with ``jube --debug run``
and read back with ``jube info -s STEP -c SEP`` (``bench/jube_differential.py``'s way),
under ``PYTHONHASHSEED`` 0, 1, 2, 3 and 42, which all gave the same ids and points. JUBE
is not installed where the tests run, so the ids and points are written out here.
"""

from __future__ import annotations

from pathlib import Path

from jubex.api import load
from jubex.space.plan import plan

# The gromacs suite's structure: values worked out from snippets that split, one of them
# reading a plain value of the set defined before the others (JUBE: a list first, then the
# snippets' values crossed in definition order, whatever they read).
SPLIT = """<jube><benchmark name="split" outpath="runs">
  <parameterset name="sys">
    <parameter name="nodes">1</parameter>
    <parameter name="tasks" mode="python" separator=";">"4;8"</parameter>
    <parameter name="size">a,b</parameter>
    <parameter name="threads" mode="python" separator=";"
      >"6;12" if "$size" == "a" else "6"</parameter>
    <parameter name="gpus" mode="python">"1,2,4" if "$nodes" == "1" else "4"</parameter>
    <parameter name="jobname">job_$jube_wp_id</parameter>
  </parameterset>
  <step name="run"><use>sys</use><do>echo $jobname</do></step>
</benchmark></jube>"""

# The stream suite's structure: a parent step whose snippet splits (reading values that read
# others), a child with a list of its own.
PARENTS = """<jube><benchmark name="parents" outpath="runs">
  <parameterset name="build">
    <parameter name="stage">2022</parameter>
    <parameter name="g">${stage}-gcc</parameter>
    <parameter name="i">${stage}-intel</parameter>
    <parameter name="stack" mode="python">",".join("${g} ${i}".split(" "))</parameter>
  </parameterset>
  <parameterset name="run"><parameter name="threads">1,2,4</parameter></parameterset>
  <step name="compile"><use>build</use><do>echo $stack</do></step>
  <step name="execute" depend="compile"><use>run</use><do>echo $stack $threads</do></step>
</benchmark></jube>"""


def _planned(tmp_path: Path, text: str, names: tuple[str, ...]) -> list[tuple[object, ...]]:
    path = tmp_path / "bench.xml"
    path.write_text(text)
    return [
        (wp.id, wp.step, *(str(wp.point.get(n, "")) for n in names))
        for wp in plan(load(path))
        if wp.kind == "wp"
    ]


def test_snippets_that_split_are_crossed_after_the_lists_in_definition_order(
    tmp_path: Path,
) -> None:
    rows = _planned(tmp_path, SPLIT, ("size", "tasks", "threads", "gpus", "jobname"))
    expected = []
    for size, threads in (("a", ("6", "12")), ("b", ("6",))):
        for tasks in ("4", "8"):
            for t in threads:
                for gpus in ("1", "2", "4"):
                    wp_id = len(expected)
                    expected.append((wp_id, "run", size, tasks, t, gpus, f"job_{wp_id}"))
    assert len(expected) == 18
    assert rows == expected


def test_a_parents_children_are_made_together_in_the_parents_order(tmp_path: Path) -> None:
    rows = _planned(tmp_path, PARENTS, ("stack", "threads"))
    assert rows == [
        (0, "compile", "2022-gcc", ""),
        (1, "compile", "2022-intel", ""),
        (2, "execute", "2022-gcc", "1"),
        (3, "execute", "2022-gcc", "2"),
        (4, "execute", "2022-gcc", "4"),
        (5, "execute", "2022-intel", "1"),
        (6, "execute", "2022-intel", "2"),
        (7, "execute", "2022-intel", "4"),
    ]
