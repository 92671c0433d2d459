"""Run directories: the resolved run kept in run.json, and runs of earlier versions."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from jubex.definition.frozen import to_json
from jubex.definition.model import Benchmark, Do, Parameter, ParameterSet, Step
from jubex.engine.driver import new_run
from jubex.errors import UsageError
from jubex.platform.load import load_platform
from jubex.space.spec import resolve_spec
from jubex.store.rundir import (
    DEFINITION,
    HASH,
    PLATFORM,
    SPEC,
    STORE,
    _real,
    definition_hash,
    list_runs,
    next_run_dir,
    open_run,
    resolve_runs,
)


def benchmark(tmp_path: Path) -> Benchmark:
    (tmp_path / "def.yaml").write_text("# built in the test\n")
    return Benchmark(
        "b",
        parametersets={"p": ParameterSet("p", {"n": Parameter("n", ("4k", "1m"), type="size")})},
        steps={"s": Step("s", do=[Do("echo $n")])},
        file=str(tmp_path / "def.yaml"),
    )


def test_a_run_keeps_its_resolved_spec_with_absolute_paths(tmp_path: Path) -> None:
    spec = resolve_spec(benchmark(tmp_path), load_platform("local"), tags=["x"])
    assert next_run_dir(Path(spec.outpath)).name == "000000"
    run = new_run(spec)
    assert next_run_dir(Path(spec.outpath)).name == "000001"
    kept = json.loads((run.dir / SPEC).read_text())
    assert kept["definition"] == str(tmp_path / "def.yaml")
    assert kept["home"] == str(tmp_path) and kept["tags"] == ["x"]
    opened = open_run(run.dir)
    assert opened.spec == run.spec
    assert [str(wp.point["n"]) for wp in opened.store.workpackages()] == ["4k", "1m"]
    assert opened.store.workpackages()[1].point["n"] == 1024**2


def test_a_run_of_an_earlier_version_is_read_from_its_frozen_files(tmp_path: Path) -> None:
    run = new_run(resolve_spec(benchmark(tmp_path), load_platform("local")))
    (run.dir / DEFINITION).write_text(to_json(run.benchmark))
    (run.dir / PLATFORM).write_text(to_json(run.platform))
    (run.dir / SPEC).unlink()
    opened = open_run(run.dir)
    assert opened.spec.home == str(tmp_path)
    assert opened.spec.definition == str(tmp_path / "def.yaml")
    assert opened.benchmark.name == "b" and opened.platform.name == "local"
    assert str(opened.store.workpackages()[0].point["n"]) == "4k"


def test_a_run_keeps_its_definitions_fingerprint_and_an_older_one_gets_the_same(
    tmp_path: Path,
) -> None:
    """Opening a run reads the fingerprint run.json keeps; a run.json without it (an
    earlier version's) gets the same one worked out, and a run.json with it stays a spec
    that older readers read (the key is not a field of the spec)."""
    run = new_run(resolve_spec(benchmark(tmp_path), load_platform("local")))
    kept = json.loads((run.dir / SPEC).read_text())
    assert kept[HASH] == definition_hash(run.spec.benchmark) == run.definition_hash
    assert open_run(run.dir).stored_hash == kept[HASH]
    del kept[HASH]
    (run.dir / SPEC).write_text(json.dumps(kept))
    older = open_run(run.dir)
    assert older.stored_hash is None
    assert older.definition_hash == run.definition_hash
    assert older.spec == run.spec


def test_runs_of_one_run_json_share_its_spec_and_a_changed_one_is_read_anew(
    tmp_path: Path,
) -> None:
    """The spec is built once per text of run.json: a copy of a run reads the same spec
    object, a run.json changed on disk is read again, a damaged one is refused."""
    run = new_run(resolve_spec(benchmark(tmp_path), load_platform("local")))
    copy = run.dir.with_name("000001")
    shutil.copytree(run.dir, copy)
    assert open_run(copy).spec is open_run(run.dir).spec
    kept = json.loads((copy / SPEC).read_text())
    kept["tags"] = ["changed"]
    (copy / SPEC).write_text(json.dumps(kept))
    assert open_run(copy).spec.tags == ("changed",)
    assert open_run(run.dir).spec.tags == ()
    (copy / SPEC).write_text(json.dumps(kept)[:-40])
    with pytest.raises(UsageError, match="is damaged"):
        open_run(copy)


@pytest.fixture
def outpath(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An outpath of three runs (a store file each), beside things that are no runs: a
    number without a store, a name that is no number, a link to a run, a linked outpath."""
    runs = tmp_path / "runs"
    for name in ("000000", "000001", "9", "10"):
        (runs / name).mkdir(parents=True)
        (runs / name / STORE).touch()
    (runs / "000002").mkdir()  # no store: no run
    (runs / "notes").mkdir()
    (runs / "notes" / STORE).touch()
    (runs / "000003").symlink_to(runs / "000001")
    (tmp_path / "linked").symlink_to(runs)
    monkeypatch.chdir(tmp_path)
    return runs


def test_an_outpaths_runs_are_its_numbered_directories_with_a_store_in_name_order(
    outpath: Path,
) -> None:
    expected = sorted(p for p in outpath.iterdir() if p.name.isdigit() and (p / STORE).exists())
    assert list_runs(outpath) == expected
    assert [p.name for p in expected] == ["000000", "000001", "000003", "10", "9"]
    assert list_runs(outpath / "000002") == list_runs(outpath / "missing") == []


@pytest.mark.parametrize(
    "name",
    [
        "runs/000000",
        "runs/000003",  # a link: the run it leads to
        "linked/000001",  # through a linked outpath
        "runs/../runs/000001",
        "runs/000001/.",
        "runs/000001/..",
        "runs/missing",
        ".",
    ],
)
def test_a_run_path_is_resolved_as_pathlib_resolves_it(outpath: Path, name: str) -> None:
    parents: dict[Path, Path] = {}
    assert _real(Path(name), parents) == Path(name).resolve()
    assert _real(Path(name), parents) == Path(name).resolve()  # its directory known now


def test_runs_named_several_ways_are_each_read_once(outpath: Path) -> None:
    found = resolve_runs(["runs/000000", "linked/000000", "runs/000003", "runs/000001"])
    assert found == [Path("linked/000000"), Path("runs/000001")]  # a run's last name
    assert resolve_runs(["runs"], ids=["all"]) == [  # 000001 is found again as 000003
        Path("runs", name) for name in ("000000", "000003", "10", "9")
    ]
