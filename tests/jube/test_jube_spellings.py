"""JUBE's two spellings read into one element tree, by the rules JUBE converts YAML with."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from lxml import etree

from jubex.definition.jube.nodes import Node, prune, select, tag_names
from jubex.definition.jube.xml_reader import read_xml
from jubex.definition.jube.yaml_reader import read_yaml
from jubex.errors import DefinitionError, Loc

CORPUS = Path(__file__).resolve().parent / "corpus"


def shape(node: Node) -> tuple:
    """What a reader must agree on: tags, attributes, stripped texts, in order."""
    return (node.tag, node.attrs, node.value, [shape(c) for c in node.children])


def test_yaml_keys_become_children_attributes_and_text() -> None:
    root = read_yaml(
        "name: b\noutpath: runs\n"
        "step:\n  name: s\n  depend: [a, b]\n  use: [x, y]\n"
        "  do:\n    - echo 1\n    - {done_file: ready, _: [sub 1, sub 2]}\n",
        "f.yaml",
    )
    (benchmark,) = root.children
    assert (benchmark.tag, benchmark.attrs) == ("benchmark", {"name": "b", "outpath": "runs"})
    (step,) = benchmark.children
    assert step.attrs == {"name": "s", "depend": "b"}  # JUBE's YAML keeps the last item
    assert [(c.tag, c.value, c.attrs) for c in step.children] == [
        ("use", "x", {}),
        ("use", "y", {}),
        ("do", "echo 1", {}),
        ("do", "sub 1", {"done_file": "ready"}),
        ("do", "sub 2", {"done_file": "ready"}),
    ]
    line = "    - {done_file: ready, _: [sub 1, sub 2]}"
    assert step.children[4].loc == Loc("f.yaml", 9, line.index("sub 2") + 1)
    assert benchmark.where("outpath") == Loc("f.yaml", 2, 1)


def test_yaml_with_benchmark_key_and_global_sets() -> None:
    root = read_yaml(
        "parameterset: {name: g, parameter: {name: p, _: 1}}\n"
        "selection: {only: b2}\n"
        "benchmark:\n  - {name: b1, outpath: r}\n  - {name: b2, outpath: r}\n",
        "f.yaml",
    )
    assert [c.tag for c in root.children] == ["parameterset", "selection", "benchmark", "benchmark"]
    lone = read_yaml("- {name: a, outpath: r}\n- {name: b, outpath: r}\n", "f.yaml")
    assert [c.attrs["name"] for c in lone.children] == ["a", "b"]


def test_yaml_scalars_read_as_jube_reads_them() -> None:
    root = read_yaml(
        "name: b\nparameterset:\n  name: s\n  parameter:\n"
        "    - {name: a, _: 2.50}\n    - {name: b, _: yes}\n    - {name: c, _: ~}\n"
        "    - {name: d, export: true, _: '007'}\n    - {name: e}\n",
        "f.yaml",
    )
    values = [(p.attrs, p.text) for p in root.children[0].children[0].children]
    assert values == [
        ({"name": "a"}, "2.50"),
        ({"name": "b"}, "True"),
        ({"name": "c"}, ""),
        ({"name": "d", "export": "True"}, "007"),
        ({"name": "e"}, ""),
    ]


def test_yaml_include_follows_subscripts_and_merge_keys(tmp_path: Path) -> None:
    (tmp_path / "data.yaml").write_text("dos: [echo a, echo b]\nsets: [{x: 1}, {x: 2}]\n")
    main = tmp_path / "main.yaml"
    main.write_text(
        "name: b\nstep:\n  - &base {name: s, iterations: 2}\n"
        '  - <<: *base\n    name: t\n    do: !include data.yaml:["dos"]\n'
    )
    root = read_yaml(main.read_text(), str(main))
    step = root.children[0].children[1]
    assert step.attrs == {"name": "t", "iterations": "2"}
    assert [(c.value, Path(c.loc.file).name) for c in step.children] == [
        ("echo a", "data.yaml"),
        ("echo b", "data.yaml"),
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("do: !include missing.yaml\n", "included file 'missing.yaml' not found"),
        ('do: !include data.yaml:["nothing"]\n', "has no entry 'nothing'"),
        ("do: !include data.yaml:.keys()\n", "is not a chain of subscripts"),
        ("do: !env HOME\n", "unknown YAML tag '!env'"),
        ("do: [a\n", "YAML syntax"),
        ("step: {do: !include main.yaml}\n", "!include cycle"),
    ],
)
def test_yaml_problems_name_the_place(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "data.yaml").write_text("dos: [echo]\n")
    main = tmp_path / "main.yaml"
    main.write_text(text)
    with pytest.raises(DefinitionError) as caught:
        read_yaml(text, str(main))
    assert message in caught.value.message
    assert caught.value.loc is not None and caught.value.loc.line >= 1


names = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True)
texts = st.text(alphabet="abcXYZ0123 ,;$_-{}()", max_size=12).map(str.strip)
attributes = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(["int", "float", "string"]),
        "separator": st.sampled_from([";", ":"]),
        "mode": st.sampled_from(["text", "python", "shell"]),
        "tag": st.sampled_from(["a", "!b", "a+b"]),
    },
)


@given(st.lists(st.tuples(names, attributes, texts), max_size=6))
def test_both_spellings_give_the_same_tree(parameters: list) -> None:
    xml_set = etree.Element("parameterset", name="s")
    data = []
    for name, attrs, text in parameters:
        etree.SubElement(xml_set, "parameter", name=name, **attrs).text = text
        data.append({"name": name, **attrs, "_": text})
    xml_root = etree.Element("jube")
    benchmark = etree.SubElement(xml_root, "benchmark", name="b", outpath="r")
    benchmark.append(xml_set)
    from_xml = read_xml(etree.tostring(xml_root), "f.xml")
    document = {"name": "b", "outpath": "r", "parameterset": {"name": "s", "parameter": data}}
    from_yaml = read_yaml(yaml.safe_dump(document), "f.yaml")
    assert shape(from_yaml) == shape(from_xml)


def test_select_reads_element_paths_with_filters() -> None:
    root = read_xml(
        b'<jube><dos><do>a</do><do tag="x">b</do></dos>'
        b'<parameterset name="one"/><parameterset name="two"/></jube>',
        "f.xml",
    )
    loc = Loc("f.xml", 1)
    assert [n.value for n in select(root, "dos/do", loc)] == ["a", "b"]
    assert [n.value for n in select(root, "./dos/do[@tag]", loc)] == ["b"]
    assert [n.attrs["name"] for n in select(root, "parameterset[@name='two']", loc)] == ["two"]
    assert [n.tag for n in select(root, "*", loc)] == ["dos", "parameterset", "parameterset"]
    assert select(root, ".", loc) == [root]
    with pytest.raises(DefinitionError, match="does not read"):
        select(root, "dos//do", loc)


def test_prune_removes_what_the_tags_exclude_and_remembers_it() -> None:
    root = read_xml(b'<jube><a tag="x"><b tag="!y"/></a><c tag="x+y"/><d/></jube>', "f.xml")
    dropped: list[Node] = []
    kept = prune(root, {"x", "y"}, dropped)
    assert [c.tag for c in kept.children] == ["a", "c", "d"]
    assert [c.tag for c in kept.children[0].children] == []
    assert [n.tag for n in dropped] == ["b"]
    assert [c.tag for c in prune(root, set()).children] == ["d"]
    assert tag_names(root) == {"x", "y"}


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ("name: b\nstep:\n  do: !!python/object/apply:os.system [ls]\n", "3:7", "unknown YAML tag"),
        ("name: b\nstep:\n  name: s\n  name: t\n", "4:3", "duplicate key 'name'"),
        ("name: b\nstep: " + "[" * 100_000 + "]" * 100_000 + "\n", "2:", "deeper than 100"),
        ("step: {do: !include data.yaml}\n", "data.yaml:2:1", "duplicate key 'x'"),
    ],
    ids=["python-tag", "duplicate", "deep", "included-duplicate"],
)
def test_yaml_refusals_name_file_line_and_column(
    tmp_path: Path, text: str, where: str, message: str
) -> None:
    (tmp_path / "data.yaml").write_text("x: 1\nx: 2\n")
    main = tmp_path / "main.yaml"
    with pytest.raises(DefinitionError) as caught:
        read_yaml(text, str(main))
    assert message in caught.value.message
    assert f"{caught.value.loc}".startswith(str(tmp_path)) and where in str(caught.value.loc)


def test_included_values_are_placed_in_their_own_file(tmp_path: Path) -> None:
    (tmp_path / "data.yaml").write_text("# commands\ndos:\n  - echo a\n  - echo b\n")
    main = tmp_path / "main.yaml"
    main.write_text('name: b\nstep:\n  name: s\n  do: !include data.yaml:["dos"]\n')
    step = read_yaml(main.read_text(), str(main)).children[0].children[0]
    assert [c.loc for c in step.children] == [
        Loc(str(tmp_path / "data.yaml"), 3, 5),
        Loc(str(tmp_path / "data.yaml"), 4, 5),
    ]
    assert step.where("name") == Loc(str(main), 3, 3)
