"""The seed studies as definitions: the space yields exactly the points the reports list.

The expected tables are copied by hand from the reports (shared/seeds): the SKA SDP
file-system study (IOR and mdtest sections) and NERSC's Cori Lustre Phase I acceptance.
"""

from __future__ import annotations

from itertools import product
from pathlib import Path

import pytest

from jubex.api import load, validate
from jubex.language.template import Template
from jubex.space.expand import Space

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
KiB, MiB, GiB, TiB = 1 << 10, 1 << 20, 1 << 30, 1 << 40


#: what a run gives every workpackage: a generic platform's target, run 0, workpackage 3
WP = {"jubex_fs_path": ".", "jube_benchmark_padid": "000000", "jube_wp_padid": "000003"}


def points(name: str) -> list[dict[str, object]]:
    b = load(EXAMPLES / name)
    return list(Space(list(b.parametersets.values()), b.where, {}, (), WP, b.file))


def command(name: str, point: dict[str, object]) -> str:
    step = load(EXAMPLES / name).steps["run"]
    return Template(step.do[0].command, None, shell=True).render(dict(point, launcher="srun"))


# SKA SDP report, "IOR": Argument / Value(s)
SKA_IOR_API = ["POSIX", "MPIIO"]
SKA_IOR_FILE_PER_PROC = [1, 0]
SKA_IOR_TRANSFER = [4 * KiB, 32 * KiB, 1 * MiB, 4 * MiB]
SKA_IOR_TRIPLES = [(256, 1, 4096 * MiB), (256, 2, 2048 * MiB), (256, 4, 1024 * MiB)]


@pytest.mark.parametrize("name", ["ska-ior.yaml", "ska-ior.xml"])
def test_ska_ior_points_are_the_reports(name: str) -> None:
    got = [
        (p["api"], p["fpp"], int(p["transfer"]), (p["nodes"], p["ppn"], int(p["block"])))
        for p in points(name)
    ]
    expected = list(product(SKA_IOR_API, SKA_IOR_FILE_PER_PROC, SKA_IOR_TRANSFER, SKA_IOR_TRIPLES))
    assert sorted(got, key=str) == sorted(expected, key=str)
    assert len(got) == 48
    assert {p["nodes"] * p["ppn"] * p["block"] for p in points(name)} == {1 * TiB}


def test_ska_ior_command_line_uses_the_reports_options() -> None:
    first = points("ska-ior.yaml")[0]
    assert command("ska-ior.yaml", first) == (
        "srun ior -a POSIX -F -C -w -r -b 4096m -t 4k -o ./ior.000000.000003"
    )
    shared = next(p for p in points("ska-ior.yaml") if p["fpp"] == 0 and p["api"] == "MPIIO")
    assert " -F " not in command("ska-ior.yaml", shared)


# SKA SDP report, "MDTEST": Total Number of Files created 1048576;
# Number of Files per Task / MPI Tasks / Nodes / Tasks per Node; Directory Depth "- 1 2".
SKA_MDTEST_ROWS = [
    (32768, 32, 32, 1),
    (16384, 64, 32, 2),
    (8192, 128, 32, 4),  # printed as 8193 in the report; 1048576 / 128 = 8192
    (4096, 256, 32, 8),
]
SKA_MDTEST_DEPTHS = [0, 1, 2]  # 0: no -z option ("-")


def test_ska_mdtest_points_are_the_reports() -> None:
    got = [
        (p["files"], p["tasks"], p["nodes"], p["ppn"], p["depth"])
        for p in points("ska-mdtest.yaml")
    ]
    expected = [(*row, depth) for row in SKA_MDTEST_ROWS for depth in SKA_MDTEST_DEPTHS]
    assert got == expected
    assert {p["files"] * p["tasks"] for p in points("ska-mdtest.yaml")} == {1048576}


def test_ska_mdtest_command_lines_follow_the_report() -> None:
    by_depth = {p["depth"]: p for p in points("ska-mdtest.yaml") if p["tasks"] == 64}
    assert (
        " ".join(command("ska-mdtest.yaml", by_depth[0]).split())
        == "srun mdtest -n 16384 -F -C -v -d ./mdtest.000000.000003"
    )
    assert (
        " ".join(command("ska-mdtest.yaml", by_depth[2]).split())
        == "srun mdtest -n 16384 -z 2 -F -C -v -d ./mdtest.000000.000003"
    )


# Cori, Lustre Phase I: api, nodes, processes per node, transfer = block, total size,
# segment count (-s), phase (-w and -r run as separate sruns).
CORI_ROWS = [
    ("POSIX", 960, 4, 4 * MiB, 24 * TiB, 1638, "w"),
    ("POSIX", 960, 4, 4 * MiB, 24 * TiB, 1638, "r"),
    ("MPIIO", 960, 32, 8 * MiB, 12 * TiB, 51, "w"),
    ("MPIIO", 960, 32, 8 * MiB, 12 * TiB, 51, "r"),
]


def test_cori_points_are_the_reports_with_the_derived_segment_count() -> None:
    got = [
        (
            p["api"],
            p["nodes"],
            p["ppn"],
            int(p["block"]),
            int(p["total"]),
            p["segments"],
            p["phase"],
        )
        for p in points("cori-ior.yaml")
    ]
    assert got == CORI_ROWS
    assert 12 * 1024 * 1024 // 8 // (960 * 32) == 51  # the report's $((...)), in MiB


def test_cori_command_lines_are_the_reports() -> None:
    posix_write, _, mpiio_write, _ = points("cori-ior.yaml")
    assert (
        " ".join(command("cori-ior.yaml", posix_write).split())
        == "srun IOR -w -a POSIX -F -C -e -g -k -b 4m -t 4m -s 1638 -o $SCRATCH/IOR_file -v"
    )
    assert (
        " ".join(command("cori-ior.yaml", mpiio_write).split())
        == "srun IOR -w -a MPIIO -c -C -g -k -H -b 8m -t 8m -s 51 -o $SCRATCH/IOR_file -v"
    )


@pytest.mark.parametrize(
    "name", ["ska-ior.yaml", "ska-ior.xml", "ska-mdtest.yaml", "cori-ior.yaml"]
)
def test_examples_validate_without_any_problem(name: str) -> None:
    assert [str(p) for p in validate([EXAMPLES / name])] == []
