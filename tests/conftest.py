"""Fixtures shared by the whole suite: the real Slurm cluster of ``ci/start-local-slurm.sh``,
the real Grid Engine of ``ci/start-local-sge.sh`` and the real PostgreSQL server of
``ci/start-local-postgres.sh``.

Tests that need Slurm are marked ``@pytest.mark.slurm`` and use the ``slurm`` fixture. Where
a tool or service a test needs is missing, the test is skipped with the reason (:func:`missing`)
— except under CI (the ``CI`` environment variable set to anything; ``.ci/run`` sets it),
where ``.ci/run`` installs every one: there a skip of any kind is a failure
(:func:`pytest_runtest_makereport`), so that CI never passes with tests it did not run.

Under CI hypothesis runs without deadlines (the profile ``ci``): on a shared, busy machine a
slow example is no bug, and timings belong to bench/.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import pytest
from hypothesis import settings

REPO = Path(__file__).resolve().parent.parent
START = REPO / "ci" / "start-local-slurm.sh"
STOP = REPO / "ci" / "stop-local-slurm.sh"
START_SGE = REPO / "ci" / "start-local-sge.sh"
START_POSTGRES = REPO / "ci" / "start-local-postgres.sh"


settings.register_profile("ci", deadline=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


def under_ci() -> bool:
    return bool(os.environ.get("CI"))


def missing(what: str) -> NoReturn:
    """A tool or service the test needs is missing: skipped with the reason, or under CI,
    where .ci/run installs it, a failure."""
    if under_ci():
        pytest.fail(f"{what} (under CI, where .ci/run installs it: a failure, not a skip)")
    pytest.skip(what)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Under CI every skip fails: each is a tool, service or file CI should have had (a
    ``skipif`` mark, ``importorskip`` and ``pytest.skip`` alike, checked here once)."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if report.skipped and under_ci() and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        if _darshan_absent(item, str(reason)):
            return
        report.outcome = "failed"
        report.longrepr = f"skipped under CI, which runs every test: {reason}"


#: how many xdist workers the tests marked ``waits`` share (tox runs ``-n 4 --dist loadgroup``)
WAIT_LANES = 2


@pytest.hookimpl(tryfirst=True)  # before xdist's, which reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked ``waits`` spend minutes waiting (a Slurm time limit is at least one
    minute, a lost node's job is requeued after 30 s, fsync waits on the disk) and little on
    the CPU. Dealt round-robin into :data:`WAIT_LANES` xdist groups, they start first, one
    lane to a worker, while the other workers run the rest: their waits pass beside the
    CPU-bound tests instead of after them (``--dist loadgroup`` hands out the groups, which
    have more tests than any other work unit, first). Without xdist the marks do nothing."""
    waiting = [item for item in items if item.get_closest_marker("waits")]
    for number, item in enumerate(waiting):
        item.add_marker(pytest.mark.xdist_group(f"waits-{number % WAIT_LANES}"))
    items[:] = waiting + [item for item in items if item.get_closest_marker("waits") is None]


#: the one skip CI keeps (docs/darshan.md): darshan-runtime is built from its source, which
#: CI cannot fetch, and no distribution packages it; the log reading is tested on kept logs
DARSHAN_ABSENT = "darshan-runtime is not here (JUBEX_DARSHAN_LIB names its libdarshan.so)"


def _darshan_absent(item: pytest.Item, reason: str) -> bool:
    """A test marked ``requires_darshan_runtime`` skipped for that one reason, and no other."""
    return item.get_closest_marker("requires_darshan_runtime") is not None and (
        DARSHAN_ABSENT in reason
    )


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say how many tests the missing Darshan runtime left out, under CI too."""
    skipped = terminalreporter.stats.get("skipped", [])
    absent = [r for r in skipped if DARSHAN_ABSENT in str(r.longrepr)]
    if absent:
        terminalreporter.write_line(
            f"{len(absent)} test(s) did not run: {DARSHAN_ABSENT}; they run a study under "
            "Darshan where it is installed (docs/darshan.md)",
            yellow=True,
        )


@pytest.fixture(scope="session")
def darshan_library() -> Path:
    """The libdarshan.so that ``JUBEX_DARSHAN_LIB`` names, or the test is skipped saying so
    (under CI as well: see :data:`DARSHAN_ABSENT`); a name that is no file is a failure."""
    named = os.environ.get("JUBEX_DARSHAN_LIB")
    if not named:
        pytest.skip(DARSHAN_ABSENT)
    library = Path(named)
    if not library.is_file():
        pytest.fail(f"JUBEX_DARSHAN_LIB={named} is no file")
    return library


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
    ci = under_ci()
    if shutil.which("slurmctld") is None and not ci:
        missing(
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
            missing(f"ci/start-local-slurm.sh failed:\n{result.stderr[-3000:]}")
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
    if shutil.which("apt-get") is None and not under_ci():
        missing("no apt-get here to fetch Debian's gridengine packages")
    result = subprocess.run(
        ["bash", str(START_SGE)], capture_output=True, text=True, timeout=600, check=False
    )
    if result.returncode != 0:
        missing(f"ci/start-local-sge.sh failed:\n{result.stderr[-3000:]}")
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
    result = subprocess.run(
        ["bash", str(START_POSTGRES)], capture_output=True, text=True, timeout=600, check=False
    )
    if result.returncode != 0:
        missing(f"ci/start-local-postgres.sh failed:\n{result.stderr[-3000:]}")
    return result.stdout.strip().rpartition("=")[2]


@pytest.fixture
def new_postgres(postgres: str) -> Iterator[str]:
    """A new database on the test server (dropped afterwards): its URL."""
    import sqlalchemy as sa

    server = postgres
    name = f"t_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(server.replace("postgresql://", "postgresql+psycopg://", 1))
    with admin.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.exec_driver_sql(f"CREATE DATABASE {name}")
    url = sa.engine.make_url(server).set(database=name).render_as_string(hide_password=False)
    try:
        yield url
    finally:
        with admin.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.exec_driver_sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        admin.dispose()


@pytest.fixture(scope="session")
def browse() -> Callable[..., str]:
    """Headless Chromium on a page (offline, no script): what it prints, the DOM as
    rendered with ``--dump-dom``. Skipped where Chromium is missing, except under CI."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        missing("chromium is not installed (apt-get install chromium)")
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
