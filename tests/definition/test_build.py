"""The concise YAML spelling maps onto the model exactly, every object with its line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.api import load
from jubex.definition.model import (
    Column,
    Constraint,
    Do,
    FileOp,
    IOFile,
    Parameter,
    Pattern,
    Resources,
    Sub,
)
from jubex.errors import DefinitionError, ErrorList, Loc

FULL = """
name: ior-fpp-sweep
comment: IOR file-per-process
include: [common.yaml]
tags: [big, sync, small]
environment: {OMP_NUM_THREADS: "1"}
parameters:
  api: [POSIX, MPIIO]
  transfer: [4KiB, 32KiB, 1MiB, 4MiB]
  blocks: {range: {start: 1, stop: 16, factor: 2}}
  steps: {range: {start: 0.5, stop: 1.5, step: 0.5}}
  layout:
    zip:
      nodes: [256, 256, 256]
      ppn:   [1, 2, 4]
      block: [4GiB, 2GiB, 1GiB]
  tasks: "${nodes * ppn}"
  seg: {expr: "total // (tasks * block)"}
  host: {shell: "hostname"}
  scratch: {env: SCRATCH}
  fsync: {values: [0, 1], type: int, tag: "sync", export: true, unit: "", separator: null}
  csv: {values: "a;b;c", separator: ";"}
  ior: ior
parametersets:
  other: {init_with: "common.yaml:sizes", transfer: [1m]}
where:
  - "block % transfer == 0"
  - {expr: "tasks <= 64", tag: small}
files:
  sources:
    - {copy: "../kernels/*.c"}
    - {link: "/scratch/data", to: "data"}
    - {prepare: "mkdir -p out", work_dir: out}
substitutions:
  input:
    files: [{in: "ior.in.tmpl", out: "ior.in"}]
    replace: {"#TRANSFER#": "$transfer"}
    regex: {"nodes=\\\\d+": "nodes=$nodes"}
patterns:
  bw:
    write_bw: {regex: "Max Write: $jube_pat_fp MiB/sec", type: float, unit: "MiB/s", better: higher}
    lines: {regex: "^bw:", reduce: [cnt]}
    eff: {expr: "write_bw / peak"}
    latency: {json: "jobs[0].write.lat_ns.mean", type: float, unit: ns, better: lower}
analysers:
  bw: {use: [bw], step: run, files: [stdout, {path: "*.log", use: common}]}
steps:
  build:
    use: []
    files: [sources, input]
    do: make
  run:
    depend: [build]
    iterations: 3
    resources:
      {nodes: $nodes, tasks_per_node: $ppn, time: 30m, partition: batch, extra: {qos: high}}
    environment: {X: "1"}
    time_limit: 10m
    array: true
    active: "api != 'MPIIO' or nodes > 1"
    shared: shared
    do:
      - $launcher ior -a $api -b $block -t $transfer -o ior.dat
      - {cmd: "echo done", active: "fsync == 1", done_file: "ready", shared: true, stdout: "x.out"}
    analyse: [ior, bw]
results:
  bandwidth:
    group_by: [api, tasks, transfer]
    columns:
      - api
      - {name: write_bw, stats: [n, mean, std, min, max], unit: "GiB/s", format: ".2f",
         title: "write"}
      - {name: ratio, expr: "write_bw_mean / 2"}
    sort: [api, -transfer]
    filter: "api == 'POSIX'"
    style: csv
"""

COMMON = """
parametersets:
  sizes: {transfer: [4KiB, 8KiB], total: 1TiB, peak: 100}
patterns:
  common: {x: "^x: $jube_pat_int"}
