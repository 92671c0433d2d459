"""The one YAML reader: locations of keys and values, texts as written, YAML 1.2 scalars."""

from __future__ import annotations

import math
import string

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.definition.schema_check import check_tree
from jubex.definition.tree import MAX_LISTED, Map, Seq, locate
from jubex.definition.yaml_tree import MAX_KEYS, read_yaml
from jubex.errors import DefinitionError, Loc


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


def test_yaml_1_1_spellings_are_texts_and_1_2_numbers_are_numbers() -> None:
    text = "a: yes\nb: off\nc: 0o17\nd: 1_000\ne: ~\nf: .inf\ng: 017\nh: 1e3\ni: 0b101\n"
    tree, errors = read_yaml(text, "f")
    assert errors == []
    assert tree == {
        "a": "yes",
        "b": "off",
        "c": 15,
        "d": "1_000",
        "e": None,
        "f": math.inf,
        "g": 17,
        "h": 1000.0,
        "i": "0b101",
    }


def test_a_block_text_is_placed_at_its_first_line() -> None:
    tree, _ = read_yaml("do: |\n    echo a\n    echo b\n", "f")
    assert tree.value_loc("do") == Loc("f", 2, 5)


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ("a: !!python/object/apply:os.system [ls]\n", "f.yaml:1:4", "'!!python/object/apply"),
        ("a:\n  b: !!python/object:x {c: 1}\n", "f.yaml:2:6", "'!!python/object:x'"),
        ("a: !!binary aGVsbG8=\n", "f.yaml:1:4", "unknown YAML tag '!!binary'"),
        ("a: !!int twelve\n", "f.yaml:1:4", "'twelve' is not a YAML int"),
        ("? [a, b]\n: c\n", "f.yaml:1:3", "a key must be a text"),
        ("a:\n  b: 1\n  b: 2\n", "f.yaml:3:3", "duplicate key 'b' (first given at line 2)"),
    ],
)
def test_unknown_tags_odd_keys_and_duplicates_are_errors_at_their_place(
    text: str, where: str, message: str
) -> None:
    _, errors = read_yaml(text, "f.yaml")
    assert [str(e.loc) for e in errors] == [where]
    assert message in errors[0].message


def billion_laughs(levels: int = 9) -> str:
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for level in range(1, levels):
        lines.append(f"a{level}: &a{level} [{', '.join([f'*a{level - 1}'] * 10)}]")
    return "\n".join(lines) + "\n"


def test_aliases_that_would_expand_a_billion_times_are_refused_fast() -> None:
    with pytest.raises(DefinitionError) as caught:
        read_yaml(billion_laughs(), "laughs.yaml")
    assert "aliases repeat more than" in caught.value.message
    assert caught.value.loc is not None and caught.value.loc.line == 5  # a4: 10**5 lols


def test_a_few_aliases_are_read_in_full() -> None:
    tree, errors = read_yaml(billion_laughs(3), "f")
    assert errors == [] and len(tree["a2"]) == 10 and tree["a2"][9] == [["lol"] * 10] * 10


def test_an_alias_inside_its_own_anchor_is_refused() -> None:
    with pytest.raises(DefinitionError, match="alias refers to a collection that holds it"):
        read_yaml("a: &x {b: [*x]}\n", "f")


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000 + "]" * 100_000,
        "{a: " * 100_000 + "}" * 100_000,
        "- " * 100_000 + "x\n",
        "a: &a [[[[[[[[[[x]]]]]]]]]]\n"
        + "".join(
            f"b{i}: &b{i} [[[[[[[[[[*{'a' if i == 0 else f'b{i - 1}'}]]]]]]]]]]\n"
            for i in range(12)
        ),
    ],
    ids=["flow-sequences", "flow-mappings", "block-sequences", "aliases"],
)
def test_very_deep_nesting_is_refused_not_a_crash(text: str) -> None:
    with pytest.raises(DefinitionError) as caught:
        read_yaml(text, "deep.yaml")
    assert "deeper than 100 levels" in caught.value.message
    assert str(caught.value).startswith("deep.yaml:")


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.from_regex(r"[A-Za-z][A-Za-z0-9 _./:-]{0,10}", fullmatch=True),
    st.sampled_from(["yes", "off", "1_000", "1:30", "2024-01-01", "~", "", "0x1F"]),
)
keys = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True)
documents = st.recursive(
    st.dictionaries(keys, scalars, min_size=1, max_size=4),
    lambda inner: st.dictionaries(keys, st.one_of(scalars, inner, st.lists(inner, max_size=2))),
    max_leaves=20,
)


