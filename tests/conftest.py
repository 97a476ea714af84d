"""Shared fixtures: a real Mosquitto per test session, a referee per test."""

from __future__ import annotations

import atexit
import ctypes
import os
import random
import shutil
import signal
import sys
import tempfile
import time
from typing import Any
from collections.abc import Iterator

import pytest

from tests.mosquitto import Mosquitto, start_mosquitto
from tests.refthread import start_referee


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--shuffle", metavar="SEED", default=None,
                     help="run the tests in a random order drawn from SEED ('random': a new seed, printed), "
                          "to find tests that depend on each other")


def pytest_report_header(config: pytest.Config) -> str | None:
    seed = _shuffle_seed(config)
    return None if seed is None else f"test order shuffled with --shuffle={seed}"


PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h


def pytest_configure(config: pytest.Config) -> None:
    """Adopt the orphans of what the tests start (Linux's child subreaper), so that the check
    at the end (``pytest_sessionfinish``) finds them: a killed referee's workers would
    otherwise be re-parented to init and look like nobody's (issue 47: 63 left per run)."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    _own_account_locks()


def _own_account_locks() -> None:
    """Give this test process a directory of referee account locks of its own
    (``referee/hold.py`` keeps them under ``$XDG_RUNTIME_DIR/summon``).

    Why: a lock is keyed by broker address and account, and test brokers come and go on
    ports the OS hands out again.  A test that restarts its broker frees the port for a
    moment while its referee runs on, holding "127.0.0.1:<port>, referee"; the other pytest
    worker (``-n 2``), or a run beside CI, could start its own broker on that very port
    and its referee was refused as held (``Held``): "referee did not connect".  A lock
    dir per process keeps the hold's meaning -- one referee per account and broker -- for
    the brokers of one process, whose tests run one after another.  Set in every process
    (xdist workers inherit the controller's environment); ``summon`` subprocesses a test
    starts inherit its directory."""
    path = tempfile.mkdtemp(prefix="summon-test-run-")
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    os.environ["XDG_RUNTIME_DIR"] = path


def _own_helpers() -> set[int]:
    """This process's own multiprocessing forkserver and resource tracker: they end with it
    (their pipes close when it exits), so they are not left behind; a killed referee's, adopted
    by us, are not these."""
    from multiprocessing import forkserver, resource_tracker
    pids = {getattr(forkserver._forkserver, "_forkserver_pid", None),  # type: ignore[attr-defined]
            getattr(resource_tracker._resource_tracker, "_pid", None)}  # type: ignore[attr-defined]
    return {p for p in pids if p}


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """The run must leave nothing running: list what it started that still runs, kill it, fail.

    What counts: every descendant of this process (orphans included, see ``pytest_configure``)
    still running 5 s after the last test, except this process's own forkserver and resource
    tracker and their workers (in-process referees' pools: they watch this process's lifeline,
    referee/lifeline.py, and end with it).  Under pytest-xdist each worker checks its own
    descendants; the controller, whose children are the workers, checks nothing."""
    config = session.config
    if not sys.platform.startswith("linux"):
        return
    if getattr(config, "workerinput", None) is None and config.pluginmanager.hasplugin("dsession"):
        return  # the xdist controller
    from tests.procs import descendants, wait_gone

    helpers = _own_helpers()
    found = [p for p in descendants(os.getpid()) if p.pid not in helpers and p.ppid not in helpers]
    left = wait_gone([p.pid for p in found], 5.0)
    if not left:
        return
    config._summon_left_running = [str(p) for p in left]  # type: ignore[attr-defined]
    for p in left:
        try:
            os.kill(p.pid, signal.SIGKILL)
        except OSError:
            pass
    if getattr(config, "workerinput", None) is not None:  # an xdist worker: its report goes to stderr
        sys.stderr.write(_left_report(config._summon_left_running) + "\n")  # type: ignore[attr-defined]
    if session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _left_report(lines: list[str]) -> str:
    return (f"LEFT RUNNING: {len(lines)} process(es) the tests started were still running after the run "
            f"(killed now; a test or a component does not stop what it starts):\n  " + "\n  ".join(lines))


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """Print the shuffle seed at the end too (``-q`` hides the header): a failing order can be re-run;
    and what the run left running (``pytest_sessionfinish``)."""
    left = getattr(config, "_summon_left_running", None)
    if left:
        terminalreporter.write_line(_left_report(left), red=True, bold=True)
    seed = _shuffle_seed(config)
    if seed is not None:
        terminalreporter.write_line(f"test order shuffled with --shuffle={seed}")


def _shuffle_seed(config: pytest.Config) -> int | None:
    """The seed of ``--shuffle`` (drawn once per run for 'random', so the header can print it)."""
    value = config.getoption("--shuffle")
    if value is None:
        return None
    if value == "random":
        if not hasattr(config, "_summon_shuffle_seed"):
            config._summon_shuffle_seed = random.SystemRandom().randrange(10**6)  # type: ignore[attr-defined]
        return int(config._summon_shuffle_seed)  # type: ignore[attr-defined]
    return int(value)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``--shuffle``: the whole suite in one random order, not just within files.

    Why not pytest-randomly: it also reseeds every RNG before each test, which would hide
    the very order dependencies we look for here; this is all we need of it.
    """
    seed = _shuffle_seed(config)
    if seed is not None:
        random.Random(seed).shuffle(items)


@pytest.fixture
def mosquitto(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mosquitto]:
    """A Mosquitto of this test's own, with the project's config and ACL.

    Why one per test and not one per session: a test that leaves retained messages,
    floods, or leaves a client reconnecting under a shared username would change what
    the next test sees (issue 11: retained fuzz junk made later referees answer
    ``msg/malformed`` to requests they never got).  Starting one costs ~50 ms.
    """
    broker = start_mosquitto(tmp_path_factory.mktemp("mosquitto"))
    try:
        yield broker
    finally:
        broker.stop()


@pytest.fixture
def referee(mosquitto: Mosquitto, request: pytest.FixtureRequest) -> Iterator[object]:
    """A referee connected as `referee`, with `director` as its director, on its own thread.

    Every test has its broker of its own (see ``mosquitto``), so nothing leaks between tests.
    """
    from summon.clients.bots import HOUSE_BOTS
    from summon.referee.service import Referee, RefereeConfig

    if "any_store" in request.fixturenames:
        request.getfixturevalue("any_store")  # before the referee opens its store
    prefix = "summon/v1"
    ref = Referee(RefereeConfig(broker=mosquitto.url("referee"), prefix=prefix,
                                client_id="referee", directors=frozenset({"director"})), house_bots=HOUSE_BOTS)
    thread = start_referee(ref)
    yield ref
    ref.request_stop()
    thread.join(10)


@pytest.fixture(autouse=True)
def _stop_bot_clients_after_each_test(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Stop every SDK client a test started, before the next test runs.

    Why: the broker binds the client id to the username, so a bot left playing an
    unfinished table would fight the next test's client of the same account for the
    connection.
    """
    from summon.clients.sdk import BotClient

    made: list[BotClient] = []
    original = BotClient.__init__

    def recording_init(self: BotClient, *args: object, **kwargs: object) -> None:
        original(self, *args, **kwargs)  # type: ignore[arg-type]
        made.append(self)

    monkeypatch.setattr(BotClient, "__init__", recording_init)
    yield
    for client in made:
        client.request_stop()
    deadline = time.monotonic() + 5
    for client in made:
        while client.running.is_set() and time.monotonic() < deadline:
            time.sleep(0.05)


@pytest.fixture(autouse=True)
def _fresh_failure_stamps(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with no store commit or lease renewal failed "recently".

    Why: ``METER`` is one per process (referee/meter.py) and ``/readyz`` reads its failure
    stamps for 10 s (referee/metrics.py ``readiness``); a test that failed a commit on
    purpose (test_group_commit) left the next test in the same worker a referee that was
    "not ready" from its first second (test_readyz_follows_the_broker: 503, a shuffled run).
    """
    from summon.referee.meter import METER

    monkeypatch.setattr(METER, "store_failed_at", 0.0)
    monkeypatch.setattr(METER, "fleet_failed_at", 0.0)


@pytest.fixture(scope="session")
def postgres() -> Iterator[object]:
    """One private PostgreSQL cluster for the session (tests/pg.py); every test takes a fresh
    database from it (``pg_url``).  Skipped, saying why, only where PostgreSQL is not installed."""
    from tests.pg import find_pg_bin, start_postgres

    if find_pg_bin() is None:
        pytest.skip("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb; .ci/run installs it)")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip("psycopg 3 is not installed (pip install 'summon[postgres]'; .ci/run installs it)")
    cluster = start_postgres()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def pg_url(postgres: Any) -> str:
    """The URL of a fresh, empty database of its own for this test."""
    return postgres.new_database()


STORES = ["sqlite", "postgresql"]


def _referees_on_postgres(mp: pytest.MonkeyPatch, postgres: Any) -> None:
    """Every referee started in-process from here on stores on PostgreSQL (a fleet of one).

    Each SQLite path a referee opens maps to one fresh database (a referee restarted on the
    same path finds its tables again); ``:memory:`` gets a new one every time.
    """
    from summon.referee import service
    from summon.referee.store import MEMORY

    real = service.open_store
    databases: dict[str, str] = {}

    def open_on_postgres(url: str = MEMORY, readonly: bool = False, sync: str = "full", **kwargs: Any) -> Any:
        if not url.startswith(("postgresql://", "postgres://")):
            if url == MEMORY or url not in databases:
                databases[url] = postgres.new_database()
            url = databases[url]
            kwargs.setdefault("ttl", 1.0)  # a referee restarted under a new name adopts within a second
        return real(url, readonly=readonly, sync=sync, **kwargs)

    mp.setattr(service, "open_store", open_on_postgres)


@pytest.fixture(params=STORES)
def any_store(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test twice: with the referee's SQLite store, then with every referee it starts
    in-process on PostgreSQL -- issue 14: the fault, redaction and security suites pass on
    both stores.  Request it before ``referee`` (the ``referee`` fixture makes sure)."""
    if request.param == "postgresql":
        _referees_on_postgres(monkeypatch, request.getfixturevalue("postgres"))
    return str(request.param)


@pytest.fixture(scope="module", params=STORES)
def module_store(request: pytest.FixtureRequest) -> Iterator[str]:
    """``any_store`` for a module-scoped referee: the module's tests run once per store."""
    with pytest.MonkeyPatch.context() as mp:
        if request.param == "postgresql":
            _referees_on_postgres(mp, request.getfixturevalue("postgres"))
        yield str(request.param)
