"""The database goes away: PostgreSQL connections lost under the store and under
``campaign serve``.

- the store (ledger/store/postgres.py) gives a lost connection as its own error type
  (``StoreUnavailable``: nothing written) and opens a fresh one for its next call; a write
  lost before its commit is rolled back; a commit whose answer was lost is looked up, so
  it counts once; a pool hands out only connections it has checked;
- ``campaign serve`` on PostgreSQL: the server's backends terminated twice while a player
  posts rolls (every acknowledged roll stored once, every post answered, the live log and
  its watcher going on), and a database out of reach for a while (a 503 page, never the
  login hint; the same session and the open live log go on once it is back).

Backends are terminated by ``application_name`` (``pg_terminate_backend``), so only this
test's connections are hit; a TCP relay (:class:`Relay`) plays a database that stops
answering, or whose answer to one ``COMMIT`` is lost on the way.
"""

from __future__ import annotations

import contextlib
import itertools
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx2
import psycopg
import pytest

from ledger.campaign.aggregate import open_campaign
from ledger.errors import CommitUnknown, StoreError, StoreUnavailable
from ledger.events import NoteAdded
from ledger.store.base import Pending
from ledger.store.opening import open_store
from ledger.web.sessions import SessionPolicy

from .webtools import d20_table, live_server, sse_frames
from .webtools import serving as served

AT = "2026-03-01T19:00:00.000000Z"


def named(url: str, name: str) -> str:
    """``url`` whose connections carry ``application_name = name``."""
    return f"{url}{'&' if '?' in url else '?'}application_name={name}"


def terminate(server: str, name: str) -> int:
    """Terminate every backend whose ``application_name`` is ``name`` (waiting up to 5 s for
    each to end); returns how many there were."""
    with psycopg.connect(server, autocommit=True) as conn:
        rows = conn.execute(
            "select pg_terminate_backend(pid, 5000) from pg_stat_activity "
            "where application_name = %s and pid <> pg_backend_pid()",
            (name,),
        ).fetchall()
    return len(rows)


def note(text: str) -> Pending:
    return Pending(NoteAdded(text=text))


def append(store: Any, *items: Pending) -> list[tuple[Any, ...]]:
    return store.append("c", list(items), actor="gm", recorded_at=AT, session=None)


def notes(url: str, text: str, campaign: str | None = "c") -> int:
    """How many stored notes say ``text`` (read on a connection of the test's own), in
    ``campaign`` (``None``: in any)."""
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "select count(*) from events where (campaign = %s or %s::text is null) "
            "and type = 'note.added' and data::jsonb ->> 'text' = %s",
            (campaign, campaign, text),
        ).fetchone()
    assert row is not None
    return int(row[0])


