"""Finding and reading platform files: search path, YAML and XML spellings, inheritance.

Search order for a name: an explicit path; the directories of ``search_path``; those of
``JUBEX_PLATFORM_PATH`` (colon-separated); ``~/.config/jubex/platforms`` (platformdirs'
user config dir); the platform library shipped with jubex (``platforms/`` of the repository).
In each directory a file may sit at the top or in a directory of its centre
(``platforms/jsc/juwels-booster.yaml``); it is found by its name all the same. ``extends`` loads the
parent the same way (a path is relative to the child's file) and deep-merges the child over
it. The merged file is validated against ``schema/platform.schema.json``; every error names
the file and line of the offending key.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import platformdirs

from jubex.definition.darshan import Darshan, darshan_of
from jubex.errors import DefinitionError, ErrorList, JubexError, Loc, did_you_mean
from jubex.language.confine import control_character, is_shell_name
from jubex.platform.model import FileSystem, Partition, Platform, duration
from jubex.platform.read import Locs, read_file
from jubex.shipped import shipped

SUFFIXES = (".yaml", ".yml", ".xml")
SHIPPED = shipped("platforms")


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """The platform file's JSON Schema, which also carries the help text of every key."""
    return json.loads(
        (resources.files("jubex.platform") / "schema" / "platform.schema.json").read_text()
    )


def search_dirs(search_path: Sequence[Path] = ()) -> list[Path]:
    """Where platform files are looked for, first match wins."""
    env = [Path(p) for p in os.environ.get("JUBEX_PLATFORM_PATH", "").split(":") if p]
    user = platformdirs.user_config_path("jubex") / "platforms"
    return [*map(Path, search_path), *env, user, SHIPPED]


def platform_paths(search_path: Sequence[Path] = ()) -> list[tuple[str, Path]]:
    """Every platform file on the search path, in search order (a later same name is shadowed).

    In each directory, the files at its top come first, then those of its centres' directories.
    """
    found: list[tuple[str, Path]] = []
    for directory in search_dirs(search_path):
        if directory.is_dir():
            found += [
                (path.stem, path)
                for pattern in ("*", "*/*")
                for path in sorted(directory.glob(pattern))
                if path.suffix in SUFFIXES and path.is_file()
            ]
    return found


def centre_of(path: Path, search_path: Sequence[Path] = ()) -> str:
    """The centre a platform file is grouped under: its directory's name, unless that
    directory is itself one searched (a file at the top of it belongs to no centre)."""
    searched = {d.resolve() for d in search_dirs(search_path)}
    return "" if path.parent.resolve() in searched else path.parent.name


def find_platform(
    name_or_path: str, search_path: Sequence[Path] = (), skip: Sequence[Path] = ()
) -> Path:
    """The file of a platform name or path; ``skip`` excludes files (a child's namesake)."""
    path = Path(name_or_path).expanduser()
    if path.suffix in SUFFIXES or os.sep in name_or_path:
        if path.is_file():
            return path
        raise DefinitionError(f"platform file '{name_or_path}' does not exist")
    excluded = {p.resolve() for p in skip}
    for stem, candidate in platform_paths(search_path):
        if stem == name_or_path and candidate.resolve() not in excluded:
            return candidate
    names = sorted({stem for stem, _ in platform_paths(search_path)})
    raise DefinitionError(
        f"no platform '{name_or_path}'; known platforms: {', '.join(names) or 'none'}",
        hint=did_you_mean(name_or_path, names)
        or "put NAME.yaml in a directory of JUBEX_PLATFORM_PATH or ~/.config/jubex/platforms",
    )


def load_platform(
    name_or_path: str | None = None, *, search_path: Sequence[Path] = (), templates: bool = True
) -> Platform:
    """The platform of a name or path (``None`` = ``local``), its parents merged in, validated;
    its templates compiled unless ``templates`` is false (a command that renders none: Jinja2's
    import is a tenth of a ``history``'s start)."""
    path = find_platform(name_or_path or "local", search_path)
    data, locs = _merged(path, search_path, chain=())
    data.setdefault("name", path.stem)
    _validate(data, locs)
    platform = _build(data, locs, path)
    if templates:
        _check_templates(platform)
    return platform


