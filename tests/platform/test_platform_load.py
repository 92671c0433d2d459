"""Finding, reading, merging and validating platform files; every error names file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from jubex.errors import DefinitionError, ErrorList
from jubex.platform.load import centre_of, find_platform, load_platform, platform_paths

SITE = """\
name: site
extends: slurm
account: proj1
partitions:
  batch: {max_nodes: 64, max_time: "24:00:00", default: true}
  devel: {max_nodes: 2, max_time: 30m}
resources: {tasks_per_node: 8, time: 30:00}
modules: [GCC, OpenMPI]
"""

SITE_XML = """\
<?xml version="1.0"?>
<platform name="site" extends="slurm">
  <account>proj1</account>
  <partitions>
    <partition name="batch" max_nodes="64" max_time="24:00:00" default="true"/>
    <partition name="devel" max_nodes="2" max_time="30m"/>
  </partitions>
  <resources tasks_per_node="8" time="30:00"/>
  <modules><module>GCC</module><module>OpenMPI</module></modules>
</platform>
"""


def write(directory: Path, name: str, text: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(text)
    return path


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No platform files of the person running the tests: an empty config dir, no env path."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("JUBEX_PLATFORM_PATH", raising=False)


def test_no_name_means_the_shipped_local_platform() -> None:
    platform = load_platform()
    assert (platform.name, platform.scheduler) == ("local", "local")
    assert platform.file.endswith("platforms/generic/local.yaml")


def test_a_site_file_extends_the_generic_slurm_one(tmp_path: Path) -> None:
    platform = load_platform(str(write(tmp_path, "site.yaml", SITE)))
    assert platform.name == "site" and platform.scheduler == "slurm"
    assert platform.resources == {"nodes": 1, "tasks_per_node": 8, "threads": 1, "time": "30:00"}
    assert platform.modules == ["GCC", "OpenMPI"] and platform.account == "proj1"
    assert platform.default_partition == "batch"
    assert "#SBATCH --job-name" in platform.template  # inherited
    assert platform.where("partitions.devel.max_nodes").line == 6  # type: ignore[union-attr]
    assert platform.partitions["devel"].loc.line == 6  # type: ignore[union-attr]
    assert platform.where("template").file.endswith("slurm.yaml")  # type: ignore[union-attr]


def test_the_xml_spelling_loads_into_the_same_platform(tmp_path: Path) -> None:
    from_yaml = load_platform(str(write(tmp_path / "y", "site.yaml", SITE)))
    from_xml = load_platform(str(write(tmp_path / "x", "site.xml", SITE_XML)))
    for key in ("name", "scheduler", "account", "resources", "modules", "template", "launcher"):
        assert getattr(from_xml, key) == getattr(from_yaml, key), key
    assert {k: (p.max_nodes, p.max_time, p.default) for k, p in from_xml.partitions.items()} == {
        k: (p.max_nodes, p.max_time, p.default) for k, p in from_yaml.partitions.items()
    }


def test_search_order_explicit_dirs_then_env_then_user_then_shipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = tmp_path / "config" / "jubex" / "platforms"
    write(user, "slurm.yaml", "name: slurm\nextends: slurm\ndescription: user copy\n")
    write(tmp_path / "env", "slurm.yaml", "name: slurm\nextends: slurm\ndescription: env copy\n")
    write(
        tmp_path / "first",
        "slurm.xml",
        '<platform name="slurm" extends="slurm"><description>first</description></platform>',
    )
    assert load_platform("slurm").description == "user copy"
    monkeypatch.setenv("JUBEX_PLATFORM_PATH", f"{tmp_path / 'nowhere'}:{tmp_path / 'env'}")
    assert load_platform("slurm").description == "env copy"
    platform = load_platform("slurm", search_path=[tmp_path / "first"])
    assert platform.description == "first"
    assert "#SBATCH" in platform.template  # extends its shipped namesake, not itself
    names = [(name, path.parent.name) for name, path in platform_paths([tmp_path / "first"])]
    slurms = [entry for entry in names if entry[0] == "slurm"]
    assert slurms == [
        ("slurm", "first"),
        ("slurm", "env"),
        ("slurm", "platforms"),
        ("slurm", "generic"),
    ]


def test_a_file_in_a_centre_directory_is_found_by_its_name_after_the_top_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "mine" / "hlrs", "hawk.yaml", "extends: pbs\ndescription: grouped\n")
    write(tmp_path / "mine", "hawk.yaml", "extends: pbs\ndescription: at the top\n")
    write(tmp_path / "mine" / "a" / "b", "deep.yaml", "extends: pbs\n")
    monkeypatch.setenv("JUBEX_PLATFORM_PATH", str(tmp_path / "mine"))
    assert load_platform("hawk").description == "at the top"
    found = [(n, centre_of(p)) for n, p in platform_paths() if p.is_relative_to(tmp_path)]
    assert found == [("hawk", ""), ("hawk", "hlrs")]  # two levels down is not looked at
    assert centre_of(find_platform("juwels-booster")) == "jsc"
    assert centre_of(find_platform("slurm")) == "generic"


def test_extends_by_relative_path_and_a_cycle_is_refused(tmp_path: Path) -> None:
    write(tmp_path / "base", "common.yaml", "name: common\nextends: pbs\naccount: abc\n")
    child = write(tmp_path / "sites", "child.yaml", "name: child\nextends: ../base/common.yaml\n")
    assert load_platform(str(child)).account == "abc"
    write(tmp_path, "a.yaml", "name: a\nextends: ./b.yaml\nscheduler: local\ntemplate: x\n")
    write(tmp_path, "b.yaml", "name: b\nextends: ./a.yaml\n")
    with pytest.raises(DefinitionError, match="circle"):
        load_platform(str(tmp_path / "a.yaml"))


def test_an_unknown_name_lists_the_known_ones_with_a_suggestion() -> None:
    with pytest.raises(DefinitionError) as caught:
        find_platform("slrum")
    assert "known platforms:" in str(caught.value) and "did you mean 'slurm'" in str(caught.value)


@pytest.mark.parametrize(
    ("text", "line", "expected"),
    [
        ("name: x\nextends: slurm\nresources:\n  nodes: 2\n  tiem: 1h\n", 5, "did you mean 'time'"),
        ("name: x\nextends: slurm\nscheduler: Slurm 23\n", 3, "does not match"),
        ("name: x\nextends: slurm\npartitions:\n  a: {max_nodes: many}\n", 4, "must be integer"),
        ("name: x\nextends: slurm\nscheduler_options: {poll_intervall: 3}\n", 3, "poll_interval"),
        ("name: x\nscheduler: local\n", 1, "lacks 'template'"),
        ("name: x\nextends: slurm\nresources: {time: forever}\n", 3, "not a duration"),
        ("name: x\nextends: slurm\npartitions:\n  a: {max_time: two days}\n", 4, "not a duration"),
        (
            "name: x\nextends: slurm\ntemplate: |\n  #!/bin/sh\n  {{ body }\n",
            5,
            "not a valid Jinja2",
        ),
        ("name: x\nextends: slurm\nresources: [1, 2\n", 4, "YAML syntax"),
        ("name: x\nextends: slurm\naccount: a\naccount: b\n", 4, "duplicate key 'account'"),
        ("name: x\nextends: nosuch\n", 2, "no platform 'nosuch'"),
        (
            "name: x\nextends: slurm\npartitions:\n  a: {default: true}\n  b: {default: true}\n",
            5,
            "at most one",
        ),
    ],
)
def test_errors_name_file_line_and_what_was_expected(
    tmp_path: Path, text: str, line: int, expected: str
) -> None:
    path = write(tmp_path, "x.yaml", text)
    with pytest.raises(DefinitionError) as caught:
        load_platform(str(path))
    error = caught.value
    assert error.loc is not None and error.loc.file == str(path), str(error)
    assert error.loc.line == line, str(error)
    assert expected in str(error)


def test_several_problems_are_listed_together(tmp_path: Path) -> None:
    path = write(tmp_path, "x.yaml", "name: x\nscheduler: LSF\nmodules: GCC\ntemplate: t\n")
    with pytest.raises(ErrorList) as caught:
        load_platform(str(path))
    assert [e.loc.line for e in caught.value.errors] == [3, 2]  # type: ignore[union-attr]


def test_xml_entities_are_refused(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "x.xml",
        '<?xml version="1.0"?>\n<!DOCTYPE p [<!ENTITY e "boom">]>\n'
        '<platform name="x" extends="slurm"><account>&e;</account></platform>\n',
    )
    with pytest.raises(DefinitionError, match="entity"):
        load_platform(str(path))


def test_a_clock_time_in_yaml_stays_a_clock_time(tmp_path: Path) -> None:
    path = write(tmp_path, "x.yaml", "name: x\nextends: slurm\nresources: {time: 1:30:00}\n")
    platform = load_platform(str(path))
    assert platform.resources["time"] == "1:30:00"
    assert platform.resolve({})["walltime"] == "01:30:00"


def test_peaks_are_read_as_written_and_unknown_ones_refused(tmp_path: Path) -> None:
    text = "name: box\nextends: local\npeaks: {storage_bandwidth: 2GB/s, storage_iops: 5e5 IOPS}\n"
    platform = load_platform(str(write(tmp_path, "box.yaml", text)))
    assert platform.peaks == {"storage_bandwidth": "2GB/s", "storage_iops": "5e5 IOPS"}
    assert load_platform().peaks == {}
    typo = write(tmp_path, "typo.yaml", "name: t\nextends: local\npeaks: {storage_bw: 2GB/s}\n")
    with pytest.raises((DefinitionError, ErrorList), match="did you mean 'storage_bandwidth'"):
        load_platform(str(typo))