class Relay:
    """A TCP relay from a loopback port to the PostgreSQL server: what a network between
    the ledger and its database can do to it.

    :meth:`down` drops every connection and refuses new ones until :meth:`up`;
    :meth:`lose_next_commit_answer` lets the next ``COMMIT`` through to the server, waits
    for the server's answer, and drops that answer with the client's connection (the commit
    happened; the client cannot know).
    """

    def __init__(self, target: str) -> None:
        parts = urlsplit(target)
        self.target = target
        self.upstream = (parts.hostname or "127.0.0.1", parts.port or 5432)
        self.port = 0
        self._lock = threading.Lock()
        self._pairs: list[tuple[socket.socket, socket.socket]] = []
        self._lose_commit = False
        self._marker = b"commit"
        self._kill: tuple[bool, Any] | None = None  # (after the answer, kill the backend)
        self._listener: socket.socket | None = None
        self.up()

    def url(self) -> str:
        """The target URL, through the relay."""
        parts = urlsplit(self.target)
        user = parts.netloc.rsplit("@", 1)[0] + "@" if "@" in parts.netloc else ""
        return urlunsplit(parts._replace(netloc=f"{user}127.0.0.1:{self.port}"))

    def up(self) -> None:
        listener = socket.create_server(("127.0.0.1", self.port))
        self.port = listener.getsockname()[1]
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def down(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked in accept
            listener.close()
        with self._lock:
            pairs, self._pairs = self._pairs, []
        for pair in pairs:
            for s in pair:
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                s.close()

    def lose_next_commit_answer(self, marker: bytes = b"commit") -> None:
        """Drop the server's answer to the next message that holds ``marker`` (a small
        append outside a transaction commits at its sync, with no ``COMMIT``: pass
        ``b"insert into events"``)."""
        self._marker = marker
        self._lose_commit = True

    def kill_at_next(self, kill: Any, *, after_answer: bool, marker: bytes = b"commit") -> None:
        """Call ``kill()`` (which terminates the backend) at the next message holding
        ``marker``: before the server has it (it is sent after, to a backend gone: never
        done), or once the server has done it and answered, before it says it is ready
        for more (what the backend says as it is terminated follows the answer, and the end
        of the connection reaches the client only once it hangs up)."""
        self._marker = marker
        self._kill = (after_answer, kill)

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.upstream)
            with self._lock:
                self._pairs.append((client, server))
            pair = _Pair()
            threading.Thread(target=self._out, args=(client, server, pair), daemon=True).start()
            threading.Thread(target=self._back, args=(server, client, pair), daemon=True).start()

    def _out(self, client: socket.socket, server: socket.socket, pair: _Pair) -> None:
        with contextlib.suppress(OSError):
            while data := client.recv(65536):
                if self._lose_commit and self._marker in data.lower():
                    self._lose_commit = False
                    pair.lost.set()
                if self._kill is not None and self._marker in data.lower():
                    (after_answer, kill), self._kill = self._kill, None
                    if after_answer:
                        pair.killed = True
                        pair.kill_after = kill
                    else:
                        kill()  # the backend goes before the message reaches it
                with contextlib.suppress(OSError):  # a terminated backend's socket
                    server.sendall(data)
        pair.client_done.set()
        with contextlib.suppress(OSError):
            server.shutdown(socket.SHUT_WR)

    def _back(self, server: socket.socket, client: socket.socket, pair: _Pair) -> None:
        with contextlib.suppress(OSError):
            while data := server.recv(65536):
                if pair.kill_after is not None:  # answered, then terminated before it said
                    kill, pair.kill_after = pair.kill_after, None  # it is ready for more
                    if data[-6:-1] == READY:
                        client.sendall(data[:-6])
                    kill()
                    continue
                if pair.lost.is_set():  # the server answered the COMMIT: the client never hears
                    client.shutdown(socket.SHUT_RDWR)
                    client.close()
                    server.close()
                    return
                client.sendall(data)
        if pair.killed:  # the backend's last words arrived; the end of the connection is
            pair.client_done.wait(timeout=10)  # not seen until the client hangs up
        with contextlib.suppress(OSError):
            client.shutdown(socket.SHUT_WR)


#: The start of PostgreSQL's ReadyForQuery message (then the transaction status byte): the
#: last of the server's answer to a sync.
READY = b"Z\x00\x00\x00\x05"


class _Pair:
    """One relayed connection's state: its answer to drop (``lost``), its backend to
    terminate once answered (``kill_after``; ``killed``: it was given one), and whether the
    client hung up (``client_done``)."""

    def __init__(self) -> None:
        self.lost = threading.Event()
        self.kill_after: Any = None
        self.killed = False
        self.client_done = threading.Event()


@pytest.fixture
def relay(postgres_url: str) -> Iterator[Relay]:
    r = Relay(postgres_url)
    try:
        yield r
    finally:
        r.down()


# --- the store -------------------------------------------------------------------------------


def test_a_lost_connection_is_store_unavailable_and_the_next_call_reconnects(postgres_url):
    name = f"ledger-t-{uuid.uuid4().hex[:12]}"
    store = open_store(named(postgres_url, name))
    try:
        append(store, note("before"))
        assert terminate(postgres_url, name) == 1
        with pytest.raises(StoreUnavailable):
            store.head("c")
        assert store.head("c").seq == 1  # a fresh connection, no restart
        append(store, note("after"))
        assert store.head("c").seq == 2
    finally:
        store.close()


