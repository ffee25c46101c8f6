"""``campaign serve`` on a shared network: bind before issuing links, a cap on
connections, deadlines for slow request heads, one log line instead of a flood, a Host
allowlist, the public address kept for ``campaign access add``, and ``--replace``.

Every socket here is on 127.0.0.1 and closed at the end of its test.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import re
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
import uvicorn

from ledger.store.opening import open_store
from ledger.web import access

from .webtools import AT, d20_table, free_port

HALF_HEAD = b"GET /log HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow"


@pytest.fixture
def table(tmp_path):
    return d20_table(str(tmp_path / "ledger.db"))


@pytest.fixture
def no_serving(monkeypatch):
    """``campaign serve`` returns instead of serving: each run is recorded as
    ``(uvicorn config, sockets)`` and its sockets closed."""
    runs: list[tuple[Any, list[socket.socket]]] = []

    def run(self: Any, sockets: list[socket.socket] | None = None) -> None:
        runs.append((self.config, list(sockets or [])))
        self.started = True
        for sock in sockets or []:
            sock.close()

    monkeypatch.setattr(uvicorn.Server, "run", run)
    return runs


def closed_by_server(sock: socket.socket, wait: float = 10.0) -> bool:
    """Does the server close ``sock`` (end of stream or reset) within ``wait`` seconds,
    sending nothing?"""
    sock.settimeout(wait)
    try:
        return sock.recv(1024) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def half_sent(port: int) -> socket.socket:
    """A connection that sent part of a request head and stops there."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(HALF_HEAD)
    return sock


def read_response(sock: socket.socket) -> bytes:
    """One whole HTTP response with a Content-Length (head and body)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(re.search(rb"(?i)content-length: (\d+)", head).group(1))  # type: ignore[union-attr]
    while len(body) < length:
        chunk = sock.recv(65536)
        assert chunk
        body += chunk
    return head + b"\r\n\r\n" + body


def wait_until(check: Any, what: str) -> None:
    """Poll ``check`` until it is true; 60 s only bound a hang."""
    deadline = time.monotonic() + 60
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"never: {what}")
        time.sleep(0.01)


@contextlib.contextmanager
def guarded(app: Any, **kwargs: Any) -> Iterator[tuple[Any, int]]:
    """``campaign serve``'s server (:class:`ledger.web.server.GuardedServer`) around ``app``
    on a free loopback port, in a thread; yields it and its port."""
    from ledger.web import server as webserver

    kwargs.setdefault("hosts", {"127.0.0.1"})
    kwargs.setdefault("max_connections", 64)
    sockets = webserver.bind("127.0.0.1", 0)
    port = sockets[0].getsockname()[1]
    srv = webserver.GuardedServer(app, **kwargs)
    thread = threading.Thread(target=srv.run_on, args=(sockets,), daemon=True)
    thread.start()
    wait_until(lambda: srv.started, "the server started")
    try:
        yield srv, port
    finally:
        srv.should_exit = True
        thread.join(timeout=10)


class Captured(logging.Handler):
    """The records one logger emits while attached (``with Captured("uvicorn.error") as c``)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.logger = logging.getLogger(name)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def __enter__(self) -> Captured:
        self.logger.addHandler(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        self.logger.removeHandler(self)


async def busy_app(scope: Any, receive: Any, send: Any) -> None:
    """An ASGI app whose every response starts and never ends (as a live log does)."""
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"streaming", "more_body": True})
    while (await receive())["type"] != "http.disconnect":
        pass


# --- slowloris: 1,100 half-sent requests under a limit of 1,024 open files ----------------------


@contextlib.contextmanager
def campaign_serve(
    db: str, errors: Any, *args: str, preexec_fn: Any = None
) -> Iterator[tuple[str, str, subprocess.Popen[bytes]]]:
    """`campaign --db DB serve --port FREE ARGS` in its own process, its stderr to the file
    ``errors``; yields the base URL it serves at, what it printed before serving and the
    process. Stopped (SIGTERM) at the end, if it still runs."""
    code = "from ledger.cli import cli; cli()"
    port = str(free_port())
    with open(errors, "wb") as err:
        server = subprocess.Popen(
            [sys.executable, "-c", code, "--db", db, "serve", "--port", port, *args],
            stdout=subprocess.PIPE,
            stderr=err,
            preexec_fn=preexec_fn,
        )
    try:
        assert server.stdout is not None
        printed = ""
        while "Serving" not in printed:
            line = server.stdout.readline().decode()
            assert line, printed
            printed += line
        yield f"http://127.0.0.1:{port}", printed, server
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        if server.stdout is not None:
            server.stdout.close()


