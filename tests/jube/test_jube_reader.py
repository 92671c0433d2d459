"""JUBE's elements land in the right fields of the model, and the model works downstream:
work directories are prepared as JUBE prepares them, and a run gives JUBE's table."""

from __future__ import annotations

import csv
import gc
import io
import shutil
from pathlib import Path

import pytest
import yaml

from jubex.api import load
from jubex.cli.main import main
from jubex.collector import one_command
from jubex.definition.jube import read_jube
from jubex.definition.model import AnalyseFile, Do, FileOp, IOFile, Sub
from jubex.errors import DefinitionError
from jubex.space.plan import plan, wp_dir_name
from jubex.workdir.prepare import StepPreparer
from jubex.workdir.writer import DiskWriter

CORPUS = Path(__file__).resolve().parent / "corpus"


def write(folder: Path, text: str, name: str = "bench.xml") -> Path:
    path = folder / name
    path.write_text(text)
    return path


def test_files_and_substitutions_map_onto_the_model() -> None:
    b = load(CORPUS / "files_and_sub.xml")
    ops = b.filesets["files"].ops
    assert [(o.kind, o.source, o.target, o.source_dir, o.target_dir) for o in ops] == [
        ("copy", "file.in", None, None, None),
        ("copy", "app.cfg", "first.cfg", "data", None),
        ("copy", "app.cfg", "second.cfg", "data", None),
        ("link", "file.in", None, None, "links"),
        ("prepare", "mkdir -p made_by_prepare", None, None, None),
    ]
    assert ops[4] == FileOp(
        "prepare", "mkdir -p made_by_prepare", directory=".", active="number > 1", loc=ops[4].loc
    )
    subs = b.substitutesets["substitute"]
    assert [(f.source, f.target, f.out_mode) for f in subs.iofiles] == [
        ("file.in", "file.out", "w"),
        ("first.cfg", "first.cfg", "w"),
    ]
    assert [(s.source, s.dest, s.mode) for s in subs.subs] == [
        ("#NUMBER#", "$number", "text"),
        ("#[^NUMBER]+#", "$zahl", "regex"),
        ("#THREADS#", "$number\n# threads above", "text"),
    ]
    assert b.steps["sub_step"].use == ("param_set",)
    assert b.steps["sub_step"].use_files == ("files", "substitute")


def test_work_directories_are_prepared_as_jube_prepares_them(tmp_path: Path) -> None:
    b = load(CORPUS / "files_and_sub.xml")
    step = b.steps["sub_step"]
    preparer = StepPreparer(b, step, home=Path(b.file).parent)
    for wp in plan(b):
        wp_dir = tmp_path / wp_dir_name(wp.id, wp.step)
        prepared = preparer.prepare(wp.id, wp_dir, wp.point, [], DiskWriter())
        work = prepared.workdir
        n, zahl = wp.point["number"], wp.point["zahl"]
        assert (work / "file.out").read_text() == f"Number: {n}\nZahl: {zahl}\n"
        assert (work / "first.cfg").read_text() == f"threads={n}\n# threads above\n"
        assert (work / "second.cfg").read_text() == "threads=#THREADS#\n"
        assert (work / "links" / "file.in").is_symlink()
        assert (work / "made_by_prepare").is_dir() == (n > 1)