def test_a_write_lost_before_its_commit_is_rolled_back_and_may_be_sent_again(postgres_url):
    name = f"ledger-t-{uuid.uuid4().hex[:12]}"
    store = open_store(named(postgres_url, name))
    try:
        append(store, note("first"))
        with pytest.raises(StoreUnavailable), store.transaction():
            append(store, note("roll"))
            assert terminate(postgres_url, name) == 1
        assert notes(postgres_url, "roll") == 0  # nothing written: safe to send again
        append(store, note("roll"))
        assert notes(postgres_url, "roll") == 1
        assert store.head("c").seq == 2
    finally:
        store.close()


def test_a_commit_whose_answer_was_lost_is_looked_up_and_counts_once(postgres_url, relay):
    """The server commits, the answer never arrives: the store looks the batch up on a
    fresh connection and reports it stored (retrying it blindly would store it twice)."""
    store = open_store(relay.url())
    try:
        append(store, note("first"))
        relay.lose_next_commit_answer()
        with store.transaction():
            rows = append(store, note("once"))
        assert rows[0].seq == 2
        assert notes(postgres_url, "once") == 1
        assert store.head("c").seq == 2 and store.head("c").hash == rows[0].hash
        # a small append alone commits at its pipeline's sync, its answer lost the same way
        relay.lose_next_commit_answer(b"insert into events")
        lost = store.conn.raw
        rows = append(store, note("alone"))
        assert lost.closed and store.conn.raw is not lost  # the answer was lost indeed
        assert rows[0].seq == 3
        assert notes(postgres_url, "alone") == 1
        assert store.head("c").seq == 3 and store.head("c").hash == rows[0].hash
        assert store.tree_frontier("c")[0] == 3
    finally:
        store.close()


def test_a_commit_lost_before_the_server_had_it_is_refused_as_unavailable(postgres_url, relay):
    """The connection drops as the commit is sent: the server rolls the batch back; the store
    looks, finds nothing, and says nothing was written."""
    store = open_store(relay.url())
    try:
        append(store, note("first"))
        with pytest.raises(StoreUnavailable), store.transaction():
            append(store, note("lost"))
            relay.down()
            relay.up()
        assert notes(postgres_url, "lost") == 0
        assert store.head("c").seq == 1
    finally:
        store.close()


def test_a_lost_commit_of_anything_but_events_is_commit_unknown(postgres_url, relay):
    """A write the store cannot look up (a secret, a link) whose commit answer was lost is
    reported as possibly stored, never as safe to send again."""
    store = open_store(relay.url())
    try:
        relay.lose_next_commit_answer()
        with pytest.raises(CommitUnknown), store.transaction():
            store.put_secret("c", 1, b"\x01" * 32)
        assert store.get_secret("c", 1) == b"\x01" * 32  # it was stored after all
    finally:
        store.close()


def test_a_pooled_store_replaces_a_terminated_connection_before_use(postgres_url):
    from ledger.store.postgres import PostgresStore, connection_pool

    name = f"ledger-t-{uuid.uuid4().hex[:12]}"
    pool = connection_pool(postgres_url, application_name=name, max_size=2, timeout=5)
    try:
        store = PostgresStore(pool)
        with store.connected():
            append(store, note("first"))
        assert terminate(postgres_url, name) >= 1  # killed while it sat in the pool
        with store.connected():  # the pool's check threw it away: no error at all
            assert store.head("c").seq == 1
        with pytest.raises(RuntimeError):
            store.head("c")  # a pooled store is used inside connected()
    finally:
        pool.close()


