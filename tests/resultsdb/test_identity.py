"""One identity for a run wherever it is read from: its directory, a copy, a bundle, an
import or the results database. Met twice, it is counted once; compared with itself, it is
refused however it is named."""

from __future__ import annotations

import json
import shutil

import pytest

from jubex.cli.main import main


@pytest.fixture
def elsewhere(made, tmp_path, capsys):
    """Run 000000 of the study by four other names: a copy, an imported bundle, and the
    database (a selector) it was published into."""
    run = made / "000000"
    copy = tmp_path / "copy" / "000000"
    shutil.copytree(run, copy)
    bundle = tmp_path / "run.tar.gz"
    main(["export", str(run), "-o", str(bundle)])
    main(["import", str(bundle), "--outpath", str(tmp_path / "imported")])
    database = str(tmp_path / "results.sqlite")
    main(["publish", str(run), "--database", database])
    capsys.readouterr()
    return run, [str(copy), str(tmp_path / "imported" / "000000"), "db:id=000000"], database


def test_a_run_compared_with_itself_by_any_name_is_refused(elsewhere, capsys):
    run, names, database = elsewhere
    for name in names:
        assert main(["compare", str(run), name, "--database", database]) == 2, name
        error = capsys.readouterr().err
        assert "the same run" in error and "Traceback" not in error


def test_a_run_met_under_several_names_is_counted_once(elsewhere, capsys):
    run, names, database = elsewhere
    main(["history", str(run), *names, "-m", "bw", "--database", database, "-f", "json"])
    captured = capsys.readouterr()
    rows = json.loads(captured.out)["rows"]
    assert [(row["point"], row["n"]) for row in rows] == [("a", 5), ("b", 5)]
    assert captured.err.count("000000") == 1  # said once
    main(["result", str(run), *names, "--database", database, "-f", "json"])
    captured = capsys.readouterr()
    assert [row["bw_n"] for row in json.loads(captured.out)["rows"]] == [5, 5]
