"""Failed or not, and why: the verdicts of the built-in analysers on real outputs.

A launcher's line that names a problem it then ignores is no failure; a failure's reason is
the program's first error line, quoted whole.
"""

from __future__ import annotations

from jubex.analysis import builtin


def test_a_launcher_warning_it_ignores_is_no_failure(parse, by_name):
    result = parse("ior", "ior/v3.3_slurmd_debug_noise_easy_write.txt")
    assert result.ok, result.reason
    got = by_name(result)
    assert got["write_max"] == [349428.82]
    assert got["tasks"] == [2048]


#: what Open MPI's mpiexec prints when the program is not there (its help text, wrapped at 72)
NOT_FOUND = """\
--------------------------------------------------------------------------
mpiexec was unable to find the specified executable file, and therefore
did not launch the job.  This error was first reported for process
rank 0; it may have occurred for others as well.

NOTE: A common cause for this problem is a typo in the --host, --hostfile,
--------------------------------------------------------------------------
"""


def test_a_wrapped_message_is_quoted_whole():
    result = builtin.get("ior").parse(NOT_FOUND)
    assert not result.ok
    assert result.reason == (
        "mpiexec was unable to find the specified executable file, and therefore did not "
        "launch the job.  This error was first reported for process rank 0; it may have "
        "occurred for others as well."
    )


def test_a_real_srun_error_after_the_noise_still_fails(outputs):
    text = (outputs / "ior/v3.3_slurmd_debug_noise_easy_write.txt").read_text()
    killed = "srun: error: node042: task 17: Killed\n"
    result = builtin.get("ior").parse(text + killed)
    assert not result.ok and result.reason == killed.strip()


def test_a_full_file_system_is_named_rather_than_the_assertion_after_it(outputs):
    text = (outputs / "ior/v3.3.0_posix_fpp_t1m_b16m_np2.txt").read_text()
    head = text[: text.index("Results:")]
    full = (
        "WARNING: write(4, 0x7f00, 1048576) failed, errno 28, No space left on device\n"
        "ior: aiori-POSIX.c:563: POSIX_Xfer: Assertion `rc >= 0' failed.\n"
        "ERROR: cannot write, (ior.c:1010)\n"
    )
    result = builtin.get("ior").parse(head + full)
    assert not result.ok
    assert result.reason == (
        "WARNING: write(4, 0x7f00, 1048576) failed, errno 28, No space left on device"
    )


def test_an_ior_csv_line_beyond_the_csv_field_limit_is_a_problem_not_a_crash(outputs):
    lines = (outputs / "ior/ior_fpp_csv_t256k_b2m_np2.txt").read_text().splitlines()
    lines[1] += "9" * 140_000  # one field of more than 131,072 characters
    result = builtin.get("ior").parse("\n".join(lines) + "\n")
    assert not result.ok
    assert "line 2: a line that is no CSV row (field larger than field limit" in result.reason
