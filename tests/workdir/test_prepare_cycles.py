"""Each cycle's commands see that cycle's values, in the concise spelling too, and a
workpackage run again starts over from the first cycle's."""

from __future__ import annotations

from pathlib import Path

from jubex.cli.main import main
from jubex.store.rundir import open_run
from jubex.store.store import DONE


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "bench.yaml"
    path.write_text(text)
    return path


def values(run_dir: Path) -> dict[str, list[str]]:
    """The lines of each workpackage's ``values`` file (where there is one), by its ``n``."""
    files = {
        str(wp.point["n"]): run_dir / wp.dir_name / "work" / "values"
        for wp in open_run(run_dir).store.workpackages()
    }
    return {n: path.read_text().splitlines() for n, path in files.items() if path.exists()}


CONCISE = """
name: sweep
outpath: runs
parameters:
  n: [1, 2]
  size: {expr: "n * 2 ** jube_wp_cycle", type: int, update: cycle}
  size_tagged: {expr: "size + 1000", update: always, tag: big}
  label: {values: "n${n}-s$size", update: cycle}
steps:
  grow:
    cycles: 3
    do: echo $label >> values
"""


def test_concise_spelling_evaluates_per_cycle(tmp_path: Path) -> None:
    path = write(tmp_path, CONCISE)
    assert main(["run", str(path), "--outpath", str(tmp_path / "runs"), "-q"]) == 0
    assert values(tmp_path / "runs" / "000000") == {
        "1": ["n1-s1", "n1-s2", "n1-s4"],
        "2": ["n2-s2", "n2-s4", "n2-s8"],
    }


def test_tags_and_overrides_of_the_run_are_the_ones_evaluated(tmp_path: Path) -> None:
    text = CONCISE.replace('label: {values: "n${n}-s$size"', 'label: {values: "$size_tagged"')
    path = write(tmp_path, text)
    runs = str(tmp_path / "runs")
    assert main(["run", str(path), "--outpath", runs, "-q", "--tag", "big", "-p", "n=3"]) == 0
    assert values(tmp_path / "runs" / "000000") == {"3": ["1003", "1006", "1012"]}
    assert main(["run", str(path), "--outpath", runs, "-q", "--tag", "big", "-p", "size=5"]) == 0
    assert values(tmp_path / "runs" / "000001") == {"1": ["1005"] * 3, "2": ["1005"] * 3}


def test_a_workpackage_run_again_starts_from_the_first_cycle(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        CONCISE.replace(
            "do: echo $label >> values",
            f"do: echo $label >> values && {{ [ $size -lt 8 ] || [ -e {tmp_path}/ok ]; }}",
        ),
    )
    runs = tmp_path / "runs"
    assert main(["run", str(path), "--outpath", str(runs), "-q"]) != 0
    run_dir = runs / "000000"
    assert values(run_dir) == {"1": ["n1-s1", "n1-s2", "n1-s4"], "2": ["n2-s2", "n2-s4", "n2-s8"]}
    (tmp_path / "ok").touch()
    for wp in open_run(run_dir).store.workpackages():
        (run_dir / wp.dir_name / "work" / "values").unlink()
    assert main(["continue", str(run_dir), "--retry-failed", "-q"]) == 0
    run = open_run(run_dir)
    assert {wp.state for wp in run.store.workpackages()} == {DONE}
    assert values(run_dir) == {"2": ["n2-s2", "n2-s4", "n2-s8"]}
    assert {str(wp.point["n"]): str(wp.point["size"]) for wp in run.store.workpackages()} == {
        "1": "4",
        "2": "8",
    }
