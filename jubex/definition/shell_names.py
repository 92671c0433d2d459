"""Which ``$name``s of a shell command the shell expands, and which names commands set.

A ``do`` command's ``$name`` that is neither a parameter nor set by a command is, in
lower case, almost always a misspelling: the shell would expand it to nothing and every
workpackage would fail the same way. Names in single quotes and quoted here-documents are
not expanded by the shell, and ``$$name`` is jubex's spelling of a literal ``$name``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from jubex.definition.model import Benchmark
from jubex.definition.references import BUILTIN_PREFIXES
from jubex.errors import DefinitionError, DefinitionWarning, JubexError, did_you_mean

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGNED = re.compile(
    r"(?:^|[\s;&|(`])(?:(?:export|local|readonly|declare|typeset)\s+(?:-\w+\s+)*)?"
    r"([A-Za-z_]\w*)(?:\[[^\]]*\])?\+?="
)
_DECLARED = re.compile(
    r"\b(?:export|local|readonly|declare|typeset|unset)[ \t]+((?:-\w+[ \t]+)*[\w \t]+)"
)
_LOOP = re.compile(r"\b(?:for|select)\s+([A-Za-z_]\w*)\s+in\b")
_READ = re.compile(r"\b(?:read|getopts[ \t]+\S+)[ \t]+((?:-\w+[ \t]+)*[A-Za-z_][\w \t]*)")
#: what the scan of a command stops at: an escape, a quote, ``$$`` (a literal ``$``), an
#: expansion (``${name:-default}`` has a default, so it is never empty)
_TOKEN = re.compile(
    r"\\.|'|\"|\$\$|\$(?:\{(?P<braced>[A-Za-z_]\w*)(?P<defaulted>[^}])?"
    r"|(?P<bare>[A-Za-z_]\w*))",
    re.DOTALL,
)
_QUOTED_HEREDOC = re.compile(r"<<-?\s*(['\"])(\w+)\1")
#: commands that can set names the text does not show
_OPAQUE = re.compile(r"(?:^|[\s;&|(])(?:source|\.|eval|module|ml)\s")


def set_names(text: str) -> set[str]:
    """Names a command assigns, exports, loops over or reads into."""
    found = {m.group(1) for m in _ASSIGNED.finditer(text)}
    found |= {m.group(1) for m in _LOOP.finditer(text)}
    for pattern in (_DECLARED, _READ):
        for match in pattern.finditer(text):
            found |= {w for w in match.group(1).split() if _NAME.fullmatch(w)}
    return found


def sets_unseen_names(text: str) -> bool:
    """Whether a command sources, evaluates or loads something that may set any name."""
    return _OPAQUE.search(text) is not None


def expanded_names(text: str) -> Iterator[str]:
    """The names the shell would expand (``$name``, ``${name}``), in order."""
    text = _without_quoted_heredocs(text)
    pos, double = 0, False
    while (token := _TOKEN.search(text, pos)) is not None:
        pos = token.end()
        char = token.group()[0]
        if char == "'" and not double:
            end = text.find("'", pos)
            pos = len(text) if end < 0 else end + 1
        elif char == '"':
            double = not double
        elif token.group("bare"):
            yield token.group("bare")
        elif token.group("braced") and token.group("defaulted") is None:
            yield token.group("braced")


def _without_quoted_heredocs(text: str) -> str:
    """The text without the bodies of ``<<'EOF'`` here-documents (the shell leaves them)."""
    lines, kept, ending = text.split("\n"), [], ""
    for line in lines:
        if ending:
            if line.strip() == ending:
                ending = ""
            continue
        kept.append(line)
        match = _QUOTED_HEREDOC.search(line)
        if match:
            ending = match.group(2)
    return "\n".join(kept)


def check_shell_names(benchmark: Benchmark, given: Iterable[str]) -> list[JubexError]:
    """Each lower-case ``$name`` of a ``do`` must be a parameter, one of the ``given`` names
    (the platform's), or set by a command of the benchmark (``name=...``, ``export``,
    ``for name in``, ``read name``): an error otherwise, a warning where a command may set
    names unseen (``source``, ``eval``, ``module``). Upper-case names are the job's
    environment (``$HOME``, ``$SLURM_PROCID``) and are left to the shell."""
    commands = [do.command for step in benchmark.steps.values() for do in step.do]
    parameters = {n for ps in benchmark.parametersets.values() for n in ps.parameters}
    known = parameters | set(given) | {"launcher"} | set(benchmark.environment)
    for step in benchmark.steps.values():
        known |= set(step.environment)
    for command in commands:
        known |= set_names(command)
    problems: list[JubexError] = []
    for step in benchmark.steps.values():
        opaque = any(sets_unseen_names(do.command) for do in step.do)
        reported: set[str] = set()
        for do in step.do:
            for name in expanded_names(do.command):
                if name in known or name in reported or name.upper() == name:
                    continue
                if name.startswith(BUILTIN_PREFIXES):
                    continue
                reported.add(name)
                kind = DefinitionWarning if opaque else DefinitionError
                problems.append(
                    kind(
                        f"step '{step.name}': ${name} is neither a parameter nor set by a "
                        "command, so the shell would expand it to an empty text",
                        do.loc,
                        did_you_mean(name, sorted(parameters))
                        or f"set it first ({name}=...), or write $${name} for a variable "
                        "of the job's environment",
                    )
                )
    return problems
