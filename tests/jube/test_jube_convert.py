"""``jubex convert``: the YAML it writes validates and spans the same workpackages."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
import yaml

from jubex.api import load, validate
from jubex.cli.main import main
from jubex.definition.jube.convert import convert_file
from jubex.errors import DefinitionWarning
from jubex.space.plan import plan

CORPUS = Path(__file__).resolve().parent / "corpus"
CONVERTIBLE = [
    ("hello.xml", []),
    ("space.xml", []),
    ("space.yaml", []),
    ("dependencies.xml", []),
    ("scripts.xml", []),
    ("tagging.xml", ["eng", "few", "many"]),
    ("tagging.yaml", ["deu"]),
    ("include/main.xml", []),
    ("include/site.xml", ["site"]),
    ("files_and_sub.xml", []),
    ("jobsystem.yaml", []),
    ("analysis.xml", []),
    ("selection.xml", []),
    ("logs.xml", []),
    ("paths.xml", []),
    ("scripting.xml", []),
    ("results.xml", []),
    ("chosen.xml", []),
    ("chosen.xml", ["jureca"]),
    ("suite_idioms.xml", []),
]


def workpackages(path: Path, tags: list[str]) -> Counter:
    benchmark = load(path, tags=tags)
    return Counter(
        (wp.step, json.dumps({k: str(v) for k, v in wp.point.items()}, sort_keys=True))
        for wp in plan(benchmark, tags=tags)
    )


@pytest.mark.parametrize(
    ("name", "tags"), CONVERTIBLE, ids=[f"{n}-{'+'.join(t)}" for n, t in CONVERTIBLE]
)
def test_converted_file_validates_and_plans_the_same(
    name: str, tags: list[str], tmp_path: Path
) -> None:
    source = CORPUS / name
    out = tmp_path / "converted.yaml"
    out.write_text(convert_file(source, out, tags=tags))
    problems = [p for p in validate([out], tags) if not isinstance(p, DefinitionWarning)]
    assert problems == []
    assert workpackages(out, tags) == workpackages(source, tags)


def test_jubex_info_shows_the_same_space(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = CORPUS / "scripts.xml"
    out = tmp_path / "scripts.yaml"
    assert main(["convert", str(source), "-o", str(out)]) == 0
    capsys.readouterr()

    def info(path: Path) -> dict:
        assert main(["info", str(path), "--all", "-f", "json"]) == 0
        shown = json.loads(capsys.readouterr().out)
        rows = Counter(
            json.dumps(dict(zip(shown["columns"], r, strict=True)), sort_keys=True)
            for r in shown["rows"]
        )
        return {"points": shown["points"], "rows": rows, "workpackages": shown["workpackages"]}

    assert info(out) == info(source)


def test_what_cannot_be_said_is_flagged_where_it_happened(tmp_path: Path) -> None:
    out = tmp_path / "tagging.yaml"
    text = convert_file(CORPUS / "tagging.xml", out, tags=["eng"])
    assert "read for tags: base, eng" in text.splitlines()[0]
    assert '# jubex: left out for these tags: <parameter name="hello" tag="deu">' in text
    assert "tagging.xml:10" in text
    scripts = convert_file(CORPUS / "scripts.xml", out)
    lines = scripts.splitlines()
    flag = lines.index(next(line for line in lines if "values worked out from the python" in line))
    assert lines[flag + 1].strip() == "calc:"
    analysis = yaml.safe_load(convert_file(CORPUS / "analysis.xml", out))
    assert analysis["results"]["results"]["database"] == "all_results.dat"
    assert analysis["results"]["results"]["primekeys"] == ["number", "number_pat"]
    double = {"expr": "number_pat * 2", "type": "int", "default": "nan"}  # as JUBE shows it
    assert analysis["patterns"]["pattern"]["double"] == double


def test_relative_paths_are_rebased_onto_the_output_folder(tmp_path: Path) -> None:
    folder = tmp_path / "deep" / "er"
    folder.mkdir(parents=True)
    out = folder / "files.yaml"
    data = yaml.safe_load(convert_file(CORPUS / "files_and_sub.xml", out))
    back = Path("..", "..")
    assert data["outpath"] == "runs"  # runs go beside the converted file, not the source
    first = data["files"]["files"][0]
    assert (folder / first["source_dir"] / first["copy"]).resolve() == CORPUS / "file.in"
    assert data["files"]["files"][1]["source_dir"].endswith("corpus/data")
    assert str(back) not in data["substitutions"]["substitute"]["files"][0]["in"]


def test_cli_writes_stdout_or_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["convert", str(CORPUS / "hello.xml")]) == 0
    printed = yaml.safe_load(capsys.readouterr().out)
    assert printed["steps"] == {"say": {"use": ["greeting"], "do": ["echo $text"]}}
    copy = tmp_path / "hello.xml"
    shutil.copy(CORPUS / "hello.xml", copy)
    assert main(["convert", str(copy), "-o", str(tmp_path / "hello.yaml")]) == 0
    assert yaml.safe_load((tmp_path / "hello.yaml").read_text()) == printed


def test_cli_refuses_a_jubex_file_and_a_missing_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = tmp_path / "mine.yaml"
    mine.write_text("name: x\nsteps: {run: {do: echo}}\n")
    assert main(["convert", str(mine)]) == 2
    assert "is a jubex definition already" in capsys.readouterr().err
    assert main(["convert", str(tmp_path / "none.xml")]) == 2
    assert "no such file: " in capsys.readouterr().err


def test_names_the_concise_spelling_refuses_are_renamed_and_flagged(tmp_path: Path) -> None:
    source = tmp_path / "odd.xml"
    source.write_text(
        '<jube><benchmark name="odd names" outpath="r">'
        '<parameterset name="2nd set"><parameter name="x">1,2</parameter></parameterset>'
        '<step name="run it"><use>2nd set</use><do>echo $x</do></step>'
        '<step name="after" depend="run it"><do>echo</do></step>'
        "</benchmark></jube>"
    )
    out = tmp_path / "odd.yaml"
    text = convert_file(source, out)
    out.write_text(text)
    data = yaml.safe_load(text)
    assert data["name"] == "odd names", "a benchmark's name is a label: kept as it is"
    assert set(data["parametersets"]) == {"_2nd_set"}
    assert data["steps"]["after"]["depend"] == ["run_it"]
    assert "# jubex: called '2nd set' in the JUBE file" in text
    assert [p for p in validate([out]) if not isinstance(p, DefinitionWarning)] == []


NAMES_NOTHING = """<jube><benchmark name="b" outpath="runs">
  <parameterset name="p"><parameter name="n">2,1,3</parameter></parameterset>
  <step name="s"><use>p</use><do>echo v=$n</do></step>
  <patternset name="pat"><pattern name="v" type="int">v=$jube_pat_int</pattern></patternset>
  <analyser name="a"><use>pat</use><analyse step="s"><file>stdout</file></analyse></analyser>
  <result><use>a</use>
    <table name="t" style="csv" sort="gone,n"><column>n</column><column>gone</column>
      <column>v</column></table>
    <table name="u" style="csv" sort="n,gone,v"><column>n</column></table>
  </result>
