"""Telling the team what a gate found: one short text, optionally posted to a chat.

Mattermost's and Slack's incoming webhooks both take ``{"text": ...}`` as JSON. The URL
comes from a CI variable and is a secret (whoever has it can post): it is never printed,
and a failed post says only the host it went to.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from typing import Any

#: the most regressions a message names (the rest are counted)
NAMED = 5
#: seconds a webhook may take to answer
TIMEOUT = 10


def gate_text(
    name: str,
    comparison: Mapping[str, Any],
    *,
    run_url: str = "",
    history_url: str = "",
) -> str:
    """The message of a gate: its verdict, each regression's metric, point, change and
    confidence, and where to look. ``comparison``: ``jubex compare -f json``'s document."""
    verdict = str(
        comparison.get("verdict") or ("failed" if comparison.get("exit_status") else "passed")
    )
    keys = [str(k) for k in comparison.get("keys") or []]
    rows = [r for r in comparison.get("rows") or [] if isinstance(r, dict)]
    worse = [r for r in rows if r.get("verdict") == "worse"]
    lines = [f"jubex gate {verdict.upper()}: {name}"]
    for row in worse[:NAMED]:
        point = ", ".join(f"{k}={row[k]}" for k in keys if row.get(k) not in (None, ""))
        change = row.get("change")
        p_adj = row.get("p_adjusted")
        said = f"{change:+.1f}%" if isinstance(change, (int, float)) else "changed"
        sure = f", p adj {p_adj:.2g}" if isinstance(p_adj, (int, float)) else ""
        unit = f" [{row['unit']}]" if row.get("unit") else ""
        lines.append(f"- {row.get('metric')}{unit} at {point or 'the point'}: {said}{sure}")
    if len(worse) > NAMED:
        lines.append(f"- and {len(worse) - NAMED} more regression(s)")
    summary = comparison.get("summary")
    if summary:
        lines.append(str(summary))
    if history_url:
        lines.append(f"history: {history_url}")
    if run_url:
        lines.append(f"run: {run_url}")
    return "\n".join(lines)


def post(url: str, text: str) -> str:
    """Post ``text`` to a chat's incoming webhook; what happened, in words that never
    contain the URL's path or query (where its secret is)."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "not posted: the webhook variable holds no http(s) URL"
    host = parts.hostname
    request = urllib.request.Request(
        url,
        data=json.dumps({"text": text}).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
            return f"posted to {host} ({answer.status})"
    except urllib.error.HTTPError as exc:
        return f"not posted: {host} answered {exc.code}"
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        return f"not posted: {host} could not be reached ({type(reason).__name__})"


def pipeline_url(environ: Mapping[str, str]) -> str:
    """The URL of the CI job or pipeline that runs now (GitLab, GitHub), or ''."""
    if environ.get("CI_JOB_URL"):
        return environ["CI_JOB_URL"]
    if environ.get("GITHUB_RUN_ID") and environ.get("GITHUB_REPOSITORY"):
        server = environ.get("GITHUB_SERVER_URL", "https://github.com")
        return f"{server}/{environ['GITHUB_REPOSITORY']}/actions/runs/{environ['GITHUB_RUN_ID']}"
    return ""


def pages_url(environ: Mapping[str, str]) -> str:
    """Where the dashboard of this project is published (GitLab Pages), or ''."""
    return environ.get("CI_PAGES_URL", "")