def _merged(path: Path, search_path: Sequence[Path], chain: tuple[Path, ...]) -> tuple[dict, Locs]:
    """A file's data deep-merged over its parents', with the place of every key."""
    if path.resolve() in chain:
        cycle = " -> ".join(str(p) for p in (*chain, path.resolve()))
        raise DefinitionError(
            f"platform files extend each other in a circle: {cycle}", Loc(str(path))
        )
    data, locs = read_file(path)
    parent = data.get("extends")
    if not isinstance(parent, str):
        return data, locs
    try:
        if os.sep in parent or Path(parent).suffix in SUFFIXES:
            parent_path = find_platform(str(path.parent / parent))
        else:
            parent_path = find_platform(parent, search_path, skip=(*chain, path))
    except DefinitionError as exc:
        raise exc.at(locs.get("extends")) if exc.loc is None else exc from None
    base, base_locs = _merged(parent_path, search_path, (*chain, path.resolve()))
    base.pop("name", None)
    return _deep_merge(base, data), {**base_locs, **locs}


def _deep_merge(base: dict, over: dict) -> dict:
    """``over`` merged into ``base``: mappings key by key, anything else replaced, null removes."""
    merged = dict(base)
    for key, value in over.items():
        if value is None and key != "account":
            merged.pop(key, None)
        elif isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _validate(data: dict, locs: Locs) -> None:
    """Every schema violation, each with the file and line of the offending key."""
    validator = jsonschema.Draft202012Validator(schema())
    errors: list[JubexError] = []
    for error in sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.path))):
        path = ".".join(str(p) for p in error.absolute_path)
        errors.append(DefinitionError(_message(error, path), _loc_of(locs, path), _help(error)))
    errors += _misspelt_resources(data.get("resources"), locs)
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise ErrorList(errors)


def _misspelt_resources(resources: object, locs: Locs) -> list[JubexError]:
    """Extra resources are allowed (templates may use them), but not near-misses of known ones."""
    if not isinstance(resources, dict):
        return []
    known = list(schema()["properties"]["resources"]["properties"])
    return [
        DefinitionError(
            f"unknown resource '{key}'; the known resources are {', '.join(known)}",
            locs.get(f"resources.{key}"),
            hint,
        )
        for key in resources
        if key not in known and (hint := did_you_mean(key, known))
    ]


def _message(error: jsonschema.ValidationError, path: str) -> str:
    where = f"'{path}'" if path else "the platform file"
    if error.validator == "additionalProperties":
        schema = error.schema if isinstance(error.schema, dict) else {}
        known = sorted(schema.get("properties", {}))
        extra = sorted(set(error.instance if isinstance(error.instance, dict) else ()) - set(known))
        hint = did_you_mean(extra[0], known) if extra and known else ""
        names = ", ".join(known) if known else "none"
        return f"{where} has unknown key(s) {', '.join(extra)}; expected one of {names}" + (
            f" ({hint})" if hint else ""
        )
    if error.validator == "required":
        return f"{where} lacks {error.message.split(' is a required')[0]}, which is required"
    if error.validator == "enum":
        listed = error.validator_value if isinstance(error.validator_value, list) else []
        choices = ", ".join(map(str, listed))
        return f"{where} must be one of {choices}, not {error.instance!r}"
    if error.validator == "type":
        expected = error.validator_value
        expected = " or ".join(expected) if isinstance(expected, list) else expected
        return f"{where} must be {expected}, not {error.instance!r}"
    return f"{where}: {error.message}"


def _help(error: jsonschema.ValidationError) -> str:
    description = error.schema.get("description", "") if isinstance(error.schema, dict) else ""
    return description if error.validator != "additionalProperties" else ""


def _loc_of(locs: Locs, path: str) -> Loc | None:
    parts = path.split(".") if path else []
    for end in range(len(parts), -1, -1):
        loc = locs.get(".".join(parts[:end]))
        if loc:
            return loc
    return None


def _partition(name: str, spec: dict[str, Any] | None, loc: Loc | None) -> Partition:
    """A validated partition; ``max_time`` as text, as YAML may read ``1:00:00`` as a number."""
    fields = dict(spec or {})
    if "max_time" in fields:
        fields["max_time"] = str(fields["max_time"])
    return Partition(name=name, loc=loc, **fields)


