"""The command line: plan every case with both tools, classify, summarise, report."""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import json
import os
import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .cases import Case, discover_cases
from .endtoend import EndToEnd, round_trip, run_example
from .env import Namespace
from .jube import Jube
from .jubex import Jubex
from .plans import compare, without_ids

EXAMPLES = "JUBE/examples"


@dataclasses.dataclass
class Outcome:
    """The verdict on one case, as written to the report."""

    case: Case
    status: str  # jube-refuses | jubex-refuses | differs | agrees
    jube_error: str = ""
    jubex_error: str = ""
    validate: str = ""  # "valid", or validate's first error line
    dry_run: str = ""  # "ok", or the dry run's first error line
    steps: dict[str, tuple[int, int]] = dataclasses.field(default_factory=dict)
    differences: list[str] = dataclasses.field(default_factory=list)
    # the values compared without their ids (agreeing only so: which point got which id)
    ids_ignored: list[str] = dataclasses.field(default_factory=list)
    end_to_end: EndToEnd = dataclasses.field(default_factory=EndToEnd)

    @property
    def validate_agrees(self) -> bool:
        """validate and the dry run both accept, or both refuse."""
        return (self.validate == "valid") == (self.dry_run == "ok")

    def as_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["case"]["name"] = self.case.name
        return data


def check(case: Case, sources: Path, jube: Jube, jubex: Jubex, end_to_end: bool) -> Outcome:
    """Plan one case with both tools and classify the result; with END_TO_END, go further.

    Further: an example JUBE plans is also run and tabulated by both, and a file jubex plans
    is converted and planned again.
    """
    theirs = jube.plan(case, sources)
    if not theirs.accepted:
        return Outcome(case, "jube-refuses", jube_error=theirs.error)
    outcome = Outcome(case, "agrees", validate=jubex.validate(case, sources))
    if end_to_end and case.group == EXAMPLES:
        outcome.end_to_end = run_example(case, sources, jube, jubex)
    ours = jubex.plan(case, sources)
    if not ours.accepted:
        outcome.status, outcome.jubex_error, outcome.dry_run = (
            "jubex-refuses",
            ours.error,
            ours.error,
        )
        outcome.steps = {s: (len(r), -1) for s, r in theirs.plan.items()}
        return outcome
    outcome.dry_run = "ok"
    outcome.steps, outcome.differences = compare(theirs.plan, ours.plan)
    if outcome.differences:
        names = jubex.id_names(case, sources)
        _, differences = compare(without_ids(theirs.plan, names), without_ids(ours.plan, names))
        if not differences:
            outcome.differences = []
            outcome.ids_ignored = sorted(n for n in names if not n.startswith("jube_"))
    if outcome.differences:
        outcome.status = "differs"
    if end_to_end:
        outcome.end_to_end.convert = round_trip(case, sources, jubex)
    return outcome


def summarise(outcomes: Sequence[Outcome]) -> str:
    """A table with one line per case, then the counts that matter."""
    lines = [f"{'status':<14} {'validate':<9} {'steps (JUBE/jubex workpackages)':<44} case"]
    for o in outcomes:
        steps = " ".join(f"{s}:{a}/{'-' if b < 0 else b}" for s, (a, b) in o.steps.items())
        detail = o.jube_error or o.jubex_error or (o.differences[0] if o.differences else "")
        valid = "" if o.status == "jube-refuses" else ("ok" if o.validate == "valid" else "ERR")
        lines.append(f"{o.status:<14} {valid:<9} {steps[:44]:<44} {o.case.name}")
        if o.ids_ignored:
            lines.append(f"{'':<25}-> alike but for ids in {', '.join(o.ids_ignored)}")
        if detail and o.status != "agrees":
            lines.append(f"{'':<25}-> {detail[:160]}")
        if not o.validate_agrees and o.status != "jube-refuses":
            lines.append(f"{'':<25}-> validate: {o.validate[:80]}; dry run: {o.dry_run[:80]}")
        e2e = o.end_to_end
        for what, verdict in (("tables", e2e.tables), ("databases", e2e.databases)):
            if verdict not in ("", "alike", "none"):
                lines.append(f"{'':<25}-> {what}: {verdict[:160]}")
        if e2e.imported not in ("", "alike", "none"):
            lines.append(f"{'':<25}-> imported: {e2e.imported[:160]}")
        if e2e.convert and e2e.convert != "round-trips":
            lines.append(f"{'':<25}-> convert: {e2e.convert[:160]}")
    counted = [o for o in outcomes if o.status != "jube-refuses"]
    tally = Counter(o.status for o in outcomes)
    accepted = sum(1 for o in counted if o.validate == "valid")
    planned = sum(1 for o in counted if o.dry_run == "ok")
    agreeing = sum(1 for o in counted if o.validate_agrees)
    lines.append("")
    lines.append(
        f"{len(outcomes)} cases; JUBE accepts {len(counted)}; jubex validate accepts {accepted}, "
        f"jubex dry run plans {planned} (validate and dry run agree on {agreeing}); "
        f"agree {tally['agrees']} ({sum(1 for o in counted if o.ids_ignored)} of them only "
        f"in which point got which id), differ {tally['differs']}, "
        f"jubex refuses {tally['jubex-refuses']}"
    )
    ran = [o.end_to_end for o in counted if o.end_to_end.tables]
    converted = [o.end_to_end for o in counted if o.end_to_end.convert]
    if ran or converted:
        with_tables = [e for e in ran if e.tables != "none"]
        tables = sum(1 for e in with_tables if e.tables == "alike")
        with_db = [e for e in ran if e.databases not in ("", "none")]
        dbs = sum(1 for e in with_db if e.databases == "alike")
        trips = sum(1 for e in converted if e.convert == "round-trips")
        imported = sum(1 for e in with_tables if e.imported == "alike")
        lines.append(
            f"end to end: {len(ran)} example cases run, {len(with_tables)} with tables "
            f"(or failing), tables alike {tables}, JUBE's run imported alike {imported}; "
            f"with a database {len(with_db)}, rows alike {dbs}; "
            f"converted {len(converted)}, round-trip {trips}"
        )
    return "\n".join(lines)


