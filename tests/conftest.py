"""Shared fixtures: a temporary ledger file, the toy rule system, a toy campaign."""

from __future__ import annotations

import compileall
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import freezegun
import hypothesis
import pytest
from click.testing import CliRunner

from ledger.cli import cli
from ledger.rules.plugins import pm, rule_systems

from .toy import ToyPlugin

AT = "2026-03-01T19:00:00.000000Z"

# pytest times each test with its own clock (``--durations``): a frozen clock must not reach it.
# Each freeze looks through every loaded module for a clock to replace; the libraries after
# the first two never read the clock for us, nor call back into code that does, so skipping
# them halves what a freeze costs (about 28 ms to 14 ms with the whole suite loaded, and
# over a thousand tests freeze the clock)
freezegun.configure(
    extend_ignore_list=[
        "_pytest.timing", "_pytest.runner",
        "schemathesis", "numpy", "requests", "urllib3", "charset_normalizer", "idna",
        "psycopg", "filelock", "icepool", "cryptography", "wcwidth", "pygments", "grimp",
        "jsonschema_rs", "execnet", "xdist", "playwright", "greenlet", "pyee",
        "decimal", "_collections_abc", "collections.abc", "typing", "encodings", "socket",
        "ssl",
    ]
)  # fmt: skip

# a Hypothesis example is judged by what it does, never by how long the machine took: the
# default 200 ms deadline fails tests on a loaded machine
hypothesis.settings.register_profile("ledger", deadline=None)
hypothesis.settings.load_profile("ledger")

ROOT = Path(__file__).resolve().parent.parent


def pytest_configure(config):
    """Byte-code is kept, as a default Python keeps it, even where PYTHONDONTWRITEBYTECODE
    is set: otherwise every worker compiles every test module again, and every worker and
    every ``campaign`` process the tests start compiles the ledger again (about 8 s of CPU a
    worker). The controller compiles ``ledger/`` and ``plugins/`` before the workers start;
    a test module's or a dependency's byte-code is written by the first process that
    imports it, as Python does by default (the workers and every process the tests start
    inherit the environment without the variable)."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False
    if not hasattr(config, "workerinput") and config.getoption("--save-group-times"):
        config.pluginmanager.register(GroupTimes(), "group-times")
    if not hasattr(config, "workerinput"):
        for folder in ("ledger", "plugins"):
            compileall.compile_dir(ROOT / folder, quiet=2, workers=0)


#: test files whose tests pytest-xdist may spread over its workers in groups: a pattern
#: whose groups, joined, name the group of a test's id (every other file is one group)
SPLIT_FILES = {
    # one group per journey and look: each journey's night is a module fixture of its own
    # per look, built from the templates, so groups share nothing; a group's scenes run in
    # order on one worker
    "tests/test_web_journeys.py": re.compile(
        r"::test_(j\d+)_.*\[(?:[^\]]*-)?(\d+x\d+-(?:light|dark))\]$"
    ),
}


def xdist_group_of(nodeid: str) -> str:
    """The group of the test ``nodeid`` that one pytest-xdist worker runs, in order: its
    file, or a part of it (:data:`SPLIT_FILES`)."""
    file = nodeid.split("::", 1)[0]
    pattern = SPLIT_FILES.get(file)
    found = pattern.search(nodeid) if pattern else None
    return f"{file}::{'-'.join(found.groups())}" if found else file


#: each group's seconds in a whole run (setup, call and teardown of its tests, summed), as
#: ``uv run pytest --save-group-times`` last wrote them: the order groups are handed out in
GROUP_TIMES = ROOT / "tests" / "group_times.json"
#: the seconds a test of a group missing from :data:`GROUP_TIMES` is guessed to take
GUESSED_SECONDS = 0.05


def pytest_addoption(parser):
    parser.addoption(
        "--save-group-times",
        action="store_true",
        help="write each xdist group's seconds in this run to tests/group_times.json (the "
        "longest groups are handed to the workers first)",
    )


def longest_first(groups: dict[str, int], seconds: dict[str, float]) -> list[str]:
    """``groups`` (group → its number of tests) longest first: by ``seconds`` where known,
    else :data:`GUESSED_SECONDS` a test; ties keep their order. Handing the longest out first
    keeps a long browser file from starting last and leaving the other workers idle."""
    return sorted(groups, key=lambda g: -seconds.get(g, GUESSED_SECONDS * groups[g]))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadscope`` (addopts) by :func:`xdist_group_of`: a file to one worker (its
    module fixtures built once, its tests in the order written), the journeys by journey
    and look; the groups handed out longest first (:func:`longest_first`)."""
    if config.getvalue("dist") != "loadscope":
        return None
    import json

    from xdist.scheduler import LoadScopeScheduling

    try:
        seconds = json.loads(GROUP_TIMES.read_text())
    except (OSError, ValueError):
        seconds = {}

    class ByGroup(LoadScopeScheduling):
        ordered = False

        def _split_scope(self, nodeid: str) -> str:
            return xdist_group_of(nodeid)

        def _assign_work_unit(self, node) -> None:
            if not self.ordered:
                units = dict(self.workqueue)
                order = longest_first({g: len(tests) for g, tests in units.items()}, seconds)
                self.workqueue.clear()
                self.workqueue.update((g, units[g]) for g in order)
                self.ordered = True
            super()._assign_work_unit(node)

    return ByGroup(config, log)


