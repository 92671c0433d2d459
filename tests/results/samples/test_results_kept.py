"""A run's rows kept in its store read back exactly as read, and never stale: any change
of the store (a re-analysis, a state, a meta value, whoever writes it) discards them."""

from __future__ import annotations

import shlex
import shutil
import sqlite3
from pathlib import Path

import pytest

from jubex.analysis.run import analyse_run
from jubex.api import load, run
from jubex.engine.driver import Options
from jubex.platform.load import load_platform
from jubex.results.samples import kept
from jubex.results.samples.kept import summary_key
from jubex.results.samples.rows import result_rows
from jubex.space.spec import resolve_spec
from jubex.store.rundir import Run, open_run

OUTPUTS = Path(__file__).resolve().parents[2] / "data" / "outputs" / "ior"
NAMES = {"write_bw", "read_bw", "tasks"}


def _made(tmp_path: Path) -> Run:
    files = sorted(OUTPUTS.glob("*.txt"))[:3]
    for i, path in enumerate(files):
        shutil.copy(path, tmp_path / f"out{i}.txt")
    definition = tmp_path / "d.yaml"
    definition.write_text(
        "name: kept\n"
        "parameters:\n"
        f"  file: [{', '.join(shlex.quote(str(tmp_path / f'out{i}.txt')) for i in range(3))}]\n"
        "  block: {values: [4KiB, 1m], type: size}\n"
        "  ratio: {values: ['0.50', ' 2'], type: float}\n"
        "steps:\n  read:\n    iterations: 2\n    do: cat $file\n    analyse: [ior]\n"
    )
    spec = resolve_spec(load(definition), load_platform("local"), outpath=tmp_path / "runs")
    made, _ = run(spec, Options(progress="quiet"))
    return made


def _typed(rows: list[dict[str, object]]) -> list[list[tuple[str, str, str]]]:
    """Each row's keys in order, with each value's type and text: what 'the same' means."""
    return [[(k, type(v).__name__, repr(v)) for k, v in row.items()] for row in rows]


def _fresh(made: Run) -> Run:
    return open_run(made.dir)


def test_rows_read_again_come_from_the_summary_as_first_read(tmp_path: Path) -> None:
    made = _made(tmp_path)
    for names, per_iteration in ((NAMES, False), (None, True)):
        key = summary_key(names, per_iteration)
        assert made.store.summary(key) is None
        first = list(result_rows(made, names, per_iteration=per_iteration))
        assert len(first) == 24  # 12 points, 2 iterations each
        assert made.store.summary(key) is not None  # kept by the first read
        again = list(result_rows(_fresh(made), names, label="x", per_iteration=per_iteration))
        assert {row["run"] for row in again} == {"x"}
        for row in again:
            row["run"] = made.id
        assert _typed(again) == _typed(first)


def test_a_changed_output_analysed_again_changes_the_rows_read(tmp_path: Path) -> None:
    made = _made(tmp_path)
    before = [row.get("write_bw") for row in result_rows(made, NAMES)]
    assert made.store.summary(summary_key(NAMES, False)) is not None
    for wp_dir in made.dir.glob("*_read"):
        stdout = wp_dir / "work" / "stdout"
        text = stdout.read_text()
        for value in {str(v) for v in before if v is not None}:
            text = text.replace(value, "12345.67")
        stdout.write_text(text)
        exit_file = wp_dir / "exit"
        exit_file.write_text(exit_file.read_text() + "\n")  # the program ran again
    reopened = _fresh(made)
    assert analyse_run(reopened) == 24
    assert reopened.store.summary(summary_key(NAMES, False)) is None
    after = [row.get("write_bw") for row in result_rows(_fresh(made), NAMES)]
    assert {v for v in after if v is not None} == {12345.67}
    assert {v for v in before if v is not None} - {12345.67}


def test_any_write_to_the_store_discards_the_summaries(tmp_path: Path) -> None:
    made = _made(tmp_path)
    key = summary_key(NAMES, False)
    list(result_rows(made, NAMES))
    assert made.store.summary(key) is not None
    made.store.set_meta({"note": "x"})
    assert made.store.summary(key) is None
    list(result_rows(made, NAMES))
    made.store.set_states([(0, "failed", None, 1, "killed")])
    assert made.store.summary(key) is None
    rows = list(result_rows(made, NAMES))
    assert not next(r for r in rows if r["jube_wp_id"] == 0)["ok"]
    # another program's write (an older jubex's) discards them all the same
    db = sqlite3.connect(made.dir / "jubex.sqlite")
    db.execute("UPDATE analysed SET ok = 0")
    db.commit()
    db.close()
    assert made.store.summary(key) is None
    assert not any(r["ok"] for r in result_rows(made, NAMES))


def test_rows_of_a_store_changed_while_read_are_not_kept(tmp_path: Path) -> None:
    made = _made(tmp_path)
    other = _fresh(made)
    with made.store.snapshot() as keep:
        made.store.workpackages()
        other.store.set_meta({"note": "written meanwhile"})
        keep("k", "[]")
    assert made.store.summary("k") is None
    with made.store.snapshot() as keep:
        made.store.workpackages()
        keep("k", "[]")
    assert made.store.summary("k") == "[]"


def test_rows_kept_by_other_code_are_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = _made(tmp_path)
    list(result_rows(made, NAMES))
    assert made.store.summary(summary_key(NAMES, False)) is not None
    monkeypatch.setattr(kept, "_code", lambda: "another text of the modules")
    assert made.store.summary(summary_key(NAMES, False)) is None
    list(result_rows(made, NAMES))
    assert made.store.summary(summary_key(NAMES, False)) is not None
