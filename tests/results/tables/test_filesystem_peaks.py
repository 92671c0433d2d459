"""A result column can be set against the published peak of the file system the run wrote to."""

from __future__ import annotations

from jubex.platform.load import load_platform
from jubex.results.tables.peaks import platform_peaks


def test_the_target_file_systems_peaks_are_peaks_of_the_run() -> None:
    frontier = platform_peaks(load_platform("frontier"))
    assert frontier["filesystem_read_bandwidth"] == 5.5e12  # Orion's capacity tier
    assert frontier["filesystem_write_bandwidth"] == 4.6e12
    lumi = load_platform("lumi")
    assert platform_peaks(lumi)["filesystem_write_bandwidth"] == 240e9  # one bandwidth: both
    flash = platform_peaks(lumi.with_target("flash"))  # -p jubex_fs=flash
    assert flash["filesystem_read_bandwidth"] == flash["filesystem_write_bandwidth"] == 1740e9
    assert "filesystem_read_bandwidth" not in platform_peaks(load_platform("local"))
