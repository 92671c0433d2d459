"""JUBE constructs that say where things go: prepare output, do logs, file_path_ref,
result_dir and syslog, as JUBE 2.7's source handles them, checked on real runs."""

from __future__ import annotations

import os
import shutil
import socket
import sqlite3
from pathlib import Path

import pytest
import yaml
from hypothesis import example, given
from hypothesis import strategies as st

from jubex.api import load
from jubex.cli.main import main
from jubex.definition.jube.convert import convert_file
from jubex.definition.jube.sets import rebased
from jubex.errors import DefinitionError
from jubex.space.plan import plan, wp_dir_name
from jubex.workdir.prepare import StepPreparer
from jubex.workdir.writer import DiskWriter

CORPUS = Path(__file__).resolve().parent / "corpus"


def run(tmp_path: Path, name: str, *extra: str) -> Path:
    """Copy a corpus file (with what it copies) into ``tmp_path``, run it, return the run."""
    for item in (name, "data", "file.in"):
        source = CORPUS / item
        if source.is_dir():
            shutil.copytree(source, tmp_path / item)
        else:
            shutil.copy(source, tmp_path / item)
    runs = tmp_path / "runs"
    assert main(["run", str(tmp_path / name), "--outpath", str(runs), "-q", *extra]) == 0
    return runs / "000000"


def write(folder: Path, text: str, name: str = "bench.xml") -> Path:
    path = folder / name
    path.write_text(text)
    return path


# -- <prepare stdout stderr> ----------------------------------------------------------------


def test_prepare_output_goes_to_the_files_it_names_else_to_stdout_and_stderr(
    tmp_path: Path,
) -> None:
    ops = load(CORPUS / "logs.xml").filesets["files"].ops
    assert [(o.stdout, o.stderr, o.directory) for o in ops] == [
        ("prepare.out", "prepare.err", None),
        (None, None, "sub"),
    ]
    work = run(tmp_path, "logs.xml", "--no-result") / wp_dir_name(1, "run") / "work"
    assert (work / "prepare.out").read_text() == "prepared 2\n"
    assert (work / "prepare.err").read_text() == "warned\n"
    stdout = (work / "stdout").read_text().splitlines()
    assert stdout[:2] == ["in sub", str(work / "sub")]
    assert stdout[2:] == ["run 2", "hello", "two"] * 2


def test_a_failing_prepare_names_its_message_and_where_its_output_is(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '<jube><benchmark name="b" outpath="r"><fileset name="f">'
        '<prepare stderr="why">echo boom &gt;&amp;2; exit 3</prepare></fileset>'
        '<step name="s"><use>f</use><do>true</do></step></benchmark></jube>',
    )
    benchmark = load(path)
    with pytest.raises(DefinitionError) as caught:
        preparer = StepPreparer(benchmark, benchmark.steps["s"], home=tmp_path)
        preparer.prepare(0, tmp_path / "wp", {}, [], DiskWriter())
    assert caught.value.loc is not None and caught.value.loc.line == 1
    assert "failed with exit status 3: boom" in caught.value.message
    assert str(tmp_path / "wp" / "work" / "why") in caught.value.hint


# -- <step do_log_file> ---------------------------------------------------------------------


def _body(log: Path) -> list[str]:
    """The log without its environment lines (which depend on who runs the test)."""
    return [line for line in log.read_text().splitlines() if not line.startswith("set ")]


def test_the_do_log_mimics_each_workpackage_as_jube_writes_it(tmp_path: Path) -> None:
    run_dir = run(tmp_path, "logs.xml", "--no-result")
    log = run_dir / wp_dir_name(1, "run") / "do_log"
    work = run_dir / wp_dir_name(1, "run") / "work"
    assert "set greeting='hello'" in log.read_text().splitlines()
    cycle = [f"cd {work}", "echo run 2", f"cd {work}/sub", "echo $greeting", f"cd {work}"]
    assert _body(log) == ["#!/bin/sh", "", "", *cycle, "echo two", *cycle, "echo two"]
    first = run_dir / wp_dir_name(0, "run") / "do_log"
    assert "echo two" not in _body(first) and "echo run 1" in _body(first)
    posts = sorted(run_dir.glob("*_post/post_*.sh"))
    assert [p.name for p in posts] == ["post_1.sh", "post_2.sh"]
    assert _body(posts[1])[-2:] == [f"cd {posts[1].parent / 'work'}", "cat run/stdout"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [("true", "do_log"), ("True", "do_log"), ("false", None), ("None", None), ("x.sh", "x.sh")],
)
def test_do_log_file_reads_as_jube_reads_it(
    value: str, expected: str | None, tmp_path: Path
) -> None:
    path = write(
        tmp_path,
        f'<jube><benchmark name="b" outpath="r"><step name="s" do_log_file="{value}">'
        "<do>true</do></step></benchmark></jube>",
    )
    assert load(path).steps["s"].do_log_file == expected


