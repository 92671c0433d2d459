"""Properties of every built-in analyser on mutated real outputs (hypothesis).

The normal run tries a bounded number of examples per property; bench/fuzz_analysers.py
runs the long campaign. Each property holds for any input, so a failing example is a bug.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jubex.analysis import builtin
from jubex.analysis.harvest import with_statistics
from jubex.analysis.measurement import ParseResult

OUTPUTS = Path(__file__).resolve().parents[2] / "data" / "outputs"
EXTENDED = Path(__file__).resolve().parent / "data" / "io500_extended"
CORPUS = {
    "ior": [*OUTPUTS.glob("ior/*.txt"), *OUTPUTS.glob("io500/run_np2/ior-*.txt")],
    "mdtest": [*OUTPUTS.glob("mdtest/*.txt"), *OUTPUTS.glob("io500/run_np2/mdtest-*.txt")],
    "fio": [*OUTPUTS.glob("fio/*.txt"), *OUTPUTS.glob("fio/*.json")],
    "io500": [
        *OUTPUTS.glob("io500/*stdout.txt"),
        *OUTPUTS.glob("io500/*summary*.txt"),
        *OUTPUTS.glob("io500/*result.txt"),
        *OUTPUTS.glob("io500/prerelease2017_*.txt"),
        *OUTPUTS.glob("io500/*capp2017_*.txt"),
        OUTPUTS / "io500/run_np2/result.txt",
        OUTPUTS / "io500/run_np2/result_summary.txt",
        *EXTENDED.glob("*.txt"),
    ],
}
TEXTS = {name: sorted(p.read_text() for p in paths) for name, paths in CORPUS.items()}
#: IOR's CSV format has no end mark: only a cut inside a line can be seen (docs/analysers.md)
CSV = (OUTPUTS / "ior/ior_fpp_csv_t256k_b2m_np2.txt").read_text()
BAD = ("nan", "inf", "-inf", "1e400", "-1e400", "-3.5", "1e30", "9" * 5000)
NUMBER = re.compile(r"(?<![\w.])\d+\.\d+(?![\w.])")
EXAMPLES = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ANALYSERS = sorted(CORPUS)


def parse(name: str, text: str) -> ParseResult:
    """What `jubex parse` computes: the analyser, then statistics over iterations."""
    analyser = builtin.get(name)
    result = analyser.parse(text)
    result.measurements = with_statistics(analyser, result.measurements)
    return result


def values(result: ParseResult) -> list[tuple[int, str, str]]:
    return sorted((m.record, m.name, repr(m.value)) for m in result.measurements)


def assert_clean(result: ParseResult) -> None:
    """No number leaves an analyser that is not finite or negative; a failure says why."""
    assert result.ok or result.reason
    for m in result.measurements:
        if isinstance(m.value, float):
            assert math.isfinite(m.value) and m.value >= 0, (m.name, m.value)
        elif isinstance(m.value, int) and not isinstance(m.value, bool):
            assert m.value >= 0, (m.name, m.value)


@st.composite
def mutated(draw: st.DrawFn, name: str) -> str:
    """A real output with a few bytes flipped, lines duplicated or dropped, a cut, odd values."""
    text = draw(st.sampled_from(TEXTS[name]))
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(("flip", "cut", "duplicate", "delete", "value", "unit")))
        lines = text.splitlines(keepends=True)
        if kind == "flip" and text:
            at = draw(st.integers(0, len(text) - 1))
            text = text[:at] + chr(ord(text[at]) ^ (1 << draw(st.integers(0, 6)))) + text[at + 1 :]
        elif kind == "cut":
            text = text[: draw(st.integers(0, len(text)))]
        elif kind in ("duplicate", "delete") and lines:
            at = draw(st.integers(0, len(lines) - 1))
            lines[at : at + 1] = [lines[at]] * (2 if kind == "duplicate" else 0)
            text = "".join(lines)
        elif kind == "value" and (spots := list(NUMBER.finditer(text))):
            spot = draw(st.sampled_from(spots))
            text = text[: spot.start()] + draw(st.sampled_from(BAD)) + text[spot.end() :]
        elif kind == "unit":
            unit = draw(st.sampled_from(("MiB/s", "GiB/s", "kIOPS", "usec", "MiB", "ops/sec")))
            text = text.replace(unit, draw(st.sampled_from(("XiB/s", "QB", "", "lightyears"))))
    return text


@pytest.mark.parametrize("name", ANALYSERS)
@EXAMPLES
@given(data=st.data())
def test_any_mutation_gives_a_result_never_an_exception(name, data):
    assert_clean(parse(name, data.draw(mutated(name))))


@pytest.mark.parametrize("name", ANALYSERS)
@EXAMPLES
@given(data=st.data())
def test_a_truncated_output_is_never_passed_as_the_complete_one(name, data):
    text = data.draw(st.sampled_from(TEXTS[name]))
    end = data.draw(st.integers(0, len(text) - 1))
    result, whole = parse(name, text[:end]), parse(name, text)
    assert_clean(result)
    if result.ok and text == CSV:
        assert text[:end].endswith("\n")  # cut between lines, which CSV cannot show
    elif result.ok:
        # a log of runs appended, cut after a whole run, is a log of fewer runs
        records = {m.record for m in result.measurements}
        whole_values = [v for v in values(whole) if v[0] in records]
        assert whole.ok and values(result) == whole_values, result.reason
        assert records == set(range(len(records))), records


@pytest.mark.parametrize("name", ANALYSERS)
@EXAMPLES
@given(data=st.data())
def test_a_bad_value_where_a_number_was_read_fails_the_result(name, data):
    texts = [t for t in TEXTS[name] if parse(name, t).ok and NUMBER.search(t)]
    text = data.draw(st.sampled_from(texts))
    spot = data.draw(st.sampled_from(list(NUMBER.finditer(text))))
    bad = data.draw(st.sampled_from(BAD))
    result = parse(name, text[: spot.start()] + bad + text[spot.end() :])
    assert_clean(result)
    if result.ok:  # then the number was not one the analyser reads
        assert values(result) == values(parse(name, text)), (spot[0], bad)


#: the dialects read since the 2017 IO500 lists and fio's other forms were added: each is
#: fuzzed on its own as well, so that no run leaves one of them out
DIALECTS = [
    ("io500", "io500/prerelease2017_job_out.txt"),
    ("io500", "io500/capp2017_submission.txt"),
    ("io500", "io500/capp2017_kioops_run.txt"),
    ("io500", "io500/bash2018_warning_not_official_summary.txt"),
    ("io500", "io500/bash2017_total_product_result_summary.txt"),
    ("fio", "fio/v3.33_client_two_hosts.json"),
    ("fio", "fio/v3.33_client_two_hosts_two_groups_normal.txt"),
    ("fio", "fio/v3.33_json_appended_with_shell_lines.txt"),
    ("fio", "fio/v3.33_minimal_randrw.txt"),
    ("fio", "fio/v3.33_terse_v5_two_jobs.txt"),
    ("ior", "ior/v3.3.0_json_fpp_i2_np2.txt"),
    ("ior", "ior/v4.0.0_json_fpp_i2_np2.txt"),
    ("ior", "ior/v2.10.3_posix_ssf_t1m_b4m_i3_np2.txt"),
    ("ior", "ior/v2.10.3_posix_fpp_vv_t1m_b4m_i3_np2.txt"),
    ("ior", "ior/v2.10.3_script_two_tests_i2_np2.txt"),
]


@pytest.mark.parametrize(("name", "relative"), DIALECTS)
@settings(max_examples=25, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_each_dialect_cut_anywhere_is_never_passed_as_complete(name, relative, data):
    text = (OUTPUTS / relative).read_text()
    end = data.draw(st.integers(0, len(text) - 1))
    result, whole = parse(name, text[:end]), parse(name, text)
    assert_clean(result)
    assert whole.ok, whole.reason
    if result.ok:  # cut after what it reads (a log of several runs: after a whole one)
        records = {m.record for m in result.measurements}
        assert values(result) == [v for v in values(whole) if v[0] in records]


def test_terse_percentile_outside_fios_list_is_named_in_us():
    text = (OUTPUTS / "fio/v3.33_minimal_randrw.txt").read_text()
    result = parse("fio", text.replace(";10.000000%=42;", ";10.00008%=42;", 1))
    assert result.ok, result.reason
    assert [(m.value, m.unit) for m in result.measurements if m.name == "read_clat_p10_00008"] == [
        (42, "us")
    ]


def test_terse_percentile_point_beyond_100_fails():
    text = (OUTPUTS / "fio/v3.33_minimal_randrw.txt").read_text()
    result = parse("fio", text.replace(";1.000000%=41;", ";" + "9" * 400 + "%=41;", 1))
    assert not result.ok and "a percentile field fio does not print so" in result.reason
