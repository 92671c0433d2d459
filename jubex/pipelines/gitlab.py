"""The GitLab CI pipeline of a centre's continuous benchmarking (``jubex ci gitlab``).

Four stages, one job of each per study and platform:

1. ``benchmark`` runs the study (``jubex run -P PLATFORM``). On a shell runner jubex
   submits to the platform's batch system itself; on a Jacamar CI runner (the batch
   executor JSC, NERSC and others run) the job script already runs inside an allocation
   of ``SCHEDULER_PARAMETERS``, authenticated by an ``id_tokens`` token, and the platform
   should launch in that allocation (scheduler ``local``, its launcher ``srun``).
2. ``gate`` compares the run with its baseline from the results database (``jubex ci
   gate``: exit 0 passed, 1 failed, 4 inconclusive, which ``allow_failure: exit_codes``
   lets through), writes a JUnit report GitLab shows in the merge request, and tells the
   team on a regression.
3. ``publish`` sends the run to the centre's database with the pipeline's URL, commit,
   branch and runner in its provenance: on the default branch, always, so that history
   and the dashboard see every night, a regression included.
4. ``pages`` rebuilds the dashboard from the database as GitLab Pages.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass

import yaml

from jubex.pipelines.targets import Target
from jubex.version import __version__

STAGES = ("benchmark", "gate", "publish", "pages")
#: the pipelines a generated file runs: schedules (nightly, weekly), the web form and the
#: API (manual), merge requests and the default branch
WORKFLOW_RULES = (
    {"if": '$CI_PIPELINE_SOURCE == "schedule"'},
    {"if": '$CI_PIPELINE_SOURCE == "web"'},
    {"if": '$CI_PIPELINE_SOURCE == "api"'},
    {"if": '$CI_PIPELINE_SOURCE == "merge_request_event"'},
    {"if": "$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH"},
)
ON_DEFAULT_BRANCH = (
    '$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH && $CI_PIPELINE_SOURCE != "merge_request_event"'
)


@dataclass(frozen=True)
class Options:
    """How the pipeline runs and judges (``jubex ci gitlab --help``)."""

    runner: str = "shell"
    tags: tuple[str, ...] = ()
    #: a ``db:`` selector of the baseline; '' the target's last published run
    baseline: str = ""
    tolerance: str = "5%"
    pages: bool = True
    webhook_var: str = "JUBEX_WEBHOOK_URL"
    #: Jacamar: the allocation's options; '' worked out from the study's resources
    scheduler_parameters: str = ""
    #: the audience of the Jacamar runner's id token; '' the GitLab server itself
    audience: str = ""


def baseline_of(target: Target, options: Options) -> str:
    """The baseline a target's gate compares with: the given selector, else the last run
    of the same benchmark on the same platform published before this one."""
    return options.baseline or f"db:benchmark={target.benchmark},platform={target.platform},last=1"


def gitlab_pipeline(targets: Sequence[Target], options: Options, command: str) -> str:
    """The ``.gitlab-ci.yml`` text; ``command``: the ``jubex ci`` line that wrote it."""
    jobs: dict[str, object] = {}
    for target in targets:
        jobs[f"benchmark:{target.slug}"] = _benchmark(target, options)
        jobs[f"gate:{target.slug}"] = _gate(target, options)
        jobs[f"publish:{target.slug}"] = _publish(target, options)
    if options.pages:
        jobs["pages"] = _pages(targets, options)
    document: dict[str, object] = {
        "stages": list(STAGES if options.pages else STAGES[:-1]),
        "workflow": {"rules": list(WORKFLOW_RULES)},
        "variables": {
            "JUBEX": "jubex",
            "JUBEX_TOLERANCE": options.tolerance,
        },
        **jobs,
    }
    header = "\n".join(
        [
            f"# Continuous benchmarking with jubex {__version__}, written by:",
            f"#   {command}",
            "# Set JUBEX_RESULTS_DB (the centre's results database, a masked variable) and,",
            f"# to be told of regressions, {options.webhook_var} (a Mattermost or Slack",
            "# incoming webhook) in Settings > CI/CD > Variables. Nightly or weekly runs:",
            "# Build > Pipeline schedules; a run by hand: Build > Pipelines > Run pipeline.",
            "",
        ]
    )
    return header + yaml.safe_dump(document, sort_keys=False, width=100, allow_unicode=True)


def _runner(options: Options, target: Target) -> dict[str, object]:
    """What a job needs of its runner: its tags, and on Jacamar the allocation and token."""
    found: dict[str, object] = {}
    if options.tags:
        found["tags"] = list(options.tags)
    if options.runner == "jacamar":
        found["id_tokens"] = {"SITE_ID_TOKEN": {"aud": options.audience or "$CI_SERVER_URL"}}
        found["variables"] = {
            "SCHEDULER_PARAMETERS": options.scheduler_parameters
            or f"--nodes={target.nodes} --time={target.minutes}"
        }
    return found


def _benchmark(target: Target, options: Options) -> dict[str, object]:
    run = ["$JUBEX", "run", target.definition, "-P", target.platform, "--outpath", target.outpath]
    return {
        "stage": "benchmark",
        **_runner(options, target),
        "script": [_line(run)],
        "artifacts": {"paths": [f"{target.outpath}/"], "when": "always", "expire_in": "30 days"},
    }


def _gate(target: Target, options: Options) -> dict[str, object]:
    report = f"gate-{target.slug}.xml"
    gate = [
        "$JUBEX", "ci", "gate", "--baseline", baseline_of(target, options),
        "--candidate", target.outpath, "--tolerance", "$JUBEX_TOLERANCE",
        "--junit", report, "--text", f"gate-{target.slug}.txt",
        "--webhook-var", options.webhook_var,
    ]  # fmt: skip
    return {
        "stage": "gate",
        "needs": [f"benchmark:{target.slug}"],
        **({"tags": list(options.tags)} if options.tags else {}),
        "script": [_line(gate)],
        "allow_failure": {"exit_codes": [4]},
        "artifacts": {
            "when": "always",
            "paths": [report, f"gate-{target.slug}.txt"],
            "reports": {"junit": report},
        },
    }


def _publish(target: Target, options: Options) -> dict[str, object]:
    return {
        "stage": "publish",
        "needs": [f"benchmark:{target.slug}", f"gate:{target.slug}"],
        **({"tags": list(options.tags)} if options.tags else {}),
        "rules": [{"if": ON_DEFAULT_BRANCH, "when": "always"}],
        "script": [_line(["$JUBEX", "publish", "all", "--outpath", target.outpath])],
    }


def _pages(targets: Sequence[Target], options: Options) -> dict[str, object]:
    return {
        "stage": "pages",
        "needs": [f"publish:{t.slug}" for t in targets],
        **({"tags": list(options.tags)} if options.tags else {}),
        "rules": [{"if": ON_DEFAULT_BRANCH, "when": "always"}],
        "script": [_line(["$JUBEX", "site", "db:", "-o", "public", "--base-url", "$CI_PAGES_URL"])],
        "artifacts": {"paths": ["public"]},
    }


def _line(argv: Sequence[str]) -> str:
    """One shell line: each word quoted, a ``$VARIABLE`` word in double quotes for the
    runner's shell to expand as one word, and ``$JUBEX`` (how jubex is called, perhaps
    ``python -m jubex``) left to split."""
    return " ".join(
        word
        if word == "$JUBEX"
        else f'"{word}"'
        if word.startswith("$") and word[1:].replace("_", "").isalnum()
        else shlex.quote(word)
        for word in argv
    )