def _filesystem(name: str, spec: dict[str, Any]) -> FileSystem:
    """A validated file-system entry; its peaks stay texts with their units."""
    texts = {key: str(value) for key, value in spec.items() if key != "default"}
    return FileSystem(name=name, default=bool(spec.get("default", False)), **texts)


def _check_job_values(platform: Platform) -> None:
    """Values a job template places on its lines are one line each; exported names are names.

    The template's own text is the site's to write; what it is filled with must not add lines.
    """
    values: list[tuple[str, object]] = [
        *((f"resources.{k}", v) for k, v in platform.resources.items()),
        *((f"modules.{i}", m) for i, m in enumerate(platform.modules)),
        *((f"partitions.{name}", name) for name in platform.partitions),
        *((f"hardware.{k}", v) for k, v in platform.hardware.items()),
        *((f"filesystems.{k}", fs.path) for k, fs in platform.filesystems.items()),
        ("account", platform.account),
    ]
    for key, value in values:
        what = control_character(value) if isinstance(value, str) else None
        if what:
            raise DefinitionError(
                f"'{key}' of platform '{platform.name}' holds {what}: {value!r}",
                platform.where(key),
                "a value a job script may place in a directive must be one line of printable text",
            )
    for name in platform.environment:
        if not is_shell_name(name):
            raise DefinitionError(
                f"environment variable {name!r} of platform '{platform.name}' is not a shell name",
                platform.where(f"environment.{name}"),
                "a name is letters, digits and underscores, not starting with a digit",
            )


def _darshan(value: object, loc: Loc | None, path: Path) -> Darshan | None:
    """The platform's Darshan; a relative library starts from the file that names it."""
    return darshan_of(value, loc, Path(loc.file).parent if loc else path.parent)


def _build(data: dict[str, Any], locs: Locs, path: Path) -> Platform:
    partitions = {
        name: _partition(name, spec, locs.get(f"partitions.{name}"))
        for name, spec in (data.get("partitions") or {}).items()
    }
    defaults = [p.name for p in partitions.values() if p.default]
    if len(defaults) > 1:
        raise DefinitionError(
            f"partitions {', '.join(defaults)} are all marked default; at most one may be",
            partitions[defaults[1]].loc,
        )
    filesystems = {
        name: _filesystem(name, spec)
        for name, spec in (data.get("filesystems") or {}).items()
        if spec is not None
    }
    targets = [fs.name for fs in filesystems.values() if fs.default]
    if len(targets) > 1:
        raise DefinitionError(
            f"file systems {', '.join(targets)} are all marked default; at most one may be",
            locs.get(f"filesystems.{targets[1]}"),
        )
    platform = Platform(
        name=str(data["name"]),
        scheduler=data["scheduler"],
        launcher=str(data.get("launcher", "")),
        description=str(data.get("description", "")).strip(),
        site=str(data.get("site") or ""),
        account=data.get("account"),
        partitions=partitions,
        filesystems=filesystems,
        resources=dict(data.get("resources") or {}),
        modules=[str(m) for m in data.get("modules") or []],
        darshan=_darshan(data.get("darshan"), locs.get("darshan"), path),
        environment={k: str(v) for k, v in (data.get("environment") or {}).items()},
        parameters=dict(data.get("parameters") or {}),
        hardware=dict(data.get("hardware") or {}),
        peaks={k: str(v) for k, v in (data.get("peaks") or {}).items()},
        scheduler_options=dict(data.get("scheduler_options") or {}),
        template=str(data["template"]),
        python=bool(data.get("python", True)),
        extends=data.get("extends"),
        file=str(path),
        loc=locs.get("") or Loc(str(path)),
        locs=dict(locs),
    )
    for partition in partitions.values():
        if partition.max_time is not None:
            duration(partition.max_time, partition.loc, f"partitions.{partition.name}.max_time")
    if "time" in platform.resources:
        duration(platform.resources["time"], platform.where("resources.time"), "resources.time")
    _check_job_values(platform)
    return platform


def _check_templates(platform: Platform) -> None:
    """Every template of the platform compiled, so that a syntax error shows when it loads."""
    from jubex.platform.render import check

    for key in ("launcher", "template"):
        check(platform, key, getattr(platform, key))
    for key, value in platform.environment.items():
        check(platform, f"environment.{key}", value)
