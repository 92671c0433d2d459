"""``jubex import-record FILE``: results another harness wrote as jubex records, as runs."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from jubex.cli.common import shown
from jubex.cli.import_ import add_target
from jubex.records.record import (
    import_record,
    imported_records,
    read_record_file,
    record_hash,
)

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ("jubex import-record results.json", "a harness's record(s) into ./runs"),
    ("jubex import-record results.json --again", "the same results once more"),
    ("jubex import-record results.json --outpath imported", "into another runs directory"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", metavar="FILE", help="a JSON record, or a list of them (docs/record.md)"
    )
    add_target(parser, "a record")


def handle(args: argparse.Namespace) -> int:
    path = Path(args.file)
    import_records(read_record_file(path), path, Path(args.outpath), again=args.again)
    return 0


def import_records(
    records: Sequence[dict[str, object]], source: Path, outpath: Path, *, again: bool = False
) -> list[Path]:
    """Make a run of each record not yet imported into ``outpath``, and say so; the
    runs of the records, made now or before."""
    earlier = {} if again else imported_records(outpath)
    made = []
    for record in records:
        done = earlier.get(record_hash(record))
        name = f"{record['benchmark']} on {record.get('site') or 'an unnamed site'}"
        if done is not None:
            print(
                f"{name} from {shown(source)} is already imported as run {done.name}; "
                "not imported again (--again imports it once more)"
            )
            made.append(done)
            continue
        run = import_record(record, outpath, origin=str(source.resolve()))
        counts = run.store.counts()
        done_n = sum(c for (_, state), c in counts.items() if state == "done")
        failed = sum(c for (_, state), c in counts.items() if state == "failed")
        print(
            f"imported {name} from {shown(source)} as {shown(run.dir)} "
            f"({done_n} done, {failed} failed)"
        )
        run.store.close()
        made.append(run.dir)
    return made
