"""Hostile and broken definitions through the command line: one clean error, never a trace."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

COMMANDS = [["validate"], ["info"], ["run", "--dry-run"]]
STEPS = "steps:\n  run:\n    do: echo $a\n"


def _bomb(levels: int = 12) -> str:
    lines = ["x:", "  l0: &l0 [x, x, x, x, x, x, x, x, x]"]
    for i in range(1, levels):
        lines.append(f"  l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def _merge_bomb(levels: int = 40) -> str:
    lines = ["x:", "  m0: &m0 {k0: 1}"]
    lines += [f"  m{i}: &m{i} {{<<: [*m{i - 1}, *m{i - 1}], k{i}: 1}}" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


#: where a 100,000-deep flow value is refused: libyaml stops at its own 1,000 levels from
#: PyYAML 6.0.4 on, before jubex's composer counts to 100
DEEP_COLUMN = 1004 if tuple(map(int, yaml.__version__.split(".")[:3])) >= (6, 0, 4) else 104

HOSTILE = {
    "long integer": (
        "name: r\nparameters:\n  a: " + "9" * 5000 + "\n" + STEPS,
        ":3:6: error: a number of more than 4,300 digits",
    ),
    "long typed integer": (
        "name: r\nparameters:\n  a: {values: ['" + "9" * 5000 + "'], type: int}\n" + STEPS,
        ":3:3: error: '9999",
    ),
    "long computed integer": (
        'name: r\nparameters:\n  a: {expr: "10**4400"}\n' + STEPS,
        ":3:3: error: a computed value has more than the 4,300 digits",
    ),
    "NUL in a path": (
        'name: r\noutpath: "ru\\0ns"\nparameters:\n  a: 1\n' + STEPS,
        ":2:10: error: a NUL character",
    ),
    "geometric range past a float": (
        "name: r\nparameters:\n  a: {range: {start: 1e-300, stop: 1e300, factor: "
        "1.0000000000000000000001}}\n" + STEPS,
        ":3:14: error: range 1e-300..1e300 factor",
    ),
    "YAML nested 100,000 deep": (
        "name: r\nparameters:\n  a: " + "[" * 100_000 + "]" * 100_000 + "\n" + STEPS,
        f":3:{DEEP_COLUMN}: error: collections nest deeper than 100 levels",
    ),
    "expression nested 5,000 deep": (
        'name: r\nparameters:\n  a: {expr: "' + "-" * 5000 + '1"}\n' + STEPS,
        ":3:3: error:",
    ),
    "parenthesised 5,000 deep": (
        'name: r\nparameters:\n  a: {expr: "' + "(" * 5000 + "1" + ")" * 5000 + '"}\n' + STEPS,
        "too many nested parentheses",
    ),
    "python tag": (
        "name: r\nparameters:\n  a: !!python/object/apply:os.system ['echo hi']\n" + STEPS,
        ":3:6: error: unknown YAML tag '!!python/object/apply:os.system'",
    ),
    "billion laughs": ("name: r\n" + _bomb() + "parameters:\n  a: 1\n" + STEPS, "aliases repeat"),
    "merge-key bomb": (
        "name: r\n" + _merge_bomb() + "parameters:\n  a: 1\n" + STEPS,
        "aliases repeat",
    ),
}

HOSTILE_XML = {
    "XML nested 100,000 deep": "<jubex>" + "<a>" * 100_000 + "</a>" * 100_000 + "</jubex>\n",
    "JUBE XML nested 100,000 deep": "<jube>" + "<a>" * 100_000 + "</a>" * 100_000 + "</jube>\n",
}


def jubex(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jubex", *args], capture_output=True, text=True, timeout=60
    )


def _refused(done: subprocess.CompletedProcess[str], path: Path, expected: str) -> None:
    text = done.stdout + done.stderr
    assert done.returncode == 2, text
    assert "Traceback" not in text
    assert "internal error" not in text
    assert f"{path}{expected}" in text or (expected in text and f"{path}:" in text), text


@pytest.mark.parametrize("case", sorted(HOSTILE))
@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_hostile_yaml_is_refused_by_every_command(
    tmp_path: Path, case: str, command: list[str]
) -> None:
    text, expected = HOSTILE[case]
    path = tmp_path / "hostile.yaml"
    path.write_text(text)
    _refused(jubex(*command, str(path)), path, expected)


@pytest.mark.parametrize("case", sorted(HOSTILE_XML))
@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_deep_xml_is_refused_by_every_command(
    tmp_path: Path, case: str, command: list[str]
) -> None:
    path = tmp_path / "hostile.xml"
    path.write_text(HOSTILE_XML[case])
    _refused(jubex(*command, str(path)), path, ":1:")


@pytest.mark.parametrize("bomb", [_bomb(), _merge_bomb()], ids=["aliases", "merge keys"])
def test_the_jube_yaml_reader_refuses_alias_bombs(tmp_path: Path, bomb: str) -> None:
    path = tmp_path / "jube.yaml"
    path.write_text(bomb + "name: b\nstep:\n  name: run\n  do: echo 1\n")
    for command in COMMANDS:
        _refused(jubex(*command, str(path)), path, "aliases repeat more than 100000 values")


@pytest.mark.parametrize(
    ("text", "command"),
    [
        ("name: b\nstep:\n  name: run\n  do: " + "[" * 100_000 + "]" * 100_000 + "\n", "convert"),
        ("name: p\nextends: local\nmodules: " + "[" * 100_000 + "]" * 100_000 + "\n", "platform"),
    ],
    ids=["convert a JUBE file", "show a platform"],
)
def test_deep_yaml_is_refused_by_the_other_readers(tmp_path: Path, text: str, command: str) -> None:
    path = tmp_path / "deep.yaml"
    path.write_text(text)
    _refused(jubex(command, str(path)), path, "collections nest deeper than 100 levels")


@pytest.mark.parametrize("command", [*COMMANDS, ["convert"]], ids=" ".join)
def test_the_jube_yaml_reader_refuses_python_tags(tmp_path: Path, command: list[str]) -> None:
    path = tmp_path / "jube.yaml"
    path.write_text(
        'name: b\nstep:\n  name: run\n  do: !!python/object/apply:os.system ["echo hi"]\n'
    )
    _refused(
        jubex(*command, str(path)), path, ":4:7: error: unknown YAML tag '!!python/object/apply"
    )


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_long_integer_attribute_in_xml_is_refused(tmp_path: Path, command: list[str]) -> None:
    path = tmp_path / "long.xml"
    path.write_text(
        '<jubex name="x">\n<parameters name="parameters"><parameter name="a">1</parameter>'
        f'</parameters>\n<step name="run" iterations="{"9" * 5000}"><do>echo</do></step>\n'
        "</jubex>\n"
    )
    _refused(
        jubex(*command, str(path)), path, ":3: error: steps.run.iterations: expected a positive"
    )
