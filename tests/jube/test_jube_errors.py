"""JUBE input jubex cannot honour is refused with file, line and what to do, never a traceback."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from jubex.api import load, validate
from jubex.cli.main import main
from jubex.definition.jube.context import UNSUPPORTED
from jubex.errors import DefinitionError, ErrorList, JubexError, UsageError
from jubex.space.plan import plan

CORPUS = Path(__file__).resolve().parent / "corpus"
BAD = CORPUS / "bad"

#: file -> (line, words the message holds, words the hint holds)
EXPECTED = {
    "unsafe_python.xml": (5, "outside jubex's safe expression language", "str(x)"),
    "environ.xml": (4, "attribute access is not allowed", 'mode="env"'),
    "syslog.xml": (7, "syslog 'log' names both an address and a host", "not both"),
    "missing_set.xml": (4, "uses 'parms', which is no parameterset", ""),
    "comma_tag.xml": (4, "uses a comma, which JUBE 2.7 no longer accepts", "a|b"),
    "max_async_by_parameter.xml": (5, "takes a parameter ('i') that has", "one plain value"),
    "do_log.xml": (3, 'do_log_file="logs/" ends with "/"', "name the log file itself"),
    "broken.xml": (3, "XML syntax: Opening and ending tag mismatch", ""),
    "duplicate_key.yaml": (6, "duplicate key 'do'", ""),
    "missing_include.xml": (4, "file 'nowhere.xml' not found (searched:", ""),
    "cycle.xml": (3, "cycle: a -> b -> a", ""),
    "incompatible.xml": (5, "parameter 'x' is already defined differently", ""),
    "comprehension.yaml": (5, "filters with a Python comprehension", "subscripts only"),
    "pattern_mode.yaml": (5, "pattern 'x': mode \"ruby\" is unknown", "perl and shell"),
    "shared_without_folder.xml": (3, "which has no shared attribute", 'shared="NAME"'),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_refused_with_place_and_reason(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUBEX_NO_PYTHON", "1")  # the python snippets must fail to load
    line, words, hint = EXPECTED[name]
    with pytest.raises(DefinitionError) as caught:
        load(BAD / name)
    error = caught.value
    assert error.loc is not None
    assert Path(error.loc.file).name == name
    assert error.loc.line == line
    assert words in error.message
    assert hint in error.hint


def test_every_bad_file_is_covered() -> None:
    assert {p.name for p in BAD.iterdir()} == set(EXPECTED) | {"many_problems.xml", "perl.xml"}


def test_an_interpreter_error_names_file_line_snippet_and_message() -> None:
    with pytest.raises(DefinitionError) as caught:
        list(plan(load(BAD / "perl.xml")))
    error = caught.value
    assert error.loc is not None and Path(error.loc.file).name == "perl.xml"
    assert error.loc.line == 4
    assert "parameter 'x': command 'perl -e \"print 1 +\"' failed" in error.message
    assert "syntax error at -e line 1, at EOF" in error.message


def test_independent_problems_are_reported_together() -> None:
    with pytest.raises(ErrorList) as caught:
        load(BAD / "many_problems.xml")
    messages = [(e.loc.line if e.loc else 0, e.message) for e in caught.value.errors]
    assert messages == [
        (5, "parameter 'y': update_mode \"sometimes\" is unknown"),
        (7, '<step> attribute cycles="many" must be a whole number'),
    ]


def test_validate_lists_jube_problems_without_raising() -> None:
    problems = validate([BAD / "syslog.xml", CORPUS / "hello.xml"])
    assert [type(p) for p in problems] == [DefinitionError]
    assert "syslog.xml:7" in str(problems[0])


def test_check_tags_failure_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(UsageError) as caught:
        load(CORPUS / "tagging.yaml")
    assert "requires the tag combination 'eng|deu'" in caught.value.message
    assert caught.value.loc is not None and caught.value.loc.line == 2
    assert main(["info", str(CORPUS / "tagging.yaml")]) == 2
    assert "tagging.yaml:2" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["perl.xml", "broken.xml", "syslog.xml"])
def test_cli_prints_one_clean_message(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", "--allow-code", str(BAD / name)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.count("error:") == 1
    assert f"{name}:" in err


def test_unknown_tag_on_the_command_line_is_a_warning_as_jube_accepts_it() -> None:
    (warning,) = validate([CORPUS / "tagging.xml"], ["engl"])
    assert warning.exit_code == 0 and "did you mean 'eng'?" in warning.hint
    assert load(CORPUS / "tagging.xml", tags=["engl"]).warnings == (str(warning),)
    assert load(CORPUS / "tagging.xml", tags=["many"]).tags == ("base", "deu", "eng", "few", "many")


def test_the_migration_guide_lists_everything_refused() -> None:
    guide = (Path(__file__).resolve().parents[2] / "docs" / "jube.md").read_text()
    section = guide.split("## Not supported yet")[1].split("##")[0]
    for element, name in UNSUPPORTED:
        assert name in section, (element, name)


GOOD = sorted(p for p in CORPUS.rglob("*.xml") if "bad" not in p.parts)
#: the good files that are benchmarks on their own (not parts that others include)
WHOLE = [p for p in GOOD if "<benchmark" in p.read_text() and p.name != "site.xml"]
TEXTS = ["", "$x", "1,,2", "${", '"', "[1,2][$n]", "a$$b", "!", "a+", "python", "0"]


@pytest.fixture(scope="module")
def corpus_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The corpus in a scratch directory: damaged files go beside their includes there, never
    into the repository."""
    copy = tmp_path_factory.mktemp("corpus") / "corpus"
    shutil.copytree(CORPUS, copy)
    return copy


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(WHOLE),
    st.lists(
        st.tuples(st.integers(0, 10**6), st.integers(0, 3), st.sampled_from(TEXTS)),
        min_size=1,
        max_size=3,
    ),
)
def test_damaged_files_give_errors_never_tracebacks(
    corpus_copy: Path, source: Path, damage: list
) -> None:
    source = corpus_copy / source.relative_to(CORPUS)
    assert list(plan(load(source)))  # undamaged, it is accepted and plans
    root = etree.parse(str(source)).getroot()
    for where, how, text in damage:
        elements = list(root.iter(tag=etree.Element))  # not comments: they have no attributes
        element = elements[where % len(elements)]
        if how == 0 and element.getparent() is not None:
            element.getparent().remove(element)
        elif how == 1 and element.attrib:
            del element.attrib[sorted(element.attrib)[where % len(element.attrib)]]
        elif how == 2:
            element.text = text
        else:
            element.set(
                ["tag", "mode", "separator", "type", "active", "init_with"][where % 6], text
            )
    damaged = source.with_name(f"_damaged_{source.name}")
    damaged.write_bytes(etree.tostring(root))
    try:
        list(plan(load(damaged)))
    except JubexError:
        pass
    finally:
        damaged.unlink()