def test_a_players_page_answers_during_1100_half_sent_requests(table, tmp_path):
    """The case to survive: `campaign serve` in its own process under `ulimit -n 1024`, 1,100
    connections on 127.0.0.1 each holding a half-sent request head. A player's page still
    answers, and stderr says so once: no "Too many open files" traceback."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1400:
        pytest.skip(f"this test opens 1,100 sockets: the open-file limit is {hard}")
    errors = tmp_path / "stderr.txt"

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))

    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1400), hard))
    attack: list[socket.socket] = []
    try:
        with campaign_serve(table.db, errors, preexec_fn=limited) as (base, printed, _):
            token = re.search(r"Dana: \S+/a/(\S+)", printed).group(1)  # type: ignore[union-attr]
            port = int(base.rsplit(":", 1)[1])
            with httpx2.Client(base_url=base, timeout=10) as dana:
                assert dana.get(f"/a/{token}").status_code == 200
                cookies = dana.cookies
            for _ in range(1100):
                attack.append(half_sent(port))
            # the half-sent requests never finish: a server they held would answer never,
            # so the generous timeout only bounds that hang
            with httpx2.Client(base_url=base, timeout=60, cookies=cookies) as phone:
                page = phone.get("/log")
            assert page.status_code == 200 and "Lockpicking" in page.text
            assert closed_by_server(attack[0]), "the oldest half-sent request holds its slot"
    finally:
        for sock in attack:
            sock.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    lines = errors.read_text().splitlines()
    assert "Traceback" not in "\n".join(lines) and "Too many open files" not in "\n".join(lines)
    shed = [line for line in lines if "connections open, the cap" in line]
    assert len(shed) == 1 and len(lines) == 1, lines


def read_until(sock: socket.socket, body: bytes, wanted: bytes) -> bytes:
    """``body`` and what ``sock`` sends next, until it holds ``wanted`` (the socket's
    timeout only bounds a hang; the end of the stream first fails)."""
    while wanted not in body:
        chunk = sock.recv(4096)
        assert chunk, body[-300:]
        body += chunk
    return body


@contextlib.contextmanager
def following_the_log(port: int, token: str) -> Iterator[tuple[socket.socket, bytes]]:
    """A phone signed in by the link ``token`` with its live log (``/events``) open on a
    raw connection to the server at ``port``; yields the socket and the stream's start."""
    with httpx2.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as phone:
        assert phone.get(f"/a/{token}").status_code == 200
        cookie = phone.cookies["ledger_session"]
    with socket.create_connection(("127.0.0.1", port), timeout=20) as stream:
        stream.sendall(
            b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Cookie: ledger_session=" + cookie.encode() + b"\r\n\r\n"
        )
        yield stream, read_until(stream, b"", b"retry: 1000")


@pytest.mark.parametrize(
    ("stop", "code", "said"),
    [(signal.SIGINT, 0, "Stopped serving {}.\n"), (signal.SIGTERM, -signal.SIGTERM, "")],
    ids=["ctrl-c", "sigterm"],
)
def test_stopping_ends_the_open_logs_at_once_without_a_traceback(table, tmp_path, stop, code, said):
    """The GM presses Ctrl-C (or a service manager sends SIGTERM) while a phone follows the
    log: the phone's stream ends as a whole response (chunked encoding's last chunk, so the
    browser's EventSource asks again later). Ctrl-C says the server stopped and exits 0;
    SIGTERM ends the process as the signal does, saying nothing. No stream is cancelled at
    the graceful deadline with an "Exception in ASGI application" traceback."""
    errors = tmp_path / "stderr.txt"
    with campaign_serve(table.db, errors) as (base, printed, server):
        token = re.search(r"Dana: \S+/a/(\S+)", printed).group(1)  # type: ignore[union-attr]
        with following_the_log(int(base.rsplit(":", 1)[1]), token) as (stream, body):
            server.send_signal(stop)
            while chunk := stream.recv(4096):  # the timeout only bounds a hang
                body += chunk
        assert server.wait(timeout=20) == code
    assert body.startswith(b"HTTP/1.1 200") and b"text/event-stream" in body
    assert body.endswith(b"\r\n0\r\n\r\n"), body[-200:]
    served = re.search(r"Serving (\S+) at", printed).group(1)  # type: ignore[union-attr]
    assert errors.read_text() == said.format(served)


