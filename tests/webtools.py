"""Helpers for the web view's tests: a d20-world table, a logged-in client, a live
server on a free loopback port."""

from __future__ import annotations

import contextlib
import os
import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result
from starlette.testclient import TestClient

from ledger.campaign.aggregate import open_campaign
from ledger.cli import cli
from ledger.store.opening import open_store
from ledger.web import access
from ledger.web.app import Server
from ledger.web.sessions import csrf_of

ROOT = Path(__file__).resolve().parent.parent
THE_WORLD = ROOT / "campaigns" / "the-world"
AT = "2026-03-01T19:00:00.000000Z"
#: how long a browser test waits for what it expects (a DOM change, an SSE frame) before it
#: calls it a hang, in ms: generous, so a loaded machine is slow but never fails; how fast
#: the pages are is measured by bench/serve.py, never asserted by a test
PATIENCE = 60_000


class Table:
    """A ledger (a SQLite file or a ``postgresql://`` URL) and the ``campaign`` command."""

    def __init__(self, db: str) -> None:
        self.db = db
        self.runner = CliRunner()

    def __call__(self, *args: str) -> Result:
        return self.runner.invoke(cli, ["--db", self.db, *args])

    def ok(self, *args: str) -> str:
        result = self(*args)
        assert result.exit_code == 0, result.output
        return result.output

    def link(self, who: str, *characters: str) -> str:
        """A new access token for ``who`` (replacing a live one)."""
        store = open_store(self.db)
        try:
            campaign = open_campaign(store)
            return access.grant(store, campaign, who, characters, at=AT, replace=True)[1]
        finally:
            store.close()

    def head(self) -> int:
        store = open_store(self.db)
        try:
            return store.head(open_campaign(store).id).seq
        finally:
            store.close()


def d20_table(db: str) -> Table:
    """The Warden's Vault: Isa (played by Dana) and Bram (played by Olu), session 1 open,
    one public physical roll."""
    t = Table(db)
    t.ok("new", "vault", "--system", "d20-world")
    for name in ("isa", "bram"):
        t.ok("character", "add", "--sheet", str(THE_WORLD / "characters" / f"{name}.toml"))
    t.ok("session", "start")
    t.ok("roll", "isa", "Lockpicking", "--time", "--dice", "12")
    return t


def toy_table(db: str) -> Table:
    """The toy rules' toybox (a SQLite file ``db``): Ann Vance (brawl 2, her sheet written
    next to it), session 1 open."""
    t = Table(db)
    t.ok("new", "toybox", "--system", "toy")
    sheet = Path(db).parent / "ann.toml"
    sheet.write_text('name = "Ann Vance"\n[skills]\nbrawl = 2\n')
    t.ok("character", "add", "--sheet", str(sheet))
    t.ok("session", "start")
    return t


def client(t: Table, who: str | None = None, *, server: Server | None = None) -> TestClient:
    """A test client of a new server over ``t`` (logged in as ``who`` when given; enter it
    with ``with``)."""
    server = server or Server(t.db)
    c = TestClient(server.app, base_url="http://testserver", follow_redirects=False)
    c.server = server  # type: ignore[attr-defined]
    if who is not None:
        login(c, t.link(who))
    return c


def login(c: TestClient, token: str) -> None:
    r = c.get(f"/a/{token}")
    assert r.status_code == 200, r.text
    assert "ledger_session" in c.cookies


def csrf(c: TestClient) -> str:
    """The CSRF token of the client's session (derived from its cookie)."""
    return csrf_of(c.cookies["ledger_session"])


def nonce(c: TestClient, path: str) -> str | None:
    """The one-time nonce of a fresh copy of the form at ``path`` (``None``: no such form)."""
    found = re.search(r'name="nonce" value="([^"]+)"', c.get(path).text)
    return found.group(1) if found else None


def post(c: TestClient, path: str, data: dict[str, str], **headers: str) -> Any:
    """A same-origin form POST with the session's CSRF token and a fresh form nonce (unless
    ``data`` has them), as a browser sends the form it just loaded."""
    data = {"csrf": csrf(c), **data}
    if "nonce" not in data and path.startswith("/roll/"):
        fresh = nonce(c, path)
        if fresh is not None:
            data["nonce"] = fresh
    return c.post(path, data=data, headers={"origin": "http://testserver", **headers})


#: under pytest-xdist each worker takes its servers' ports from a range of its own (below
#: the system's ephemeral range, where ``bind(0)`` hands out ports), so two workers never
#: pick the same free port between one's probe and its server's bind
PORTS_PER_WORKER = 400
FIRST_WORKER_PORT = 20_000
_next_port = 0


