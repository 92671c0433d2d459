"""The collector paused inside and left as it was found, an exception included."""

from __future__ import annotations

import gc

import pytest

from jubex.collector import paused


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