@settings(deadline=None)
@given(documents)
def test_any_mapping_dumped_reads_back_the_same_with_each_key_on_its_line(data: dict) -> None:
    text = yaml.safe_dump(data, sort_keys=False, default_flow_style=False)
    tree, errors = read_yaml(text, "f")
    assert errors == []
    assert tree == data
    lines = text.splitlines()
    for mapping in _mappings(tree):
        for key in mapping:
            loc = mapping.key_loc(key)
            assert lines[loc.line - 1][loc.column - 1 :].startswith((f"{key}:", f"'{key}':"))


def _mappings(value: object) -> list[Map]:
    if isinstance(value, Map):
        return [value, *(m for item in value.values() for m in _mappings(item))]
    if isinstance(value, Seq):
        return [m for item in value for m in _mappings(item)]
    return []


def test_a_list_written_out_past_the_limit_is_refused_before_it_is_read() -> None:
    """A list of a million values took 32 s and 734 MB to validate: it is refused at the
    value past the limit, at the list's line, with the limit and what expresses more."""
    text = "name: d\nparameters:\n  p: [" + ", ".join(map(str, range(10**6))) + "]\n"
    with pytest.raises(DefinitionError) as caught:
        read_yaml(text, "d.yaml")
    assert caught.value.loc == Loc("d.yaml", 3, 6)
    assert "a list of more than 10,000 values, the most a list written out may hold" in str(
        caught.value
    )
    assert "range: {start: 1, stop: 20000, step: 1}" in caught.value.hint
    below = "steps:\n- " + "\n- ".join(map(str, range(MAX_LISTED))) + "\n"
    assert len(read_yaml(below, "d.yaml")[0]["steps"]) == MAX_LISTED


def test_a_long_list_keeps_its_errors_at_their_item() -> None:
    """The schema passes a list of plain values at once; one holding anything else is
    checked item by item, its fault at its line."""
    values = [str(i) for i in range(MAX_LISTED)]
    values[7_000] = "{a: 1}"
    path_text = "name: d\nparameters:\n  p:\n" + "".join(f"  - {v}\n" for v in values)
    tree, _ = read_yaml(path_text + "steps: {s: {do: echo}}\n", "d.yaml")
    errors = check_tree(tree)
    assert [(e.loc.line if e.loc else 0) for e in errors] == [4 + 7_000], errors
    assert "parameters.p[7000]: expected a single value, got a mapping" in str(errors[0])


def test_a_file_writing_too_many_values_or_keys_is_refused_as_it_is_read() -> None:
    """100,000 parameters took validate 62 s, ten lists of 9,999 values 8 s: a mapping
    holds at most 1,000 keys and a file writes at most 20,000 values."""
    keys = "name: d\nparameters:\n" + "".join(f"  p{i}: 1\n" for i in range(100_000))
    lists = "name: d\nparameters:\n" + "".join(
        f"  p{i}: [{', '.join(map(str, range(9_999)))}]\n" for i in range(10)
    )
    for text, line, said in [
        (keys, 3, "a mapping of more than 1,000 keys, the most one may hold"),
        (lists, 4, "the file writes more than 20,000 values (keys, values and items)"),
    ]:
        with pytest.raises(DefinitionError) as caught:
            read_yaml(text, "d.yaml")
        assert caught.value.loc is not None and caught.value.loc.line == line
        assert said in caught.value.message
    most = "".join(f"  p{i}: 1\n" for i in range(MAX_KEYS))
    assert len(read_yaml("parameters:\n" + most, "d.yaml")[0]["parameters"]) == MAX_KEYS
