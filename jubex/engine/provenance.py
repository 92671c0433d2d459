"""What a run ran on and from: recorded once, when the run is made (``provenance.json``).

A number is worth passing on only with its circumstances: the definition it came from
(its content hash, and its git revision when it lives in a repository), the machine, the
file system under the work directory, the platform's file system the benchmarks were
pointed at ($jubex_fs_path) and the loaded modules. Everything here reads files
the kernel already has or asks one quick command; a fact that cannot be had is left out,
never guessed, and never stops a run.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path

from jubex.space.spec import RunSpec

PROVENANCE = "provenance.json"
#: the parameter naming the directory a benchmark writes to (the shipped definitions')
TARGET_PARAMETER = "dir"
#: distinct target directories recorded at most
TARGETS = 20
#: seconds a helper command (git, lfs) may take before its fact is left out
COMMAND_TIMEOUT = 5


def collect(spec: RunSpec, run_dir: Path) -> dict[str, object]:
    """Every fact about the run's circumstances that can be had cheaply."""
    facts: dict[str, object] = {
        "definition": definition_facts(Path(spec.definition)) if spec.definition else {},
        "machine": machine_facts(),
        "filesystem": filesystem_facts(run_dir),
    }
    target = spec.platform.target_filesystem
    if target is not None:
        facts["platform_filesystem"] = target.facts()
    modules = loaded_modules(os.environ)
    if modules:
        facts["modules"] = modules
    pipeline = ci_facts(os.environ)
    if pipeline:
        facts["ci"] = pipeline
    return facts


def target_facts(
    spec: RunSpec, run_dir: Path, points: Iterable[Mapping[str, object]]
) -> list[dict[str, object]]:
    """The file system of each directory the benchmarks write to, which need not be the run
    directory's (a ``dir`` on tmpfs measures memory): the values of their ``dir`` parameter
    (a relative one lies in the workpackage's directory, in the run directory), else the
    path of the platform's target file system. A path the job itself expands (``$SCRATCH``
    unknown here) is recorded as such."""
    found = dict.fromkeys(
        str(point[TARGET_PARAMETER])
        for point in points
        if str(point.get(TARGET_PARAMETER) or "").strip()
    )
    target = spec.platform.target_filesystem
    if not found and target is not None:
        found = {target.path: None}
    facts: list[dict[str, object]] = []
    for text in list(found)[:TARGETS]:
        expanded = os.path.expandvars(os.path.expanduser(text))
        if "$" in expanded:
            facts.append({"path": text, "unknown": "the job expands it"})
            continue
        path = run_dir / expanded  # an absolute path stays as it is
        facts.append({**filesystem_facts(_existing(path)), "path": text})
    return facts


def _existing(path: Path) -> Path:
    """The path, or its nearest parent that exists (the benchmark makes the rest)."""
    while not path.exists() and path.parent != path:
        path = path.parent
    return path


def write(run_dir: Path, facts: Mapping[str, object]) -> None:
    """Write the facts beside the store (a temporary file first: never half a file)."""
    path = run_dir / PROVENANCE
    part = path.with_suffix(".part")
    part.write_text(json.dumps(facts, indent=1, sort_keys=True) + "\n")
    os.replace(part, path)


def read(run_dir: Path) -> dict[str, object]:
    """The recorded facts, or nothing for a run made before they were recorded (read as
    bytes, which JSON takes as UTF-8: a text file's decoder costs more than the read, and
    a history reads the facts of 1,000 runs)."""
    try:
        with open(os.path.join(run_dir, PROVENANCE), "rb") as file:
            found = json.loads(file.read())
    except (OSError, ValueError, RecursionError):
        return {}
    return found if isinstance(found, dict) else {}


