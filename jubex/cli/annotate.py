"""``jubex annotate SITE DATE TEXT``: a note of a site kept in the results database."""

from __future__ import annotations

import argparse

from jubex.cli.common import add_database_option

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ("jubex annotate juwels 2026-03-02 'Lustre 2.15 upgrade'", "shown on juwels' histories"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("site", metavar="SITE", help="the site, as runs are published with it")
    parser.add_argument("date", metavar="DATE", help="YYYY-MM-DD or YYYY-MM-DDTHH:MM (UTC)")
    parser.add_argument("text", metavar="TEXT", help="what happened, e.g. 'Lustre 2.15 upgrade'")
    add_database_option(parser)


def handle(args: argparse.Namespace) -> int:
    from jubex.resultsdb.annotations import annotate
    from jubex.resultsdb.connect import Database

    database = Database(args.database)
    note = annotate(database, args.site, args.date, args.text)
    print(f"{database.name}: noted for {note.site} at {args.date}: {note.text}")
    return 0