def test_a_connection_the_shutdown_did_not_reach_is_closed_at_its_deadline(table):
    """A connection accepted as the listening sockets closed is not asked to close by
    uvicorn's shutdown: it is closed once the graceful deadline passes, not left open to be
    collected (a ResourceWarning) after the server's event loop is gone."""
    from ledger.web.app import create_app

    with guarded(create_app(table.db)) as (srv, port):
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        wait_until(lambda: len(srv.server_state.connections) == 1, "the connection is made")
        (connection,) = srv.server_state.connections
        connection.shutdown = lambda: None  # as if it came in after the others were asked
    try:
        assert not srv.server_state.connections
        assert closed_by_server(sock)
    finally:
        sock.close()


def test_an_app_served_again_after_a_shutdown_streams_again(table):
    """The streams a shutdown ended are that server's: the same app served again keeps a
    new stream open and sends it the next roll."""
    from ledger.web.app import create_app

    app = create_app(table.db, poll_interval=0.05)
    token = table.link("Dana")
    for _ in range(2):
        with guarded(app) as (_srv, port), following_the_log(port, token) as (stream, body):
            table.ok("roll", "isa", "Lockpicking", "--time", "--dice", "9")
            read_until(stream, body, b"event: entry")


def test_campaign_serve_answers_only_the_hosts_it_printed(table, tmp_path):
    with campaign_serve(table.db, tmp_path / "stderr.txt") as (base, printed, _):
        assert f"Serving vault at {base} " in printed
        with httpx2.Client(base_url=base, timeout=10) as h:
            r = h.get("/", headers={"host": "rebound.evil.example"})
            assert r.status_code == 400 and "vault" not in r.text
            assert h.get("/").status_code == 403  # the login hint: served
            assert h.get("/", headers={"host": "localhost"}).status_code == 403


# --- the cap and the deadlines, in process -------------------------------------------------------


def test_past_the_cap_the_longest_waiting_unfinished_request_makes_room(table):
    from ledger.web.app import create_app

    with guarded(create_app(table.db), max_connections=8) as (srv, port):
        waiting = [half_sent(port) for _ in range(8)]
        try:
            wait_until(lambda: len(srv.guard.waiting) == 8, "8 connections wait")
            with Captured("uvicorn.error") as log:
                r = httpx2.get(f"http://127.0.0.1:{port}/", timeout=10)  # closed after
                assert r.status_code == 403 and "Open the link" in r.text
                assert closed_by_server(waiting[0], wait=5)
                wait_until(lambda: srv.guard.open == 7, "the page's connection is closed")
                waiting += [half_sent(port), half_sent(port)]  # the second one sheds the next
                assert closed_by_server(waiting[1], wait=5)
            wait_until(lambda: len(srv.guard.waiting) == 8, "the newcomers wait")
            assert srv.guard.open == 8
            assert [rec.levelno for rec in log.records] == [logging.WARNING]  # once, not twice
            assert not closed_by_server(waiting[-1], wait=0.2)  # the youngest still waits
        finally:
            for sock in waiting:
                sock.close()


def test_with_every_connection_busy_a_newcomer_is_refused_and_logged_once():
    with guarded(busy_app, max_connections=8) as (srv, port):
        streams = []
        try:
            for _ in range(8):
                sock = socket.create_connection(("127.0.0.1", port), timeout=10)
                sock.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                assert b"200" in sock.recv(1024)
                streams.append(sock)
            assert srv.guard.open == 8 and not srv.guard.waiting
            with Captured("uvicorn.error") as log:
                for _ in range(3):
                    late = socket.create_connection(("127.0.0.1", port), timeout=10)
                    late.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                    assert closed_by_server(late)
                    late.close()
            assert len(log.records) == 1 and srv.guard.shed == 3
            assert not closed_by_server(streams[0], wait=0.2)  # the live ones go on
        finally:
            for sock in streams:
                sock.close()