def test_a_lock_not_had_in_time_is_a_store_error(postgres_url):
    from ledger.store.postgres import PostgresStore

    holder = open_store(postgres_url)
    waiter = PostgresStore(postgres_url, lock_timeout=1)
    try:
        append(holder, note("first"))
        with holder.transaction():
            holder.head("c")  # takes the campaign's lock
            with pytest.raises(StoreError) as refused:
                append(waiter, note("second"))
        assert not isinstance(refused.value, (StoreUnavailable, CommitUnknown))
        assert isinstance(refused.value.__cause__, psycopg.errors.LockNotAvailable)
        append(waiter, note("second"))  # the same store goes on
    finally:
        holder.close()
        waiter.close()


# --- campaign serve ---------------------------------------------------------------------------


@contextlib.contextmanager
def serving(db: str, **kwargs: Any) -> Iterator[tuple[str, Any]]:
    """``campaign serve``'s app on a free loopback port in a thread (as
    :func:`tests.webtools.live_server`); yields its base URL and its ``Server``."""
    from ledger.web.app import create_app

    app = create_app(db, **kwargs)
    with served(app) as base:
        yield base, app.state.server


def _csrf(page: str) -> str:
    return page.split('name="csrf" value="')[1].split('"')[0]


def test_serve_survives_its_backends_terminated_twice_while_a_player_posts_rolls(postgres_url):
    """Every post is answered and acknowledged, each acknowledged roll is stored once, and
    the live log (the server's own writes and, through its watcher, another process's)
    goes on; nobody is logged out."""
    table = d20_table(postgres_url)
    gm, dana = table.link("gm"), table.link("Dana")
    name = f"ledger-serve-{uuid.uuid4().hex[:12]}"
    posts = 24
    # the device's write limit would slow 24 quick rolls: lifted for this test
    policy = SessionPolicy(burst=10 * posts)
    with live_server(named(postgres_url, name), poll_interval=0.05, policy=policy) as base:
        with (
            httpx2.Client(base_url=base, timeout=20) as g,
            httpx2.Client(base_url=base, timeout=20) as p,
        ):
            assert g.get(f"/a/{gm}").status_code == 200
            assert p.get(f"/a/{dana}").status_code == 200
            csrf = _csrf(p.get("/roll/isa").text)
            answers: list[tuple[int, str]] = []
            acked = threading.Semaphore(0)

            def player() -> None:
                for i in range(posts):
                    for _ in range(5):  # each form is good for one roll
                        got = p.get("/roll/isa")
                        if got.status_code != 503:  # a page while the backends are away:
                            break  # "try again in a moment", and the player reloads
                    assert got.status_code == 200, (got.status_code, got.text[:200])
                    once = got.text.split('name="nonce" value="')[1].split('"')[0]
                    sent = p.post(
                        "/roll/isa",
                        data={"csrf": csrf, "nonce": once, "skill": "Lockpicking", "time": "on",
                              "dice": str(5 + i % 10)},
                        headers={"origin": base},
                    )  # fmt: skip
                    answers.append((sent.status_code, sent.headers.get("location", "")))
                    acked.release()

            with g.stream("GET", "/events") as stream:
                chunks = stream.iter_text()
                buffer = next(chunks)
                poster = threading.Thread(target=player)
                poster.start()
                killed = []
                for after in (6, 8):  # the 7th post on, and the 15th on, race a kill
                    for _ in range(after):
                        acked.acquire(timeout=60)
                    killed.append(terminate(postgres_url, name))
                poster.join(timeout=120)
                assert not poster.is_alive()
                # another process appends: only the server's watcher can notice it
                table.ok("roll", "bram", "Brawl", "--time", "--dice", "17")
                last = str(table.head())
                for chunk in chunks:
                    buffer += chunk
                    if f"id: {last}\n" in buffer:
                        break
    assert all(k >= 1 for k in killed), killed  # each kill hit live connections
    statuses = [status for status, _ in answers]
    assert statuses == [303] * posts, [(i, a) for i, a in enumerate(answers) if a[0] != 303]
    seqs = [int(location.split("#e")[1]) for _, location in answers]
    assert len(set(seqs)) == posts
    store = open_store(postgres_url)
    try:
        campaign = open_campaign(store)
        stored = [r[0] for r in store.rows(campaign.id, actor="Dana", columns="seq")]
    finally:
        store.close()
    assert sorted(stored) == sorted(seqs)  # each acknowledged roll once, and nothing else
    frames = sse_frames(buffer)
    assert not [f for f in frames if f.get("event") == "revoked"]
    shown = {int(f["id"]) for f in frames if f.get("event") == "entry"}
    assert set(seqs) | {int(last)} <= shown
    table.ok("verify")


