"""Run directories: the resolved run kept in run.json, and runs of earlier versions."""

from __future__ import annotations

import json
from pathlib import Path

from jubex.definition.frozen import to_json
from jubex.definition.model import Benchmark, Do, Parameter, ParameterSet, Step
from jubex.engine.driver import new_run
from jubex.platform.load import load_platform
from jubex.space.spec import resolve_spec
from jubex.store.rundir import (
    DEFINITION,
    HASH,
    PLATFORM,
    SPEC,
    definition_hash,
    next_run_dir,
    open_run,
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
