"""jubex's side of the planning comparison: ``validate`` and ``run --dry-run --format json``."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from .cases import Case
from .env import Namespace, first_error, run
from .jube import JUBE_BUILTIN_PREFIX, KEPT_BUILTINS, placeholders
from .plans import Answer, Plan

# Prints the names whose values hold a workpackage's id: those that read an id (or a path
# holding one) and, in turn, those that read them. Run in the case's namespace.
ID_NAMES = """\
import json, re, sys
from jubex.definition.load import load
from pathlib import Path
include = [Path(p) for p in json.loads(sys.argv[3])]
b = load(sys.argv[1], tags=json.loads(sys.argv[2]), include_path=include)
reads = {}
for pset in b.parametersets.values():
    for name, p in pset.parameters.items():
        found = {m for v in p.values for m in re.findall(r"\\$\\{?([A-Za-z_]\\w*)", v)}
        reads.setdefault(name, set()).update(found)
names = {"jube_wp_id", "jube_wp_padid", "jube_wp_abspath", "jube_wp_relpath"}
while True:
    more = {n for n, found in reads.items() if found & names} - names
    if not more:
        break
    names |= more
print(json.dumps(sorted(names)))
"""


class Jubex:
    """jubex run the way a user would, in the same namespace as JUBE.

    Each method takes the case (tags, system, include path) and, optionally, another FILE to
    read instead of the case's own (a converted file, a copy in a scratch directory).
    """

    def __init__(self, python: str, ns: Namespace) -> None:
        self.python = python
        self.ns = ns

    def validate(
        self, case: Case, sources: Path, file: Path | None = None, *, tags: bool = True
    ) -> str:
        """``"valid"``, or validate's first error line (a converted FILE: without TAGS)."""
        path = file or sources / case.file
        argv = [self.python, "-m", "jubex", "validate", str(path)]
        for tag in case.tags if tags else ():
            argv += ["-t", tag]
        # validate has no --include-path; it honours JUBE's own variable for it.
        include = os.pathsep.join(str(sources / p) for p in case.include_path)
        env = self.ns.env(case.system, {"JUBE_INCLUDE_PATH": include} if include else None)
        done = run(self.ns.command(case.system, argv), env=env, cwd=path.parent)
        if done.returncode == 0:
            return "valid"
        return first_error(done.stdout + "\n" + done.stderr) or f"exit {done.returncode}"

    def plan(
        self,
        case: Case,
        sources: Path,
        file: Path | None = None,
        *,
        tags: bool = True,
        outpath: Path | None = None,
    ) -> Answer:
        """The dry run's workpackages per step (a converted FILE: without TAGS), made in
        OUTPATH when given (two plans to compare value for value, paths included)."""
        path = file or sources / case.file
        with tempfile.TemporaryDirectory(prefix="jubex-") as tmp:
            out = outpath or Path(tmp) / "out"
            # JUBE's debug run evaluates every shell and python value: so must the dry run;
            # and it makes every workpackage (the dry run shows 1,000 unless --all)
            argv = ["run", str(path), "--dry-run", "--allow-code", "--all"]
            argv += ["--outpath", str(out), "--format", "json"]
            argv += self.options(case, sources, tags=tags)
            done = self.call(case, argv, path.parent)
            if done.returncode != 0:
                return Answer(False, error=first_error(done.stderr + "\n" + done.stdout))
            try:
                data = json.loads(done.stdout)
            except json.JSONDecodeError as exc:
                return Answer(False, error=f"dry run printed no JSON: {exc}")
            return Answer(True, _jubex_plan(data, out))

    def id_names(self, case: Case, sources: Path) -> set[str]:
        """The parameters whose values hold workpackage ids (none where loading fails)."""
        path = sources / case.file
        include = [str(sources / p) for p in case.include_path]
        argv = [self.python, "-c", ID_NAMES, str(path), json.dumps(case.tags), json.dumps(include)]
        done = run(
            self.ns.command(case.system, argv), env=self.ns.env(case.system), cwd=path.parent
        )
        try:
            return set(json.loads(done.stdout)) if done.returncode == 0 else set()
        except json.JSONDecodeError:
            return set()

    def options(self, case: Case, sources: Path, *, tags: bool = True) -> list[str]:
        """The include path and (with TAGS) the tags, as ``run`` and ``convert`` take them."""
        argv = []
        if case.include_path:
            argv += [a for p in case.include_path for a in ("--include-path", str(sources / p))]
        if tags and case.tags:
            argv += ["--tag", ",".join(case.tags)]
        return argv

    def call(self, case: Case, argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
        """``python -m jubex ARGV`` in the case's namespace."""
        command = [self.python, "-m", "jubex", *argv]
        return run(self.ns.command(case.system, command), env=self.ns.env(case.system), cwd=cwd)


def _jubex_plan(data: dict[str, Any], out: Path) -> Plan:
    plan: Plan = {}
    for wp in data.get("workpackages", []):
        if wp.get("shared"):
            continue  # JUBE runs a step's shared operations in no workpackage of their own
        work_dir = str(wp.get("work_dir", ""))
        run = _run_dir(work_dir, out)
        marks = [(work_dir, "<WP>"), (str(Path(work_dir).parent), "<WP>"), (run, "<RUN>")]
        marks.append((out.parent.name, "<TMP>"))  # in paths relative to the file
        # JUBE's info shows the values read back from its store, which strips their ends;
        # its run uses them unstripped, as jubex's does (so the ends are no difference).
        values = {
            str(name): placeholders(str(value).replace("\n", " ").strip(), marks)
            for name, value in (wp.get("parameters") or {}).items()
            if not str(name).startswith(JUBE_BUILTIN_PREFIX) or name in KEPT_BUILTINS
        }
        values["jube_wp_iteration"] = str(wp.get("iteration", 0))
        plan.setdefault(str(wp["step"]), []).append(values)
    return plan


def _run_dir(work_dir: str, out: Path) -> str:
    """jubex's run directory: the first level below the outpath."""
    try:
        rel = Path(work_dir).relative_to(out)
    except ValueError:
        return ""
    return str(out / rel.parts[0]) if rel.parts else ""