def test_a_request_that_lost_the_database_is_tried_three_times_and_a_commit_unknown_once(
    tmp_path, monkeypatch
):
    """A server that ends its connections ends them one by one: the pool's next connection
    may be on its way out too, so work that wrote nothing is tried at once and once more
    after a pause; a write whose outcome is unknown is never tried again."""
    from ledger.web import app as appmod

    pauses: list[float] = []
    monkeypatch.setattr(appmod.time, "sleep", pauses.append)
    server = appmod.Server(d20_table(str(tmp_path / "vault.db")).db)

    def failing(times: int, error: Exception) -> Any:
        calls: list[int] = []

        def work() -> str:
            calls.append(1)
            if len(calls) <= times:
                raise error
            return f"done on try {len(calls)}"

        return work, calls

    lost = StoreUnavailable("the connection to the database was lost: nothing was written")
    work, calls = failing(2, lost)
    assert server.attempt(work) == "done on try 3"
    assert pauses == list(appmod.RETRY_PAUSES) == [0.0, 0.2]
    work, calls = failing(3, lost)
    with pytest.raises(StoreUnavailable):
        server.attempt(work)
    assert len(calls) == 3
    work, calls = failing(1, CommitUnknown("it may or may not be stored"))
    with pytest.raises(CommitUnknown):
        server.attempt(work)
    assert len(calls) == 1


def test_serve_answers_503_while_the_database_is_away_and_logs_nobody_out(postgres_url, relay):
    """A failed look-up of a link is never read as a revoked link: while the database is out
    of reach pages answer 503 and the open live log waits; once it is back, the same
    session works and the live log goes on from where it was."""
    table = d20_table(postgres_url)
    dana = table.link("Dana")
    with serving(relay.url(), poll_interval=0.05, db_wait=1) as (base, server):
        with httpx2.Client(base_url=base, timeout=30) as p:
            assert p.get(f"/a/{dana}").status_code == 200
            with p.stream("GET", "/events") as stream:
                chunks = stream.iter_text()
                buffer = next(chunks)
                relay.down()
                server.hub.wake()  # as on a change: the open stream looks while it is away
                with httpx2.Client(base_url=base, timeout=30, cookies=p.cookies) as q:
                    away = q.get("/log")
                    assert away.status_code == 503, away.text
                    assert "cannot be reached" in away.text
                    assert "Open the link" not in away.text  # not the login hint
                    relay.up()
                    for _ in range(600):  # the pool reconnects in the background (≤ 60 s)
                        back = q.get("/log")
                        if back.status_code != 503:
                            break
                        time.sleep(0.1)
                    assert back.status_code == 200, back.text  # the same session
                table.ok("roll", "bram", "Brawl", "--time", "--dice", "17")
                last = str(table.head())
                for chunk in chunks:
                    buffer += chunk
                    if f"id: {last}\n" in buffer:
                        break
    assert ": waiting for the ledger" in buffer  # the stream looked, and stayed open
    frames = sse_frames(buffer)
    assert not [f for f in frames if f.get("event") == "revoked"]
    assert last in {f.get("id") for f in frames}


# --- a write whose connection is lost: stored, not stored, or unknown -------------------------


def cli_table(db: str) -> Any:
    """A campaign on ``db`` to write notes to (``campaign new``), and the command on it."""
    from click.testing import CliRunner

    from ledger.cli import cli

    runner = CliRunner()

    def run(*args: str) -> Any:
        return runner.invoke(cli, ["--db", db, *args])

    made = run("new", "vault", "--system", "d20-world")
    assert made.exit_code == 0, made.output
    return run


