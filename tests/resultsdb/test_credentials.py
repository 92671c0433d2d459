"""Credentials are libpq's: a service file names the server, jubex never shows a password."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from jubex.cli.main import main
from jubex.errors import JubexError
from jubex.resultsdb.connect import Database


def test_a_service_of_libpqs_service_file_names_the_database(
    new_postgres, made, tmp_path, monkeypatch, capsys
):
    url = sa.engine.make_url(new_postgres)
    services = tmp_path / "pg_service.conf"
    services.write_text(
        f"[results]\nhost={url.host}\nport={url.port}\nuser={url.username}\ndbname={url.database}\n"
    )
    monkeypatch.setenv("PGSERVICEFILE", str(services))
    monkeypatch.setenv("JUBEX_RESULTS_DB", "postgresql:///?service=results")
    assert main(["publish", str(made / "000000")]) == 0
    assert "published to postgresql+psycopg:///?service=results" in capsys.readouterr().out
    with Database(new_postgres).reading() as connection:
        assert connection.execute(sa.text("SELECT count(*) FROM runs")).scalar() == 1


def test_a_password_in_a_url_is_never_shown(capsys):
    database = Database("postgresql://alice:s3cret@127.0.0.1:1/results")
    assert "s3cret" not in database.name
    with pytest.raises(JubexError) as failed:
        database.ensure_schema()
    assert "s3cret" not in str(failed.value) and "cannot read the results database" in str(
        failed.value
    )
