"""A history series is one configuration: a run made with another setting breaks the
series, is named with what changed, and is never a change point."""

from __future__ import annotations

import json

import pytest

from jubex.cli.main import main

#: bandwidth doubles with the block: another setting, not a change of the system
STUDY = r"""
name: hs
parameters:
  x: 1
  block: 1
patterns:
  v:
    v: {regex: '^v: $jube_pat_fp', type: float, unit: MiB/s, better: higher}
steps:
  run:
    iterations: 4
    do: 'echo v: ${1000 * block + x + jube_wp_iteration}'
    analyse: [v]
"""


@pytest.fixture(scope="module")
def three(tmp_path_factory):
    """Three runs, the middle one with ``-p block=2``: their directories."""
    folder = tmp_path_factory.mktemp("hs")
    (folder / "hs.yaml").write_text(STUDY)
    for block in ("1", "2", "1"):
        argv = ["run", str(folder / "hs.yaml"), "--outpath", str(folder / "runs"), "-q"]
        main([*argv, "--no-result", "-p", f"block={block}"])
    return [str(folder / "runs" / f"00000{i}") for i in range(3)]


def history(capsys, *argv: str) -> dict:
    assert main(["history", *argv, "-m", "v", "-f", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_another_setting_breaks_the_series_and_is_named_not_a_change_point(three, database, capsys):
    main(["publish", *three, "--database", database])
    capsys.readouterr()
    for found in (
        history(capsys, *three),
        history(capsys, "db:benchmark=hs,x=1", "--database", database),
    ):
        rows = found["rows"]
        assert [row["change_point"] for row in rows] == [None] * 3
        assert [row["setting_changed"] for row in rows] == [None, "block 1 → 2", "block 2 → 1"]
        # the third run is set against the first, of its own setting: no change
        assert [row["change"] is None for row in rows] == [True, True, False]
        assert abs(rows[2]["change"]) < 1
        assert any("2 series break(s)" in note for note in found["notes"])


def test_by_makes_a_changed_setting_an_axis(three, capsys):
    rows = history(capsys, *three, "--by", "block")["rows"]
    assert [(row["block"], row["run"]) for row in rows] == [
        (1, "000000"),
        (1, "000002"),
        (2, "000001"),
    ]
    assert [row["setting_changed"] for row in rows] == [None] * 3
