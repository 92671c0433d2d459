"""Merging the iterations of a point (JUBE's reduce) from what each iteration stored.

The defining property: merging the stored measurements of N work directories gives what
harvesting one directory whose output is their outputs one after the other gives.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.analysis.harvest import Harvester
from jubex.analysis.patterns import Stored
from jubex.definition.model import Benchmark, Pattern, PatternSet, Step
from jubex.store.measurement import Measurement
from jubex.store.store import Store

PATTERNS = {
    "n": Pattern("n", r"^n: $jube_pat_int", type="int"),
    "t": Pattern("t", r"^t: $jube_pat_fp", type="float", unit="s"),
    "word": Pattern("word", r"^word: $jube_pat_wrd"),
    "flag": Pattern("flag", r"^flag: $jube_pat_wrd", type="bool"),
    "opt": Pattern("opt", r"^opt: $jube_pat_int", type="int", default="99", reduce=("max",)),
    "bw": Pattern("bw", r"^bw: $jubex_pat_rate"),
    "spread": Pattern("spread", "n_max - n_min + opt_max", mode="expr", type="int"),
}
UNITS = ("KiB/s", "MiB/s", "GiB/s")


def harvester() -> Harvester:
    b = Benchmark("merge", file="merge.yaml")
    b.patternsets["out"] = PatternSet("out", dict(PATTERNS))
    b.steps["run"] = Step("run", analyse=("out",))
    return Harvester(b, "run")


line = st.one_of(
    st.integers(-50, 50).map(lambda v: f"n: {v}"),
    st.integers(0, 40).map(lambda v: f"t: {v / 4}"),
    st.sampled_from(["a", "b", "c"]).map(lambda v: f"word: {v}"),
    st.sampled_from(["yes", "no"]).map(lambda v: f"flag: {v}"),
    st.integers(0, 200).map(lambda v: f"opt: {v}"),
    st.tuples(st.integers(1, 64), st.sampled_from(UNITS)).map(lambda v: f"bw: {v[0]} {v[1]}"),
)
outputs = st.lists(st.lists(line, max_size=5), min_size=1, max_size=4)


def stored(found: list[Measurement]) -> list[Stored]:
    """The measurements as the run store gives them back."""
    store = Store(Path(":memory:"), create=True)
    store.store_analysis([(1, True, "", "", found)])
    return store.values_of([1])[1]


def shown(values: list[Stored]) -> dict[tuple[str, int], object]:
    """What a result row shows: the first value of each name, per record."""
    firsts: dict[tuple[str, int], object] = {}
    for name, record, value, _unit in values:
        firsts.setdefault((name, record), value)
    return firsts


def merged(h: Harvester, each: list[list[Stored]]) -> dict[tuple[str, int], object]:
    """The merged values, a bool as the store keeps it (its word)."""
    return {
        (name, record): str(value) if isinstance(value, bool) else value
        for name, record, value in h.merge(each, {})
    }


@settings(max_examples=60, deadline=None)
@given(outputs)
def test_merging_stored_iterations_is_harvesting_their_outputs_together(
    iterations: list[list[str]],
) -> None:
    h = harvester()
    with tempfile.TemporaryDirectory() as tmp:
        dirs = []
        for index, lines in enumerate([*iterations, [x for it in iterations for x in it]]):
            work = Path(tmp) / str(index)
            work.mkdir()
            (work / "stdout").write_text("".join(f"{x}\n" for x in lines))
            dirs.append(work)
        each = [stored(h.harvest(work, {}).measurements) for work in dirs[:-1]]
        together = stored(h.harvest(dirs[-1], {}).measurements)
    assert merged(h, each) == shown(together)


def test_a_default_stands_only_for_no_match_in_any_iteration(tmp_path: Path) -> None:
    h = harvester()
    texts = ["n: 1\n", "opt: 5\nn: 3\n", ""]
    each = []
    for index, text in enumerate(texts):
        (tmp_path / str(index)).mkdir()
        (tmp_path / str(index) / "stdout").write_text(text)
        each.append(stored(h.harvest(tmp_path / str(index), {}).measurements))
    got = merged(h, each)
    assert got[("opt", 0)] == 5 and got[("opt_max", 0)] == 5 and got[("opt_cnt", 0)] == 1
    assert (got[("n", 0)], got[("n_last", 0)], got[("n_cnt", 0)]) == (1, 3, 2)
    assert got[("spread", 0)] == 3 - 1 + 5
    assert got[("word", 0)] is None and got[("word_cnt", 0)] == 0
    nothing = merged(h, [each[2], each[2]])
    assert (nothing[("opt", 0)], nothing[("opt_max", 0)], nothing[("opt_cnt", 0)]) == (99, 99, 0)
    assert nothing[("n", 0)] is None and nothing[("spread", 0)] is None


def test_a_rate_keeps_the_unit_of_its_first_match_across_iterations(tmp_path: Path) -> None:
    h = harvester()
    each = []
    for index, text in enumerate(["", "bw: 512 MiB/s\n", "bw: 2 GiB/s\n"]):
        (tmp_path / str(index)).mkdir()
        (tmp_path / str(index) / "stdout").write_text(text)
        each.append(stored(h.harvest(tmp_path / str(index), {}).measurements))
    got = merged(h, each)
    assert (got[("bw", 0)], got[("bw_sum", 0)], got[("bw_max", 0)]) == (512.0, 2560.0, 2048.0)


def test_inputs_are_the_matches_and_counts_behind_the_names_asked_for() -> None:
    h = harvester()
    assert h.inputs({"t_avg"}) == ({"t", "t_cnt"}, set())
    every, firsts = h.inputs({"spread", "word", "t_first"})
    assert every == {"n", "n_cnt", "opt", "opt_cnt", "word_cnt", "t_cnt"}
    assert firsts == {"word", "t"}


def test_a_pattern_shown_by_its_first_match_is_merged_from_first_values(tmp_path: Path) -> None:
    h = harvester()
    store = Store(tmp_path / "s.sqlite", create=True)
    texts = ["word: x\n", "t: 1.5\nt: 2.5\nword: y\n", "t: 4\n"]
    for index, text in enumerate(texts):
        (tmp_path / str(index)).mkdir()
        (tmp_path / str(index) / "stdout").write_text(text)
        found = h.harvest(tmp_path / str(index), {}).measurements
        store.store_analysis([(index, True, "", "", found)])
    every, firsts = h.inputs({"t", "word"})
    read = store.values_of([0, 1, 2], every, firsts)
    assert [row[0] for row in read[1]].count("t") == 1  # of its two matches
    got = {name: value for name, _, value in h.merge([read[0], read[1], read[2]], {})}
    assert (got["t"], got["word"]) == (1.5, "x")


def test_a_builtins_per_iteration_values_are_pooled_and_the_others_are_the_first(
    tmp_path: Path, outputs: Path
) -> None:
    b = Benchmark("ior", file="ior.yaml")
    b.steps["run"] = Step("run", analyse=("ior",))
    h = Harvester(b, "run")
    text = (outputs / "ior/posix_fpp_t1m_b16m_np4.txt").read_text()
    each = []
    for index, changed in enumerate([text, text.replace("write     1011.75", "write     911.75")]):
        (tmp_path / str(index)).mkdir()
        (tmp_path / str(index) / "stdout").write_text(changed)
        each.append(stored(h.harvest(tmp_path / str(index), {}).measurements))
    got = merged(h, each)
    assert (got[("write_bw", 0)], got[("write_bw_cnt", 0)]) == (1011.75, 6)
    assert got[("write_bw_min", 0)] == 911.75 and got[("write_bw_max", 0)] == 1030.43
    mean = (1011.75 + 1030.43 + 1018.09) * 2 / 6 - 100 / 6
    assert got[("write_bw_avg", 0)] == pytest.approx(mean)
    assert (got[("iteration_cnt", 0)], got[("write_max", 0)]) == (6, 1030.43)
    assert got[("version", 0)] == shown(each[0])[("version", 0)]