def test_a_request_not_whole_within_the_deadline_is_closed(table):
    """uvicorn has no header-read timeout: a half-sent head, a silent connection and a
    keep-alive connection that starts a second request and stalls are all closed."""
    from ledger.web.app import create_app

    with guarded(create_app(table.db), header_timeout=0.3, keep_alive=30) as (srv, port):
        slow = half_sent(port)
        silent = socket.create_connection(("127.0.0.1", port), timeout=10)
        again = socket.create_connection(("127.0.0.1", port), timeout=10)
        try:
            again.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert read_response(again).startswith(b"HTTP/1.1 403")
            again.sendall(HALF_HEAD)
            assert closed_by_server(slow)
            assert closed_by_server(silent)
            assert closed_by_server(again)
            wait_until(lambda: srv.guard.open == 0, "every slot is free again")
            assert not srv.guard.waiting
        finally:
            for sock in (slow, silent, again):
                sock.close()


def test_out_of_files_sheds_the_longest_waiting_or_refuses_without_a_traceback():
    """``accept()`` failing with EMFILE: a waiting connection is shed and accepting goes on
    (no pause, no traceback); with none waiting, the newcomer is accepted on the spare file
    and closed."""
    from ledger.web import server as webserver

    class OutOfFiles(webserver.GuardedSocket):
        failures = 0

        def _accept(self) -> Any:
            if self.failures:
                self.failures -= 1
                raise OSError(errno.EMFILE, "Too many open files")
            return super()._accept()  # type: ignore[misc]

    class Waiting:
        evicted = False

        def evict(self) -> None:
            self.evicted = True
            guard.waiting.pop(self)

    guard = webserver.Guard(8)
    (plain,) = webserver.bind("127.0.0.1", 0)
    listener = OutOfFiles.wrap(plain, guard)
    try:
        with Captured("uvicorn.error") as log:
            oldest = Waiting()
            guard.waiting[oldest] = None
            listener.failures = 1
            with pytest.raises(BlockingIOError):
                listener.accept()
            assert oldest.evicted
            newcomer = socket.create_connection(listener.getsockname(), timeout=10)
            listener.failures = 1
            spare = listener.spare
            with pytest.raises(ConnectionAbortedError):
                listener.accept()
            assert closed_by_server(newcomer) and listener.spare is not None
            newcomer.close()
        assert spare is not None and len(log.records) == 1 and guard.shed == 2
    finally:
        listener.close()


def test_the_guard_logs_at_most_once_a_minute():
    from ledger.web import server as webserver

    now = [100.0]
    guard = webserver.Guard(8, clock=lambda: now[0])
    with Captured("uvicorn.error") as log:
        for _ in range(1000):
            guard.overloaded()
        now[0] += 59
        guard.overloaded()
        now[0] += 1
        guard.overloaded()
    assert len(log.records) == 2 and "1002 so far" in log.records[1].getMessage()


def test_a_slot_is_given_back_once_even_for_a_socket_closed_without_a_word():
    from ledger.web import server as webserver

    guard = webserver.Guard(8)
    assert guard.admit(40) and guard.admit(41) and guard.open == 2
    guard.slots[40].release()
    guard.slots[40].release()
    assert guard.open == 1
    assert guard.admit(41) and guard.open == 1  # 41 again: its old socket is gone


def test_the_connection_cap_fits_the_open_file_limit(monkeypatch):
    from ledger.web import server as webserver

    monkeypatch.setattr(resource, "getrlimit", lambda which: (1024, 4096))
    assert webserver.connection_limit(256) == 256
    assert webserver.connection_limit(5000) == (1024 - webserver.FD_RESERVE) // 2
    monkeypatch.setattr(resource, "getrlimit", lambda which: (64, 64))
    assert webserver.connection_limit(256) == 8


