"""Platform files are read by the one YAML reader: the same scalars, places and refusals."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.definition.jube.yaml_reader import read_yaml as read_jube
from jubex.definition.yaml_tree import read_yaml as read_definition
from jubex.errors import DefinitionError, Loc
from jubex.platform.load import load_platform
from jubex.platform.read import read_yaml

#: spellings YAML 1.1 reads otherwise, with what the YAML 1.2 core schema reads
SCALARS = {
    "yes": "yes",
    "off": "off",
    "0o17": 15,
    "1_000": "1_000",
    "~": None,
    ".inf": math.inf,
    "017": 17,
    "0b101": "0b101",
    "1:30": "1:30",
    "1e3": 1000.0,
    "2024-01-01": "2024-01-01",
    "true": True,
}


def document(key: str) -> str:
    lines = "".join(f"  p{index}: {text}\n" for index, text in enumerate(SCALARS))
    return f"name: x\n{key}:\n{lines}"


def test_scalars_read_the_same_in_a_definition_and_a_platform_file() -> None:
    expected = {f"p{index}": value for index, value in enumerate(SCALARS.values())}
    data, _ = read_yaml(document("parameters"), "p.yaml")
    tree, errors = read_definition(document("parameters"), "d.yaml")
    assert errors == []
    assert data["parameters"] == expected == tree["parameters"]


def test_jube_yaml_keeps_texts_as_written_but_writes_its_booleans_as_jube_does() -> None:
    """JUBE turns YAML 1.1 booleans into True/False and nulls into empty texts; jubex too."""
    parameters = "".join(
        f"    - {{name: p{index}, _: {text}}}\n" for index, text in enumerate(SCALARS)
    )
    root = read_jube(f"name: b\nparameterset:\n  name: s\n  parameter:\n{parameters}", "j.yaml")
    texts = [p.text for p in root.children[0].children[0].children]
    jube = {"yes": "True", "off": "False", "~": "", "true": "True"}
    assert texts == [jube.get(text, text) for text in SCALARS]


def test_a_flag_must_be_true_or_false_now(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text("name: x\nextends: slurm\npartitions:\n  a: {default: yes}\n")
    with pytest.raises(DefinitionError) as caught:
        load_platform(str(path))
    assert "must be boolean, not 'yes'" in str(caught.value)
    assert caught.value.loc == Loc(str(path), 4, 7)


def test_every_key_item_and_block_text_has_its_place() -> None:
    text = (
        "name: x\n"
        "partitions:\n"
        "  booster:\n"
        "    max_nodes: 936\n"
        "modules:\n"
        "  - GCC\n"
        "  - ParaStationMPI\n"
        "template: |\n"
        "  #!/bin/bash\n"
        "  {{ body }}\n"
    )
    data, locs = read_yaml(text, "p.yaml")
    assert data["partitions"] == {"booster": {"max_nodes": 936}}
    assert locs["partitions.booster.max_nodes"] == Loc("p.yaml", 4, 5)
    assert locs["modules.1"] == Loc("p.yaml", 7, 5)
    assert locs["template"] == Loc("p.yaml", 9, 3)
    assert data["template"] == "#!/bin/bash\n{{ body }}\n"


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("name: x\nscheduler: !!python/object/apply:os.system [ls]\n", 2, "unknown YAML tag"),
        ("name: x\nenvironment: {A: !env HOME}\n", 2, "unknown YAML tag '!env'"),
        ("name: x\nresources:\n  nodes: 1\n  nodes: 2\n", 4, "duplicate key 'nodes'"),
        ("name: x\nr: " + "[" * 100_000 + "]" * 100_000 + "\n", 2, "deeper than 100 levels"),
        (
            "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
            + "".join(
                f"a{i}: &a{i} [{', '.join(['*a' + str(i - 1) if i else '*a'] * 10)}]\n"
                for i in range(8)
            ),
            5,
            "aliases repeat more than",
        ),
    ],
    ids=["python-tag", "local-tag", "duplicate", "deep", "laughs"],
)
def test_platform_files_refuse_what_definitions_refuse(text: str, line: int, message: str) -> None:
    with pytest.raises(DefinitionError) as caught:
        read_yaml(text, "p.yaml")
    assert message in caught.value.message
    assert caught.value.loc is not None and caught.value.loc.line == line


keys = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True)
values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.from_regex(r"[A-Za-z][A-Za-z0-9 _./:-]{0,10}", fullmatch=True),
    st.sampled_from(["yes", "off", "1_000", "1:30"]),
)


@settings(deadline=None)
@given(st.dictionaries(keys, st.one_of(values, st.dictionaries(keys, values)), min_size=1))
def test_any_mapping_reads_as_in_a_definition_each_key_at_its_line(data: dict) -> None:
    text = yaml.safe_dump(data, sort_keys=False, default_flow_style=False)
    read, locs = read_yaml(text, "p.yaml")
    tree, _ = read_definition(text, "p.yaml")
    assert read == data == tree
    lines = text.splitlines()
    for path, loc in locs.items():
        if path:
            key = path.rsplit(".", 1)[-1]
            assert lines[loc.line - 1][loc.column - 1 :].startswith((f"{key}:", f"'{key}':"))


def test_a_yaml_definition_and_platform_are_read_without_lxml(tmp_path: Path) -> None:
    """lxml takes 20 ms to import: only an XML file's reading imports it."""
    (tmp_path / "b.yaml").write_text("name: b\nsteps:\n  s:\n    do: 'true'\n")
    probe = (
        "import sys\n"
        "import jubex\n"
        f"spec = jubex.resolve({str(tmp_path / 'b.yaml')!r})\n"
        "assert spec.benchmark.name == 'b' and spec.platform.name == 'local'\n"
        "print(sorted(m for m in sys.modules if m.startswith('lxml')))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
