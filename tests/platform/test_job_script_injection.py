"""No value a definition or ``-p`` can set escapes its place in a shipped job template.

Every shipped platform's template is rendered with a hostile value in one field at a time.
Either the value is refused with an error naming the field, or the script parses with the
real ``/bin/sh -n``, has exactly the template's lines, keeps each directive line one
directive, and shows the value on a shell line only quoted.
"""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from jubex.errors import DefinitionError
from jubex.platform.load import SHIPPED, load_platform
from jubex.platform.model import Platform

PLATFORMS = {path.stem: load_platform(path.stem) for path in sorted(SHIPPED.rglob("*.yaml"))}
#: what a step's resources can ask for (typed ones, free texts, extras templates read)
RESOURCES = [
    "nodes", "tasks_per_node", "tasks", "threads", "time", "memory",
    "partition", "account", "gpus", "filesystems", "qos",
]  # fmt: skip
#: paths a definition reaches through its outpath and step suffixes
PATHS = ["workdir", "stdout", "stderr"]
MARK = "jxMARK"
PIECES = ["\n", "\r", "\0", "\x1b", "\u2028", ";", "$(id)", "`id`", "'", '"', "\\", "&", "|", " ",
          "#SBATCH --x", "a", "1"]  # fmt: skip
HOSTILE = st.lists(st.sampled_from(PIECES) | st.text(max_size=3), min_size=1, max_size=6).map(
    "".join
)


def render(platform: Platform, field: str, value: str) -> str:
    requested = {field: value} if field in RESOURCES else {}  # "" asks for nothing
    paths = {key: f"/runs/7/{value if key == field else key}" for key in PATHS}
    resolved = platform.resolve(requested)
    return platform.job_script(
        name="jx7-0",
        body="exec /bin/sh /runs/7/000000_s/body.sh",
        resolved=resolved,
        workdir=Path(paths["workdir"]),
        stdout=Path(paths["stdout"]),
        stderr=Path(paths["stderr"]),
    )


def full(field: str, value: str) -> str:
    """The value as the template sees it (paths carry the run directory)."""
    return f"/runs/7/{value}" if field in PATHS else value


def sh_parses(script: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    path = tmp / "job.sh"
    path.write_text(script)
    return subprocess.run(["/bin/sh", "-n", str(path)], capture_output=True, text=True, check=False)


@pytest.mark.parametrize("name", sorted(PLATFORMS))
@pytest.mark.parametrize("field", RESOURCES + PATHS)
@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(value=HOSTILE)
def test_a_hostile_value_is_refused_or_stays_in_its_place(
    name: str, field: str, value: str, tmp_path: Path
) -> None:
    platform = PLATFORMS[name]
    # a path is normalised on its way (``a//b``, a trailing ``/``): compare only plain ones
    assume(field not in PATHS or str(Path(full(field, value))) == full(field, value))
    try:
        script = render(platform, field, value)
    except DefinitionError as exc:
        assert field in str(exc) and "Traceback" not in str(exc)
        return
    try:
        # a blank resource counts as not given: compare with the template left alone then
        blank = field in RESOURCES and not value.strip()
        benign = render(platform, "", "") if blank else render(platform, field, MARK)
    except DefinitionError:
        benign = script  # a typed field (a count, a duration) took the value as a number
    checked = sh_parses(script, tmp_path)
    assert checked.returncode == 0, checked.stderr
    lines, expected = script.split("\n"), benign.split("\n")
    assert len(lines) == len(expected), "the value added a line"
    for line, want in zip(lines, expected, strict=True):
        if MARK not in want:
            assert line == want
        elif want.startswith("#"):
            # a directive: the same directive, the value after its own prefix
            assert line.startswith(want.split(MARK)[0])
        else:
            # a shell line: the value only as one quoted word
            quoted = shlex.quote(full(field, value))
            assert line == want.replace(full(field, MARK), quoted)


@pytest.mark.parametrize("name", sorted(PLATFORMS))
@pytest.mark.parametrize("field", ["partition", "account", "qos", "filesystems", "stdout"])
def test_a_newline_in_a_directive_value_is_refused_with_the_field_named(
    name: str, field: str
) -> None:
    platform = PLATFORMS[name]
    # a platform that lists its partitions refuses any other name before rendering
    known = field == "partition" and platform.partitions
    message = "has no partition" if known else rf"'{field}' would put a newline"
    with pytest.raises(DefinitionError, match=message):
        render(platform, field, "a\ntouch /tmp/x")


def test_the_shipped_templates_place_every_definition_value_on_a_directive_or_quoted() -> None:
    """Guard for the property above: the fields it tries do reach the templates."""
    slurm = render(PLATFORMS["slurm"], "partition", MARK)
    assert f"#SBATCH --partition={MARK}" in slurm
    assert f"cd /runs/7/{MARK}" in render(PLATFORMS["pbs"], "workdir", MARK)
    assert f"#PBS -l filesystems={MARK}" in render(PLATFORMS["polaris"], "filesystems", MARK)


def test_a_platform_value_with_a_newline_is_refused_when_the_platform_is_loaded(
    tmp_path: Path,
) -> None:
    path = tmp_path / "site.yaml"
    path.write_text('name: site\nextends: slurm\nmodules: ["gcc\\nrm -rf x"]\n')
    with pytest.raises(
        DefinitionError, match=r"'modules\.0' of platform 'site' holds a newline"
    ) as e:
        load_platform(str(path))
    assert str(e.value).startswith(f"{path}:3")


def test_a_platform_environment_name_must_be_a_shell_name(tmp_path: Path) -> None:
    path = tmp_path / "site.yaml"
    path.write_text('name: site\nextends: slurm\nenvironment:\n  "A;id": "1"\n')
    with pytest.raises(DefinitionError, match="not a shell name") as e:
        load_platform(str(path))
    assert str(e.value).startswith(f"{path}:4")
