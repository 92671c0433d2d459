"""Names a definition uses must exist: sets, steps, analysers, columns; cycles are named."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from jubex.api import load, validate
from jubex.errors import DefinitionError, DefinitionWarning

Write = Callable[[str, str], Path]


def problems(write: Write, text: str) -> list[tuple[str, str, str]]:
    path = write("d.yaml", "name: d\n" + text)
    return [
        ("warning" if isinstance(p, DefinitionWarning) else "error", p.message, p.hint)
        for p in validate([path])
    ]


def test_unknown_names_in_use_files_depend_analyse(write: Write) -> None:
    found = problems(
        write,
        "parametersets: {sizes: {a: 1}}\nfiles: {src: [{copy: x}]}\npatterns: {bw: {w: 'W'}}\n"
        "steps:\n  run: {use: [size], files: [srcs], depend: [buidl], analyse: [iorr, bww]}\n"
        "  build: {do: make}\n",
    )
    assert found == [
        ("error", "step 'run' names unknown parameterset 'size'", "did you mean 'sizes'?"),
        (
            "error",
            "step 'run' names unknown fileset or substituteset 'srcs'",
            "did you mean 'src'?",
        ),
        ("error", "step 'run' names unknown step 'buidl'", "did you mean 'build'?"),
        # the analyse stage checks the analysers, after the load stage's checks
        ("error", "step 'run' names unknown analyser or patternset 'iorr'", "did you mean 'ior'?"),
        ("error", "step 'run' names unknown analyser or patternset 'bww'", "did you mean 'bw'?"),
    ]


def test_a_depend_cycle_is_named_once(write: Write) -> None:
    found = problems(write, "steps:\n  a: {depend: [c]}\n  b: {depend: [a]}\n  c: {depend: [b]}\n")
    assert found == [("error", "steps depend on each other in a cycle: a -> c -> b -> a", "")]


def test_analyser_references(write: Write) -> None:
    found = problems(
        write,
        "patterns: {bw: {w: 'W'}}\nanalysers:\n  x: {use: [bv], step: rn, builtin: mdtst}\n"
        "steps: {run: {analyse: [x]}}\n",
    )
    assert [f[1] for f in found] == [
        "analyser 'x' names unknown patternset 'bv'",
        "analyser 'x' names unknown step 'rn'",
        "analyser 'x' names unknown built-in analyser 'mdtst'",
    ]


def test_column_neither_parameter_nor_pattern_is_an_error(write: Write) -> None:
    found = problems(
        write,
        "parameters: {api: [A, B]}\npatterns: {bw: {write_bw: 'W: $jube_pat_fp'}}\n"
        "steps: {run: {analyse: bw}}\n"
        "results:\n  t: {columns: [api, writebw, write_bw_max, {name: r, expr: 'write_bw * 2'}, r],"
        " group_by: [apii], sort: [-r]}\n",
    )
    assert found == [
        (
            "error",
            "table 't': 'writebw' is neither a parameter nor a pattern",
            "did you mean 'write_bw'?",
        ),
        ("error", "table 't': 'apii' is neither a parameter nor a pattern", "did you mean 'api'?"),
    ]


def test_a_column_expression_reads_only_known_values(write: Write) -> None:
    found = problems(
        write,
        "parameters: {api: [A, B]}\npatterns: {bw: {write_bw: 'W: $jube_pat_fp'}}\n"
        "steps: {run: {analyse: bw}}\n"
        "results:\n  t: {group_by: [api], columns: [api, {name: write_bw, stats: [mean]},"
        " {name: r, expr: 'write_bw_mean * 2 + write_bw_avg'}, {name: s, expr: 'wrte_bw + 1'}]}\n",
    )
    assert found == [
        (
            "error",
            "table 't': 'wrte_bw' is neither a parameter nor a pattern",
            "did you mean 'write_bw'?",
        )
    ]


def test_the_rows_meta_keys_are_known_to_tables(write: Write) -> None:
    found = problems(
        write,
        "parameters: {api: [A, B]}\npatterns: {bw: {write_bw: 'W: $jube_pat_fp'}}\n"
        "steps: {run: {analyse: bw}}\n"
        "results:\n  t: {columns: [run, ok, write_bw], group_by: [run, api], sort: [-run]}\n",
    )
    assert found == []


def test_builtin_analyser_metrics_are_known_and_others_refused(write: Write) -> None:
    found = problems(
        write,
        "steps: {run: {analyse: ior}}\n"
        "results:\n  t: {columns: [write_max, {name: read_max, stats: [mean]}, wrte_max],"
        " sort: [read_max_mean]}\n",
    )
    assert found == [
        (
            "error",
            "table 't': 'wrte_max' is neither a parameter nor a pattern nor a value of the "
            "built-in analyser ior",
            "did you mean 'write_max'?",
        )
    ]


def test_fio_percentiles_the_job_may_ask_for_are_only_warned(write: Write) -> None:
    found = problems(
        write, "steps: {run: {analyse: fio}}\nresults:\n  t: {columns: [read_clat_p99_999]}\n"
    )
    assert [(severity, message.split("; ")[-1]) for severity, message, _ in found] == [
        ("warning", "it stays empty unless fio prints that percentile")
    ]


def test_shared_do_without_a_shared_folder(write: Write) -> None:
    found = problems(write, "steps: {run: {do: [{cmd: x, shared: true}]}}\n")
    assert found == [
        (
            "error",
            "step 'run' has a do entry with shared: true but no shared folder",
            "add shared: NAME to the step",
        )
    ]


def test_tags_used_but_not_declared_are_warned(write: Write) -> None:
    found = problems(write, "tags: [small]\nparameters: {a: {values: [1], tag: 'smal|!big'}}\n")
    assert found == [
        (
            "warning",
            "tag 'smal' is used but not among the file's tags (small)",
            "did you mean 'small'?",
        ),
        ("warning", "tag 'big' is used but not among the file's tags (small)", ""),
    ]


def test_reference_errors_stop_load_but_warnings_do_not(write: Write) -> None:
    path = write("d.yaml", "name: d\ntags: [a]\nparameters: {x: {values: [1], tag: b}}\n")
    assert load(path).name == "d"
    bad = write("e.yaml", "name: e\nsteps: {run: {use: nothing}}\n")
    with pytest.raises(DefinitionError) as caught:
        load(bad)
    assert str(caught.value) == (
        f"{bad}:2:20: error: step 'run' names unknown parameterset 'nothing' "
        "(no parameterset is defined)"
    )
