"""A built-in analyser's statistics of per-iteration values are worked out when a table
reads them, not stored: every real output gives the rows it gave when they were stored."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from jubex.analysis import builtin
from jubex.analysis.harvest import with_statistics
from jubex.api import load, run
from jubex.engine.driver import Options
from jubex.platform.load import load_platform
from jubex.results.samples.rows import result_rows
from jubex.space.spec import resolve_spec

OUTPUTS = Path(__file__).resolve().parents[2] / "data" / "outputs"
KINDS = ("ior", "mdtest", "fio", "io500")


def stored_before(kind: str, path: Path) -> dict[str, object]:
    """What a row showed when the statistics were stored with the values: the first value
    of each name, record by record (``name_<record>`` beyond the first)."""
    measured = builtin.get(kind).parse(path.read_text(errors="replace")).measurements
    row: dict[str, object] = {}
    for m in with_statistics(builtin.get(kind), measured):
        key = m.name if m.record == 0 else f"{m.name}_{m.record}"
        row.setdefault(key, str(m.value) if isinstance(m.value, bool) else m.value)
    return row


@pytest.mark.parametrize("kind", KINDS)
def test_every_real_output_gives_the_values_it_gave_stored(kind: str, tmp_path: Path) -> None:
    files = sorted(p for p in (OUTPUTS / kind).iterdir() if p.is_file())
    definition = tmp_path / "d.yaml"
    definition.write_text(
        "name: outputs\n"
        f"parameters: {{file: [{', '.join(shlex.quote(str(p)) for p in files)}]}}\n"
        f"steps:\n  read:\n    do: cat $file\n    analyse: [{kind}]\n"
    )
    spec = resolve_spec(load(definition), load_platform("local"), outpath=tmp_path / "runs")
    made, _ = run(spec, Options(progress="quiet"))
    rows = {str(row["file"]): row for row in result_rows(made)}
    assert len(rows) == len(files)
    for path in files:
        expected = stored_before(kind, path)
        got = {k: v for k, v in rows[str(path)].items() if k in expected}
        assert got == expected, path.name
    if kind == "ior":
        assert any(k.endswith("_avg") for k in expected), "statistics were compared too"
