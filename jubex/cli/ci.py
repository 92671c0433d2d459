"""``jubex ci``: continuous benchmarking from a centre's CI.

``jubex ci gitlab STUDY... -P PLATFORM`` writes a GitLab pipeline, ``jubex ci github`` a
GitHub Actions workflow (run, gate against history, publish, dashboard; docs/ci.md), and
``jubex ci gate`` is the gate their jobs run: ``jubex compare`` of the new run with its
baseline from the results database, a JUnit report, and a message to the team on a
regression.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shlex
from pathlib import Path

from jubex.cli.common import add_database_option, write_output
from jubex.errors import JubexError, UsageError

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ("jubex ci gitlab ior.yaml -P juwels -o .gitlab-ci.yml", "a GitLab pipeline, shell runner"),
    ("jubex ci gitlab ior.yaml -P juwels-alloc --runner jacamar", "on a Jacamar CI runner"),
    ("jubex ci github ior.yaml -P local -o .github/workflows/bench.yml", "a GitHub workflow"),
    ("jubex ci gate --baseline db:benchmark=ior,last=1 --candidate runs", "what a gate job runs"),
)
#: the exit status of an inconclusive comparison, which the pipelines let pass
INCONCLUSIVE = 4


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(
        dest="action",
        metavar="ACTION",
        required=True,
        help="gitlab, github: write a pipeline; gate: what its gate jobs run",
    )
    for system in ("gitlab", "github"):
        what = "GitLab CI pipeline" if system == "gitlab" else "GitHub Actions workflow"
        write = sub.add_parser(system, help=f"write a {what}")
        write.add_argument("studies", nargs="+", metavar="STUDY", help="definition files")
        write.add_argument(
            "-P", "--platform", action="append", default=[], metavar="NAME",
            help="a platform to run each study on (repeatable; default: local)",
        )  # fmt: skip
        write.add_argument("-o", "--output", metavar="FILE", help="write to FILE (default: print)")
        write.add_argument(
            "--baseline", default="", metavar="db:...",
            help="the baseline every gate compares with, e.g. an acceptance run "
            "(db:id=000042,site=juwels); default: the run of the same study and platform "
            "published last",
        )  # fmt: skip
        write.add_argument("--tolerance", default="5%", help="loss accepted (default: 5%%)")
        write.add_argument(
            "--tag", action="append", default=[], dest="tags", metavar="TAG",
            help="a runner tag every job asks for (repeatable)",
        )  # fmt: skip
        write.add_argument(
            "--no-pages", dest="pages", action="store_false",
            help="leave out the dashboard (jubex site, published as pages)",
        )  # fmt: skip
        write.add_argument(
            "--webhook-var", default="JUBEX_WEBHOOK_URL", metavar="NAME",
            help="the CI variable holding a chat webhook for regressions",
        )  # fmt: skip
        if system == "gitlab":
            write.add_argument(
                "--runner", choices=("shell", "jacamar"), default="shell",
                help="shell: jubex submits to the batch system; jacamar: the job runs in an "
                "allocation of SCHEDULER_PARAMETERS (Jacamar CI)",
            )  # fmt: skip
            write.add_argument(
                "--scheduler-parameters", default="", metavar="TEXT",
                help="jacamar: the allocation (default: the study's nodes and time)",
            )  # fmt: skip
            write.add_argument(
                "--audience", default="", metavar="URL",
                help="jacamar: the audience of the job's id token (default: $CI_SERVER_URL)",
            )  # fmt: skip
    gate = sub.add_parser("gate", help="compare a new run with its baseline, as a CI job")
    gate.add_argument("--baseline", required=True, metavar="db:...", help="published runs")
    gate.add_argument(
        "--candidate", required=True, metavar="RUN", help="the new run, or its outpath"
    )
    gate.add_argument("--tolerance", default="5%", help="loss accepted (default: 5%%)")
    gate.add_argument("--junit", metavar="FILE", help="write the JUnit XML report to FILE")
    gate.add_argument("--text", metavar="FILE", help="write the message to the team to FILE")
    gate.add_argument(
        "--webhook-var", default="", metavar="NAME",
        help="post the message on a regression to the webhook URL this variable holds",
    )  # fmt: skip
    add_database_option(gate)


def handle(args: argparse.Namespace) -> int:
    if args.action == "gate":
        return _gate(args)
    from jubex.pipelines.targets import targets

    chosen = targets(args.studies, args.platform or ["local"])
    command = _command(args)
    from jubex.pipelines.gitlab import Options

    options = Options(
        runner=getattr(args, "runner", "shell"),
        tags=tuple(args.tags),
        baseline=args.baseline,
        tolerance=args.tolerance,
        pages=args.pages,
        webhook_var=args.webhook_var,
        scheduler_parameters=getattr(args, "scheduler_parameters", ""),
        audience=getattr(args, "audience", ""),
    )
    if args.action == "gitlab":
        from jubex.pipelines.gitlab import gitlab_pipeline

        text = gitlab_pipeline(chosen, options, command)
    else:
        from jubex.pipelines.github import github_workflow

        text = github_workflow(chosen, options, command)
    write_output(text, args.output)
    return 0


def _command(args: argparse.Namespace) -> str:
    """The command line that writes this pipeline again, for its header."""
    words = ["jubex", "ci", args.action, *args.studies]
    for platform in args.platform or ["local"]:
        words += ["-P", platform]
    if getattr(args, "runner", "shell") != "shell":
        words += ["--runner", args.runner]
    for option in ("baseline", "scheduler_parameters", "audience"):
        if getattr(args, option, ""):
            words += [f"--{option.replace('_', '-')}", getattr(args, option)]
    if args.tolerance != "5%":
        words += ["--tolerance", args.tolerance]
    for tag in args.tags:
        words += ["--tag", tag]
    if not args.pages:
        words.append("--no-pages")
    if args.webhook_var != "JUBEX_WEBHOOK_URL":
        words += ["--webhook-var", args.webhook_var]
    return shlex.join(words)


def _gate(args: argparse.Namespace) -> int:
    """The gate of a pipeline: pass when there is no baseline yet (the first night), else
    ``jubex compare``'s exit status, its JUnit report, and the team told of a regression."""
    from jubex.cli.main import main
    from jubex.pipelines.notify import gate_text, pages_url, pipeline_url, post

    if not args.baseline.startswith("db:"):
        raise UsageError(f"--baseline {args.baseline!r}: expected a db: selector of published runs")
    common = ["--tolerance", args.tolerance]
    if args.database:
        common += ["--database", args.database]
    compare = ["compare", args.baseline, args.candidate, *common]
    if not _has_baseline(args):
        said = f"no baseline yet ({args.baseline} selects no published run): passed"
        print(said)
        if args.junit:
            write_output(_first_night(said), args.junit)
        if args.text:
            write_output(said + "\n", args.text)
        return 0
    status = main(compare)
    if status not in (0, 1, INCONCLUSIVE):
        return status
    document = _captured(main, [*compare, "-f", "json"])
    if args.junit:
        write_output(_captured(main, [*compare, "-f", "junit"]), args.junit)
    name = Path(args.candidate).name if Path(args.candidate).is_dir() else args.candidate
    try:
        comparison = json.loads(document)
    except ValueError:
        comparison = {"exit_status": status}
    text = gate_text(
        name, comparison, run_url=pipeline_url(os.environ), history_url=pages_url(os.environ)
    )
    if args.text:
        write_output(text + "\n", args.text)
    if status == 1 and args.webhook_var:
        url = os.environ.get(args.webhook_var, "")
        print(post(url, text) if url else f"not posted: {args.webhook_var} is not set")
    return status


def _has_baseline(args: argparse.Namespace) -> bool:
    """Whether the baseline selector names a published run (a database that does not
    exist yet has none)."""
    from jubex.resultsdb.connect import Database
    from jubex.resultsdb.select import open_selected

    try:
        return bool(open_selected(args.baseline, Database(args.database)))
    except JubexError as exc:
        if "selects no run" in exc.message or "no results database" in exc.message:
            return False
        raise


def _captured(main: object, argv: list[str]) -> str:
    """What a jubex command prints on standard output, run in this process."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        main(argv)  # type: ignore[operator]
    return out.getvalue()


def _first_night(said: str) -> str:
    """A JUnit report of one skipped test: the gate had nothing to compare with."""
    from xml.sax.saxutils import quoteattr

    return (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<testsuites name="jubex gate" tests="1" failures="0" errors="0" skipped="1">'
        '<testsuite name="gate" tests="1" failures="0" errors="0" skipped="1">'
        f'<testcase classname="jubex.gate" name="baseline"><skipped message={quoteattr(said)}/>'
        "</testcase></testsuite></testsuites>\n"
    )