"""


def line(start: str) -> int:
    """The line of FULL that starts (after indentation) with ``start``."""
    lines = [text.strip() for text in FULL.lstrip().splitlines()]
    return next(i for i, text in enumerate(lines, 1) if text.startswith(start))


@pytest.fixture
def full(write: Callable[[str, str], Path]) -> Path:
    write("common.yaml", COMMON)
    return write("full.yaml", FULL)


def test_parameters_map_onto_the_model(full: Path) -> None:
    b = load(full)
    assert b.file == str(full) and b.name == "ior-fpp-sweep" and b.outpath == "runs"
    ps = b.parametersets["parameters"]
    p = ps.parameters
    assert list(b.parametersets) == ["parameters", "sizes", "other"]
    assert ps.zips == [("nodes", "ppn", "block")]
    assert p["api"] == Parameter("api", ("POSIX", "MPIIO"), loc=Loc(str(full), line("api:"), 3))
    assert p["blocks"].values == ("1", "2", "4", "8", "16")
    assert p["steps"].values == ("0.5", "1.0", "1.5")
    assert p["nodes"].loc == Loc(str(full), line("nodes:"), 7)
    assert (p["tasks"].values, p["tasks"].mode) == (("${nodes * ppn}",), "text")
    assert (p["seg"].values, p["seg"].mode) == (("total // (tasks * block)",), "expr")
    assert (p["host"].mode, p["scratch"].mode, p["scratch"].values) == (
        "shell",
        "env",
        ("SCRATCH",),
    )
    assert p["fsync"] == Parameter(
        "fsync",
        ("0", "1"),
        type="int",
        tag="sync",
        export=True,
        loc=Loc(str(full), line("fsync"), 3),
    )
    assert p["csv"].values == ("a", "b", "c") and p["csv"].separator == ";"
    assert p["ior"].values == ("ior",)


def test_init_with_copies_a_set_and_local_keys_override(full: Path) -> None:
    other = load(full).parametersets["other"]
    assert other.init_with == "common.yaml:sizes"
    assert {n: q.values for n, q in other.parameters.items()} == {
        "transfer": ("1m",),
        "total": ("1TiB",),
        "peak": ("100",),
    }
    assert other.parameters["total"].loc.file.endswith("common.yaml")


def test_steps_map_onto_the_model(full: Path) -> None:
    b = load(full)
    build, run = b.steps["build"], b.steps["run"]
    assert (build.use, build.use_files, build.do[0].command) == ((), ("sources", "input"), "make")
    assert run.use is None and run.depend == ("build",) and run.iterations == 3
    assert run.resources == Resources(
        nodes="$nodes", tasks_per_node="$ppn", time="30m", partition="batch", extra={"qos": "high"}
    )
    assert (run.environment, run.time_limit, run.array, run.shared) == (
        {"X": "1"},
        "10m",
        True,
        "shared",
    )
    assert run.active == "api != 'MPIIO' or nodes > 1"
    assert run.analyse == ("ior", "bw")
    assert run.do[1] == Do(
        "echo done",
        active="fsync == 1",
        done_file="ready",
        shared=True,
        stdout="x.out",
        loc=Loc(str(full), line("- {cmd:"), 9),
    )
    assert run.loc == Loc(str(full), line("run:"), 3)


def test_sets_patterns_analysers_tables_map_onto_the_model(full: Path) -> None:
    b = load(full)
    ops = b.filesets["sources"].ops
    assert [(o.kind, o.source, o.target, o.directory) for o in ops] == [
        ("copy", "../kernels/*.c", None, None),
        ("link", "/scratch/data", "data", None),
        ("prepare", "mkdir -p out", None, "out"),
    ]
    assert isinstance(ops[0], FileOp) and ops[0].rel_path_ref == "definition"
    sub = b.substitutesets["input"]
    assert [(f.source, f.target) for f in sub.iofiles] == [("ior.in.tmpl", "ior.in")]
    assert isinstance(sub.iofiles[0], IOFile)
    assert [(s.source, s.dest, s.mode) for s in sub.subs] == [
        ("#TRANSFER#", "$transfer", "text"),
        ("nodes=\\d+", "nodes=$nodes", "regex"),
    ]
    assert all(isinstance(s, Sub) for s in sub.subs)
    bw = b.patternsets["bw"].patterns
    assert bw["write_bw"] == Pattern(
        "write_bw",
        "Max Write: $jube_pat_fp MiB/sec",
        type="float",
        unit="MiB/s",
        higher_is_better=True,
        loc=bw["write_bw"].loc,
    )
    assert bw["lines"].reduce == ("cnt",)
    assert (bw["eff"].mode, bw["eff"].regex) == ("expr", "write_bw / peak")
    assert (bw["latency"].mode, bw["latency"].json_path, bw["latency"].higher_is_better) == (
        "json",
        "jobs[0].write.lat_ns.mean",
        False,
    )
    analyser = b.analysers["bw"]
    assert (analyser.use, analyser.step) == (("bw",), "run")
    assert [(f.path, f.use) for f in analyser.files] == [("stdout", ()), ("*.log", ("common",))]
    table = b.tables["bandwidth"]
    assert (table.group_by, table.sort, table.filter, table.style) == (
        ("api", "tasks", "transfer"),
        ("api", "-transfer"),
        "api == 'POSIX'",
        "csv",
    )
    assert table.columns[1] == Column(
        "write_bw",
        title="write",
        format=".2f",
        stats=("n", "mean", "std", "min", "max"),
        unit="GiB/s",
        loc=table.columns[1].loc,
    )
    assert table.columns[2].expr == "write_bw_mean / 2"
    assert b.where == [
        Constraint("block % transfer == 0", None, Loc(str(full), line('- "block %'), 5)),
        Constraint("tasks <= 64", "small", Loc(str(full), line('- {expr: "tasks'), 5)),
    ]
    assert (b.environment, b.tags) == ({"OMP_NUM_THREADS": "1"}, ("big", "sync", "small"))


def test_parameter_twice_in_a_set_via_a_zip_is_an_error(write: Callable[[str, str], Path]) -> None:
    path = write("d.yaml", "name: x\nparameters:\n  a: 1\n  g: {zip: {a: [1], b: [2]}}\n")
    with pytest.raises(DefinitionError) as caught:
        load(path)
    assert str(caught.value) == (
        f"{path}:4:13: error: parameter 'a' is defined twice in parameterset 'parameters' "
        "(first at line 3)"
    )


def test_zip_in_zip_and_options_beside_zip_are_errors(write: Callable[[str, str], Path]) -> None:
    path = write(
        "d.yaml", "name: x\nparameters:\n  g: {zip: {a: [1], h: {zip: {b: [1]}}}, type: int}\n"
    )
    with pytest.raises(ErrorList) as caught:
        load(path)
    messages = [e.message for e in caught.value.errors]
    assert "zip group 'g' takes no other keys (found type)" in messages
    assert "zip group 'g' holds another zip group 'h'" in messages


def test_a_range_that_yields_nothing_is_an_error(write: Callable[[str, str], Path]) -> None:
    path = write("d.yaml", "name: x\nparameters:\n  n: {range: {start: 8, stop: 1, step: 1}}\n")
    with pytest.raises(DefinitionError) as caught:
        load(path)
    assert str(caught.value).startswith(f"{path}:3:")


names = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True)
values = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._]{0,7}", fullmatch=True)


#: names the zip below uses itself
_OWN = ("z0", "z1", "group")


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        names.filter(lambda n: n not in _OWN),
        st.lists(values, min_size=1, max_size=4),
        min_size=1,
        max_size=5,
    ),
    st.integers(1, 4),
)
def test_any_set_of_value_lists_and_one_zip_maps_onto_the_model(
    tmp_path_factory: pytest.TempPathFactory, sets: dict[str, list[str]], length: int
) -> None:
    zipped = {f"z{i}": [f"v{i}{j}" for j in range(length)] for i in range(2)}
    document = {"name": "p", "parameters": {**sets, "group": {"zip": zipped}}}
    path = tmp_path_factory.mktemp("prop") / "d.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    pset = load(path).parametersets["parameters"]
    assert {n: list(p.values) for n, p in pset.parameters.items()} == {**sets, **zipped}
    assert pset.zips == [("z0", "z1")]
    lines = path.read_text().splitlines()
    for name, parameter in pset.parameters.items():
        assert lines[parameter.loc.line - 1].strip().lstrip("'\"").startswith(name)