def test_a_note_terminated_after_its_commit_is_confirmed_stored_in_one_line(
    postgres_url, relay, caplog
):
    """The backend is terminated once it has committed, before its answer is read: the CLI
    looks the note up, says it is stored (exit 0) and that it was confirmed after a lost
    connection, in one line on stderr; psycopg's own log lines reach nobody."""
    name = f"ledger-t-{uuid.uuid4().hex[:12]}"
    run = cli_table(named(relay.url(), name))
    relay.kill_at_next(lambda: terminate(postgres_url, name), after_answer=True)
    with caplog.at_level("WARNING", logger="psycopg"):
        result = run("note", "the door is barred")
    assert result.exit_code == 0, result.output
    assert result.stdout == "[2] note: the door is barred\n"
    (line,) = result.stderr.splitlines()
    assert line.startswith("Note: the connection to the database was lost as entry [2]")
    assert "is stored (do not enter it again)" in line
    assert notes(postgres_url, "the door is barred", campaign=None) == 1
    assert not [r for r in caplog.records if r.name.startswith("psycopg")]


def test_a_note_terminated_before_its_commit_is_reported_not_stored_in_one_line(
    postgres_url, relay, caplog
):
    name = f"ledger-t-{uuid.uuid4().hex[:12]}"
    run = cli_table(named(relay.url(), name))
    relay.kill_at_next(lambda: terminate(postgres_url, name), after_answer=False)
    with caplog.at_level("WARNING", logger="psycopg"):
        result = run("note", "the door is barred")
    assert result.exit_code == 1
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("Error: the connection to the database")
    assert "nothing was written; try again" in line
    assert notes(postgres_url, "the door is barred", campaign=None) == 0
    assert not [r for r in caplog.records if r.name.startswith("psycopg")]
    again = run("note", "the door is barred")  # safe to try again: stored once
    assert again.exit_code == 0 and again.stderr == ""
    assert notes(postgres_url, "the door is barred", campaign=None) == 1


class Killer:
    """A second connection that terminates every backend named ``name``
    (``pg_terminate_backend``) at random moments (seeded), until stopped."""

    def __init__(self, server: str, name: str, seed: int, *, gap: float = 0.03) -> None:
        import random

        self.server, self.name, self.gap = server, name, gap
        self.random = random.Random(seed)
        self.stop = threading.Event()
        self.kills = 0
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        with psycopg.connect(self.server, autocommit=True) as conn:
            while not self.stop.wait(self.random.uniform(0, self.gap)):
                self.kills += len(conn.execute(
                    "select pg_terminate_backend(pid) from pg_stat_activity "
                    "where application_name = %s", (self.name,),
                ).fetchall())  # fmt: skip

    def __enter__(self) -> Killer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=10)


def note_with_retries(run: Any, url: str, text: str, outcomes: list[str]) -> None:
    """Enter the note ``text`` as a GM would: until it is stored, trying again only when
    told nothing was written (or, told the outcome is unknown, after looking). Checks every
    answer on the way: one line on stderr, and the note's count what the answer says."""
    for _ in range(50):
        result = run(text)
        lines = result.stderr.splitlines()
        count = notes(url, text, campaign=None)
        if result.exit_code == 0:
            assert result.stdout.endswith(f"note: {text}\n"), result.output
            assert len(lines) <= 1, result.stderr
            if lines:
                assert lines[0].startswith("Note: the connection to the database was lost")
                outcomes.append("confirmed")
            else:
                outcomes.append("stored")
            assert count == 1, (text, result.output)
            return
        assert result.exit_code == 1, result.output
        assert len(lines) == 1, result.stderr  # one line, nothing of psycopg's
        assert lines[0].startswith("Error: "), result.stderr
        if "nothing was written" in lines[0]:
            assert count == 0, (text, result.output)  # refused: it is not there
            outcomes.append("not stored")
            continue
        assert "run `campaign verify` before retrying" in lines[0], result.stderr
        outcomes.append("unknown")
        if count == 1:  # looked: it was stored after all
            return
        assert count == 0
    raise AssertionError(f"{text!r} was never stored in 50 tries: {outcomes[-5:]}, {lines}")


