"""``publish: true`` publishes every run when it has finished."""

from __future__ import annotations

import sqlalchemy as sa

from jubex.cli.main import main
from jubex.resultsdb.connect import Database


def test_a_finished_run_is_published_when_the_configuration_asks(
    study, tmp_path, monkeypatch, capsys
):
    url = str(tmp_path / "results.sqlite")
    monkeypatch.setenv("JUBEX_RESULTS_DB", url)
    config = tmp_path / "config" / "jubex" / "config.yaml"
    config.parent.mkdir(parents=True)
    config.write_text("publish: true\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    out = tmp_path / "runs"
    assert main(["run", str(study), "--outpath", str(out), "-q", "--no-result"]) == 0
    assert f"published to sqlite:///{url}" in capsys.readouterr().out
    monkeypatch.setenv("JUBEX_PUBLISH", "0")
    assert main(["run", str(study), "--outpath", str(out), "-q", "--no-result"]) == 0
    assert "published" not in capsys.readouterr().out
    with Database(url).reading() as connection:
        assert connection.execute(sa.text("SELECT run_id FROM runs")).scalars().all() == ["000000"]
