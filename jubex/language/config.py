"""The user's jubex configuration: ``config.yaml`` in platformdirs' user config dir
(``~/.config/jubex/config.yaml``), each key read once per process.

Two keys, both booleans: ``python`` (``false`` refuses real Python everywhere) and
``allow_code`` (``true`` lets validate, info, the dry run and convert run a definition's
shell and python values, as ``--allow-code`` does).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from jubex.errors import UsageError

KEYS = {"python": True, "allow_code": False}


def user_config_file() -> Path:
    """The user's jubex configuration (platformdirs' user config dir, ``config.yaml``)."""
    import platformdirs  # read only when no switch has decided: most commands never do

    return platformdirs.user_config_path("jubex") / "config.yaml"


def _settings(path: Path) -> dict[str, bool]:
    """Every key of :data:`KEYS` as the file sets it, else its default; no file: defaults."""
    if not path.is_file():
        return dict(KEYS)
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise UsageError(f"{path}: cannot read the jubex configuration: {exc}") from None
    if not isinstance(data, dict):
        data = {"python": None}
    found = {key: data.get(key, default) for key, default in KEYS.items()}
    wrong = [key for key, value in found.items() if not isinstance(value, bool)]
    if wrong:
        raise UsageError(
            f"{path}: expected a mapping with {wrong[0]}: true or {wrong[0]}: false",
            hint=f"the keys jubex reads there are {' and '.join(KEYS)}",
        )
    return found


def setting(path: Path, key: str) -> bool:
    """One key of the file (each caller caches what it reads)."""
    return _settings(path)[key]


@lru_cache(maxsize=4)
def config_allows_code(path: Path) -> bool:
    """``allow_code`` of the user's config.yaml, read once per process; no file: False."""
    return setting(path, "allow_code")
