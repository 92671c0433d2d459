"""The collector paused inside and left as it was found, an exception included."""

from __future__ import annotations

import gc
import weakref

import pytest

from jubex.collector import one_command, paused


@pytest.mark.parametrize("was_on", [True, False])
def test_the_collector_is_off_inside_and_as_it_was_after(was_on: bool) -> None:
    (gc.enable if was_on else gc.disable)()
    try:
        with pytest.raises(KeyError), paused():
            assert not gc.isenabled()
            raise KeyError("inside")
        assert gc.isenabled() is was_on
    finally:
        gc.enable()


def test_what_a_kept_pause_made_is_never_walked_again_and_still_freed() -> None:
    """In a process that is one command's: frozen, so that the next collections do not
    walk it; freed by its count as ever."""

    class Made:
        pass

    before = gc.get_freeze_count()
    one_command()
    try:
        with paused(kept=True):
            made = Made()
            rows = [{"n": i} for i in range(1000)]
        assert gc.isenabled()
        assert gc.get_freeze_count() >= before + len(rows)
        assert not any(obj is made for obj in gc.get_objects())  # out of the collector's sight
        gone = weakref.ref(made)
        del made
        assert gone() is None  # freed when nothing refers to it
    finally:
        one_command(False)
        gc.unfreeze()


def test_a_process_that_runs_commands_again_and_again_freezes_nothing() -> None:
    before = gc.get_freeze_count()
    with paused(kept=True):
        rows = [{"n": i} for i in range(1000)]
    assert gc.get_freeze_count() == before and rows
