"""JUBE's side of the planning comparison: its debug run, read back with ``jube info``."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from .cases import Case
from .env import SINFO, Namespace, jube_error, run
from .plans import Answer, Plan

JUBE_BUILTIN_PREFIX = "jube_"
# The one builtin that is meaningful to compare: which iteration a workpackage is.
KEPT_BUILTINS = frozenset({"jube_wp_iteration"})
# JUBE's CSV has no quoting; a control character cannot occur in a parameter value.
CSV_SEPARATOR = "\x1f"

# Keep JUBE's debug run directory: ``jube info`` reads the plan from it afterwards.
JUBE_WRAPPER = """\
import sys
import jube.benchmark
jube.benchmark.Benchmark.delete_bench_dir = lambda self: None
from jube.main import main
sys.exit(main(sys.argv[1:]))
"""


class Jube:
    """JUBE 2.7 driven in debug mode, with a cache of its answers."""

    def __init__(self, executable: Path, cache: Path, ns: Namespace) -> None:
        self.executable = executable
        self.python = _interpreter(executable)
        self.cache = cache
        self.ns = ns
        self.version = self._version()

    def _version(self) -> str:
        done = subprocess.run(
            [str(self.executable), "--version"], capture_output=True, text=True, check=False
        )
        return (done.stdout + done.stderr).strip()

    def plan(self, case: Case, sources: Path) -> Answer:
        key = self._cache_key(case, sources)
        cached = self.cache / f"{key}.json"
        if cached.is_file():
            data = json.loads(cached.read_text())
            return Answer(data["accepted"], data["plan"], data["error"])
        answer = self._plan(case, sources)
        self.cache.mkdir(parents=True, exist_ok=True)
        cached.write_text(json.dumps(dataclasses.asdict(answer)))
        return answer

    def _cache_key(self, case: Case, sources: Path) -> str:
        """File content (and its neighbours', which it may include), tags, system, JUBE."""
        digest = hashlib.sha256()
        path = sources / case.file
        for p in [path, *sorted(path.parent.iterdir())]:
            if p.is_file() and p.suffix in (".xml", ".yaml", ".yml", ".in"):
                digest.update(p.name.encode() + b"\0" + p.read_bytes())
        # the login node's emulation and how values are normalised change the answers too
        for part in (*case.tags, "|", case.system, self.version, *case.include_path, SINFO, "2"):
            digest.update(part.encode() + b"\0")
        return digest.hexdigest()[:32]

    def _plan(self, case: Case, sources: Path) -> Answer:
        path = sources / case.file
        with tempfile.TemporaryDirectory(prefix="jube-") as tmp:
            out = Path(tmp) / "out"
            wrapper = Path(tmp) / "jube_keep.py"
            wrapper.write_text(JUBE_WRAPPER)
            argv = [self.python, str(wrapper), "--debug", "run", str(path), "-o", str(out)]
            if case.include_path:
                argv += ["--include-path", *(str(sources / p) for p in case.include_path)]
            if case.tags:
                argv += ["--tag", *case.tags]
            env = self.ns.env(case.system)
            done = run(self.ns.command(case.system, argv), env=env, cwd=path.parent)
            runs = sorted(out.glob("[0-9]*")) if out.is_dir() else []
            if done.returncode != 0 or not runs or not (runs[-1] / "workpackages.xml").is_file():
                return Answer(False, error=jube_error(done.stdout + "\n" + done.stderr))
            steps = _jube_steps(runs[-1] / "workpackages.xml")
            plan: Plan = {}
            for step in steps:
                info = [str(self.executable), "info", str(out), "-i", "last", "-s", step]
                shown = run([*info, "-c", CSV_SEPARATOR], env=env, cwd=path.parent)
                plan[step] = [_normalise_jube(r) for r in _parse_jube_csv(shown.stdout)]
            return Answer(True, plan)


def _interpreter(executable: Path) -> str:
    """The Python that JUBE's entry script runs on: the wrapper must import that JUBE."""
    first = executable.read_text(errors="replace").splitlines()[0]
    return first[2:].strip().split()[0] if first.startswith("#!") else sys.executable


def _jube_steps(workpackages_xml: Path) -> list[str]:
    text = workpackages_xml.read_text()
    return list(dict.fromkeys(re.findall(r"<step [^>]*>([^<]+)</step>", text)))


def _parse_jube_csv(text: str) -> list[dict[str, str]]:
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.startswith(f"id{CSV_SEPARATOR}")), None)
    if start is None:
        return []
    header = lines[start].split(CSV_SEPARATOR)
    rows = []
    for line in lines[start + 1 :]:
        if CSV_SEPARATOR not in line:
            break
        rows.append(dict(zip(header, line.split(CSV_SEPARATOR), strict=False)))
    return rows


def _normalise_jube(row: dict[str, str]) -> dict[str, str]:
    wp = row.get("jube_wp_abspath", "")
    wp_dir = str(Path(wp).parent) if wp else ""
    run = row.get("jube_benchmark_rundir", "")
    # the scratch directory's name, in paths relative to the file (``../../jube-x1y2/out``)
    scratch = (Path(run).parent.parent.name if run else "", "<TMP>")
    values = {}
    for name, value in row.items():
        if name == "id" or (name.startswith(JUBE_BUILTIN_PREFIX) and name not in KEPT_BUILTINS):
            continue
        values[name] = placeholders(
            value, [(wp, "<WP>"), (wp_dir, "<WP>"), (run, "<RUN>"), scratch]
        )
    return values


def placeholders(value: str, paths: list[tuple[str, str]]) -> str:
    for path, mark in paths:
        if path:
            value = value.replace(path, mark)
    return value
