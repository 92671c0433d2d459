"""The one YAML reader: locations of keys and values, texts as written, YAML 1.2 scalars."""

from __future__ import annotations

import string

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from jubex.definition.tree import Map, Seq, locate
from jubex.definition.yaml_tree import read_yaml
from jubex.errors import DefinitionError


def test_keys_and_values_carry_line_and_column() -> None:
    tree, errors = read_yaml("name: x\nsteps:\n  run:\n    iterations: 3\n", "f.yaml")
    assert errors == []
    assert locate(tree, ["steps", "run", "iterations"], key=True).line == 4
    assert locate(tree, ["steps", "run", "iterations"], key=True).column == 5
    assert locate(tree, ["steps", "run", "iterations"]).column == 17


def test_scalars_follow_yaml_1_2_core_schema() -> None:
    tree, _ = read_yaml("a: yes\nb: off\nc: 1:30\nd: 2024-01-01\ne: true\nf: 0x10\ng: ~\n", "f")
    assert tree == {
        "a": "yes",
        "b": "off",
        "c": "1:30",
        "d": "2024-01-01",
        "e": True,
        "f": 16,
        "g": None,
    }


def test_texts_are_kept_as_written() -> None:
    tree, _ = read_yaml("x: [2.50, 007, 1e3]\ny: 4KiB\n", "f")
    assert isinstance(tree["x"], Seq)
    assert [tree["x"].texts[i] for i in range(3)] == ["2.50", "007", "1e3"]
    assert tree["x"] == [2.5, 7, 1000.0]


def test_syntax_error_names_file_line_column_and_problem() -> None:
    with pytest.raises(DefinitionError) as caught:
        read_yaml("name: x\nsteps: [run\n", "bad.yaml")
    text = str(caught.value)
    assert text.startswith("bad.yaml:3:1: error: YAML syntax:")
    assert "expected ',' or ']'" in text


def test_duplicate_keys_are_errors_with_both_lines() -> None:
    _, errors = read_yaml("name: a\nsteps: {}\nname: b\n", "f.yaml")
    assert [str(e) for e in errors] == [
        "f.yaml:3:1: error: duplicate key 'name' (first given at line 1)"
    ]


def test_merge_keys_give_way_to_explicit_keys() -> None:
    text = "base: &b {nodes: 1, ppn: 2}\nrun:\n  <<: *b\n  ppn: 4\n"
    tree, errors = read_yaml(text, "f")
    assert errors == []
    assert tree["run"] == {"nodes": 1, "ppn": 4}
    assert tree["run"].key_loc("ppn").line == 4


def test_unsupported_tag_is_reported() -> None:
    _, errors = read_yaml("a: !python/name:os.system x\n", "f.yaml")
    assert len(errors) == 1
    assert "unknown YAML tag '!python/name:os.system'" in errors[0].message
    assert str(errors[0].loc) == "f.yaml:1:4"


def test_empty_document_is_an_empty_mapping() -> None:
    tree, errors = read_yaml("# nothing\n", "f")
    assert isinstance(tree, Map) and tree == {} and errors == []


names = st.text(string.ascii_lowercase + "_", min_size=1, max_size=8)
texts = st.text(string.ascii_letters + string.digits + " -_./", min_size=1, max_size=12)


@given(st.dictionaries(names, st.lists(texts, min_size=1, max_size=4), min_size=1, max_size=6))
def test_read_equals_plain_yaml_and_each_key_is_found_on_its_line(data: dict) -> None:
    text = yaml.safe_dump({k: [f"s{v}" for v in vs] for k, vs in data.items()}, sort_keys=False)
    tree, errors = read_yaml(text, "f")
    assert errors == []
    assert tree == yaml.safe_load(text)
    lines = text.splitlines()
    for key in tree:
        assert lines[tree.key_loc(key).line - 1].startswith(f"{key}:") or lines[
            tree.key_loc(key).line - 1
        ].startswith(f"'{key}':")