def test_steps_and_operations_keep_every_attribute(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """<jube><benchmark name="b" outpath="r">
      <parameterset name="p">
        <parameter name="n" export="true" unit="B" update_mode="step">1</parameter>
        <parameter name="home" mode="env">HOME</parameter>
        <parameter name="host" mode="shell">echo $n</parameter></parameterset>
      <step name="s" work_dir="/scratch/$n" suffix="_$n" shared="common" active="$n == 1"
            export="true" max_async="4" procs="2" cycles="3" iterations="2">
        <use>p</use>
        <do done_file="ready" error_file="failed" break_file="stop" stdout="o" stderr="e"
            work_dir="sub" active="'$host' != 'x'">submit job</do>
      </step>
      <step name="t" shared="pool"><do shared="true">echo once</do><do>echo each</do></step>
    </benchmark></jube>""",
    )
    b = load(path)
    s = b.steps["s"]
    assert (s.work_dir, s.suffix, s.shared, s.active, s.export) == (
        "/scratch/$n",
        "_$n",
        "common",
        "n == 1",
        True,
    )
    assert (s.max_async, s.procs, s.cycles, s.iterations) == (4, 2, 3, 2)
    assert s.do == [
        Do(
            "submit job",
            active="(str(host)) != 'x'",
            done_file="ready",
            error_file="failed",
            break_file="stop",
            work_dir="sub",
            stdout="o",
            stderr="e",
            loc=s.do[0].loc,
        )
    ]
    assert [(d.command, d.shared) for d in b.steps["t"].do] == [
        ("echo once", True),
        ("echo each", False),
    ]
    p = b.parametersets["p"].parameters
    assert (p["n"].export, p["n"].unit, p["n"].update_mode, p["n"].type) == (
        True,
        "B",
        "step",
        "auto",
    )
    assert (p["home"].mode, p["home"].values, p["host"].mode) == ("env", ("HOME",), "shell")


def test_analysers_and_results_map_onto_tables(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """<jube><benchmark name="b" outpath="r">
      <patternset name="ps">
        <pattern name="v" type="float" unit="s" dotall="true">v=$jube_pat_fp</pattern>
      </patternset>
      <patternset name="extra"><pattern name="w" mode="text">w$v</pattern></patternset>
      <step name="one"><do>echo</do></step><step name="two"><do>echo</do></step>
      <analyser name="an" reduce="false"><use>ps</use>
        <analyse step="one"><file use="extra">out.log,err.log</file></analyse>
        <analyse step="two"><file>stdout</file></analyse>
      </analyser>
      <result><use>an</use>
        <table name="t" sort="v,w" separator=";" transpose="true" filter="$v &gt; 1">
          <column colw="9" title="value" format=".2f">v_avg</column><column>w</column>
        </table>
      </result>
    </benchmark></jube>""",
    )
    loaded = read_jube(path)
    b = loaded.benchmark
    assert list(b.analysers) == ["an", "an.two"]
    first, second = b.analysers.values()
    assert (first.step, first.use, first.reduce) == ("one", ("ps",), False)
    assert first.files == [
        AnalyseFile("out.log", ("extra",), first.files[0].loc),
        AnalyseFile("err.log", ("extra",), first.files[1].loc),
    ]
    assert (second.step, [f.path for f in second.files]) == ("two", ["stdout"])
    pattern = b.patternsets["ps"].patterns["v"]
    assert (pattern.type, pattern.unit, pattern.dotall, pattern.mode) == (
        "float",
        "s",
        True,
        "pattern",
    )
    assert b.patternsets["extra"].patterns["w"].regex == "'w' + str(v)"
    table = b.tables["t"]
    assert (table.use, table.sort, table.separator, table.transpose, table.filter, table.style) == (
        ("an", "an.two"),
        ("v", "w"),
        ";",
        True,
        "v > 1",
        "csv",
    )
    assert [(c.name, c.title, c.format) for c in table.columns] == [
        ("v_avg", "value", ".2f"),
        ("w", None, None),
    ]
    assert ("results", "t", "column v_avg: width 9 is not kept; jubex sizes columns itself") in (
        loaded.notes
    )


