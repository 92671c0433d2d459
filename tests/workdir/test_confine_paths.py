"""Nothing a definition names is written outside its work directory unless it says so.

Each hostile file is run (or dry-run) for real; the error must name the file and line, and
nothing may appear outside the run.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jubex.cli.main import main
from jubex.definition.model import Benchmark, FileOp, FileSet, Step
from jubex.errors import DefinitionError
from jubex.store.rundir import open_run
from jubex.workdir.prepare import StepPreparer
from jubex.workdir.writer import Confine, DiskWriter, DryWriter


def run(tmp_path: Path, text: str, *args: str) -> int:
    (tmp_path / "input.txt").write_text("in\n")
    (tmp_path / "d.yaml").write_text(text)
    return main(["run", str(tmp_path / "d.yaml"), "--outpath", str(tmp_path / "runs"), "-q", *args])


def failure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """Why the run failed: the CLI's error (a dry run, planning) or the workpackages' reasons
    (a workpackage that cannot be prepared fails, as its step's others may still run)."""
    reasons = []
    if (tmp_path / "runs" / "000000").is_dir():
        reasons = [wp.reason for wp in open_run(tmp_path / "runs" / "000000").store.workpackages()]
    return capsys.readouterr().err + "\n".join(reasons)


def outside_the_run(tmp_path: Path) -> list[str]:
    """Every file the test did not make itself, outside the run directory."""
    return sorted(
        str(p.relative_to(tmp_path))
        for p in tmp_path.rglob("*")
        if "runs" not in p.relative_to(tmp_path).parts and p.name not in ("input.txt", "d.yaml")
    )


HOSTILE_TARGET = """\
name: t
parameters:
  where: ["{where}"]
files:
  f:
    - copy: input.txt
      {key}: $where
steps:
  s:
    files: [f]
    do: cat input.txt
"""


@pytest.mark.parametrize(
    ("key", "where"),
    [("to", "../../../evil.txt"), ("to", "{tmp}/evil.txt"), ("target_dir", "../../..")],
)
@pytest.mark.parametrize("dry", [False, True])
def test_a_copy_target_that_leads_out_is_refused_when_rendered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key: str, where: str, dry: bool
) -> None:
    text = HOSTILE_TARGET.format(key=key, where=where.format(tmp=tmp_path))
    # the dry run refuses the definition (bad input); a run records a failed workpackage
    assert run(tmp_path, text, *(["--dry-run"] if dry else [])) == (2 if dry else 1)
    err = failure(tmp_path, capsys)
    assert f"{tmp_path / 'd.yaml'}:6:7: " in err and "the copy target" in err
    assert "outside the work directory" in err and "outside: true" in err
    assert outside_the_run(tmp_path) == []


def test_a_literal_target_that_leads_out_is_refused_by_validate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "d.yaml").write_text(
        "name: t\nfiles:\n  f: [{link: input.txt, to: /etc/x}]\n"
        "substitutions:\n  s: {files: [{in: a, out: ../../b}], replace: {x: y}}\n"
        "steps:\n  s: {suffix: /../.., files: [f, s], do: 'true'}\n"
    )
    assert main(["validate", str(tmp_path / "d.yaml")]) == 2
    err = capsys.readouterr().out
    assert "d.yaml:3:7: error: the link target '/etc/x' is an absolute path" in err
    assert "d.yaml:5:15: error: the substitution target '../../b' climbs out" in err
    assert "d.yaml:7:3: error: the suffix '/../..' of step 's' climbs out" in err


def test_a_substitution_output_that_leads_out_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (
        "name: t\nparameters:\n  o: ['../../../out.txt']\nfiles:\n  f: [{copy: input.txt}]\n"
        "substitutions:\n  s: {files: [{in: input.txt, out: $o}], replace: {in: out}}\n"
        "steps:\n  s: {files: [f, s], do: 'true'}\n"
    )
    assert run(tmp_path, text) == 1
    assert "d.yaml:7:15: the substitution target" in failure(tmp_path, capsys)
    assert outside_the_run(tmp_path) == []


def test_a_suffix_that_climbs_out_is_refused_when_planned(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "name: t\nparameters:\n  x: ['/../../../away']\nsteps:\n  s: {suffix: $x, do: 'true'}\n"
    assert run(tmp_path, text) == 2
    assert "d.yaml:5:3: error: the suffix '/../../../away' of step 's'" in failure(tmp_path, capsys)
    assert outside_the_run(tmp_path) == []


def test_a_link_leading_out_does_not_let_a_later_copy_write_through_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "elsewhere").mkdir()
    text = (
        "name: t\nfiles:\n  f:\n    - {link: elsewhere, to: door}\n"
        "    - {copy: input.txt, target_dir: door}\n"
        "steps:\n  s: {files: [f], do: 'true'}\n"
    )
    assert run(tmp_path, text) == 1
    err = failure(tmp_path, capsys)
    assert "d.yaml:5:7: " in err and "through a symbolic link" in err
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_outside_true_allows_it(tmp_path: Path) -> None:
    text = (
        "name: t\nfiles:\n  f: [{copy: input.txt, to: ../../../../got.txt, outside: true}]\n"
        "steps:\n  s: {files: [f], do: 'true'}\n"
    )
    assert run(tmp_path, text) == 0
    assert (tmp_path / "got.txt").read_text() == "in\n"