def free_port() -> int:
    """A loopback TCP port free now: from this xdist worker's own range (``gwN`` takes
    ``20000 + 400·N`` onwards, in turn), or one the system hands out without xdist.

    :raises RuntimeError: every port of the worker's range is taken.
    """
    global _next_port
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw"):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return int(s.getsockname()[1])
    first = FIRST_WORKER_PORT + PORTS_PER_WORKER * int(worker[2:])
    for _ in range(PORTS_PER_WORKER):
        port = first + _next_port % PORTS_PER_WORKER
        _next_port += 1
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {first}..{first + PORTS_PER_WORKER - 1}")


@contextlib.contextmanager
def serving(app: Any, port: int | None = None) -> Iterator[str]:
    """An ASGI ``app`` served by uvicorn on a free loopback port (or ``port``) in a thread,
    until the block ends; yields its base URL once the server has started. Its live
    streams end as it shuts down, as ``campaign serve``'s do."""
    import uvicorn

    from ledger.web.server import StreamEndingServer

    port = port or free_port()
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", timeout_graceful_shutdown=1
    )
    server = StreamEndingServer(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + PATIENCE / 1000
    while not server.started:
        assert thread.is_alive(), f"the server on port {port} stopped before it started"
        assert time.monotonic() < deadline, f"the server on port {port} did not start"
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@contextlib.contextmanager
def live_server(db: str, *, port: int | None = None, **kwargs: Any) -> Iterator[str]:
    """``campaign serve``'s app on a free loopback port (or ``port``: a server served again
    at the same origin, whose pages' IndexedDB it shares) in a thread; yields its base URL."""
    from ledger.web.app import create_app

    with serving(create_app(db, **kwargs), port) as base:
        yield base


def apart(call: Any, *args: Any) -> Any:
    """``call(*args)`` in a thread of its own, its result or its exception: the worker's
    browser (``conftest.browser``, Playwright's sync API) keeps an asyncio loop running in the
    main thread for the whole run, so ``asyncio.run`` (the live-log hub's tests, the table
    shell's prompt) runs where no loop is."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(call, *args).result()


def sse_frames(text: str) -> list[dict[str, str]]:
    """Server-sent event frames as ``{field: value}`` (comments and retry left out)."""
    frames = []
    for block in text.split("\n\n"):
        frame: dict[str, str] = {}
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            key, _, value = line.partition(": ")
            frame[key] = frame.get(key, "") + value
        if "event" in frame or "id" in frame:
            frames.append(frame)
    return frames


def wait_live(page: Any, timeout: float = PATIENCE) -> None:
    """Wait until the page's live-log status says "Live…" (a locator wait: Playwright's
    ``wait_for_function`` compiles a string predicate with ``eval``, which the pages' CSP
    refuses as soon as the first look is false, e.g. on a busy machine)."""
    import re as _re

    page.locator("#status", has_text=_re.compile(r"^Live")).wait_for(timeout=timeout)


def copy_table(db: str, target: Path) -> Table:
    """A :class:`Table` over a copy of the ledger file ``db`` at ``target`` (SQLite's own
    backup: a consistent copy whatever its journal holds; the file's mode kept): a table
    built once for a module, each test's own to change."""
    import sqlite3

    source, copy = sqlite3.connect(db), sqlite3.connect(target)
    try:
        source.backup(copy)
    finally:
        source.close()
        copy.close()
    os.chmod(target, os.stat(db).st_mode & 0o777)
    return Table(str(target))


def signed_in_by_answer(
    context: Any, base: str, token: str, path: str = "/"
) -> tuple[Any, list[str]]:
    """A new page of the browser ``context`` at ``path`` on the server at ``base``, signed in
    with the link ``token`` by the link's answer fetched through the context (it sets the
    same session cookie as opening the link in a page, which tests/test_web_browser.py
    tests), and the list its console errors go to."""
    answer = context.request.get(f"{base}/a/{token}")
    assert answer.status == 200 and "Welcome," in answer.text(), answer.text()
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(f"{base}{path}")
    return page, errors


@contextlib.contextmanager
def for_one_test(context: Any) -> Iterator[Any]:
    """A browser ``context`` shared by a file's tests, lent to one test: the pages and the
    routes the test opened are closed after it."""
    before = set(context.pages)
    try:
        yield context
    finally:
        context.unroute_all(behavior="ignoreErrors")
        for page in context.pages:
            if page not in before:
                page.close()
