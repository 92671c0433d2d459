"""Scheduler output is someone else's text: what detection writes is checked (a queue name
never carries options into a job script), a detected file always validates, the work is
bounded, and what a scheduler prints reaches the terminal escaped."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jubex.errors import JubexError
from jubex.platform.detect import pbs, sge, slurm
from jubex.platform.detect.check import MAX_PARTITIONS
from jubex.platform.detect.run import command
from jubex.platform.detect.write import platform_text
from jubex.platform.load import load_platform

PBS_DATA = Path(__file__).resolve().parents[1] / "data" / "pbs"
QUEUES = (PBS_DATA / "metacentrum-qstat-Q-f.txt").read_text()
SERVER = (PBS_DATA / "qstat-B-f-default-queue.txt").read_text()
NODES = (PBS_DATA / "alcf-pbsnodes-av.txt").read_text()
SLURM_PARTITIONS = (
    "PartitionName=gpu Default=NO MaxNodes=4 MaxTime=02:00:00 MinNodes=2 TotalNodes=2\n"
    "PartitionName=cpu Default=YES MaxNodes=UNLIMITED MaxTime=1-00:00:00 TotalNodes=1\n"
)
SLURM_NODES = (
    "NodeName=g1 CoresPerSocket=32 CPUTot=128 Gres=gpu:a100:4 RealMemory=515000 Sockets=2 "
    "Partitions=gpu\n"
)


def loaded(tmp_path: Path, text: str) -> dict:
    path = tmp_path / "detected.yaml"
    path.write_text(text)
    return load_platform(str(path)).partitions


def test_a_pbs_queue_name_carrying_options_is_left_out_with_a_note(tmp_path):
    hostile = "Queue: workq -W depend=afterok:1 -l select=999\n    queue_type = Execution\n"
    found = pbs.detect(QUEUES + hostile, SERVER, NODES)
    text = platform_text(found, "pbshere", "host")
    assert "select=999" not in text.replace("# Note", "").split("\n", 6)[-1]
    assert "# Note: left out the partition 'workq -W depend=afterok:1 -l select=999'" in text
    assert set(loaded(tmp_path, text)) == {"default"}


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("evil\x1b[2J", "not a name the scheduler takes"),
        ("{{ 7 * 7 }}", "not a name the scheduler takes"),
        ("$HOME", "not a name the scheduler takes"),
        ("gpu", "second partition named 'gpu'"),
    ],
    ids=["escape", "template", "reference", "duplicate"],
)
def test_a_slurm_partition_that_no_platform_file_holds_is_left_out(tmp_path, name, said):
    found = slurm.detect(SLURM_PARTITIONS + f"PartitionName={name} MaxTime=1:00:00\n", SLURM_NODES)
    text = platform_text(found, "here", "host")
    assert said in text and "\x1b" not in text
    assert set(loaded(tmp_path, text)) == {"gpu", "cpu"}


def test_control_characters_and_template_syntax_in_values_never_reach_the_file(tmp_path):
    found = slurm.detect(
        "PartitionName=p MaxTime={{x}} TotalNodes=1\n"
        "PartitionName=q MaxTime=1:00:00\x07 TotalNodes=1\n",
        SLURM_NODES,
    )
    found.cpu_model = "CPU {% for i in range(10**9) %}x{% endfor %}\x1b]0;title\x07"
    text = platform_text(found, "here", "host")
    assert "{%" not in text and "\x1b" not in text and "\x07" not in text
    partitions = loaded(tmp_path, text)
    assert partitions["p"].max_time is None and partitions["q"].max_time is None


def test_thousands_of_partitions_are_cut_with_a_note_and_validate(tmp_path):
    many = "".join(f"PartitionName=p{i} MaxTime=1:00:00\n" for i in range(MAX_PARTITIONS + 500))
    text = platform_text(slurm.detect(many, ""), "here", "host")
    assert f"left out 500 partitions after the first {MAX_PARTITIONS}" in text
    assert len(loaded(tmp_path, text)) == MAX_PARTITIONS


def test_5000_digit_numbers_are_no_counts():
    digits = "9" * 5000
    found = slurm.detect(
        f"PartitionName=p MaxNodes={digits} MinNodes={digits} TotalNodes={digits}\n",
        f"NodeName=n Sockets={digits} CoresPerSocket=2 CPUTot={digits} Gres=gpu:{digits} "
        f"RealMemory={digits} Partitions=p\n",
    )
    assert "max_nodes" not in found.partitions[0].values
    pbs.detect(f"Queue: q\n    resources_max.nodect = {digits}\n", "", "")
    assert sge.first_slots(digits) is None


def test_many_partitions_times_many_nodes_is_one_pass():
    """20,000 partitions of 20,000 nodes: each node is looked at once, not once a partition
    (the nodes' partition lists are read into one index)."""
    partitions = "".join(f"PartitionName=p{i}\n" for i in range(20_000))
    nodes = "".join(
        f"NodeName=n{i} Sockets=2 CoresPerSocket=8 Partitions=p{i}\n" for i in range(20_000)
    )
    found = slurm.detect(partitions, nodes)
    assert len(found.partitions) == 20_000
    assert all(p.values["cores_per_node"].value == 16 for p in found.partitions[:5])


def test_host_groups_that_double_or_name_themselves_are_expanded_once_each():
    asked: list[str] = []

    def run(argv: list[str]) -> str:
        asked.append(argv[-1])
        if argv[1] == "-sql":
            return "all.q\n"
        if argv[1] == "-sq":
            return "qname all.q\nhostlist @g0\nslots 4\n"
        level = int(argv[-1][2:])
        if level == 60:
            return "hostlist h1 h2 @g0\n"  # back to the top: a cycle
        return f"hostlist @g{level + 1} @g{level + 1}\n"

    found = sge.detect(run)
    assert found.partitions[0].values["max_nodes"].value == 2
    assert len(asked) < 70  # one qconf per group, not 2**60


def test_a_schedulers_error_is_escaped_for_the_terminal(tmp_path):
    script = tmp_path / "qstat"
    script.write_text("#!/bin/sh\nprintf 'fine\\n\\033[2J\\033]0;owned\\007gone\\n' >&2\nexit 3\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    with pytest.raises(JubexError) as failed:
        command([str(script)])
    assert "\x1b" not in str(failed.value) and "\\x1b" in str(failed.value)


def test_a_huge_stderr_is_read_from_its_end_only(tmp_path):
    script = tmp_path / "qstat"
    script.write_text(
        "#!/bin/sh\nhead -c 50000000 /dev/zero | tr '\\0' x >&2\necho >&2\necho last >&2\nexit 1\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    with pytest.raises(JubexError, match=r"failed \(exit status 1\): last$"):
        command([str(script)])


#: pieces of real scheduler output, and what a hostile one may add
PIECES = st.sampled_from(
    [
        *SLURM_PARTITIONS.splitlines(keepends=True),
        *SLURM_NODES.splitlines(keepends=True),
        *QUEUES.splitlines(keepends=True)[:40],
        *NODES.splitlines(keepends=True)[:40],
        *SERVER.splitlines(keepends=True),
        "PartitionName=",
        "Queue: ",
        " MaxTime=",
        " MaxNodes=",
        "    resources_max.walltime = ",
        "    default_queue = ",
        "hostlist @g ",
        "{{ x }}",
        "{% for i in range(10**9) %}",
        "\x1b[2J",
        "\x00",
        " -W depend=afterok:1 ",
        "9" * 5000,
        "\t",
        "\n",
        "é",
    ]
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(PIECES | st.text(max_size=12), max_size=40).map("".join), st.booleans())
def test_any_scheduler_output_gives_a_file_that_validates(tmp_path_factory, text, slurm_like):
    """Real output cut and mixed with hostile pieces: detection never fails, and the file
    it writes loads as a platform whatever the output said."""
    found = slurm.detect(text, text) if slurm_like else pbs.detect(text, text, text)
    found.cpu_model = text[:300]
    sge.detect(lambda argv: text)
    written = platform_text(found, "fuzzed", "host")
    loaded(tmp_path_factory.mktemp("fuzz"), written)