#: How many writes a randomized run makes at least: a few in the normal suite, 200 in the
#: slow one.
RUNS = [30, pytest.param(200, marks=pytest.mark.slow)]


def writes(count: int, outcomes: list[str]) -> Iterator[int]:
    """``0, 1, ...``: at least ``count`` writes, and more until one of them met a terminated
    backend and was told it was not stored (the event the run waits for; how soon it comes
    depends on the machine's speed, never assumed). Bounded only to name a hang."""
    for i in itertools.count():
        if i >= count and "not stored" in outcomes:
            return
        if i >= 50 * count:
            raise AssertionError(f"no write met a terminated backend in {i}: {outcomes[-5:]}")
        yield i


@pytest.mark.parametrize("count", RUNS)
def test_notes_entered_while_backends_are_terminated_are_each_stored_once(
    postgres_url, caplog, count
):
    """Notes by the CLI while a second connection terminates the CLI's backends at random
    moments: every acknowledged note is stored, every refused one absent, none twice after
    retries, every error one line."""
    name = f"ledger-t-{uuid.uuid4().hex[:12]}"
    db = named(postgres_url, name)
    run = cli_table(db)
    outcomes: list[str] = []
    texts: list[str] = []
    with (
        caplog.at_level("WARNING", logger="psycopg"),
        Killer(postgres_url, name, seed=40, gap=0.2) as k,
    ):
        for i in writes(count, outcomes):
            texts.append(f"note number {i}")
            note_with_retries(lambda t: run("note", t), postgres_url, texts[-1], outcomes)
    assert k.kills >= 1, k.kills  # the run did meet terminated backends
    assert "not stored" in outcomes, outcomes
    assert not [r for r in caplog.records if r.name.startswith("psycopg")]
    assert all(notes(postgres_url, t, campaign=None) == 1 for t in texts)
    assert run("verify").exit_code == 0


@pytest.mark.parametrize("count", RUNS)
def test_appends_alone_while_backends_are_terminated_are_each_stored_once(postgres_url, count):
    """The store's small append outside a transaction (one statement, one sync) under the
    same terminations: each append returns its rows (stored), raises StoreUnavailable (not
    stored: tried again) or, when even the look-ups were terminated, CommitUnknown (looked
    at: tried again only when not stored); never a duplicate."""
    name = f"ledger-t-{uuid.uuid4().hex[:12]}"
    open_store(postgres_url).close()  # the tables
    outcomes: list[str] = []
    store = None
    written = 0
    with Killer(postgres_url, name, seed=41, gap=0.15) as k:
        for i in writes(count, outcomes):
            text, written = f"alone {i}", i + 1
            for _ in range(50):
                try:
                    if store is None:
                        store = open_store(named(postgres_url, name))
                    rows = append(store, note(text))
                except StoreUnavailable:
                    assert notes(postgres_url, text) == 0
                    outcomes.append("not stored")
                    continue
                except CommitUnknown:
                    outcomes.append("unknown")
                    if notes(postgres_url, text) == 1:
                        break
                    continue
                assert notes(postgres_url, text) == 1
                with psycopg.connect(postgres_url, autocommit=True) as conn:
                    assert conn.execute(
                        "select hash from events where campaign = 'c' and seq = %s",
                        (rows[0].seq,),
                    ).fetchone() == (rows[0].hash,)  # the rows said are the rows stored
                outcomes.append("stored")
                break
            else:
                raise AssertionError(f"{text} was never stored")
    assert store is not None
    store.close()
    assert k.kills >= 1 and "not stored" in outcomes, (k.kills, outcomes)
    assert outcomes.count("stored") > outcomes.count("unknown"), outcomes
    for i in range(written):
        assert notes(postgres_url, f"alone {i}") == 1
