"""The pipelines `jubex ci` writes are what GitLab and GitHub accept, and run what they say."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import jsonschema
import pytest
import yaml

from jubex.cli.main import main
from jubex.errors import UsageError
from jubex.pipelines.gitlab import Options, gitlab_pipeline
from jubex.pipelines.targets import Target, _minutes, targets

DATA = Path(__file__).resolve().parents[1] / "data" / "ci"
GITLAB = json.loads((DATA / "gitlab-ci.schema.json").read_text())
GITHUB = json.loads((DATA / "github-workflow.schema.json").read_text())
STUDY = """\
name: nightly
parameters:
  transfer: [64KiB, 1MiB]
steps:
  bw:
    iterations: 3
    resources: {nodes: 4, time: 2h}
    do: echo $transfer
"""


def _errors(schema: dict, document: object) -> list[str]:
    checker = jsonschema.Draft7Validator(schema)
    return [f"{list(e.path)}: {e.message[:200]}" for e in checker.iter_errors(document)]


@pytest.fixture
def study(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(tmp_path)
    Path("nightly.yaml").write_text(STUDY)
    return "nightly.yaml"


def _written(*argv: str) -> str:
    assert main(["ci", *argv, "-o", "out.yml"]) == 0
    return Path("out.yml").read_text()


@pytest.mark.parametrize(
    "extra",
    [
        [],
        ["--runner", "jacamar", "--tag", "jureca"],
        ["--no-pages", "--baseline", "db:id=000042,site=jureca", "--tolerance", "3%"],
    ],
)
def test_the_gitlab_pipeline_follows_gitlabs_schema(study: str, extra: list[str]) -> None:
    text = _written("gitlab", study, "-P", "local", "-P", "slurm", *extra)
    document = yaml.safe_load(text)
    assert _errors(GITLAB, document) == []
    jobs = {name for name in document if ":" in name}
    assert {"benchmark:nightly-local", "gate:nightly-slurm", "publish:nightly-slurm"} <= jobs
    assert ("pages" in document) is ("--no-pages" not in extra)
    gate = document["gate:nightly-local"]
    assert gate["allow_failure"] == {"exit_codes": [4]}
    assert gate["artifacts"]["reports"]["junit"] == "gate-nightly-local.xml"
    assert document["publish:nightly-local"]["rules"][0]["when"] == "always"
    assert text.splitlines()[1].startswith("#   jubex ci gitlab nightly.yaml -P local -P slurm")


def test_a_jacamar_job_asks_for_the_studys_allocation_with_a_token(study: str) -> None:
    document = yaml.safe_load(_written("gitlab", study, "-P", "jureca", "--runner", "jacamar"))
    job = document["benchmark:nightly-jureca"]
    assert job["variables"] == {"SCHEDULER_PARAMETERS": "--nodes=4 --time=120"}
    assert job["id_tokens"] == {"SITE_ID_TOKEN": {"aud": "$CI_SERVER_URL"}}


def test_a_planted_mistake_is_caught_by_the_schema(study: str) -> None:
    """The schema check above is not vacuous: GitLab's schema refuses a wrong key."""
    document = yaml.safe_load(_written("gitlab", study, "-P", "local"))
    document["gate:nightly-local"]["allow_failure"] = {"exit_code": [4]}
    assert _errors(GITLAB, document)


def test_the_github_workflow_follows_schemastores_schema(study: str) -> None:
    document = yaml.safe_load(_written("github", study, "-P", "local", "--tag", "lustre"))
    assert _errors(GITHUB, document) == []
    job = document["jobs"]["nightly-local"]
    assert job["runs-on"] == ["self-hosted", "lustre"]
    gate = next(step for step in job["steps"] if step.get("name") == "gate")
    assert 'if [ "${status:-0}" = 4 ]' in gate["run"]


def test_every_word_from_the_command_line_reaches_the_shell_quoted(tmp_path: Path) -> None:
    target = Target("studies/my study;rm -rf ~.yaml", "b", "p$(touch x)", 1, 60)
    text = gitlab_pipeline([target], Options(), "jubex ci gitlab ...")
    [line] = yaml.safe_load(text)[f"benchmark:{target.slug}"]["script"]
    words = shlex.split(line)
    assert words[:3] == ["$JUBEX", "run", "studies/my study;rm -rf ~.yaml"]
    assert words[4] == "p$(touch x)"


def test_a_study_outside_the_repository_or_invalid_is_refused(study: str) -> None:
    with pytest.raises(UsageError, match="relative to the repository"):
        targets(["/etc/passwd"], ["local"])
    Path("bad.yaml").write_text("name: bad\nsteps: {s: {do: echo, depend: [missing]}}\n")
    assert main(["ci", "gitlab", "bad.yaml"]) == 2
    assert not Path("out.yml").exists()


@pytest.mark.parametrize(
    ("text", "minutes"),
    [("30m", 30), ("2h", 120), ("90", 90), ("1:30:00", 90), ("1-00:00:00", 1440), ("x", None)],
)
def test_a_steps_time_is_read_as_the_batch_systems_write_it(text: str, minutes: int | None) -> None:
    assert _minutes(text) == minutes
