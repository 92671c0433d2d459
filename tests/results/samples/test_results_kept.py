"""A run's rows kept in its store read back exactly as read, and never stale: any change
of the store (a re-analysis, a state, a meta value, whoever writes it) discards them."""

from __future__ import annotations

import json
import shlex
import shutil
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.analysis.run import analyse_run
from jubex.api import load, run
from jubex.engine.driver import Options
from jubex.platform.load import load_platform
from jubex.results.samples import kept
from jubex.results.samples.kept import summary_key
from jubex.results.samples.rows import META, result_rows
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


def _kept_as(made: Run, data: str) -> None:
    """The kept rows of NAMES replaced by ``data`` (as an edited or a hostile store has)."""
    db = sqlite3.connect(made.dir / "jubex.sqlite")
    db.execute("UPDATE summary SET data = ? WHERE key = ?", (data, summary_key(NAMES, False)))
    db.commit()
    db.close()


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # cut short
        lambda data: "[" * 100_000 + "]" * 100_000,  # nested past any recursion limit
        lambda data: "{}",
        lambda data: "[[[], [], []]]",  # no rows' keys
        lambda data: data.replace('"ok"', '"ok_"'),  # a needed key renamed
        lambda data: data.replace("true", '"yes"', 1),  # a text where a verdict belongs
        lambda data: data.replace('"values":["', '"values":["zz', 1),  # not hexadecimal
        lambda data: data.replace('"values":["', '"values":["00', 1),  # not whole floats
        lambda data: data.replace('"sizes":[[2', '"sizes":[[3', 1),  # more samples than kept
        lambda data: data.replace('"sizes":[[2', '"sizes":[[-2', 1),
        lambda data: data.replace('"sizes":[[2', '"sizes":[["2"', 1),
        lambda data: data.replace("[{},", "[[1],", 1),  # a list where executions belong
        lambda data: data.replace('{"same":true}', '{"same":1}', 1),  # a number for a verdict
        lambda data: data.replace('{"same":true}', '{"same":[true]}', 1),
        lambda data: data.replace('{"same":true}', '{"same":true,"or":false}', 1),
        lambda data: data.replace('{"same":true}', '{"sane":true}', 1),
    ],
)
def test_kept_rows_that_do_not_read_back_are_made_again(tmp_path: Path, damage) -> None:
    made = _made(tmp_path)
    first = list(result_rows(made, NAMES))
    data = made.store.summary(summary_key(NAMES, False))
    assert data is not None and '"sizes":[[2' in data and "[{}," in data
    assert '{"same":true}' in data  # a column of one value: "ok", "finished"
    damaged = damage(data)
    assert damaged != data
    _kept_as(made, damaged)
    assert _typed(list(result_rows(_fresh(made), NAMES))) == _typed(first)
    assert made.store.summary(summary_key(NAMES, False)) == data  # kept again


def test_kept_values_of_the_wrong_type_are_never_shown(tmp_path: Path) -> None:
    made = _made(tmp_path)
    first = list(result_rows(made, NAMES))
    data = made.store.summary(summary_key(NAMES, False))
    assert data is not None
    segments = json.loads(data)
    names, keys, columns = segments[0]
    where = len(names) + keys.index("tasks")
    columns[where] = [[1, 2]] * len(columns[where])  # lists where numbers belong
    _kept_as(made, json.dumps(segments))
    assert _typed(list(result_rows(_fresh(made), NAMES))) == _typed(first)


def test_rows_kept_in_the_first_layout_are_made_again(tmp_path: Path) -> None:
    made = _made(tmp_path)
    first = list(result_rows(made, NAMES))
    params = dict(made.store.db.execute("SELECT id, params FROM workpackage"))
    old = [[json.loads(params[row["jube_wp_id"]]), {"samples": {}, "executions": {}}]
           for row in first]  # fmt: skip
    _kept_as(made, json.dumps(old))  # the first layout: a row a [params, rest] pair
    assert _typed(list(result_rows(_fresh(made), NAMES))) == _typed(first)


def test_floats_and_samples_read_back_exactly(tmp_path: Path) -> None:
    made = _made(tmp_path)
    rows = list(result_rows(made, NAMES))
    odd = [-0.0, float("nan"), float("inf"), -float("inf"), 5e-324, 0.1 + 0.2, 1e308]
    for i, row in enumerate(rows):
        row["write_bw"] = odd[i % len(odd)]
        row["read_bw"] = 3 if i % 2 else 3.0  # an int among floats stays an int
        row["samples"] = {"write_bw": tuple(odd[: i % len(odd)]), "tasks": (1.5,) * (i % 3)}
    for samples in (True, False):
        if not samples:
            for row in rows:
                row["samples"] = {"tasks": (1, "x", None, True)}  # no floats: kept as JSON
        frozen = kept.freeze(made, rows, META)
        assert frozen is not None
        thawed = kept.thaw(_fresh(made), frozen, None)
        assert thawed is not None and _typed(thawed) == _typed(rows)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "run", "site", "x"]), max_size=6).flatmap(
        lambda keys: st.tuples(
            st.just(keys),
            st.integers(0, 5).flatmap(
                lambda size: st.lists(
                    st.lists(
                        st.one_of(st.none(), st.integers(), st.text(max_size=2)),
                        min_size=size,
                        max_size=size,
                    ),
                    min_size=len(keys),
                    max_size=len(keys),
                )
            ),
        )
    )
)
def test_rows_made_a_column_at_a_time_are_the_zipped_rows(keys_columns) -> None:
    keys, columns = keys_columns
    made = kept._dicts(keys, columns)
    zipped = [dict(zip(keys, row, strict=True)) for row in zip(*columns, strict=True)]
    assert made == zipped
    assert [list(row.items()) for row in made] == [list(row.items()) for row in zipped]


def test_a_column_of_one_value_is_kept_once_and_read_back_as_every_rows(tmp_path: Path) -> None:
    made = _made(tmp_path)
    rows = list(result_rows(made, NAMES))
    for i, row in enumerate(rows):
        row["reason"] = "same text"
        row["extra"] = 1 if i else True  # equal, but not of one type: a list
    frozen = kept.freeze(made, rows, META)
    assert frozen is not None
    names, keys, columns = json.loads(frozen)[0]
    packed = dict(zip(names + keys, columns, strict=True))
    assert packed["reason"] == {"same": "same text"}
    assert packed["ok"] == {"same": rows[0]["ok"]}
    assert packed["extra"] == [True, *[1] * (len(packed["executions"]) - 1)]
    assert type(packed["run"]) is list  # given again by the reader, as before
    thawed = kept.thaw(_fresh(made), frozen, None)
    assert thawed is not None and _typed(thawed) == _typed(rows)
