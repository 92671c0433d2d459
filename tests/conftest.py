"""Fixtures shared by the whole suite: the real Slurm cluster of ``ci/start-local-slurm.sh``,
the real Grid Engine of ``ci/start-local-sge.sh`` and the real PostgreSQL server of
``ci/start-local-postgres.sh``.

Tests that need Slurm are marked ``@pytest.mark.slurm`` and use the ``slurm`` fixture. Where
the Slurm packages are missing they are skipped with the reason — except under CI (the
``CI`` environment variable set), where the start script installs the packages and any
failure fails the tests instead of hiding them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
START = REPO / "ci" / "start-local-slurm.sh"
STOP = REPO / "ci" / "stop-local-slurm.sh"
START_SGE = REPO / "ci" / "start-local-sge.sh"
START_POSTGRES = REPO / "ci" / "start-local-postgres.sh"


@pytest.fixture(scope="session", autouse=True)
def private_state(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Keep jubex's per-user state (runs by directory, user platforms, the results database
    and its unpacked runs) out of the home."""
    names = ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME")
    saved = {k: os.environ.get(k) for k in names}
    for name in names:
        os.environ[name] = str(tmp_path_factory.mktemp(name.split("_")[1].lower()))
    yield
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@dataclass(frozen=True)
class SlurmCluster:
    """A running test cluster: where it lives and how clients reach it."""

    base: Path
    conf: Path
    nodes: int


def _cluster_up(conf: Path) -> bool:
    if not conf.is_file() or shutil.which("scontrol") is None:
        return False
    env = {**os.environ, "SLURM_CONF": str(conf)}
    ping = subprocess.run(
        ["scontrol", "ping"], capture_output=True, text=True, env=env, timeout=30, check=False
    )
    return "is UP" in ping.stdout


@pytest.fixture(scope="session")
def slurm() -> Iterator[SlurmCluster]:
    """The test cluster, started by this session unless it is already running."""
    ci = bool(os.environ.get("CI"))
    if shutil.which("slurmctld") is None and not ci:
        pytest.skip(
            "the Slurm packages are not installed here; run `bash ci/start-local-slurm.sh` "
            "once (it installs them with apt-get) to run the Slurm tests"
        )
    base = Path(os.environ.get("JUBEX_SLURM_DIR", "/tmp/jubex-slurm"))
    conf = base / "etc" / "slurm.conf"
    running = _cluster_up(conf)
    if not running or (ci and shutil.which("qsub") is None):
        # JUBEX_SLURM_PBS=1 also installs Slurm's PBS wrappers (qsub, qstat, qdel), on
        # which the PBS backend's command lines are checked
        env = {**os.environ, "JUBEX_SLURM_PBS": "1"}
        result = subprocess.run(
            ["bash", str(START), str(base)],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
            env=env,
        )
        if result.returncode != 0:
            message = f"ci/start-local-slurm.sh failed:\n{result.stderr[-3000:]}"
            pytest.fail(message) if ci else pytest.skip(message)
    started = not running
    previous = os.environ.get("SLURM_CONF")
    os.environ["SLURM_CONF"] = str(conf)
    try:
        yield SlurmCluster(base, conf, nodes=4)
    finally:
        if previous is None:
            os.environ.pop("SLURM_CONF", None)
        else:
            os.environ["SLURM_CONF"] = previous
        if started:
            subprocess.run(
                ["bash", str(STOP), str(base)], capture_output=True, timeout=120, check=False
            )


@pytest.fixture(scope="session")
def sge() -> Iterator[Path]:
    """The directory of a running Grid Engine's client commands (``ci/start-local-sge.sh``,
    started by this session unless it runs), its environment set for the session.

    Skipped with the reason where it cannot start (no apt-get, no network) - except under
    CI, where a Grid Engine that does not start fails the tests instead of hiding them."""
    ci = bool(os.environ.get("CI"))
    if shutil.which("apt-get") is None and not ci:
        pytest.skip("no apt-get here to fetch Debian's gridengine packages")
    result = subprocess.run(
        ["bash", str(START_SGE)], capture_output=True, text=True, timeout=600, check=False
    )
    if result.returncode != 0:
        message = f"ci/start-local-sge.sh failed:\n{result.stderr[-3000:]}"
        pytest.fail(message) if ci else pytest.skip(message)
    names = dict(
        line.removeprefix("export ").split("=", 1)
        for line in result.stdout.splitlines()
        if line.startswith("export ")
    )
    saved = {k: os.environ.get(k) for k in names}
    os.environ.update(names)
    try:
        yield Path(names["JUBEX_SGE_BIN"])
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@pytest.fixture(scope="session")
def postgres() -> str:
    """The URL of a running PostgreSQL server's database ``jubex`` (as its superuser):
    ``$JUBEX_TEST_POSTGRES`` when set (.ci/run starts the server), else the server of
    ``ci/start-local-postgres.sh``, started by this session when it is not running.

    Skipped with the reason where it cannot start - except under CI, where it fails."""
    found = os.environ.get("JUBEX_TEST_POSTGRES")
    if found:
        return found
    ci = bool(os.environ.get("CI"))
    result = subprocess.run(
        ["bash", str(START_POSTGRES)], capture_output=True, text=True, timeout=600, check=False
    )
    if result.returncode != 0:
        message = f"ci/start-local-postgres.sh failed:\n{result.stderr[-3000:]}"
        pytest.fail(message) if ci else pytest.skip(message)
    return result.stdout.strip().rpartition("=")[2]


@pytest.fixture(scope="session")
def browse() -> Callable[..., str]:
    """Headless Chromium on a page (offline, no script): what it prints, the DOM as
    rendered with ``--dump-dom``. Skipped where Chromium is missing, except under CI
    (``CI=true``), where ``.ci/run`` installs it and its absence is a failure."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("chromium is missing under CI: .ci/run installs Debian's chromium package")
        pytest.skip("chromium is not installed (apt-get install chromium); CI runs this test")
    browser = found

    def run(page: Path, *args: str) -> str:
        done = subprocess.run(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             *args, page.as_uri()],
            capture_output=True, text=True, timeout=120,
            env={**os.environ, "HOME": str(page.parent)},
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stdout

    return run
