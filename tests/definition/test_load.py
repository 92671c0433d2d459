"""Dispatch by content, includes and their search path, JUBE files, all problems at once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from jubex.api import load, validate
from jubex.errors import DefinitionError, DefinitionWarning, ErrorList, UsageError

Write = Callable[[str, str], Path]


def test_content_decides_the_spelling_not_the_suffix(write: Write) -> None:
    xml = write(
        "a.def",
        '<jubex name="x"><parameters><parameter name="a">1,2</parameter></parameters></jubex>',
    )
    yml = write("b.def", "name: y\nparameters: {a: [1, 2]}\n")
    assert load(xml).parametersets["parameters"].parameters["a"].values == ("1", "2")
    assert load(yml).parametersets["parameters"].parameters["a"].values == ("1", "2")


@pytest.mark.parametrize(
    "name, text",
    [
        ("j.xml", '<?xml version="1.0"?>\n<jube><benchmark name="b" outpath="r"/></jube>\n'),
        ("j.yaml", "name: b\noutpath: r\nparameterset:\n  name: p\n  parameter: {name: a, _: 1}\n"),
        ("k.yaml", "benchmark:\n  - name: b\n    outpath: r\n"),
    ],
)
def test_jube_files_are_recognised_and_sent_to_the_jube_loader(
    write: Write, name: str, text: str
) -> None:
    assert load(write(name, text)).name == "b"


def test_an_unknown_xml_root_is_refused(write: Write) -> None:
    with pytest.raises(DefinitionError, match=r"root element <benchmark> .* expected <jubex>"):
        load(write("r.xml", "<benchmark/>"))


def test_include_merges_and_the_including_file_wins(write: Write) -> None:
    write(
        "lib/common.yaml", "parametersets:\n  a: {x: 1}\n  b: {y: 2}\nwhere: ['x > 0']\ntags: [t]\n"
    )
    path = write(
        "main.yaml",
        "name: m\ninclude: lib/common.yaml\nparametersets:\n  b: {y: 3}\nwhere: ['y > 0']\n",
    )
    b = load(path)
    assert {
        n: {k: p.values for k, p in s.parameters.items()} for n, s in b.parametersets.items()
    } == {
        "a": {"x": ("1",)},
        "b": {"y": ("3",)},
    }
    assert [c.expr for c in b.where] == ["x > 0", "y > 0"]
    assert b.where[0].loc.file.endswith("common.yaml") and b.tags == ("t",)


def test_include_is_searched_on_the_include_path(write: Write, tmp_path: Path) -> None:
    write("shared/sets.yaml", "parametersets: {s: {x: 1}}\n")
    path = write("d/main.yaml", "name: m\ninclude: [sets.yaml]\n")
    assert "s" in load(path, include_path=[tmp_path / "shared"]).parametersets


def test_missing_include_names_including_file_line_and_search_path(
    write: Write, tmp_path: Path
) -> None:
    path = write("main.yaml", "name: m\ninclude:\n  - nowhere.yaml\n")
    with pytest.raises(DefinitionError) as caught:
        load(path, include_path=[tmp_path / "lib"])
    assert str(caught.value) == (
        f"{path}:3:5: error: include file 'nowhere.yaml' not found "
        f"(searched: {tmp_path}, {tmp_path / 'lib'})"
    )


def test_include_cycle_is_named(write: Write) -> None:
    write("a.yaml", "include: b.yaml\n")
    write("b.yaml", "include: a.yaml\n")
    path = write("main.yaml", "name: m\ninclude: a.yaml\n")
    with pytest.raises(
        DefinitionError, match=r"include cycle: .*a\.yaml -> .*b\.yaml -> .*a\.yaml"
    ):
        load(path)


def test_errors_in_an_included_file_name_that_file(write: Write) -> None:
    inc = write("inc.yaml", "steps:\n  run: {iterations: 0}\n")
    with pytest.raises(DefinitionError) as caught:
        load(write("main.yaml", "name: m\ninclude: inc.yaml\n"))
    assert str(caught.value) == (
        f"{inc}:2:21: error: steps.run.iterations: expected a number of at least 1, got 0"
    )


def test_init_with_a_missing_set_suggests_one(write: Write) -> None:
    write("c.yaml", "parametersets: {sizes: {x: 1}}\n")
    path = write("m.yaml", "name: m\nparametersets:\n  p: {init_with: 'c.yaml:size', y: 2}\n")
    with pytest.raises(DefinitionError) as caught:
        load(path)
    assert str(caught.value) == (
        f"{path}:3:18: error: 'c.yaml' has no set 'size' to initialise from (did you mean 'sizes'?)"
    )


def test_init_with_a_file_alone_takes_the_set_of_the_same_name(write: Write) -> None:
    write(
        "c.xml",
        '<jubex name="c"><patternset name="bw">'
        '<pattern name="w">W: $jube_pat_fp</pattern></patternset></jubex>',
    )
    path = write("m.yaml", "name: m\npatterns:\n  bw: {init_with: c.xml, r: 'R: $jube_pat_fp'}\n")
    assert list(load(path).patternsets["bw"].patterns) == ["w", "r"]


def test_load_raises_every_error_together(write: Write) -> None:
    path = write("m.yaml", "name: m\nsteps:\n  a: {depend: [b]}\n  b: {depend: [a], use: [nope]}\n")
    with pytest.raises(ErrorList) as caught:
        load(path)
    messages = sorted(e.message for e in caught.value.errors)
    assert messages == [
        "step 'b' names unknown parameterset 'nope'",
        "steps depend on each other in a cycle: a -> b -> a",
    ]


def test_unknown_tag_on_the_command_line_is_a_usage_error(write: Write) -> None:
    path = write(
        "m.yaml", "name: m\ntags: [small, big]\nparameters: {a: {values: [1], tag: small}}\n"
    )
    assert load(path, tags=["big"]).name == "m"
    with pytest.raises(UsageError) as caught:
        load(path, tags=["smal"])
    assert caught.value.exit_code == 2 and caught.value.hint == "did you mean 'small'?"


def test_validate_files_lists_every_problem_of_every_file(write: Write) -> None:
    one = write("one.yaml", "name: a\nsteps: {run: {iterations: three, cycles: 0}}\n")
    two = write("two.yaml", "name: b\nsteps: [x\n")
    three = write(
        "three.yaml",
        "name: c\nparameters: {TRANSFER: [1, 2]}\nsteps: {run: {do: 'echo $TRANSFRE'}}\n",
    )
    problems = validate([one, two, three])
    assert [(p.loc.file, p.loc.line, type(p)) for p in problems] == [
        (str(one), 2, DefinitionError),
        (str(one), 2, DefinitionError),
        (str(two), 3, DefinitionError),
        (str(three), 3, DefinitionWarning),
    ]
    assert problems[3].hint == "did you mean $TRANSFER?"


def test_validate_files_reports_an_unreadable_file(tmp_path: Path) -> None:
    (problem,) = validate([tmp_path / "missing.yaml"])
    assert str(problem) == f"error: no such file: '{tmp_path / 'missing.yaml'}'"


def test_a_value_with_an_unknown_yaml_tag_is_one_error(write: Write) -> None:
    path = write(
        "m.yaml",
        "name: m\nparameters:\n  p: !foo [1, 2]\n  q: {values: !bar [1]}\n  r: [1, !baz x]\n"
        "steps:\n  s: {do: !cmd echo}\n",
    )
    problems = validate([path])
    assert [(p.loc.line, p.loc.column, p.message) for p in problems if p.loc] == [
        (3, 6, "unknown YAML tag '!foo'"),
        (4, 15, "unknown YAML tag '!bar'"),
        (5, 10, "unknown YAML tag '!baz'"),
        (7, 11, "unknown YAML tag '!cmd'"),
    ]
