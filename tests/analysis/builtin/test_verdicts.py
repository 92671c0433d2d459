"""Failed or not, and why: the verdicts of the built-in analysers on real outputs.

A launcher's line that names a problem it then ignores is no failure; a failure's reason is
the program's first error line, quoted whole.
"""

from __future__ import annotations


def test_a_launcher_warning_it_ignores_is_no_failure(parse, by_name):
    result = parse("ior", "ior/v3.3_slurmd_debug_noise_easy_write.txt")
    assert result.ok, result.reason
    got = by_name(result)
    assert got["write_max"] == [349428.82]
    assert got["tasks"] == [2048]
