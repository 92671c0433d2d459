"""``jubex platforms``: the platform files jubex can find, in search order, with their centre."""

from __future__ import annotations

import argparse
from pathlib import Path

from jubex.errors import JubexError
from jubex.platform.load import centre_of, load_platform, platform_paths, search_dirs
from jubex.schedulers.registry import unknown_scheduler

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ("jubex platforms", "every platform name -P takes, and its file"),
    ("jubex platforms --path ~/platforms", ""),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--path",
        action="append",
        default=[],
        type=Path,
        metavar="DIR",
        help="a directory searched before JUBEX_PLATFORM_PATH, the user's and the shipped "
        "ones (repeatable)",
    )


def handle(args: argparse.Namespace) -> int:
    rows: list[tuple[str, str, str, str, str]] = []
    seen: set[str] = set()
    for name, path in platform_paths(args.path):
        centre = centre_of(path, args.path) or "-"
        if name in seen:
            rows.append((name, centre, "", str(path), "(shadowed by the one above)"))
            continue
        seen.add(name)
        try:
            platform = load_platform(str(path))
            problem = unknown_scheduler(platform)
            if problem is not None:
                raise problem
            summary = platform.description.split(". ")[0].rstrip(".")
            rows.append((name, centre, platform.scheduler, str(path), summary))
        except JubexError as exc:
            rows.append((name, centre, "?", str(path), f"invalid: {exc}"))
    if not rows:
        dirs = ", ".join(str(d) for d in search_dirs(args.path))
        print(f"no platform files found in {dirs}")
        return 0
    width = max(len(row[0]) for row in rows)
    centres = max(len(row[1]) for row in rows)
    for name, centre, scheduler, where, summary in rows:
        print(f"{name:<{width}}  {centre:<{centres}}  {scheduler:<5}  {summary}")
        print(f"{'':<{width}}  {'':<{centres}}  {'':<5}  {where}")
    return 0
