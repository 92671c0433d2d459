"""Which results database jubex uses and whether a finished run is published: the
environment and config.yaml, read without SQLAlchemy, so that a ``jubex run`` that
publishes nothing never imports it (0.6 s of CPU)."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from jubex.errors import UsageError

#: the environment variable that names the database (wins over the configuration files)
ENV = "JUBEX_RESULTS_DB"
#: the environment variable that switches publishing at the end of each run on (1) or off (0)
PUBLISH_ENV = "JUBEX_PUBLISH"
#: the key of config.yaml that names it
CONFIG_KEY = "results_database"


def default_path() -> Path:
    """The embedded default: ``results.sqlite`` in the user's data directory."""
    import platformdirs

    return platformdirs.user_data_path("jubex") / "results.sqlite"


def configured(explicit: str | None = None) -> str:
    """The database to use: ``--database``, else $JUBEX_RESULTS_DB, else the user's then the
    site's config.yaml (``results_database:``), else the default file."""
    if explicit:
        return explicit
    if os.environ.get(ENV):
        return os.environ[ENV]
    for path in config_files():
        found = read_config(path).get(CONFIG_KEY)
        if found:
            return str(found)
    return str(default_path())


def publishes() -> bool:
    """Whether a finished run is published: $JUBEX_PUBLISH (1/0), else ``publish:`` of the
    user's then the site's config.yaml, else not."""
    switch = os.environ.get(PUBLISH_ENV, "").strip().lower()
    if switch:
        return switch in ("1", "true", "yes", "on")
    for path in config_files():
        found = read_config(path).get("publish")
        if found is not None:
            if not isinstance(found, bool):
                raise UsageError(f"{path}: publish: expected true or false, got {found!r}")
            return found
    return False


def config_files() -> list[Path]:
    """The user's config.yaml, then the site's (platformdirs' config directories)."""
    import platformdirs

    return [
        platformdirs.user_config_path("jubex") / "config.yaml",
        platformdirs.site_config_path("jubex") / "config.yaml",
    ]


@lru_cache(maxsize=8)
def read_config(path: Path) -> dict[str, object]:
    """A config.yaml as a mapping (nothing when it is absent), read once per process."""
    if not path.is_file():
        return {}
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise UsageError(f"{path}: cannot read the jubex configuration: {exc}") from None
    if not isinstance(data, dict):
        raise UsageError(f"{path}: expected a mapping of settings, such as results_database: URL")
    return data