# --- the Host allowlist -------------------------------------------------------------------------


def test_only_the_hosts_the_server_printed_are_served(table):
    """A page elsewhere that points its name at this machine (DNS rebinding) reaches
    nothing: only the printed hosts, --url's, loopback names and the address the
    connection arrived at are served."""
    from ledger.web.app import create_app

    with guarded(create_app(table.db), hosts={"laptop", "table.example.org"}) as (_srv, port):
        with httpx2.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as h:
            for host in ("evil.example", "laptop.evil.example", "127.0.0.2", "", "a b"):
                r = h.get("/", headers={"host": host})
                assert r.status_code == 400, host
                assert "answers only at the addresses it printed" in r.text
                assert "vault" not in r.text and "content-security-policy" in r.headers
            for host in (
                "laptop",
                "LAPTOP:8000",
                "table.example.org",
                "localhost:1",
                f"127.0.0.1:{port}",
                "[::1]:8000",
                "table.example.org.",
            ):
                r = h.get("/", headers={"host": host})
                assert r.status_code == 403 and "Open the link" in r.text, host


def test_the_allowlist_takes_the_address_a_connection_arrived_at():
    from ledger.web.server import HostAllowlist

    allow = HostAllowlist(busy_app, {"laptop"})

    def scope(host: bytes, server: tuple[str, int] | None) -> dict[str, Any]:
        return {"type": "http", "headers": [(b"host", host)], "server": server}

    assert allow.allows(scope(b"192.168.1.5:8000", ("192.168.1.5", 8000)))
    assert allow.allows(scope(b"[fe80::1]:8000", ("fe80::1", 8000)))
    assert not allow.allows(scope(b"192.168.1.5:8000", ("10.0.0.7", 8000)))
    assert not allow.allows(scope(b"192.168.1.5", None))
    assert not allow.allows(scope(b"evil.example:8000", ("192.168.1.5", 8000)))
    assert not allow.allows({"type": "http", "headers": [], "server": ("127.0.0.1", 80)})
    two = [(b"host", b"laptop"), (b"host", b"evil.example")]
    assert not allow.allows({"type": "http", "headers": two, "server": ("127.0.0.1", 80)})


def test_serve_allows_the_hosts_it_prints_and_its_url(table, no_serving, monkeypatch):
    from ledger.web.server import HostAllowlist

    monkeypatch.setattr(socket, "gethostname", lambda: "Laptop")
    out = table("serve", "--port", "0")
    assert out.exit_code == 0, out.output
    ((config, _sockets),) = no_serving
    assert isinstance(config.app, HostAllowlist)
    assert config.app.hosts == {"127.0.0.1", "localhost", "::1"}
    out = table("serve", "--port", "0", "--url", "https://Table.Example.org")
    assert out.exit_code == 0, out.output
    assert no_serving[-1][0].app.hosts == {"127.0.0.1", "localhost", "::1", "table.example.org"}
    assert "players open https://Table.Example.org" in out.output


# --- bind first, then issue links ---------------------------------------------------------------


def test_a_busy_port_fails_in_one_line_before_any_link_is_issued(table, no_serving):
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    port = busy.getsockname()[1]
    try:
        out = table("serve", "--port", str(port))
        assert out.exit_code == 1, out.output
        assert out.output.strip().splitlines() == [
            f"Error: port {port} on 127.0.0.1 is in use (another `campaign serve`?): stop that "
            "server, or pick another --port"
        ]
        assert "No links yet" in table.ok("access", "list")
        assert no_serving == []
    finally:
        busy.close()
    out = table("serve", "--port", str(port))  # the retry issues every link, once
    assert out.exit_code == 0, out.output
    assert [line.split(":")[0] for line in out.output.splitlines() if "/a/" in line] == [
        "GM",
        "Dana",
        "Olu",
    ]
    assert f"Serving vault at http://127.0.0.1:{port}" in out.output


