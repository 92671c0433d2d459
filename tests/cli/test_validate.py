"""``jubex validate`` and ``jubex schema`` as a user runs them: messages, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from jubex.cli.main import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

BROKEN = {
    "syntax.yaml": "name: x\nsteps: [run\n",
    "schema.yaml": "name: x\nsteps:\n  run:\n    iterations: three\n    iteratons: 3\n",
    "refs.yaml": "name: x\nsteps:\n  run: {depend: [biuld], use: [sizes]}\n",
    "syntax.xml": '<jubex name="x">\n  <step name="run">\n</jubex>\n',
    "entity.xml": '<!DOCTYPE jubex [<!ENTITY e "x">]>\n<jubex name="&e;"/>\n',
    "jube.xml": '<jube>\n  <benchmark name="b"/>\n</jube>\n',
    "empty.yaml": "",
    "list.yaml": "- a\n- b\n",
}


@pytest.fixture
def broken(tmp_path: Path) -> dict[str, Path]:
    paths = {}
    for name, text in BROKEN.items():
        paths[name] = tmp_path / name
        paths[name].write_text(text)
    return paths


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jubex", *args], capture_output=True, text=True, timeout=60
    )


def test_broken_files_give_messages_with_file_line_and_expectation(broken: dict[str, Path]) -> None:
    result = run("validate", *map(str, broken.values()))
    assert result.returncode == 2
    assert "Traceback" not in result.stdout + result.stderr
    out = result.stdout
    p = {name: str(path) for name, path in broken.items()}
    assert f"{p['syntax.yaml']}:3:1: error: YAML syntax: " in out and "',' or ']'" in out
    assert (
        f"{p['schema.yaml']}:4:17: error: steps.run.iterations: expected a positive integer, "
        "or {min, max, until}, got 'three'"
    ) in out
    assert f"{p['schema.yaml']}:5:5: error: steps.run.iteratons: unknown key" in out
    assert f"{p['refs.yaml']}:3:18: error: step 'run' names unknown step 'biuld'" in out
    assert f"{p['refs.yaml']}:3:32: error: step 'run' names unknown parameterset 'sizes'" in out
    assert f"{p['syntax.xml']}:3:" in out and "XML syntax" in out
    assert f"{p['entity.xml']}:1: error: a DOCTYPE with entity declarations is refused" in out
    assert f"{p['jube.xml']}:2: error: <benchmark> needs the outpath attribute" in out
    assert f"{p['empty.yaml']}:1:1: error: the file: missing key 'name'" in out
    assert f"{p['list.yaml']}:1:1: error: expected a mapping of definition keys" in out
    assert out.rstrip().endswith("8 file(s) invalid: 10 error(s), 0 warning(s)")


def test_valid_files_exit_zero_even_with_warnings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(
        "name: w\nparameters: {TRANSFER: [1, 2]}\nsteps: {run: {do: 'ior -t $TRANSFR'}}\n"
    )
    assert main(["validate", str(path), str(EXAMPLES / "ska-ior.yaml")]) == 0
    out = capsys.readouterr().out
    assert f"{path}:3:19: warning: step 'run': $TRANSFR is no parameter" in out
    assert "(did you mean $TRANSFER?)" in out
    assert "2 file(s) valid: 0 error(s), 1 warning(s)" in out


def test_json_format_lists_every_problem(
    broken: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", "--format", "json", str(broken["schema.yaml"])]) == 2
    report = json.loads(capsys.readouterr().out)
    assert report["valid"] is False
    assert [
        (p["severity"], p["line"], p["column"], p["message"], p["hint"]) for p in report["problems"]
    ] == [
        (
            "error",
            4,
            17,
            "steps.run.iterations: expected a positive integer, or {min, max, until}, got 'three'",
            "",
        ),
        (
            "error",
            5,
            5,
            "steps.run.iteratons: unknown key 'iteratons'",
            "did you mean 'iterations'?",
        ),
    ]


def test_usage_errors_exit_two(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(tmp_path / "absent.yaml")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["validate", str(EXAMPLES / "ska-ior.yaml"), "--tag", "bigg"]) == 2
    assert "tag 'bigg' is not known" in capsys.readouterr().out
    with pytest.raises(SystemExit) as caught:
        main(["validate", "--format", "yaml", str(EXAMPLES / "ska-ior.yaml")])
    assert caught.value.code == 2


def test_schema_prints_the_packaged_schema_and_writes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["schema"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert printed["properties"]["steps"]["description"]
    target = tmp_path / "jubex.schema.json"
    assert main(["schema", "--output", str(target)]) == 0
    assert json.loads(target.read_text()) == printed
    assert main(["schema", "--output", str(tmp_path / "no" / "dir" / "x.json")]) == 2


def test_an_outpath_too_long_for_the_system_is_refused_by_validate_as_by_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "long.yaml"
    outpath = "/".join(["a" * 200] * 30)  # 6,000 bytes: past PATH_MAX
    path.write_text(f"name: x\noutpath: {outpath}\nsteps:\n  s: {{do: echo}}\n")
    assert main(["validate", str(path)]) == 2
    validated = capsys.readouterr().out
    assert main(["run", str(path), "--dry-run"]) == 2
    ran = capsys.readouterr().err
    for text in (validated, ran):
        assert f"{path}:1:1: error: the outpath " in text and "PATH_MAX" in text
