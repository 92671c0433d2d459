"""A wheel built from a clean clone carries the top-level platform library and kernels, and an
installation of it finds them by name, away from any checkout."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

pytestmark = [
    pytest.mark.skipif(
        shutil.which("git") is None or not (REPO / ".git").exists(), reason="needs a git checkout"
    ),
    pytest.mark.slow,
]


@pytest.fixture(scope="module")
def clone_and_wheel(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A clone of the checked-in tree and the wheel pip builds of it."""
    root = tmp_path_factory.mktemp("wheel")
    clone = root / "clone"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True, timeout=120)
    pip = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps"]
    if importlib.util.find_spec("wheel") and importlib.util.find_spec("setuptools"):
        pip.append("--no-build-isolation")  # what builds it is at hand: no download
    subprocess.run([*pip, "-w", str(root / "dist"), str(clone)], check=True, timeout=300)
    (wheel,) = (root / "dist").glob("jubex-*.whl")
    return clone, wheel


def test_the_wheel_carries_every_platform_file_and_kernel_source(
    clone_and_wheel: tuple[Path, Path],
) -> None:
    clone, wheel = clone_and_wheel
    names = set(zipfile.ZipFile(wheel).namelist())
    for kind in ("platforms", "kernels"):
        files = [p for p in (clone / kind).rglob("*") if p.is_file() and p.name != ".gitignore"]
        assert files
        for path in files:
            assert f"jubex/_shipped/{path.relative_to(clone).as_posix()}" in names
    assert "jubex/_shipped/platforms/jsc/juwels-booster.yaml" in names
    assert not [n for n in names if n.startswith(("jubex/data/platforms", "jubex/data/kernels"))]
    assert "jubex/data/templates/ior.yaml" in names


def test_an_installed_wheel_finds_platforms_by_name_and_its_kernels(
    clone_and_wheel: tuple[Path, Path], tmp_path: Path
) -> None:
    _, wheel = clone_and_wheel
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "-t", str(target), str(wheel)],
        check=True,
        timeout=300,
    )
    probe = (
        "from pathlib import Path\n"
        "from jubex.platform.load import load_platform, centre_of\n"
        "from jubex.shipped import shipped\n"
        "p = load_platform('juwels-booster')\n"
        "print(p.file, centre_of(Path(p.file)), load_platform('slurm').name)\n"
        "print((shipped('kernels') / 'bw.c').is_file(), shipped('kernels'))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(target), "XDG_CONFIG_HOME": str(tmp_path)}
    env.pop("JUBEX_PLATFORM_PATH", None)
    out = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout.split()
    assert out[0] == str(target / "jubex/_shipped/platforms/jsc/juwels-booster.yaml")
    assert out[1:3] == ["jsc", "slurm"]
    assert out[3:] == ["True", str(target / "jubex/_shipped/kernels")]