def _cases_from(args: argparse.Namespace, sources: Path) -> list[Case]:
    if args.cases:
        data = json.loads(Path(args.cases).read_text())
        cases = [
            Case(**{**c, "tags": tuple(c["tags"]), "include_path": tuple(c["include_path"])})
            for c in data
        ]
    else:
        cases = discover_cases(sources)
    if args.only:
        cases = [c for c in cases if any(s in c.name for s in args.only)]
    return cases


def main(argv: Sequence[str] | None = None, description: str | None = None) -> int:
    """The command line of ``bench/jube_differential.py``."""
    parser = argparse.ArgumentParser(
        description=description or __doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--sources", required=True, type=Path, help="JUBE's and the suites' checkouts"
    )
    parser.add_argument("--cases", help="a JSON case list (default: discovered below --sources)")
    parser.add_argument(
        "--only", action="append", default=[], help="cases whose name contains this"
    )
    parser.add_argument("--list", action="store_true", help="print the cases as JSON and stop")
    parser.add_argument("--report", type=Path, help="write the outcomes here as JSON")
    parser.add_argument(
        "--end-to-end",
        action="store_true",
        help="also run and tabulate JUBE's examples with both, and convert every case",
    )
    parser.add_argument("--jobs", type=int, default=2, help="cases at once")
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
        / "jubex-jube-differential",
        help="where JUBE's answers are kept",
    )
    args = parser.parse_args(argv)
    sources = args.sources.resolve()
    cases = _cases_from(args, sources)
    if args.list:
        print(json.dumps([dataclasses.asdict(c) for c in cases], indent=1))
        return 0
    executable = os.environ.get("JUBEX_JUBE") or shutil.which("jube")
    if not executable:
        print("skipped: no JUBE to compare with (set JUBEX_JUBE to its `jube` executable)")
        return 0
    with tempfile.TemporaryDirectory(prefix="jube-diff-") as scratch:
        ns = Namespace(Path(scratch))
        if not ns.usable:
            print(
                "warning: no private mount namespace; /etc/FZJ/systemname is absent",
                file=sys.stderr,
            )
        jube = Jube(Path(executable), args.cache, ns)
        jubex = Jubex(os.environ.get("JUBEX_PYTHON", sys.executable), ns)
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            outcomes = list(
                pool.map(lambda c: _checked(c, sources, jube, jubex, args.end_to_end), cases)
            )
    print(summarise(outcomes))
    if args.report:
        report = {"jube": jube.version, "outcomes": [o.as_dict() for o in outcomes]}
        args.report.write_text(json.dumps(report, indent=1))
    return 0


def _checked(case: Case, sources: Path, jube: Jube, jubex: Jubex, end_to_end: bool) -> Outcome:
    print(f"... {case.name}", file=sys.stderr, flush=True)
    return check(case, sources, jube, jubex, end_to_end)