</benchmark></jube>"""


def test_a_table_naming_nothing_shows_as_in_jube_before_and_after_convert(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # JUBE 2.7.1 shows t as n,gone,v / 2,,2 / 1,,1 / 3,,3: the column naming nothing empty,
    # and the rows in their order, since its first sort key names nothing.
    source = tmp_path / "t.xml"
    source.write_text(NAMES_NOTHING)
    converted = tmp_path / "t.yaml"
    text = convert_file(source, converted)
    converted.write_text(text)
    assert "# jubex: column 'gone' names nothing" in text
    assert "# jubex: sort key 'gone' names nothing" in text
    assert validate([converted]) == []
    tables = yaml.safe_load(text)["results"]
    assert "sort" not in tables["t"] and tables["u"]["sort"] == ["n"]
    for definition in (source, converted):
        runs = tmp_path / f"runs-{definition.suffix[1:]}"
        assert main(["run", str(definition), "--outpath", str(runs), "-q", "--no-result"]) == 0
        capsys.readouterr()
        assert main(["result", str(runs / "000000"), "-T", "t", "-f", "csv"]) == 0
        lines = [ln for ln in capsys.readouterr().out.splitlines() if ln and ln[0] != "#"]
        assert lines == ["n,gone,v", "2,,2", "1,,1", "3,,3"]
