"""The repetitions a program makes inside one execution (IOR's ``-i``) are samples of a
table's statistics and of a comparison: on every real IOR output, the table's mean, min
and max are IOR's own, and n counts executions times repetitions."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest

from jubex.analysis import builtin
from jubex.api import load, resolve, run
from jubex.engine.driver import Options
from jubex.platform.load import load_platform
from jubex.results.comparison.compare_runs import compare_runs
from jubex.results.tables.tabulate import tables_with_definitions
from jubex.space.spec import resolve_spec

OUTPUTS = Path(__file__).resolve().parents[2] / "data" / "outputs" / "ior"
EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def _prints_every_iteration(path: Path) -> bool:
    """An output with IOR's summary and a write and a read row for each of its iterations."""
    found = builtin.get("ior").parse(path.read_text(errors="replace")).measurements
    names = [m.name for m in found if m.record == 0]
    repetitions = next((m.value for m in found if m.name == "repetitions"), None)
    return (
        "write_mean" in names
        and "read_mean" in names
        and names.count("write_bw") == names.count("read_bw") == repetitions
    )


#: the real outputs that print each iteration's results and IOR's summary of them
FILES = sorted(p for p in OUTPUTS.glob("*.txt") if _prints_every_iteration(p))


def _study(tmp_path: Path, files: list[Path], executions: int) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    definition = tmp_path / "d.yaml"
    definition.write_text(
        "name: repetitions\n"
        f"parameters: {{file: [{', '.join(shlex.quote(str(p)) for p in files)}]}}\n"
        f"steps:\n  read:\n    iterations: {executions}\n    do: cat $file\n"
        "    analyse: [ior]\n"
        "results:\n  t:\n    group_by: [file]\n    columns:\n"
        "      - {name: write_bw, stats: [n, mean, min, max]}\n"
        "      - {name: read_bw, stats: [n, mean, min, max]}\n"
        "      - write_bw_avg\n"
    )
    return definition


def _made(tmp_path: Path, files: list[Path], executions: int):
    definition = _study(tmp_path, files, executions)
    spec = resolve_spec(load(definition), load_platform("local"), outpath=tmp_path / "runs")
    made, _ = run(spec, Options(progress="quiet"))
    return made


def test_table_statistics_are_iors_own_over_every_iteration(tmp_path: Path) -> None:
    assert len(FILES) >= 3
    made = _made(tmp_path, FILES, executions=2)
    (_, table), *_ = tables_with_definitions([made])
    records = {str(r["file"]): r for r in table.records()}
    for path in FILES:
        found = {m.name: m.value for m in builtin.get("ior").parse(path.read_text()).measurements}
        got = records[str(path)]
        for op in (op for op in ("write", "read") if f"{op}_max" in found):
            # IOR prints its summary with two decimals, and each iteration's bandwidth
            # with two as well, or none from 1000 MiB/s on (3934 for 3933.64)
            assert got[f"{op}_bw_n"] == 2 * found["repetitions"], path.name
            for stat in ("mean", "min", "max"):
                expected = pytest.approx(found[f"{op}_{stat}"], abs=0.5)
                assert got[f"{op}_bw_{stat}"] == expected, (path.name, op, stat)
        assert got["write_bw_avg"] == got["write_bw_mean"]


def test_the_documented_statistic_names_pass_validate(tmp_path: Path) -> None:
    table = load(_study(tmp_path, FILES[:1], executions=1)).tables["t"]  # raises on unknown
    assert [(c.name, c.stats) for c in table.columns] == [
        ("write_bw", ("n", "mean", "min", "max")),
        ("read_bw", ("n", "mean", "min", "max")),
        ("write_bw_avg", ()),
    ]


def test_a_comparison_counts_every_iteration(tmp_path: Path) -> None:
    # the two executions of a side read the same output: their means are one, no spread
    # between executions is seen, and every iteration is a sample
    made = [_made(tmp_path / side, FILES[:1], executions=2) for side in ("a", "b")]
    result = compare_runs(made[0], made[1], metrics=["write_bw"])
    (item,) = result.items
    assert item.baseline is not None and item.candidate is not None
    assert (item.baseline.n, item.candidate.n) == (6, 6)
    assert "executions" not in item.note


@pytest.mark.skipif(
    shutil.which("make") is None or shutil.which("cc") is None,
    reason="the kernels need make and a C compiler",
)
def test_lustre_clio_counts_five_runs_times_iors_repetitions(tmp_path: Path) -> None:
    """The report's -i 5: 5 runs x 5 IOR iterations are 25 samples of each point; mdtest
    -i 5 prints only its statistics, one sample per run, and the table says so."""
    spec = resolve(
        EXAMPLES / "lustre-clio.yaml",
        tags=["kernels"],
        overrides={"repetitions": ["5"], "items": ["40"], "block": ["2m"]},
        outpath=tmp_path / "runs",
    )
    made, _ = run(spec, Options(jobs=1, progress="quiet"))
    ior, mdtest = (table for _, table in tables_with_definitions([made], ["ior", "mdtest"]))
    assert ior.column("write_bw_n") == [5 * 5, 5 * 5]
    assert [n for n in ior.notes if "own summary" in n] == []
    (note,) = [n for n in mdtest.notes if "own summary" in n]
    assert "file_creation_mean" in note and "over 5 iterations of each execution" in note


def test_the_io500_starter_says_why_a_run_is_not_valid(tmp_path: Path) -> None:
    """A validity column carries its reason: the harness's own words."""
    starter = (EXAMPLES.parent / "jubex/data/templates/io500.yaml").read_text()
    output = OUTPUTS.parent / "io500" / "run_np2_stdout.txt"
    definition = tmp_path / "io500.yaml"
    command = re.search(r"^    do: (\$launcher \$io500 .*)$", starter, re.MULTILINE)
    assert command is not None
    definition.write_text(starter.replace(command[1], f"cat {output}"))
    made, _ = run(resolve(definition, outpath=tmp_path / "runs"), Options(progress="quiet"))
    ((_, table),) = tables_with_definitions([made])
    (record,) = table.records()
    assert record["valid"] in (False, "False")
    assert str(record["invalid_reason"]).startswith("stonewall-time 2s != 300s")
