"""The checks that keep values on one line and paths inside their directory."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from jubex.language.confine import control_character, escapes, inside, is_shell_name, too_long

PARTS = st.lists(st.sampled_from(["a", "b", "..", ".", "", "c.d", "..x"]), min_size=1, max_size=8)


@given(PARTS, st.booleans())
def test_a_path_escapes_exactly_when_its_normal_form_leaves_the_directory(
    parts: list[str], absolute: bool
) -> None:
    path = ("/" if absolute else "") + "/".join(parts)
    root = "/base/dir"
    # the oracle: where the operating system's path algebra puts it, no file system needed
    lands = os.path.normpath(os.path.join(root, path))
    stays = lands == root or lands.startswith(root + "/")
    assert (escapes(path) is None) == (stays and not absolute)


@given(st.text(max_size=20))
def test_a_text_with_a_line_break_or_control_character_is_named(text: str) -> None:
    found = control_character(text)
    breaks_a_line = len(("x" + text + "x").splitlines()) > 1
    ascii_control = any(ord(c) < 32 or ord(c) == 127 for c in text)
    if breaks_a_line or ascii_control:
        assert found is not None
    if found is None:
        assert "x" + text + "x" == " ".join(("x" + text + "x").splitlines())


def test_the_common_control_characters_are_named_plainly() -> None:
    assert control_character("a\nb") == "a newline"
    assert control_character("a\0") == "a NUL character"
    assert control_character("\x1b[31m") == "the control character U+001B"
    assert control_character("partition-1 ; $(x) `y`") is None


def test_shell_names() -> None:
    assert is_shell_name("OMP_NUM_THREADS") and is_shell_name("_x1")
    assert not any(map(is_shell_name, ["1x", "a-b", "a b", "a;b", "", "x\n", "$x"]))


def test_inside_follows_symbolic_links(tmp_path: Path) -> None:
    work, outside = tmp_path / "work", tmp_path / "outside"
    work.mkdir()
    outside.mkdir()
    (work / "out").symlink_to(outside)
    (work / "in").symlink_to(work / ".")
    assert inside(work / "in" / "file", work)
    assert not inside(work / "out" / "file", work)
    assert not inside(work / "out", work)
    assert not inside(tmp_path / "workshop", work)


def test_too_long_asks_the_system_for_its_limits() -> None:
    path_max = os.pathconf("/", "PC_PATH_MAX")
    name_max = os.pathconf("/", "PC_NAME_MAX")
    assert too_long("a/" * ((path_max - 2) // 2)) is None
    assert "PATH_MAX" in (too_long("a" * path_max) or "")
    assert too_long("/tmp/" + "n" * name_max) is None
    assert "NAME_MAX" in (too_long("/tmp/" + "n" * (name_max + 1)) or "")
    assert "NAME_MAX" in (too_long("é" * (name_max // 2 + 1)) or "")  # bytes, not characters