def definition_facts(path: Path) -> dict[str, object]:
    """The definition's sha256, and its repository's revision and whether it is changed."""
    facts: dict[str, object] = {"file": str(path)}
    try:
        facts["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return facts
    revision = _command(["git", "rev-parse", "HEAD"], path.parent)
    if revision:
        facts["git_revision"] = revision
        status = _command(["git", "status", "--porcelain", "--untracked-files=no"], path.parent)
        facts["git_dirty"] = bool(status)
    return facts


def machine_facts() -> dict[str, object]:
    """Operating system, kernel, CPU model and count, memory: from the kernel's own files."""
    uname = os.uname()
    facts: dict[str, object] = {
        "host": uname.nodename,
        "kernel": f"{uname.sysname} {uname.release}",
        "arch": uname.machine,
        "cpus": os.cpu_count() or 0,
        "python": platform.python_version(),
    }
    try:
        release = platform.freedesktop_os_release()
        facts["os"] = release.get("PRETTY_NAME") or release.get("NAME", "")
    except OSError:
        pass
    model = _first_field(Path("/proc/cpuinfo"), ("model name", "cpu model", "Processor"))
    if model:
        facts["cpu_model"] = model
    memory = _first_field(Path("/proc/meminfo"), ("MemTotal",))
    if memory and memory.split()[0].isdigit():
        facts["memory_bytes"] = int(memory.split()[0]) * 1024
    return facts


def filesystem_facts(path: Path) -> dict[str, object]:
    """The mount a directory lives on (type, mount point, source, size), and Lustre's
    default striping where ``lfs`` exists."""
    facts: dict[str, object] = {"path": str(path)}
    mount = mount_of(path.resolve(), _mountinfo())
    if mount is not None:
        facts.update(mount)
    try:
        stat = os.statvfs(path)
        facts["size_bytes"] = stat.f_blocks * stat.f_frsize
        facts["free_bytes"] = stat.f_bavail * stat.f_frsize
    except OSError:
        pass
    if facts.get("type") == "lustre" and shutil.which("lfs"):
        stripe = _command(["lfs", "getstripe", "-d", str(path)], path)
        if stripe:
            facts["lfs_getstripe"] = stripe
    return facts


def mount_of(path: Path, mountinfo: str) -> dict[str, str] | None:
    """The mount (``mount``, ``type``, ``source``) whose mount point is the longest prefix of
    ``path``, from the text of ``/proc/self/mountinfo``."""
    best: dict[str, str] | None = None
    for line in mountinfo.splitlines():
        left, sep, right = line.partition(" - ")
        fields, rest = left.split(), right.split()
        if not sep or len(fields) < 5 or len(rest) < 2:
            continue
        point = _unescape(fields[4])
        inside = path == Path(point) or Path(point) in path.parents
        if inside and (best is None or len(point) >= len(best["mount"])):
            best = {"mount": point, "type": rest[0], "source": _unescape(rest[1])}
    return best


#: what a CI system says of the pipeline that ran jubex: (system, the variable only that
#: system sets, our name -> its variable). Only these names are read: a token or any other
#: variable of the job is never recorded.
_CI = (
    (
        "gitlab",
        "CI_SERVER_URL",
        {
            "pipeline_url": "CI_PIPELINE_URL",
            "job_url": "CI_JOB_URL",
            "project": "CI_PROJECT_PATH",
            "commit": "CI_COMMIT_SHA",
            "branch": "CI_COMMIT_REF_NAME",
            "trigger": "CI_PIPELINE_SOURCE",
            "runner": "CI_RUNNER_DESCRIPTION",
            "runner_id": "CI_RUNNER_ID",
        },
    ),
    (
        "github",
        "GITHUB_ACTIONS",
        {
            "project": "GITHUB_REPOSITORY",
            "commit": "GITHUB_SHA",
            "branch": "GITHUB_REF_NAME",
            "trigger": "GITHUB_EVENT_NAME",
            "runner": "RUNNER_NAME",
        },
    ),
)
#: the longest value of a CI fact kept
CI_VALUE = 500


def ci_facts(environ: Mapping[str, str]) -> dict[str, str]:
    """The pipeline that made the run, where a CI system made it: its URL, commit, branch,
    runner and what triggered it (GitLab CI, GitHub Actions); empty elsewhere."""
    for system, marker, names in _CI:
        if not environ.get(marker):
            continue
        facts = {"system": system}
        facts.update(
            {key: environ[var][:CI_VALUE] for key, var in names.items() if environ.get(var)}
        )
        if system == "github" and environ.get("GITHUB_RUN_ID"):
            server = environ.get("GITHUB_SERVER_URL", "https://github.com")
            facts["pipeline_url"] = (
                f"{server}/{environ.get('GITHUB_REPOSITORY', '')}/actions/runs/"
                f"{environ['GITHUB_RUN_ID']}"
            )[:CI_VALUE]
        return facts
    return {}


def loaded_modules(environ: Mapping[str, str]) -> list[str]:
    """The modules an environment-modules or Lmod shell has loaded (``LOADEDMODULES``)."""
    return [m for m in environ.get("LOADEDMODULES", "").split(":") if m]


def _mountinfo() -> str:
    try:
        return Path("/proc/self/mountinfo").read_text()
    except OSError:
        return ""


def _unescape(text: str) -> str:
    """mountinfo writes a space, tab, newline or backslash in a path as an octal escape."""
    for code, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        text = text.replace(code, char)
    return text


def _first_field(path: Path, keys: tuple[str, ...]) -> str:
    """The value of the first ``key : value`` line with one of ``keys`` (``/proc`` files)."""
    try:
        with path.open() as lines:
            for line in lines:
                key, sep, value = line.partition(":")
                if sep and key.strip() in keys:
                    return value.strip()
    except OSError:
        pass
    return ""


def _command(argv: list[str], cwd: Path) -> str:
    """A helper command's output, or '' when it is missing, fails or takes too long."""
    if shutil.which(argv[0]) is None:
        return ""
    import subprocess  # only where provenance is recorded: reading it runs nothing

    try:
        done = subprocess.run(
            argv,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""