class GroupTimes:
    """Sums each group's test reports on the controller; writes :data:`GROUP_TIMES`."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def pytest_runtest_logreport(self, report) -> None:
        group = xdist_group_of(report.nodeid)
        self.seconds[group] = self.seconds.get(group, 0.0) + report.duration

    def pytest_sessionfinish(self) -> None:
        import json

        rounded = {g: round(s, 1) for g, s in sorted(self.seconds.items())}
        GROUP_TIMES.write_text(json.dumps(rounded, indent=0) + "\n")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config):
    """``-n auto`` (addopts): two workers per core. A third of the suite's time is spent in
    browser tests waiting on Chromium, and a second worker keeps the core busy meanwhile."""
    import os

    return 2 * (
        len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    )


@pytest.fixture
def toy_system():
    """Registers the toy rule system for one test, and unregisters it after."""
    plugin = ToyPlugin()
    pm.register(plugin, name="toy")
    rule_systems.cache_clear()
    try:
        yield
    finally:
        pm.unregister(name="toy")
        rule_systems.cache_clear()


@pytest.fixture
def db_path(tmp_path):
    return str(tmp_path / "ledger.db")


@pytest.fixture
def invoke(db_path):
    """Run `campaign --db <tmp> ARGS...`; returns the click Result."""
    runner = CliRunner()

    def run(*args, db=None, input=None):
        return runner.invoke(
            cli, ["--db", db or db_path, *args], input=input, catch_exceptions=False
        )

    run.db = db_path  # type: ignore[attr-defined]  # the ledger it writes, for a test's own reads
    return run


@pytest.fixture
def toy_campaign(toy_system, invoke, tmp_path, frozen):
    """A toy campaign with two characters: ann (brawl 2) and bob (sneak 1)."""
    assert invoke("new", "toybox", "--system", "toy").exit_code == 0
    for name, skills in (("Ann Vance", "brawl = 2"), ("Bob Marsh", "sneak = 1")):
        sheet = tmp_path / f"{name.split()[0]}.toml"
        sheet.write_text(f'name = "{name}"\n[skills]\n{skills}\n')
        result = invoke("character", "add", "--sheet", str(sheet))
        assert result.exit_code == 0, result.output
    return invoke


@pytest.fixture(scope="session")
def bundled_root(tmp_path_factory):
    """The folder of the bundled campaigns built once for the run (``NAME.db`` each; see
    tests/bundled.py): read-only to tests, which take copies with :func:`bundled`."""
    from .bundled import built_campaigns

    return built_campaigns(tmp_path_factory)


@pytest.fixture
def bundled(bundled_root, tmp_path):
    """``bundled(name, to=None)``: a copy of bundled campaign ``name`` (built at 2026-03-01
    19:00 UTC with the golden randomness) at ``to`` (default ``TMP/NAME.db``), mode 0600;
    returns its path. Opening a copy needs no build: the run built each campaign once."""
    from pathlib import Path

    from .bundled import copy_built

    def copy(name: str, to: str | Path | None = None) -> Path:
        return copy_built(bundled_root, name, Path(to) if to else tmp_path / f"{name}.db")

    return copy


@pytest.fixture
def frozen():
    """The clock stopped at 2026-03-01 19:00 UTC (ticking, so times still increase)."""
    from freezegun import freeze_time

    with freeze_time("2026-03-01 19:00:00", tick=True) as clock:
        yield clock


# --- the store backends (tests/test_conformance.py runs every check against each) ---------

POSTGRES_DEFAULT = "postgresql://postgres@127.0.0.1:5432/test"


def _postgres_url() -> tuple[str | None, str]:
    """The PostgreSQL server the suite's PostgreSQL half uses, or why there is none.

    ``CAMPAIGN_TEST_POSTGRES=postgresql://...`` names it (then it must be reachable: a CI that
    asks for PostgreSQL fails rather than skips); ``CAMPAIGN_TEST_POSTGRES=off`` turns the half
    off; unset, a server at 127.0.0.1:5432 (database ``test``, user ``postgres``, trust auth)
    is used when it answers within a second.
    """
    import os
    import socket

    asked = os.environ.get("CAMPAIGN_TEST_POSTGRES", "")
    if asked.lower() in {"off", "0", "no"}:
        return None, "CAMPAIGN_TEST_POSTGRES=off"
    url = asked or POSTGRES_DEFAULT
    if not asked:
        try:
            socket.create_connection(("127.0.0.1", 5432), timeout=1).close()
        except OSError:
            return None, (
                "no PostgreSQL server at 127.0.0.1:5432: set CAMPAIGN_TEST_POSTGRES="
                "postgresql://USER@HOST:PORT/DB to run the PostgreSQL half"
            )
    import psycopg

    try:
        psycopg.connect(url, connect_timeout=5).close()
    except psycopg.Error as e:
        reason = f"cannot connect to {url}: {' '.join(str(e).split())}"
        if asked:
            pytest.fail(f"CAMPAIGN_TEST_POSTGRES is set but {reason}")
        return None, reason + " (set CAMPAIGN_TEST_POSTGRES to another server)"
    return url, ""


def worker_id() -> str:
    """This pytest-xdist worker's name (``gw0``, ``gw1``...), or ``main`` without xdist."""
    import os

    return os.environ.get("PYTEST_XDIST_WORKER", "main")