def test_serve_prints_links_and_warns_off_loopback(table, no_serving, monkeypatch):
    """--host 0.0.0.0 (bound here on 127.0.0.1: no test listens beyond loopback)."""
    from ledger.web import server as webserver

    real_bind = webserver.bind
    monkeypatch.setattr(webserver, "bind", lambda host, port: real_bind("127.0.0.1", port))
    monkeypatch.setattr(socket, "gethostname", lambda: "laptop")
    out = table("serve", "--host", "0.0.0.0", "--port", "0")
    assert out.exit_code == 0, out.output
    assert re.search(r"^GM: http://laptop:\d+/a/", out.output, re.M)
    assert "Dana: http://laptop:" in out.output and "Olu: http://laptop:" in out.output
    assert "the links are the only key" in out.output
    assert no_serving[-1][0].app.hosts >= {"laptop"}
    again = table("serve", "--port", "0")
    assert "Dana: link issued" in again.output and "/a/" not in again.output
    assert "access add Dana --replace" in again.output
    assert "only key" not in again.output


@pytest.mark.parametrize(
    "url",
    [
        "ftp://table.example.org",
        "table.example.org",
        "http://",
        "http://h:99999",
        "https://table.example.org/ledger",
        "http://h?x=1",
        "http://user@h",
    ],
)
def test_a_bad_url_is_a_usage_error_and_nothing_is_issued(table, no_serving, url):
    for args in (("serve", "--port", "0", "--url", url), ("access", "add", "Kim", "--url", url)):
        out = table(*args)
        assert out.exit_code == 2, out.output
        assert "--url" in out.output and "/a/" not in out.output
        assert len(out.output.strip().splitlines()) == 1, out.output
    assert "No links yet" in table.ok("access", "list") and no_serving == []


# --- the public address, kept -------------------------------------------------------------------


def test_access_add_prints_links_at_the_address_serve_last_used(table, no_serving):
    assert table.ok("access", "add", "Kim").startswith("Kim: http://127.0.0.1:8000/a/")
    port = str(free_port())
    assert port != "8000"
    out = table.ok("serve", "--port", port)
    assert f"Serving vault at http://127.0.0.1:{port} " in out
    out = table.ok("access", "add", "Zed")
    assert out.startswith(f"Zed: http://127.0.0.1:{port}/a/")
    table.ok("serve", "--port", "0", "--url", "https://table.example.org/")
    out = table.ok("access", "add", "Yan", "--json")
    assert '"link":"https://table.example.org/a/' in out
    out = table.ok("access", "add", "Xia", "--url", "http://192.168.1.5:8765")
    assert out.startswith("Xia: http://192.168.1.5:8765/a/")  # given: used, not kept
    assert table.ok("access", "add", "Wu").startswith("Wu: https://table.example.org/a/")


def test_the_public_url_is_kept_per_campaign_by_both_backends(store_target):
    store = open_store(store_target)
    try:
        assert "m009_public_url" in store.migrations()
        assert store.public_url("vault") is None
        store.set_public_url("vault", "http://127.0.0.1:8765", AT)
        store.set_public_url("other", "https://other.example.org", AT)
        store.set_public_url("vault", "https://table.example.org", AT)
        assert store.public_url("vault") == "https://table.example.org"
        assert store.public_url("other") == "https://other.example.org"
    finally:
        store.close()


# --- one link per person ------------------------------------------------------------------------


def test_access_add_refuses_to_replace_a_live_link_unless_asked(table):
    first = table.ok("access", "add", "Kim")
    token = first.split("/a/")[1].split()[0]
    again = table("access", "add", "kim")
    assert again.exit_code == 1
    assert again.output.strip().splitlines() == [
        "Error: Kim already has a live link: `campaign access add Kim --replace` issues a new "
        "one and stops the old"
    ]
    store = open_store(table.db)
    try:
        assert access.find(store, "vault", token) is not None  # the old link still works
        assert [a.who for a in access.live(store, "vault")] == ["Kim"]
    finally:
        store.close()
    out = table.ok("access", "add", "kim", "--replace", "--json")
    new_token = out.split("/a/")[1].split('"')[0]
    store = open_store(table.db)
    try:
        assert access.find(store, "vault", token) is None
        assert access.find(store, "vault", new_token) is not None
    finally:
        store.close()
    assert table("access", "add", "gm").exit_code == 0
    assert table("access", "add", "GM").exit_code == 1
