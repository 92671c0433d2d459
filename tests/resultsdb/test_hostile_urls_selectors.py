"""Secrets in database URLs are never shown, and hostile selectors or URLs are exit 2."""

from __future__ import annotations

import pytest

from jubex.cli.main import main
from jubex.resultsdb import connect


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://alice:s3cret@127.0.0.1:1/results",
        "postgresql://alice@127.0.0.1:1/results?password=s3cret",
        "postgresql://alice@127.0.0.1:1/results?sslmode=disable&PassWord=s3cret",
        "postgresql://alice@127.0.0.1:1/results?sslpassword=s3cret",
        "sqlite:////nowhere/x.sqlite?password=s3cret",
        "host=db password=s3cret dbname=results",
    ],
)
def test_the_masking_function_hides_user_info_and_secret_query_parameters(url):
    shown = connect.masked_url(url)
    assert "s3cret" not in shown and "***" in shown


def test_a_password_in_the_query_is_masked_in_publishs_line(database, made, capsys):
    separator = "&" if "?" in database else "?"
    url = database if "://" not in database else f"{database}{separator}password=s3cret"
    assert main(["publish", str(made / "000000"), "--database", url]) == 0
    out = capsys.readouterr().out
    assert "published to" in out and "s3cret" not in out


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://alice@127.0.0.1:1/results?password=s3cret",
        "postgresql://alice@127.0.0.1:notaport/results?password=s3cret",
        "postgresql://alice:s3cret@127.0.0.1:notaport/results",
        "mysql://alice@host/results?password=s3cret",
    ],
)
def test_an_unreachable_or_malformed_url_is_exit_2_without_its_secret(url, made, capsys):
    code = main(["publish", str(made / "000000"), "--database", url])
    err = capsys.readouterr().err
    assert code == (1 if ":1/" in url else 2), err  # 1: no server there
    assert "s3cret" not in err and "Traceback" not in err and "bug in jubex" not in err


@pytest.mark.parametrize(
    "last", ["9" * 27, "9" * 5000, "0" * 30 + "2"], ids=["27", "5000", "zeros"]
)
def test_a_huge_last_counts_every_run(tmp_path, made, capsys, last):
    database = str(tmp_path / "results.sqlite")
    main(["publish", str(made / "000000"), str(made / "000001"), "--database", database])
    capsys.readouterr()
    assert main(["query", "bw", f"db:last={last}", "--database", database, "-f", "csv"]) == 0
    runs = {line.split(",")[1] for line in capsys.readouterr().out.splitlines()[1:] if line}
    assert runs == {"000000", "000001"}


@pytest.mark.parametrize("last", ["²", "1e3", "-1", "0"])
def test_a_last_that_is_no_count_is_exit_2(tmp_path, made, capsys, last):
    database = str(tmp_path / "results.sqlite")
    main(["publish", str(made / "000000"), "--database", database])
    capsys.readouterr()
    assert main(["result", f"db:last={last}", "--database", database]) == 2
    assert "at least 1" in capsys.readouterr().err


@pytest.mark.parametrize("wildcard", ["%", "_", "%%%%", "____"])
def test_a_key_prefix_is_literal_not_a_like_pattern(tmp_path, made, capsys, wildcard):
    database = str(tmp_path / "results.sqlite")
    main(["publish", str(made / "000000"), "--database", database])
    capsys.readouterr()
    assert main(["result", f"db:key={wildcard}", "--database", database]) == 2
    assert "selects no run" in capsys.readouterr().err