def _worker_database(url: str, testrun: str) -> tuple[str, str | None]:
    """A database of this xdist worker's own on the server of ``url`` (created empty; the
    caller drops it), and its name; ``url`` itself and ``None`` without xdist or when the
    user may not create databases (each test still gets a fresh schema).

    Databases this helper left behind by a run that died (``<db>_gwN_<run>``, nobody
    connected) are dropped first; a live run's are in use and stay.
    """
    from urllib.parse import urlsplit, urlunsplit

    import psycopg

    worker = worker_id()
    if worker == "main":
        return url, None
    parts = urlsplit(url)
    base = parts.path.lstrip("/") or "postgres"
    name = f"{base}_{worker}_{testrun}"
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            stale = conn.execute(
                "select datname from pg_database where datname like %s and datname <> %s",
                (f"{base}\\_{worker}\\_%", name),
            ).fetchall()
            for (old,) in stale:
                try:
                    conn.execute(f'drop database if exists "{old}"')
                except psycopg.Error:
                    pass  # in use: another run's, alive
            conn.execute(f'drop database if exists "{name}"')
            conn.execute(f'create database "{name}"')
    except psycopg.Error:
        return url, None
    return urlunsplit(parts._replace(path=f"/{name}")), name


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The URL of the test PostgreSQL server (skips with the reason when there is none):
    under pytest-xdist a database of the worker's own, created empty at the start and
    dropped at the end, so workers never meet."""
    url, reason = _postgres_url()
    if url is None:
        pytest.skip(f"PostgreSQL half skipped: {reason}")
    import os

    testrun = os.environ.get("PYTEST_XDIST_TESTRUNUID", "")[:8] or str(os.getpid())
    own, name = _worker_database(url, testrun)
    import psycopg

    # a connection held to the worker's database for the whole run marks it in use, so
    # another run's clean-up of databases left by dead runs passes it over
    keeper = psycopg.connect(own, autocommit=True) if name is not None else None
    try:
        yield own
    finally:
        if keeper is not None:
            keeper.close()
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute(f'drop database if exists "{name}" with (force)')


@pytest.fixture
def postgres_url(postgres_server):
    """A ``postgresql://`` URL whose ``search_path`` is a fresh schema of this test's own,
    dropped afterwards (other suites may share the server at the same time)."""
    import uuid

    import psycopg

    schema = f"t_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        conn.execute(f"create schema {schema}")
    sep = "&" if "?" in postgres_server else "?"
    try:
        yield f"{postgres_server}{sep}options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(postgres_server, autocommit=True) as conn:
            conn.execute(f"drop schema {schema} cascade")


@pytest.fixture(params=["sqlite", "postgres"])
def store_target(request, tmp_path):
    """What ``--db`` names for each backend: a fresh SQLite file, or a URL of a fresh schema."""
    if request.param == "sqlite":
        return str(tmp_path / "ledger.db")
    return request.getfixturevalue("postgres_url")


@pytest.fixture(scope="session")
def chromium():
    """Debian's Chromium through Playwright (a browser download cannot work here), one per
    worker for the whole run. Playwright's sync API keeps an asyncio loop running in the
    main thread while it is open: a test that runs a loop of its own does so in a thread
    (``tests.webtools.apart``)."""
    from playwright.sync_api import sync_playwright

    from .test_web_browser import CHROMIUM

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def browser(chromium):
    """The worker's Chromium for one test: the contexts (and the pages) the test opened are
    closed after it, so no cookie, cache, service worker or open live log passes to the
    next test. The browser tests skip without Chromium (``tests/test_web_browser.py``'s
    ``CHROMIUM``)."""
    before = set(chromium.contexts)
    yield chromium
    for context in chromium.contexts:
        if context not in before:
            context.close()


@pytest.fixture(scope="module")
def phone_context(chromium):
    """A phone's browser context (390 × 844, touch, downloads) for one test file: its module
    pages and the phones of its scenes share it, each scene meeting its tables at ports of
    their own (other origins: nothing an earlier page stored is seen there)."""
    from .test_web_browser import PHONE

    context = chromium.new_context(viewport=PHONE, is_mobile=True, accept_downloads=True)
    yield context
    context.close()


@pytest.fixture
def phone_browser(phone_context):
    """:func:`phone_context` for one test: the pages and routes it opened are closed after
    it."""
    from .webtools import for_one_test

    with for_one_test(phone_context):
        yield phone_context


@pytest.fixture
def shots(tmp_path):
    """Where a browser test puts its screenshots: docs/img/ with ``LEDGER_SCREENSHOTS=1``
    (to refresh the docs' pictures), else a temporary folder (a test run never changes the
    tree)."""
    import os
    from pathlib import Path

    if os.environ.get("LEDGER_SCREENSHOTS"):
        return Path(__file__).resolve().parents[1] / "docs" / "img"
    out = tmp_path / "shots"
    out.mkdir()
    return out


@pytest.fixture
def ledgers(postgres_server: str) -> Iterator[list[str]]:
    """Four fresh schemas on the PostgreSQL server: the league's and three tables'."""
    import uuid

    import psycopg

    schemas = [f"t_{uuid.uuid4().hex[:16]}" for _ in range(4)]
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        for s in schemas:
            conn.execute(f"create schema {s}")
    sep = "&" if "?" in postgres_server else "?"
    yield [f"{postgres_server}{sep}options=-csearch_path%3D{s}" for s in schemas]
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        for s in schemas:
            conn.execute(f"drop schema {s} cascade")
