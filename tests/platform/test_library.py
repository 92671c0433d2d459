"""The platform library: every file validates, is grouped by its centre, names its sources, and
every shipped benchmark renders a dry run on every platform — a broken contribution fails here."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from jubex.cli.main import main
from jubex.definition.load import load
from jubex.errors import UsageError
from jubex.platform.load import SHIPPED, centre_of, load_platform
from jubex.platform.model import duration
from jubex.results.tables.peaks import platform_peaks
from jubex.space.spec import resolve_spec
from jubex.workdir.render import target_names

REPO = Path(__file__).resolve().parents[2]
FILES = sorted(SHIPPED.rglob("*.yaml"))
REAL = [path for path in FILES if path.parent.name != "generic"]
BENCHMARKS = sorted((REPO / "benchmarks").glob("*.yaml"))


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("JUBEX_PLATFORM_PATH", raising=False)


def test_the_library_holds_eight_real_systems_of_three_centres_and_two_schedulers() -> None:
    assert all(path.parent.parent == SHIPPED for path in FILES)  # one level: the centre
    stems = [path.stem for path in FILES]
    assert len(stems) == len(set(stems))  # found by name: no two files share one
    platforms = [load_platform(path.stem) for path in REAL]
    assert len(platforms) >= 8
    assert len({centre_of(Path(p.file)) for p in platforms}) >= 3
    assert len({p.scheduler for p in platforms}) >= 2


@pytest.mark.parametrize("path", REAL, ids=lambda p: f"{p.parent.name}-{p.stem}")
def test_a_real_system_names_its_sources_and_a_target_file_system(path: Path) -> None:
    text = path.read_text()
    assert re.search(r"Sources?,[\s#]+read[\s#]+\d{4}-\d{2}-\d{2}", text)
    assert re.search(r"https://\S+", text)
    platform = load_platform(path.stem)
    target = platform.target_filesystem
    assert target is not None and target.kind and target.path
    platform_peaks(platform)  # every peak a number with a unit the result tables read
    for fs in platform.filesystems.values():
        stated = {k: getattr(fs, k) for k in ("bandwidth", "read_bandwidth", "write_bandwidth")}
        platform_peaks(replace(platform, peaks={k: v for k, v in stated.items() if v}))
    assert platform.description


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}-{p.stem}")
@pytest.mark.parametrize("definition", BENCHMARKS, ids=lambda p: p.stem)
def test_every_shipped_benchmark_dry_runs_on_every_platform(
    path: Path, definition: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    platform = roomy(path.stem, tmp_path)
    args = ["run", str(definition), "-P", platform, "--dry-run", "--outpath", str(tmp_path)]
    if re.search(r"^ +nodes:", definition.read_text(), re.M):
        args += ["-p", "nodes=1"]  # a debug queue as the default partition takes few nodes
    assert main(args) == 0
    out = capsys.readouterr().out
    target = load_platform(path.stem).target_filesystem
    expected = re.escape(target.path if target else ".") + '"?[/ ]'  # quoted when not one word
    assert re.search(rf'(-o |-d |--directory=|DATA=)"?{expected}', out), out[-2000:]


def roomy(name: str, tmp_path: Path) -> str:
    """The platform with the longest partition a one-node job may use as its default (a site
    defaults to a debug queue an IO500 run of 2 hours does not fit in)."""
    partitions = load_platform(name).partitions.values()
    fits = [p for p in partitions if (p.min_nodes or 1) <= 1]
    if not fits:
        return name
    longest = max(fits, key=lambda p: duration(p.max_time or "1000d", None, "max_time"))
    marks = {p.name: {"default": p is longest} for p in partitions}
    path = tmp_path / f"{name}-roomy.yaml"
    path.write_text(yaml.safe_dump({"extends": name, "partitions": marks}))
    return str(path)


def test_a_run_writes_to_the_file_system_jubex_fs_names() -> None:
    lumi = load_platform("lumi")
    assert target_names(lumi) == {
        "jubex_fs": "scratch",
        "jubex_fs_path": "/scratch/$SLURM_JOB_ACCOUNT",
    }
    benchmark = load(REPO / "benchmarks" / "fio.yaml")
    spec = resolve_spec(benchmark, lumi, overrides={"jubex_fs": ["flash"]})
    assert target_names(spec.platform)["jubex_fs_path"] == "/flash/$SLURM_JOB_ACCOUNT"
    with pytest.raises(UsageError, match=r"no file system 'flsh'.*scratch, flash") as caught:
        resolve_spec(benchmark, lumi, overrides={"jubex_fs": ["flsh"]})
    assert "did you mean 'flash'" in caught.value.hint
    assert target_names(load_platform("local")) == {"jubex_fs": "", "jubex_fs_path": "."}