@pytest.mark.parametrize("how", ["tag", "command line", "environment"])
def test_include_path_comes_from_tags_command_line_or_environment(
    how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = CORPUS / "include" / "site.xml"
    with pytest.raises(DefinitionError, match=r"'machine\.xml' not found"):
        load(site)
    if how == "tag":
        b = load(site, tags=["site"])
    elif how == "command line":
        b = load(site, include_path=[CORPUS / "include" / "plat"])
    else:
        monkeypatch.setenv("JUBE_INCLUDE_PATH", f"/nonexistent:{CORPUS / 'include' / 'plat'}")
        b = load(site)
    assert b.parametersets["machine"].parameters["partition"].values == ("batch",)


def test_included_fileset_paths_point_where_they_pointed(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    write(
        tmp_path / "lib",
        '<jube><fileset name="src"><copy>code.c</copy>'
        '<copy source_dir="/abs">x</copy></fileset></jube>',
        "lib.xml",
    )
    path = write(
        tmp_path,
        '<jube><benchmark name="b" outpath="r">'
        '<fileset name="src" init_with="lib/lib.xml"><link>local.dat</link></fileset>'
        '<step name="s"><use>src</use><do>ls</do></step></benchmark></jube>',
    )
    ops = load(path).filesets["src"].ops
    assert [(o.kind, o.source, o.source_dir) for o in ops] == [
        ("copy", "code.c", "lib"),
        ("copy", "x", "/abs"),
        ("link", "local.dat", None),
    ]


def test_substituteset_init_with_replaces_by_out_and_source(tmp_path: Path) -> None:
    write(
        tmp_path,
        '<jube><substituteset name="s"><iofile in="a" out="b"/><iofile in="c" out="d"/>'
        '<sub source="#A#" dest="1"/><sub source="#B#" dest="2"/></substituteset></jube>',
        "base.xml",
    )
    path = write(
        tmp_path,
        '<jube><benchmark name="b" outpath="r">'
        '<substituteset name="s" init_with="base.xml"><iofile in="e" out="b" out_mode="a"/>'
        '<sub source="#B#">3</sub></substituteset></benchmark></jube>',
    )
    subs = load(path).substitutesets["s"]
    assert [(f.source, f.target, f.out_mode) for f in subs.iofiles] == [
        ("c", "d", "w"),
        ("e", "b", "a"),
    ]
    assert [(s.source, s.dest) for s in subs.subs] == [("#A#", "1"), ("#B#", "3")]
    assert all(isinstance(x, IOFile) for x in subs.iofiles) and isinstance(subs.subs[0], Sub)


@pytest.mark.parametrize("name", ["analysis", "scripting", "results"])
def test_a_run_of_a_jube_file_gives_jubes_table(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(CORPUS / f"{name}.xml", tmp_path)
    runs = tmp_path / "runs"
    assert (
        main(["run", str(tmp_path / f"{name}.xml"), "--outpath", str(runs), "-q", "--no-result"])
        == 0
    )
    capsys.readouterr()
    tables = yaml.safe_load((CORPUS / f"{name}.expected.yaml").read_text())["table"]
    ((table, expected),) = tables.items()
    assert main(["result", str(runs / "000000"), "-T", table, "-f", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out.strip()), restkey="#"))
    rows = [row for row in rows if not next(iter(row.values())).startswith("#")]
    assert len(rows) == len(expected)
    for row, want in zip(rows, expected, strict=True):
        cells = {key.split("[")[0].rstrip(): value for key, value in row.items()}
        for name, value in want.items():
            assert _same(cells[name], value), (name, cells[name], value)


def _same(got: str, want: str) -> bool:
    try:
        return float(got) == float(want)
    except ValueError:
        return got == want


def test_use_from_loads_sets_of_several_files_by_name(tmp_path: Path) -> None:
    write(
        tmp_path,
        '<jube><parameterset name="s1"><parameter name="a">1,2</parameter></parameterset></jube>',
        "one.xml",
    )
    write(tmp_path, 'parameterset: {name: s2, parameter: {name: b, _: "x"}}\n', "two.yaml")
    path = write(
        tmp_path,
        """<jube><benchmark name="b" outpath="r">
      <parameterset name="s1"><parameter name="local">yes</parameter></parameterset>
      <parameterset name="own"><parameter name="c">3</parameter></parameterset>
      <step name="s"><use from="one.xml:s1,two.yaml:s2">s1,s2</use><use from=":own">own</use>
        <do>echo $a $b</do></step>
    </benchmark></jube>""",
    )
    loaded = read_jube(path)
    b = loaded.benchmark
    assert b.steps["s"].use == ("one.s1", "s2", "bench.own")
    assert b.parametersets["one.s1"].parameters["a"].values == ("1", "2")
    assert b.parametersets["s1"].parameters["local"].values == ("yes",)
    assert sorted(str(wp.point["a"]) + str(wp.point["b"]) for wp in plan(b)) == ["1x", "2x"]
    assert ("sets", "s2", "from two.yaml (<use from>)") in loaded.notes


def test_a_computed_number_jube_cannot_compute_shows_nan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # JUBE 2.7.1 shows nan for a python, shell or perl pattern of a number type whose
    # evaluation fails (here: it reads a pattern that matched nothing, or its command
    # fails), "" for a string, and the default where there is one.
    path = write(
        tmp_path,
        """<jube><benchmark name="b" outpath="runs">
          <step name="s"><do>echo v=3</do></step>
          <patternset name="p">
            <pattern name="v" type="int">v=$jube_pat_int</pattern>
            <pattern name="gone" type="int">w=$jube_pat_int</pattern>
            <pattern name="py" type="int" mode="python">$gone*$v</pattern>
            <pattern name="sh" type="float" mode="shell">exit 1</pattern>
            <pattern name="text" mode="python">$gone*$v</pattern>
            <pattern name="given" type="int" mode="python" default="7">$v/0</pattern>
          </patternset>
          <analyser name="a"><use>p</use><analyse step="s"><file>stdout</file></analyse></analyser>
          <result><use>a</use><table name="t" style="csv">
            <column>v</column><column>gone</column><column>py</column><column>sh</column>
            <column>text</column><column>given</column></table></result>
        </benchmark></jube>""",
    )
    patterns = load(path).patternsets["p"].patterns
    assert [patterns[n].default for n in ("gone", "py", "sh", "text", "given")] == [
        None,
        "nan",
        "nan",
        None,
        "7",
    ]
    runs = tmp_path / "runs"
    assert main(["run", str(path), "--outpath", str(runs), "-q", "--no-result"]) == 0
    capsys.readouterr()
    assert main(["result", str(runs / "000000"), "-T", "t", "-f", "csv"]) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln and ln[0] != "#"]
    assert lines == ["v,gone,py,sh,text,given", "3,,nan,nan,,7"]


def test_a_yaml_attribute_given_as_a_list_is_what_jubes_yaml_makes_of_it() -> None:
    # JUBE 2.7.1's YAML converter: an element with children of its own sets the attribute
    # once per item (the last stays, an empty list sets none); any other element gets the
    # list's Python text.
    from jubex.definition.jube.yaml_reader import read_yaml

    text = """name: b
outpath: [first, runs]
parameterset:
  name: p
  parameter: {name: n, separator: [";", ","], _: "1;2"}
step:
  name: c
  depend: [a, x]
  tag: []
  do: echo
"""
    benchmark = read_yaml(text, "b.yaml").children[0]
    assert benchmark.attrs["outpath"] == "runs"
    parameter = benchmark.children[0].children[0]
    assert parameter.attrs["separator"] == "[';', ',']"
    step = benchmark.children[1]
    assert step.attrs == {"name": "c", "depend": "x"}


def test_a_files_tree_read_in_one_command_is_out_of_the_collectors_sight(
    tmp_path: Path,
) -> None:
    """Each full collection walked the whole prepared file again while its benchmarks
    were read: a third of validating a file of 10,000 benchmarks. The tree is kept to
    the end of the command, and frozen (still freed by its count, never walked again)."""
    benchmarks = "".join(
        f'<benchmark name="b{i}" outpath="runs"><step name="s">echo {i}</step></benchmark>'
        for i in range(3)
    )
    path = write(tmp_path, f"<jube>{benchmarks}</jube>")
    before = gc.get_freeze_count()
    one_command()
    try:
        loaded = read_jube(path, benchmark="b1")
        assert loaded.benchmark.name == "b1"
        assert gc.get_freeze_count() > before
        assert not any(obj is loaded.jube.root for obj in gc.get_objects())
    finally:
        one_command(False)
        gc.unfreeze()


def test_a_files_tree_read_by_a_library_caller_stays_in_the_collectors_sight(
    tmp_path: Path,
) -> None:
    path = write(
        tmp_path,
        '<jube><benchmark name="b" outpath="runs"><step name="s">echo</step></benchmark></jube>',
    )
    loaded = read_jube(path)
    assert any(obj is loaded.jube.root for obj in gc.get_objects())
