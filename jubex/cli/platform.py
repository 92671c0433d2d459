"""``jubex platform NAME``: one platform, its parents merged in, and what it makes of resources;
``jubex platform detect``: a platform file written from the live scheduler."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import yaml

from jubex.cli.common import add_format
from jubex.cli.complete import platforms
from jubex.definition.frozen import to_data
from jubex.errors import UsageError
from jubex.platform.detect.run import detect
from jubex.platform.detect.write import platform_text
from jubex.platform.load import load_platform, schema

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ("jubex platform slurm", "the slurm platform, its parents merged in"),
    ("jubex platform slurm -r nodes=2 -r time=1h", "the job script these resources give"),
    ("jubex platform detect -o mycluster.yaml", "a platform file from this system's scheduler"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "name",
        nargs="?",
        default="local",
        help="platform name or file; `detect` writes a platform file from the live scheduler",
    ).completer = platforms  # type: ignore[attr-defined]
    parser.add_argument(
        "-r",
        "--resource",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="resolve these resources (e.g. -r nodes=2 -r time=1h) and print the job script "
        "they give (the resources and launcher command go to stderr; -f yaml|json: all three)",
    )
    add_format(parser, ("yaml", "json", "script"), None)
    parser.add_argument(
        "--keys", action="store_true", help="list every key of a platform file with its help text"
    )
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="FILE",
        help="detect: the platform file to write (its stem names the platform; default: stdout)",
    )
    parser.add_argument(
        "--scheduler",
        choices=("slurm", "sge", "pbs"),
        help="detect: the scheduler to ask (default: the first whose client is on PATH)",
    )


def handle(args: argparse.Namespace) -> int:
    if args.keys:
        for line in key_help(schema()):
            print(line)
        return 0
    if args.name == "detect":
        return _detect(args.output, args.scheduler)
    platform = load_platform(args.name)
    if not args.resource:
        if args.format == "script":
            raise UsageError("-f script shows the job script of resources: add -r, e.g. -r nodes=2")
        data = {k: v for k, v in to_data(platform).items() if k not in ("locs", "loc")}
        _print(data, args.format or "yaml")
        return 0
    requested: dict[str, str] = {}
    for item in args.resource:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"-r {item}: expected KEY=VALUE, e.g. -r nodes=2")
        requested[key.strip()] = value.strip()
    resolved = platform.resolve(requested)
    launcher = platform.launcher_command(resolved)
    script = platform.job_script(
        name="NAME",
        body="BODY",
        resolved=resolved,
        workdir=Path("WORKDIR"),
        stdout=Path("STDOUT"),
        stderr=Path("STDERR"),
    )
    resources = {k: float(v) if isinstance(v, float) else v for k, v in resolved.items()}
    if args.format in (None, "script"):
        shown = " ".join(f"{k}={v}" for k, v in resources.items() if v is not None)
        print(f"# resources: {shown}\n# launcher: {launcher}", file=sys.stderr)
        print(script, end="" if script.endswith("\n") else "\n")
        return 0
    _print({"resources": resources, "launcher": launcher, "job_script": script}, args.format)
    return 0


def _detect(output: Path | None, scheduler: str | None) -> int:
    """Write the platform file detection gives; refuse to overwrite a file."""
    if output is not None and output.exists():
        raise UsageError(f"{output} exists; detect writes a new file (remove it or choose another)")
    host = os.uname().nodename
    name = output.stem if output else host.split(".")[0]
    text = platform_text(detect(scheduler), name, host)
    if output is None:
        print(text, end="")
        return 0
    output.write_text(text)
    print(f"wrote {output}: check the values marked GUESSED, then `jubex validate {output}`")
    return 0


def key_help(node: dict[str, Any], prefix: str = "") -> list[str]:
    """``key: help`` lines for every key the schema describes, nested keys dotted."""
    lines: list[str] = []
    for key, sub in node.get("properties", {}).items():
        lines.append(f"{prefix}{key}: {sub.get('description', '')}")
        lines += key_help(sub, f"{prefix}{key}.")
    extra = node.get("additionalProperties")
    if isinstance(extra, dict) and "$ref" in extra:
        name = extra["$ref"].rsplit("/", 1)[-1]
        lines += key_help(schema()["$defs"][name], f"{prefix}<{name}>.")
    return lines


def _print(data: dict[str, Any], fmt: str) -> None:
    if fmt == "json":
        print(json.dumps(data, indent=2))
    else:
        print(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100), end="")