def test_do_log_file_true_in_jubes_yaml(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "name: b\noutpath: r\nstep: {name: s, do_log_file: true, do: 'true'}\n",
        "bench.yaml",
    )
    assert load(path).steps["s"].do_log_file == "do_log"


# -- file_path_ref --------------------------------------------------------------------------


def test_file_path_ref_moves_where_relative_sources_start(tmp_path: Path) -> None:
    ops = load(CORPUS / "paths.xml").filesets["files"].ops
    assert [(o.source, o.source_dir, o.rel_path_ref) for o in ops] == [
        ("app.cfg", "data", "definition"),
        ("file.in", None, "definition"),
        ("app.cfg", "data", "definition"),
        ("app.cfg", None, "workdir"),
    ]
    work = run(tmp_path, "paths.xml", "--no-result") / wp_dir_name(0, "copy") / "work"
    config = (CORPUS / "data" / "app.cfg").read_text()
    assert (work / "app.cfg").read_text() == config
    assert (work / "file.in").read_text() == (CORPUS / "file.in").read_text()
    assert (work / "linked.cfg").is_symlink() and (work / "linked.cfg").read_text() == config
    assert (work / "again.cfg").read_text() == config


def test_an_included_fileset_keeps_its_file_path_ref_behind_the_benchmarks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "lib").mkdir()
    write(
        tmp_path / "lib",
        '<jube><fileset name="src"><copy file_path_ref="../shared">code.c</copy>'
        '<copy file_path_ref="$SRC_ROOT">abs.c</copy></fileset></jube>',
        "lib.xml",
    )
    monkeypatch.setenv("SRC_ROOT", "/opt/src")
    for bench_ref, expected in ((None, "shared"), ("base", "base/shared")):
        attribute = f' file_path_ref="{bench_ref}"' if bench_ref else ""
        path = write(
            tmp_path,
            f'<jube><benchmark name="b" outpath="r"{attribute}>'
            '<fileset name="src" init_with="lib/lib.xml"/>'
            '<step name="s"><use>src</use><do>ls</do></step></benchmark></jube>',
        )
        ops = load(path).filesets["src"].ops
        assert [o.source_dir for o in ops] == [expected, "/opt/src"]


_SEGMENTS = st.lists(st.sampled_from(["a", "b", "..", "."]), max_size=3).map(
    lambda parts: "/".join(parts) or "."
)


@given(_SEGMENTS, _SEGMENTS, st.none() | _SEGMENTS, st.sampled_from(["", "lib", "lib/deep"]))
@example(bench="a", own="../../..", source=None, sub="")  # past the root, then up again
def test_a_rebased_source_is_where_jube_looks(
    bench: str, own: str, source: str | None, sub: str
) -> None:
    home = Path("/site/bench")
    where = home / sub if sub else home
    # JUBE: benchmark file_path_ref / (a fileset of another file: its directory seen from the
    # main file, joined with) the copy's file_path_ref / source_dir / the file
    own_seen = os.path.relpath(os.path.join(where, own), home) if sub else own
    jube = os.path.normpath(os.path.join(home, bench, own_seen, source or "", "f"))
    mine = rebased(source, where, home, own, bench)
    assert os.path.normpath(os.path.join(home, mine or "", "f")) == jube


# -- <result result_dir> and <syslog> -------------------------------------------------------