def test_a_jube_file_that_copies_out_runs_with_a_warning_naming_the_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "input.txt").write_text("in\n")
    (tmp_path / "j.xml").write_text(
        '<jube><benchmark name="j" outpath="runs">\n'
        '<fileset name="f"><copy name="../../../../got.txt">input.txt</copy></fileset>\n'
        '<step name="s"><use>f</use><do>true</do></step>\n'
        "</benchmark></jube>\n"
    )
    assert main(["run", str(tmp_path / "j.xml"), "-q"]) == 0
    err = capsys.readouterr().err
    assert "j.xml:2:" in err and "warning: the copy target '../../../../got.txt'" in err
    assert (tmp_path / "got.txt").read_text() == "in\n"


def test_a_copied_tree_does_not_write_through_a_link_already_in_the_work_directory(
    tmp_path: Path,
) -> None:
    work, away, tree = tmp_path / "work", tmp_path / "away", tmp_path / "tree"
    for directory in (work / "dst", away, tree / "sub"):
        directory.mkdir(parents=True)
    (tree / "sub" / "f").write_text("x")
    (work / "dst" / "sub").symlink_to(away)
    with pytest.raises(DefinitionError, match="through a symbolic link"):
        DiskWriter().copy(tree, work / "dst", within=Confine(work))
    assert list(away.iterdir()) == []


PART = st.sampled_from(["a", "..", ".", "b", "", "/", "c/.."])


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    target_dir=st.lists(PART, max_size=4).map("/".join),
    to=st.lists(PART, min_size=1, max_size=4).map("/".join),
)
def test_every_planned_copy_lands_in_the_work_directory_or_is_refused(
    tmp_path: Path, target_dir: str, to: str
) -> None:
    (tmp_path / "input.txt").write_text("in\n")
    op = FileOp("copy", "input.txt", target=to or None, target_dir=target_dir or None)
    step = Step("s", use=("f",))
    benchmark = Benchmark("b", filesets={"f": FileSet("f", [op])}, steps={"s": step})
    preparer = StepPreparer(benchmark, step, home=tmp_path)
    writer = DryWriter()
    wp_dir = tmp_path / "runs" / "000000" / "000000_s"
    try:
        preparer.prepare(0, wp_dir, {}, [], writer)
    except DefinitionError as exc:
        assert "outside the work directory" in str(exc)
        return
    work = (wp_dir / "work").resolve()
    copies = [a.split(" -> ")[1] for a in writer.actions if a.startswith("copy ")]
    assert copies
    for target in copies:
        landed = Path(target).resolve()
        assert landed == work or work in landed.parents


def test_a_jube_suffix_that_climbs_out_is_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "j.xml").write_text(
        '<jube><benchmark name="j" outpath="runs">\n'
        '<step name="s" suffix="/../elsewhere"><do>true</do></step>\n'
        "</benchmark></jube>\n"
    )
    assert main(["run", str(tmp_path / "j.xml"), "--outpath", str(tmp_path / "runs"), "-q"]) == 0
    err = capsys.readouterr().err
    assert "j.xml:2: warning: the suffix '/../elsewhere' of step 's' climbs out" in err


def test_directory_names_where_a_copy_comes_from_not_where_it_goes(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "in.dat").write_text("d\n")
    text = (
        "name: t\nfiles:\n  f: [{copy: in.dat, directory: data}]\n"
        "steps:\n  s: {files: [f], do: cat in.dat}\n"
    )
    assert run(tmp_path, text) == 0
    assert (tmp_path / "runs" / "000000" / "000000_s" / "work" / "stdout").read_text() == "d\n"


def test_the_xml_spelling_says_outside_as_an_attribute(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "x.xml").write_text(
        '<jubex name="x">\n<fileset name="f">\n'
        '<copy to="../../a.txt" outside="true">input.txt</copy>\n'
        '<copy to="../b.txt">input.txt</copy>\n</fileset>\n'
        '<substituteset name="s"><iofile in="i" out="/o" outside="true"/></substituteset>\n'
        '<step name="s" files="f, s"><do>true</do></step>\n</jubex>\n'
    )
    assert main(["validate", str(tmp_path / "x.xml")]) == 2
    out = capsys.readouterr().out
    assert "x.xml:4: error: the copy target '../b.txt' climbs out" in out
    assert "1 error(s)" in out


def test_an_absolute_target_in_the_work_directory_stays_in(tmp_path: Path) -> None:
    """A suite names its substitution output by the run directory and the workpackage's
    id (``${jube_benchmark_rundir}/${jube_wp_padid}_s/work/...``): it lands in the work
    directory, so it is written; the same path one level up is refused."""
    inside = "${jube_benchmark_rundir}/${jube_wp_padid}_s/work/job.run"
    text = (
        "name: t\nfiles:\n  f: [{copy: input.txt}]\n"
        "substitutions:\n  s: {files: [{in: input.txt, out: 'WHERE'}], replace: {in: out}}\n"
        "steps:\n  s: {files: [f, s], do: cat job.run}\n"
    )
    assert run(tmp_path, text.replace("WHERE", inside)) == 0
    assert (tmp_path / "runs/000000/000000_s/work/job.run").read_text() == "out\n"
    assert run(tmp_path, text.replace("WHERE", "${jube_benchmark_rundir}/job.run")) == 1
    assert not (tmp_path / "runs/000001/job.run").exists()
    assert outside_the_run(tmp_path) == []
