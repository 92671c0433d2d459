"""A platform's ``darshan:``: read with its place, a relative library from the file naming it."""

from __future__ import annotations

from pathlib import Path

import pytest

from jubex.errors import DefinitionError
from jubex.platform.load import load_platform


def test_a_parent_platform_names_its_library_relative_to_itself(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "lib").mkdir(parents=True)
    (site / "lib" / "libdarshan.so").write_bytes(b"")
    (site / "base.yaml").write_text(
        "extends: local\ndarshan: {library: lib/libdarshan.so, enabled: false}\n"
    )
    (tmp_path / "child.yaml").write_text("extends: site/base.yaml\n")
    platform = load_platform(str(tmp_path / "child.yaml"))
    assert platform.darshan is not None
    assert platform.darshan.library == str(site / "lib" / "libdarshan.so")
    assert not platform.darshan.enabled


def test_a_module_turns_darshan_on_for_every_study(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text("extends: local\ndarshan: darshan/3.4.4\n")
    platform = load_platform(str(tmp_path / "p.yaml"))
    assert platform.darshan is not None
    assert (platform.darshan.module, platform.darshan.enabled) == ("darshan/3.4.4", True)


def test_a_missing_library_is_refused_at_its_line(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text("extends: local\n\ndarshan: /nowhere/libdarshan.so\n")
    with pytest.raises(DefinitionError) as caught:
        load_platform(str(tmp_path / "p.yaml"))
    assert caught.value.loc is not None and caught.value.loc.line == 3
    assert "does not exist" in caught.value.message
