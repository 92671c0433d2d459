"""Differential check of jubex's planning against JUBE itself, on real JUBE suites.

jubex promises to run existing JUBE suites unchanged. The strongest evidence is to let JUBE and
jubex plan the same file with the same tags and compare, step by step, the workpackages each
creates and the parameter values each workpackage gets. This script does that:

* JUBE plans in its debug mode (``jube --debug run``), which creates every workpackage and
  evaluates every parameter (shell and python ones included) but runs no ``<do>`` and copies no
  file. JUBE deletes the run directory at the end of a debug run, so JUBE is driven through a
  three-line wrapper that keeps it; ``jube info OUT -i last -s STEP -c SEP`` then prints each
  step's workpackages with their parameter values, one line per workpackage.
* jubex plans with ``jubex run FILE --dry-run --format json`` and is also asked to
  ``jubex validate`` the file, so that a refusal names its first error.
* Both run inside one private mount namespace in which ``/etc/FZJ/systemname`` exists (an
  overlay on ``/etc``, the real ``/etc`` is never touched) and ``$SYSTEMNAME`` is set, as on a
  JSC login node, because many suite files read one or the other.

What is compared, per step:

* the number of workpackages, and the multiset of their parameter dictionaries;
* the parameter names the definition gives, i.e. every name except JUBE's ``jube_*`` builtins:
  those hold ids, absolute paths and time stamps that differ between any two runs; of them only
  ``jube_wp_iteration`` is kept (jubex reports it as the workpackage's ``iteration``);
* values as JUBE's CSV prints them: JUBE writes a line break inside a value as a space, so
  jubex's values get the same treatment; a workpackage's own directory and the run directory
  are replaced by ``<WP>`` and ``<RUN>`` on both sides.

Each case ends in one of: ``jube-refuses`` (not counted: not a valid JUBE case),
``jubex-refuses`` (jubex's first error line), ``differs`` (the first differences) or
``agrees``. While jubex's dry run has no JSON output, cases JUBE accepts end in ``no-json``
with jubex's ``validate`` verdict recorded. JUBE's answers are cached, keyed by the content of
the benchmark file and its neighbours, the tags, the system name and JUBE's version, so that
re-runs only re-run jubex.

Usage (JUBE installed separately; its sources, with ``examples/`` and ``platform/``, and the
suites' checkouts side by side below SOURCES)::

    JUBEX_JUBE=/path/to/bin/jube python bench/jube_differential.py --sources SOURCES \\
        --report report.json [--only SUBSTRING] [--jobs 2]
    python bench/jube_differential.py --sources SOURCES --list      # the discovered cases
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import hashlib
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

# A parameter dictionary, frozen so that a multiset of them can be counted.
Row = tuple[tuple[str, str], ...]
# Step name -> the workpackages' parameter dictionaries.
Plan = dict[str, list[dict[str, str]]]

JUBE_BUILTIN_PREFIX = "jube_"
# The one builtin that is meaningful to compare: which iteration a workpackage is.
KEPT_BUILTINS = frozenset({"jube_wp_iteration"})
# JUBE's CSV has no quoting; a control character cannot occur in a parameter value.
CSV_SEPARATOR = "\x1f"
DEFAULT_SYSTEM = "juwelsbooster"
# Tags that name a system in the suites, and the system name JSC uses for it.
SYSTEM_TAGS = {
    "jedi": "jedi",
    "jrdc": "jurecadc",
    "jurecadc": "jurecadc",
    "jwb": "juwelsbooster",
    "juwelsbooster": "juwelsbooster",
    "jwc": "juwels",
    "juwels": "juwels",
}
# Suites whose files know no JUWELS Booster: the system their documentation names instead.
SUITE_SYSTEMS = {"jubench-nastja": "juwels"}
TIMEOUT = 600

# Keep JUBE's debug run directory: ``jube info`` reads the plan from it afterwards.
JUBE_WRAPPER = """\
import sys
import jube.benchmark
jube.benchmark.Benchmark.delete_bench_dir = lambda self: None
from jube.main import main
sys.exit(main(sys.argv[1:]))
"""


@dataclasses.dataclass(frozen=True)
class Case:
    """One benchmark file planned with one tag set: the unit both tools are compared on."""

    group: str  # the suite's directory name, or "JUBE/examples"
    file: str  # relative to the sources directory
    tags: tuple[str, ...] = ()
    system: str = DEFAULT_SYSTEM
    include_path: tuple[str, ...] = ()  # relative to the sources directory

    @property
    def name(self) -> str:
        tags = f" -t {' '.join(self.tags)}" if self.tags else ""
        return f"{self.file}{tags}"


@dataclasses.dataclass
class Answer:
    """What one tool said about a case: whether it planned it, and the plan or the error."""

    accepted: bool
    plan: Plan = dataclasses.field(default_factory=dict)
    error: str = ""


@dataclasses.dataclass
class Outcome:
    """The verdict on one case, as written to the report."""

    case: Case
    status: str  # jube-refuses | jubex-refuses | no-json | differs | agrees
    jube_error: str = ""
    jubex_error: str = ""
    validate: str = ""  # "valid", or validate's first error line
    dry_run: str = ""  # "ok", or the dry run's first error line
    steps: dict[str, tuple[int, int]] = dataclasses.field(default_factory=dict)
    differences: list[str] = dataclasses.field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["case"]["name"] = self.case.name
        return data


# --------------------------------------------------------------------------- discovery

_RUN_LINE = re.compile(r"jube\s+(?:-\S+\s+)*run\s+(\S+\.(?:xml|ya?ml))([^`\n]*)")
_XML_TAG = re.compile(r"""\btag\s*=\s*["']([^"']*)["']""")
_YAML_TAG = re.compile(r"""\btag[ \t]*:[ \t]*["']?([^,}\n"'#]+)""")
_TAG_WORD = re.compile(r"[A-Za-z0-9_.\-]+")


def discover_cases(sources: Path) -> list[Case]:
    """Every documented way to run every suite below SOURCES, then JUBE's own examples.

    The case list is derived rather than typed in so that it follows the suites: a suite's
    documentation (README.md, DESCRIPTION.md) names its files in ``jube run FILE -t TAGS``
    lines and its tags in backticks (tables, lists); a backticked word counts as a tag only if
    a benchmark file of the suite uses it in a ``tag`` attribute.
    """
    cases: list[Case] = []
    platform = ("JUBE/platform/slurm",) if (sources / "JUBE/platform/slurm").is_dir() else ()
    for suite in sorted(p for p in sources.glob("jubench-*") if p.is_dir()):
        cases.extend(_suite_cases(sources, suite, platform))
    examples = sources / "JUBE" / "examples"
    if examples.is_dir():
        cases.extend(_example_cases(sources, examples))
    return cases


def _suite_cases(sources: Path, suite: Path, include: tuple[str, ...]) -> list[Case]:
    files = _benchmark_files(suite)
    if not files:
        return []
    known = set().union(*(_tags_used(f) for f in _definition_files(suite)))
    text = "\n".join(
        (suite / doc).read_text(errors="replace")
        for doc in ("README.md", "DESCRIPTION.md")
        if (suite / doc).is_file()
    )
    # A command broken after ``jube run`` continues on the next line.
    flat = re.sub(r"(jube\s+(?:-\S+\s+)*run)\s*\n\s*", r"\1 ", text)
    combos: dict[Path, set[tuple[str, ...]]] = {f: {()} for f in files}
    documented: set[Path] = set()
    for match in _RUN_LINE.finditer(flat):
        target = _resolve(match.group(1), files)
        if target is None:
            continue
        documented.add(target)
        for tags in _tag_alternatives(match.group(2)):
            combos[target].add(tuple(t for t in tags if t in known))
    spans = {tuple(s.split()) for s in re.findall(r"`([^`\n]+)`", text)}
    tag_spans = {s for s in spans if s and all(w in known for w in s)}
    for target in documented or set(files):
        used = _tags_used(target, follow=True)
        combos[target] |= {s for s in tag_spans if all(w in used for w in s)}
    cases = []
    for target in files:
        for tags in sorted(combos[target]):
            cases.append(
                Case(
                    group=suite.name,
                    file=str(target.relative_to(sources)),
                    tags=tags,
                    system=_system_for(tags, SUITE_SYSTEMS.get(suite.name, DEFAULT_SYSTEM)),
                    include_path=include,
                )
            )
    return cases


def _example_cases(sources: Path, examples: Path) -> list[Case]:
    """JUBE's examples: each file without tags, and once with each tag word it uses."""
    cases = []
    for path in sorted(itertools.chain(examples.rglob("*.xml"), examples.rglob("*.yaml"))):
        if not _defines_benchmark(path):
            continue
        rel = str(path.relative_to(sources))
        cases.append(Case(group="JUBE/examples", file=rel))
        for tag in sorted(_tags_used(path)):
            cases.append(Case(group="JUBE/examples", file=rel, tags=(tag,)))
    return cases


def _definition_files(suite: Path) -> list[Path]:
    jube_dir = suite / "benchmark" / "jube"
    root = jube_dir if jube_dir.is_dir() else suite
    found = itertools.chain(root.rglob("*.xml"), root.rglob("*.yaml"), root.rglob("*.yml"))
    return sorted(p for p in found if _is_jube_file(p))


def _benchmark_files(suite: Path) -> list[Path]:
    return [p for p in _definition_files(suite) if _defines_benchmark(p)]


def _is_jube_file(path: Path) -> bool:
    head = path.read_text(errors="replace")[:4000]
    if path.suffix == ".xml":
        return "<jube" in head
    return bool(re.search(r"^(benchmarks?|parameterset|name|include-path)\s*:", head, re.M))


def _defines_benchmark(path: Path) -> bool:
    text = path.read_text(errors="replace")
    if path.suffix == ".xml":
        return "<benchmark" in text
    return bool(re.search(r"^(- )?(benchmarks?\s*:|name\s*:)", text, re.M)) and "step" in text


def _tags_used(path: Path, follow: bool = False) -> set[str]:
    """Tag words a file's ``tag`` attributes mention (with FOLLOW, also its directory's)."""
    paths = [path]
    if follow:
        paths += [p for p in path.parent.iterdir() if p.suffix in (".xml", ".yaml", ".yml")]
    words: set[str] = set()
    for p in paths:
        text = p.read_text(errors="replace")
        pattern = _XML_TAG if p.suffix == ".xml" else _YAML_TAG
        for expr in pattern.findall(text):
            words.update(_TAG_WORD.findall(expr))
    return words


def _resolve(name: str, files: Sequence[Path]) -> Path | None:
    """The suite file a documented name means: documents abbreviate, mis-case, mis-suffix."""
    base = Path(name).name
    for same in (
        lambda f: f.name == base,
        lambda f: f.name.lower() == base.lower(),
        lambda f: f.stem.lower() == Path(base).stem.lower(),
    ):
        hits = [f for f in files if same(f)]
        if len(hits) == 1:
            return hits[0]
    return None


def _tag_alternatives(rest: str) -> list[tuple[str, ...]]:
    """Tag sets of one documented ``jube run`` line's arguments.

    Understands ``--tag a b``, ``-t a``, ``--tag=a``, alternatives written ``{a,b}``,
    ``[a|b]`` or ``<a/b>``, and optional parts ``[-t a]``; placeholders such as
    ``[--tag tags...]`` or ``<tags>`` give nothing.
    """
    rest = rest.split("#", 1)[0]
    optional = re.findall(r"\[\s*(?:-t|--tag)[= ]([^\]]*)\]", rest)
    rest = re.sub(r"\[\s*(?:-t|--tag)[= ][^\]]*\]", " ", rest)
    match = re.search(r"(?:^|\s)(?:-t|--tag)(?:=|\s+)(.*)", rest)
    choices: list[list[str]] = []
    if match:
        for token in re.findall(r"\{[^}]*\}|\[[^\]]*\]|<[^>]*>|\S+", match.group(1)):
            if token.startswith("-"):
                break
            inner = token.strip("{}[]<>")
            alts = [a for a in re.split(r"[,|/]", inner) if _TAG_WORD.fullmatch(a)]
            alts = [a for a in alts if not a.endswith("...") and a not in ("tag", "tags", "NAME")]
            if alts:
                choices.append(alts)
    combos = [tuple(c) for c in itertools.product(*choices)] if choices else [()]
    result = list(combos)
    for extra in optional:
        words = tuple(w for w in extra.split() if _TAG_WORD.fullmatch(w) and "..." not in w)
        result += [c + words for c in combos]
    return result


def _system_for(tags: Iterable[str], default: str = DEFAULT_SYSTEM) -> str:
    for tag in tags:
        if tag in SYSTEM_TAGS:
            return SYSTEM_TAGS[tag]
    return default


# --------------------------------------------------------------------------- environment


class Namespace:
    """Runs commands as on a JSC login node: ``/etc/FZJ/systemname`` and ``$SYSTEMNAME``.

    The file is provided by an overlay mount on ``/etc`` inside a private mount namespace
    (``unshare -m``), so the host's ``/etc`` is never written. Without the privilege to do so
    the commands run unwrapped and only ``$SYSTEMNAME`` is set.
    """

    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch
        self.usable = shutil.which("unshare") is not None and _probe_overlay(scratch)

    def command(self, system: str, argv: Sequence[str]) -> list[str]:
        if not self.usable:
            return list(argv)
        layer = Path(tempfile.mkdtemp(prefix=f"etc-{system}-", dir=self.scratch))
        (layer / "upper" / "FZJ").mkdir(parents=True)
        (layer / "work").mkdir()
        (layer / "upper" / "FZJ" / "systemname").write_text(system + "\n")
        mount = (
            "mount -t overlay overlay "
            f"-o lowerdir=/etc,upperdir={layer / 'upper'},workdir={layer / 'work'} /etc"
        )
        script = f'{mount} && exec "$@"'
        return ["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", *argv]

    def env(self, system: str, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = dict(os.environ, SYSTEMNAME=system, **(extra or {}))
        return env


def _probe_overlay(scratch: Path) -> bool:
    probe = Path(tempfile.mkdtemp(prefix="probe-", dir=scratch))
    (probe / "upper").mkdir()
    (probe / "work").mkdir()
    opts = f"lowerdir=/etc,upperdir={probe / 'upper'},workdir={probe / 'work'}"
    script = f"mount -t overlay overlay -o {opts} /etc"
    try:
        done = subprocess.run(
            ["unshare", "-m", "--propagation", "private", "sh", "-c", script],
            capture_output=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def _run(argv: Sequence[str], *, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(
            argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT, check=False
        )
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(argv, 124, "", f"timed out after {TIMEOUT} s")


def _first_error(text: str) -> str:
    """The line that says what went wrong, not the traceback's first line."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for line in lines:
        if re.search(r"\berror\b|Error|refus|invalid|not found|unknown|cannot", line) and not (
            line.startswith("Traceback") or line.startswith("File ")
        ):
            return line[:300]
    return (lines[-1] if lines else "")[:300]


def _jube_error(text: str) -> str:
    """JUBE ends with its error message; progress bars and boxes come before it."""
    noise = re.compile(r"^(#|\.{5}|Running workpackages|\(|\d+ *\|)|^[=\-]+$")
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not noise.match(ln.strip())]
    return (lines[-1] if lines else "")[:300]


# --------------------------------------------------------------------------- JUBE


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
        for part in (*case.tags, "|", case.system, self.version, *case.include_path):
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
            done = _run(self.ns.command(case.system, argv), env=env, cwd=path.parent)
            runs = sorted(out.glob("[0-9]*")) if out.is_dir() else []
            if done.returncode != 0 or not runs or not (runs[-1] / "workpackages.xml").is_file():
                return Answer(False, error=_jube_error(done.stdout + "\n" + done.stderr))
            steps = _jube_steps(runs[-1] / "workpackages.xml")
            plan: Plan = {}
            for step in steps:
                info = [str(self.executable), "info", str(out), "-i", "last", "-s", step]
                shown = _run([*info, "-c", CSV_SEPARATOR], env=env, cwd=path.parent)
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
    values = {}
    for name, value in row.items():
        if name == "id" or (name.startswith(JUBE_BUILTIN_PREFIX) and name not in KEPT_BUILTINS):
            continue
        values[name] = _placeholders(value, [(wp, "<WP>"), (wp_dir, "<WP>"), (run, "<RUN>")])
    return values


def _placeholders(value: str, paths: list[tuple[str, str]]) -> str:
    for path, mark in paths:
        if path:
            value = value.replace(path, mark)
    return value


# --------------------------------------------------------------------------- jubex


class Jubex:
    """jubex's dry run (JSON) and validate, run the way a user would, in the same namespace."""

    def __init__(self, python: str, ns: Namespace) -> None:
        self.python = python
        self.ns = ns

    def validate(self, case: Case, sources: Path) -> str:
        path = sources / case.file
        argv = [self.python, "-m", "jubex", "validate", str(path)]
        for tag in case.tags:
            argv += ["-t", tag]
        # validate has no --include-path; it honours JUBE's own variable for it.
        include = os.pathsep.join(str(sources / p) for p in case.include_path)
        env = self.ns.env(case.system, {"JUBE_INCLUDE_PATH": include} if include else None)
        done = _run(self.ns.command(case.system, argv), env=env, cwd=path.parent)
        if done.returncode == 0:
            return "valid"
        return _first_error(done.stdout + "\n" + done.stderr) or f"exit {done.returncode}"

    def plan(self, case: Case, sources: Path, json_output: bool = True) -> Answer:
        path = sources / case.file
        with tempfile.TemporaryDirectory(prefix="jubex-") as tmp:
            out = Path(tmp) / "out"
            argv = [self.python, "-m", "jubex", "run", str(path), "--dry-run"]
            argv += ["--outpath", str(out)]
            if json_output:
                argv += ["--format", "json"]
            if case.include_path:
                argv += ["--include-path", *(str(sources / p) for p in case.include_path)]
            if case.tags:
                argv += ["--tag", *case.tags]
            env = self.ns.env(case.system)
            done = _run(self.ns.command(case.system, argv), env=env, cwd=path.parent)
            if done.returncode != 0:
                return Answer(False, error=_first_error(done.stderr + "\n" + done.stdout))
            if not json_output:
                return Answer(True, _text_plan(done.stdout))
            try:
                data = json.loads(done.stdout)
            except json.JSONDecodeError as exc:
                return Answer(False, error=f"dry run printed no JSON: {exc}")
            return Answer(True, _jubex_plan(data, out))


def _jubex_plan(data: dict[str, Any], out: Path) -> Plan:
    plan: Plan = {}
    for wp in data.get("workpackages", []):
        if wp.get("shared"):
            continue  # JUBE runs a step's shared operations in no workpackage of their own
        work_dir = str(wp.get("work_dir", ""))
        run = _run_dir(work_dir, out)
        marks = [(work_dir, "<WP>"), (str(Path(work_dir).parent), "<WP>"), (run, "<RUN>")]
        values = {
            str(name): _placeholders(str(value).replace("\n", " "), marks)
            for name, value in (wp.get("parameters") or {}).items()
            if not str(name).startswith(JUBE_BUILTIN_PREFIX) or name in KEPT_BUILTINS
        }
        values["jube_wp_iteration"] = str(wp.get("iteration", 0))
        plan.setdefault(str(wp["step"]), []).append(values)
    return plan


def _text_plan(text: str) -> Plan:
    """Workpackages per step from the text dry run (``wp ID STEP iteration N  k=v ...``).

    Only the counts are reliable: values containing spaces cannot be told apart there.
    Shared workpackages are left out, as from the JSON plan.
    """
    plan: Plan = {}
    for match in re.finditer(r"^wp \d+ (\S+)( \(shared\))? iteration (\d+)", text, re.M):
        if not match.group(2):
            plan.setdefault(match.group(1), []).append({"jube_wp_iteration": match.group(3)})
    return plan


def _run_dir(work_dir: str, out: Path) -> str:
    """jubex's run directory: the first level below the outpath."""
    try:
        rel = Path(work_dir).relative_to(out)
    except ValueError:
        return ""
    return str(out / rel.parts[0]) if rel.parts else ""


# --------------------------------------------------------------------------- comparison


def compare(jube: Plan, jubex: Plan) -> tuple[dict[str, tuple[int, int]], list[str]]:
    """Per step: (JUBE's count, jubex's count), and the first differences, described."""
    counts: dict[str, tuple[int, int]] = {}
    differences: list[str] = []
    for step in dict.fromkeys([*jube, *jubex]):
        ours, theirs = jubex.get(step, []), jube.get(step, [])
        counts[step] = (len(theirs), len(ours))
        if step not in jubex:
            differences.append(f"step {step}: jubex plans no such step ({len(theirs)} in JUBE)")
            continue
        if step not in jube:
            differences.append(f"step {step}: JUBE plans no such step ({len(ours)} in jubex)")
            continue
        if len(ours) != len(theirs):
            differences.append(
                f"step {step}: {len(theirs)} workpackages in JUBE, {len(ours)} in jubex"
            )
        names_jube = set().union(*theirs) if theirs else set()
        names_jubex = set().union(*ours) if ours else set()
        if names_jube - names_jubex:
            differences.append(f"step {step}: only JUBE has {sorted(names_jube - names_jubex)}")
        if names_jubex - names_jube:
            differences.append(f"step {step}: only jubex has {sorted(names_jubex - names_jube)}")
        common = names_jube & names_jubex
        a = Counter(_row(r, common) for r in theirs)
        b = Counter(_row(r, common) for r in ours)
        only_jube, only_jubex = list((a - b).elements()), list((b - a).elements())
        if only_jube and only_jubex:
            differences.append(f"step {step}: {_row_difference(only_jube[0], only_jubex)}")
        elif only_jube or only_jubex:
            side = "JUBE" if only_jube else "jubex"
            extra = (only_jube or only_jubex)[0]
            differences.append(f"step {step}: only {side} plans {dict(extra)}")
    return counts, differences


def _row(values: dict[str, str], names: set[str]) -> Row:
    return tuple(sorted((k, v) for k, v in values.items() if k in names))


def _row_difference(jube_row: Row, jubex_rows: list[Row]) -> str:
    """Name the values of JUBE's workpackage that its nearest jubex workpackage lacks."""
    ref = dict(jube_row)

    def distance(row: Row) -> int:
        return sum(1 for k, v in row if ref.get(k) != v)

    nearest = dict(min(jubex_rows, key=distance))
    diffs = [
        f"{k}: JUBE {ref[k]!r} / jubex {nearest.get(k)!r}" for k in ref if ref[k] != nearest.get(k)
    ]
    return "; ".join(diffs[:4]) + (f" (+{len(diffs) - 4} more)" if len(diffs) > 4 else "")


# --------------------------------------------------------------------------- driver


def check(case: Case, sources: Path, jube: Jube, jubex: Jubex) -> Outcome:
    """Plan one case with both tools and classify the result."""
    theirs = jube.plan(case, sources)
    if not theirs.accepted:
        return Outcome(case, "jube-refuses", jube_error=theirs.error)
    outcome = Outcome(case, "agrees", validate=jubex.validate(case, sources))
    ours = jubex.plan(case, sources)
    if not ours.accepted and "--format" in ours.error and "unrecognized" in ours.error:
        text = jubex.plan(case, sources, json_output=False)
        outcome.dry_run = "ok" if text.accepted else text.error
        outcome.status = "no-json" if text.accepted else "jubex-refuses"
        outcome.jubex_error = text.error
        planned = len if text.accepted else (lambda _: -1)
        outcome.steps = {s: (len(r), planned(text.plan.get(s, []))) for s, r in theirs.plan.items()}
        outcome.steps |= {s: (0, len(r)) for s, r in text.plan.items() if s not in theirs.plan}
        outcome.differences = [
            f"step {s}: {a} workpackages in JUBE, {b} in jubex"
            for s, (a, b) in outcome.steps.items()
            if a != b and text.accepted
        ]
        return outcome
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
        outcome.status = "differs"
    return outcome


def summarise(outcomes: Sequence[Outcome]) -> str:
    """A table with one line per case, then the counts that matter."""
    lines = [f"{'status':<14} {'validate':<9} {'steps (JUBE/jubex workpackages)':<44} case"]
    for o in outcomes:
        steps = " ".join(f"{s}:{a}/{'-' if b < 0 else b}" for s, (a, b) in o.steps.items())
        detail = o.jube_error or o.jubex_error or (o.differences[0] if o.differences else "")
        valid = "" if o.status == "jube-refuses" else ("ok" if o.validate == "valid" else "ERR")
        lines.append(f"{o.status:<14} {valid:<9} {steps[:44]:<44} {o.case.name}")
        if detail and o.status != "agrees":
            lines.append(f"{'':<25}-> {detail[:160]}")
    counted = [o for o in outcomes if o.status != "jube-refuses"]
    tally = Counter(o.status for o in outcomes)
    valid = sum(1 for o in counted if o.validate == "valid")
    planned = sum(1 for o in counted if o.dry_run == "ok")
    counts_agree = sum(1 for o in outcomes if o.status == "no-json" and not o.differences)
    lines.append("")
    lines.append(
        f"{len(outcomes)} cases; JUBE accepts {len(counted)}; jubex validate accepts {valid}, "
        f"jubex dry run plans {planned}; agree {tally['agrees']}, differ {tally['differs']}, "
        f"jubex refuses {tally['jubex-refuses']}, no JSON dry run {tally['no-json']} "
        f"(of which workpackage counts agree: {counts_agree})"
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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
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
        parser.error("JUBE not found: set JUBEX_JUBE to its `jube` executable")
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
            outcomes = list(pool.map(lambda c: _checked(c, sources, jube, jubex), cases))
    print(summarise(outcomes))
    if args.report:
        report = {"jube": jube.version, "outcomes": [o.as_dict() for o in outcomes]}
        args.report.write_text(json.dumps(report, indent=1))
    return 0


def _checked(case: Case, sources: Path, jube: Jube, jubex: Jubex) -> Outcome:
    print(f"... {case.name}", file=sys.stderr, flush=True)
    return check(case, sources, jube, jubex)


if __name__ == "__main__":
    sys.exit(main())
