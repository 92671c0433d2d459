"""The GitHub Actions workflow of continuous benchmarking (``jubex ci github``).

The same stages as GitLab's (``gitlab.py``), as jobs of one workflow: each study and
platform is a job that runs it, gates it (exit 4, inconclusive, is let through with a
warning: Actions has no ``allow_failure: exit_codes``) and, on the default branch,
publishes it; a last job rebuilds the dashboard and deploys it as GitHub Pages. The
runners are self-hosted ones at the centre (``runs-on: [self-hosted, TAG...]``).
"""

from __future__ import annotations

from collections.abc import Sequence

import yaml

from jubex.pipelines.gitlab import Options, baseline_of
from jubex.pipelines.targets import Target
from jubex.version import __version__

ON_DEFAULT_BRANCH = "github.ref_name == github.event.repository.default_branch"


def github_workflow(targets: Sequence[Target], options: Options, command: str) -> str:
    """The workflow file's text; ``command``: the ``jubex ci`` line that wrote it."""
    jobs: dict[str, object] = {t.slug: _job(t, options) for t in targets}
    if options.pages:
        jobs["pages"] = _pages(targets, options)
    document: dict[str, object] = {
        "name": "jubex continuous benchmarking",
        "on": {
            "schedule": [{"cron": "0 2 * * *"}],
            "workflow_dispatch": {},
            "push": {"branches": ["main"]},
            "pull_request": {},
        },
        "env": {
            "JUBEX": "jubex",
            "JUBEX_TOLERANCE": options.tolerance,
            "JUBEX_RESULTS_DB": "${{ secrets.JUBEX_RESULTS_DB }}",
        },
        "jobs": jobs,
    }
    header = "\n".join(
        [
            f"# Continuous benchmarking with jubex {__version__}, written by:",
            f"#   {command}",
            "# Set the repository secrets JUBEX_RESULTS_DB (the centre's results database) and,",
            f"# to be told of regressions, {options.webhook_var} (a chat's incoming webhook).",
            "",
        ]
    )
    return header + yaml.safe_dump(document, sort_keys=False, width=100, allow_unicode=True)


def _runs_on(options: Options) -> list[str]:
    return ["self-hosted", *options.tags]


def _job(target: Target, options: Options) -> dict[str, object]:
    report = f"gate-{target.slug}.xml"
    gate = (
        f'$JUBEX ci gate --baseline "{baseline_of(target, options)}" --candidate '
        f'{target.outpath} --tolerance "$JUBEX_TOLERANCE" --junit {report} '
        f"--text gate-{target.slug}.txt --webhook-var {options.webhook_var} || status=$?\n"
        'if [ "${status:-0}" = 4 ]; then echo "::warning::inconclusive: more repetitions can '
        'tell"; exit 0; fi\n'
        'exit "${status:-0}"\n'
    )
    return {
        "runs-on": _runs_on(options),
        "steps": [
            {"uses": "actions/checkout@v4"},
            {
                "name": "benchmark",
                "run": f"$JUBEX run {target.definition} -P {target.platform} --outpath "
                f"{target.outpath}",
            },
            {
                "name": "gate",
                "env": {options.webhook_var: f"${{{{ secrets.{options.webhook_var} }}}}"},
                "run": gate,
            },
            {
                "name": "publish",
                "if": f"always() && {ON_DEFAULT_BRANCH}",
                "run": f"$JUBEX publish all --outpath {target.outpath}",
            },
            {
                "name": "keep the run and the report",
                "if": "always()",
                "uses": "actions/upload-artifact@v4",
                "with": {"name": target.slug, "path": f"{target.outpath}/\n{report}\n"},
            },
        ],
    }


def _pages(targets: Sequence[Target], options: Options) -> dict[str, object]:
    return {
        "needs": [t.slug for t in targets],
        "if": f"always() && {ON_DEFAULT_BRANCH}",
        "runs-on": _runs_on(options),
        "permissions": {"pages": "write", "id-token": "write"},
        "environment": {"name": "github-pages"},
        "steps": [
            {"name": "dashboard", "run": "$JUBEX site db: -o public"},
            {"uses": "actions/upload-pages-artifact@v3", "with": {"path": "public"}},
            {"uses": "actions/deploy-pages@v4"},
        ],
    }