@pytest.fixture
def listener() -> socket.socket:
    """A syslog daemon of our own: a UDP socket on localhost."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    sock.settimeout(5)
    yield sock
    sock.close()


def test_jubex_result_writes_result_dir_and_sends_syslog(
    tmp_path: Path, listener: socket.socket, capsys: pytest.CaptureFixture[str]
) -> None:
    port = listener.getsockname()[1]
    text = (CORPUS / "results.xml").read_text().replace('port="5514"', f'port="{port}"')
    (tmp_path / "results.xml").write_text(text)
    runs = tmp_path / "runs"
    assert main(["run", str(tmp_path / "results.xml"), "--outpath", str(runs), "-q"]) == 0
    listener.settimeout(0.2)
    with pytest.raises(TimeoutError):  # showing tables at the end of a run sends nothing
        listener.recv(4096)
    listener.settimeout(5)
    capsys.readouterr()
    assert main(["result", str(runs / "000000")]) == 0
    shown, notes = capsys.readouterr()  # a CSV table's notes go to standard error
    expected = yaml.safe_load((CORPUS / "results.expected.yaml").read_text())
    received = [listener.recv(4096) for _ in expected["syslog"]["to_syslog"]]
    assert [r.decode() for r in received] == [
        f"<14>jube[{os.getpid()}]: {line}\x00" for line in expected["syslog"]["to_syslog"]
    ]
    assert f"table 'to_syslog': 2 lines sent to syslog at localhost:{port}" in shown
    folder = tmp_path / "results_out" / "000000"
    written = (folder / "numbers.dat").read_text()
    assert written.splitlines() == ["number,number_pat,time[s]", "1,1,1.5", "2,2,1.5", "4,4,1.5"]
    assert f"written to {folder / 'numbers.dat'}" in notes
    with sqlite3.connect(folder / "numbers_db.dat") as db:
        assert db.execute("SELECT number, number_pat FROM numbers_db").fetchall() == [
            (1, 1),
            (2, 2),
            (4, 4),
        ]


def test_result_dir_starts_at_file_path_ref(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '<jube><benchmark name="b" outpath="r" file_path_ref="../up">'
        '<step name="s"><do>true</do></step><analyser name="a"><analyse step="s"/></analyser>'
        '<result result_dir="~/out"><use>a</use><table name="t"><column>x</column></table>'
        '</result><result result_dir="res"><use>a</use><table name="u"><column>x</column>'
        "</table></result></benchmark></jube>",
    )
    tables = load(path).tables
    assert tables["t"].result_dir == os.path.expanduser("~/out")
    assert tables["u"].result_dir == "../up/res"


@pytest.mark.parametrize(
    ("attributes", "message"),
    [
        ('host="h" address="/dev/log"', "names both an address and a host"),
        ("", "names no syslog daemon"),
        ('host="h" port="many"', 'attribute port="many" must be a whole number'),
    ],
)
def test_a_syslog_without_one_clear_daemon_is_refused(
    attributes: str, message: str, tmp_path: Path
) -> None:
    path = write(
        tmp_path,
        '<jube><benchmark name="b" outpath="r"><step name="s"><do>true</do></step>'
        '<analyser name="a"><analyse step="s"/></analyser><result><use>a</use>'
        f'<syslog name="l" {attributes}><key>x</key></syslog></result></benchmark></jube>',
    )
    with pytest.raises(DefinitionError) as caught:
        load(path)
    assert message in caught.value.message


# -- perl and shell -------------------------------------------------------------------------


def test_perl_and_shell_snippets_become_shell_commands_of_the_model() -> None:
    b = load(CORPUS / "scripting.xml")
    square = b.parametersets["param_set"].parameters["square"]
    assert (square.mode, square.values, square.type) == (
        "shell",
        ('perl -e "print $number ** 2"',),
        "int",
    )
    patterns = b.patternsets["pattern"].patterns
    assert (patterns["tripled"].mode, patterns["tripled"].regex) == (
        "shell",
        'perl -e "print $number_pat * 3"',
    )
    assert (patterns["label"].mode, patterns["from_missing"].default) == ("shell", "-1")
    points = [wp.point for wp in plan(b)]
    assert [(p["square"], p["word"]) for p in points] == [(1, "abc1"), (4, "abc2"), (16, "abc4")]


def test_a_failing_pattern_snippet_without_default_stops_the_analysis(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(
        tmp_path,
        '<jube><benchmark name="b" outpath="r"><step name="s"><do>echo v=1</do></step>'
        '<patternset name="p"><pattern name="v" type="int">v=$jube_pat_int</pattern>'
        '<pattern name="bad" mode="perl">$v +</pattern></patternset>'
        '<analyser name="a"><use>p</use><analyse step="s"><file>stdout</file></analyse>'
        "</analyser></benchmark></jube>",
    )
    assert main(["run", str(path), "--outpath", str(tmp_path / "runs"), "-q"]) == 2
    err = capsys.readouterr().err
    assert f"{path}:1" in err and "pattern 'bad'" in err and "perl -e" in err
    assert "syntax error" in err and "Traceback" not in err


# -- sets and max_async chosen by a parameter ----------------------------------------------


@pytest.mark.parametrize(("tags", "system", "cap"), [([], "juwels", 2), (["jureca"], "jureca", 1)])
def test_a_step_uses_the_sets_a_parameter_of_one_value_names(
    tags: list[str], system: str, cap: int
) -> None:
    steps = load(CORPUS / "chosen.xml", tags=tags).steps
    assert (steps["run"].use, steps["run"].use_files, steps["run"].max_async) == (
        ("platform", f"{system}_params"),
        (f"{system}_files",),
        cap,
    )
    assert steps["post"].use == (f"{system}_params",)


def test_a_chosen_set_may_choose_the_next(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '<jube><benchmark name="b" outpath="r">'
        '<parameterset name="a"><parameter name="next">b</parameter></parameterset>'
        '<parameterset name="b_set"><parameter name="last">c</parameter></parameterset>'
        '<parameterset name="c_set"><parameter name="x">1,2</parameter></parameterset>'
        '<step name="s"><use>${last}_set,a</use><use>${next}_set</use><do>echo $x</do></step>'
        "</benchmark></jube>",
    )
    assert load(path).steps["s"].use == ("a", "b_set", "c_set")
    assert "# jubex: <use>${last}_set</use> chose 'c_set'" in convert_file(path)


def test_a_set_named_by_a_parameter_of_several_values_is_left_to_planning(
    tmp_path: Path,
) -> None:
    path = write(
        tmp_path,
        '<jube><benchmark name="b" outpath="r"><parameterset name="p">'
        '<parameter name="n">1,2</parameter></parameterset>'
        '<step name="s"><use>p,set_$n</use><do>true</do></step></benchmark></jube>',
    )
    step = load(path).steps["s"]
    assert (step.use, step.chosen) == (("p",), ("set_$n",))


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("<use>set_$nowhere</use>", "('nowhere') that no set of step 's' or of the steps"),
        ("<use>p,$one</use>", "uses '$one', that is '1', which is no parameterset"),
        ("<use>p</use>", "step max_async=\"$n\" takes a parameter ('n') that has several"),
        ("<use>p</use>", 'max_async="$word" is "many", which is no whole number'),
    ],
)
def test_a_choice_jubex_cannot_make_while_reading_is_refused(
    body: str, message: str, tmp_path: Path
) -> None:
    cap = "$word" if "word" in message else "$n" if "max_async" in message else "0"
    path = write(
        tmp_path,
        '<jube><benchmark name="b" outpath="r"><parameterset name="p">'
        '<parameter name="n">1,2</parameter><parameter name="one">1</parameter>'
        '<parameter name="word">many</parameter><parameter name="d" mode="python">$one + 1'
        "</parameter></parameterset>"
        f'<step name="s" max_async="{cap}">{body}<do>true</do></step></benchmark></jube>',
    )
    with pytest.raises(DefinitionError) as caught:
        load(path)
    assert message in caught.value.message


def test_an_analyser_cannot_choose_its_patternsets_by_a_parameter(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '<jube><benchmark name="b" outpath="r"><step name="s"><do>true</do></step>'
        '<analyser name="a"><use>p_$i</use><analyse step="s"/></analyser></benchmark></jube>',
    )
    with pytest.raises(DefinitionError, match="JUBE allows in a step's <use> only"):
        load(path)


# -- jubex convert --------------------------------------------------------------------------


def test_convert_keeps_every_construct(tmp_path: Path) -> None:
    texts = {
        name: yaml.safe_load(convert_file(CORPUS / name, tmp_path / "out.yaml"))
        for name in ("logs.xml", "paths.xml", "scripting.xml", "results.xml")
    }
    files = texts["logs.xml"]["files"]["files"]
    assert files[0] == {
        "prepare": "echo prepared $number; echo warned >&2",
        "stdout": "prepare.out",
        "stderr": "prepare.err",
    }
    steps = texts["logs.xml"]["steps"]
    assert (steps["run"]["do_log_file"], steps["post"]["do_log_file"]) == (
        "do_log",
        "post_$number.sh",
    )
    corpus = os.path.relpath(CORPUS, tmp_path)
    copies = [op.get("source_dir") for op in texts["paths.xml"]["files"]["files"]]
    assert copies == [f"{corpus}/data", corpus, f"{corpus}/data", None]
    assert texts["scripting.xml"]["patterns"]["pattern"]["label"] == {
        "shell": 'echo "$word-$number_pat" | tr a-z A-Z'
    }
    results = texts["results.xml"]["results"]
    assert results["numbers"]["result_dir"] == f"{corpus}/results_out"
    assert results["to_syslog"]["syslog"] == {
        "host": "localhost",
        "port": 5514,
        "format": "jube[%(process)s]: %(message)s",
    }
