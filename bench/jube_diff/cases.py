"""Which cases to compare: every documented way to run each suite, and JUBE's examples."""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

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
