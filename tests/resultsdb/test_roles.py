"""PostgreSQL's own roles decide who reads and who publishes (docs/database.md#roles)."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from jubex.cli.main import main
from jubex.errors import JubexError
from jubex.resultsdb.connect import Database
from jubex.resultsdb.publish import publish
from jubex.store.rundir import open_run

GRANTS = """
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'results_reader') THEN
    CREATE ROLE results_reader NOLOGIN; END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'project_io_writer') THEN
    CREATE ROLE project_io_writer NOLOGIN; END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'dashboard') THEN
    CREATE ROLE dashboard LOGIN IN ROLE results_reader; END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'alice') THEN
    CREATE ROLE alice LOGIN IN ROLE project_io_writer; END IF;
END $$;
GRANT USAGE ON SCHEMA public TO results_reader, project_io_writer;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO results_reader, project_io_writer;
GRANT INSERT ON ALL TABLES IN SCHEMA public TO project_io_writer;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO project_io_writer;
"""


@pytest.fixture
def roles(new_postgres: str) -> dict[str, str]:
    """The URLs of a reader and a writer of a database set up as the docs say."""
    url = new_postgres
    Database(url).ensure_schema()  # the tables, made by their owner
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        connection.exec_driver_sql(GRANTS)
    engine.dispose()
    base = sa.engine.make_url(url)
    return {
        name: base.set(username=name).render_as_string(hide_password=False)
        for name in ("dashboard", "alice")
    }


def test_a_reader_reads_but_cannot_publish_and_a_writer_publishes(roles, made, capsys):
    run = open_run(made / "000000")
    with pytest.raises(JubexError) as refused:
        publish(Database(roles["dashboard"]), run)
    assert "permission denied" in str(refused.value)
    assert "writer role" in refused.value.hint
    assert publish(Database(roles["alice"]), run) is True
    main(["query", "bw", "db:benchmark=dbstudy", "--database", roles["dashboard"], "-f", "csv"])
    assert capsys.readouterr().out.count("000000") == 10
    assert main(["publish", str(made / "000001"), "--database", roles["dashboard"]]) == 1
    error = capsys.readouterr().err
    assert "permission denied" in error and "Traceback" not in error
    reader = Database(roles["alice"])
    with reader.reading() as connection:
        assert connection.execute(sa.text("SELECT count(*) FROM runs")).scalar() == 1
