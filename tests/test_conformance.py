"""One conformance suite for every :class:`~ledger.store.base.EventStore` backend.

Each test runs twice, through ``store_target`` (tests/conftest.py): against a fresh SQLite file
and against a fresh schema of a PostgreSQL server (``CAMPAIGN_TEST_POSTGRES``, or the server at
127.0.0.1:5432 when it answers; the PostgreSQL half skips with the reason otherwise).

What every backend must do: the chain's bytes exactly as
:mod:`ledger.chain` makes them; gap-free per-campaign ``seq``; expected versions; all-or-nothing
batches; append-only enforced by the database; reads by seq range, stream, session, type and
actor; secrets; snapshots as a cache; several processes appending at once losing and
duplicating nothing; a writer killed mid-batch leaving its batch whole or absent; any changed
byte found by ``verify`` at the first bad seq.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import sqlite3
import time
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec
import pytest
from click.testing import CliRunner

from ledger.campaign.aggregate import Campaign, open_campaign
from ledger.cli import cli
from ledger.events import NoteAdded
from ledger.history.verify import verify_store
from ledger.store.base import (
    ConflictError,
    EventStore,
    Pending,
    StoreError,
    is_url,
)
from ledger.store.opening import open_store
from ledger.testing.contracts import EventStoreContract

ROOT = Path(__file__).resolve().parents[1]
AT = "2026-03-01T19:00:00.000000Z"


def note(text: str, character: str | None = None) -> Pending:
    return Pending(NoteAdded(text=text, character=character))


def append(store: EventStore, campaign: str, *items: Pending, **kw: Any) -> list[tuple]:
    kw.setdefault("session", None)
    return store.append(campaign, list(items), actor="gm", recorded_at=AT, **kw)


def raw(target: str, sql: str, args: tuple = ()) -> list[tuple]:
    """Run SQL on the backend's database directly, as a forger with access to it would."""
    if is_url(target):
        import psycopg

        with psycopg.connect(target, autocommit=True) as conn:
            cur = conn.execute(sql.replace("?", "%s"), args)
            return cur.fetchall() if cur.description else []
    conn = sqlite3.connect(target, isolation_level=None)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


def refused_error(target: str) -> type[Exception]:
    if is_url(target):
        import psycopg

        return psycopg.Error
    return sqlite3.DatabaseError


@pytest.fixture
def store(store_target):
    s = open_store(store_target)
    yield s
    s.close()



class TestStoreContract(EventStoreContract):
    """The contract ledger.testing ships, on both backends (SQLite, a fresh PostgreSQL schema)."""

    @pytest.fixture
    def store_factory(self, store_target):
        return lambda: open_store(store_target)


def test_data_is_stored_byte_for_byte_and_verifies(store):
    hostile = 'é \u0000 \\ "quoted" %s %d \U0001f3b2 \u2028'
    Campaign.create(store, "c", system="decision-dice", actor="gm", at=AT)
    append(store, "c", note(hostile, "ann"))
    ((data,),) = list(store.rows("c", after=1, columns=["data"]))
    assert data == msgspec.json.encode(
        {"character": "ann", "text": hostile, "type": "note.added"}, order="sorted"
    ).decode()
    assert verify_store(store, "c").ok


# --- store behaviour -------------------------------------------------------------------------


def test_protocol_and_migrations(store_target):
    from ledger.store import postgres as pgstore
    from ledger.store import sqlite as sqlite_store

    s = open_store(store_target)
    assert isinstance(s, EventStore)
    names = pgstore.MIGRATION_NAMES if is_url(store_target) else sqlite_store.MIGRATION_NAMES
    assert s.migrations() == list(names)
    s.close()
    again = open_store(store_target)  # re-opening applies nothing twice
    assert again.migrations() == list(names)
    assert again.integrity() == ["ok"]
    again.close()


@pytest.mark.parametrize("sql", ["update events set data = '{}'", "delete from events"])
def test_the_database_refuses_update_and_delete(store_target, store, sql):
    append(store, "c", note("a"))
    with pytest.raises(refused_error(store_target), match="append-only"):
        raw(store_target, sql)
    assert [e.data for e in store.rows("c")] == ['{"character":null,"text":"a","type":"note.added"}']


# --- the whole engine on each backend ---------------------------------------------------------


def test_the_readme_tour_runs_and_verifies(store_target, tmp_path):
    """The README's tour on each backend: same answers, the chain and every roll verify."""
    runner = CliRunner()

    def run(*args: str) -> str:
        result = runner.invoke(cli, ["--db", store_target, *args], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.output

    sheets = ROOT / "campaigns" / "grand-casebook" / "characters"
    run("new", "casebook", "--system", "wyrd-engine")
    run("character", "add", "--sheet", str(sheets / "julian.toml"))
    run("character", "add", "--sheet", str(sheets / "felix.toml"))
    run("session", "start")
    assert "success (margin 2)" in run(
        "roll", "julian", "investigate", "--dr", "good", "--dice", "++-0"
    )
    roll = json.loads(run("roll", "julian", "notice", "--dr", "fair", "--json"))
    assert roll["source"] == "engine" and roll["nonce"] == 0
    run("damage", "felix", "2")
    run("scene", "end")
    run("session", "end")
    verified = run("verify")  # session end's 10 events, then Julian's and Felix's chronicles
    assert "OK: 12 events, 1 engine rolls verified, 2 roll results re-derived" in verified
    assert "1 signed checkpoint holds (size 10)" in verified
    sheet = json.loads(run("sheet", "felix", "--as-of", "7", "--json"))
    assert sheet["stress"]["marked"] == 2
    store = open_store(store_target)
    camp = open_campaign(store)
    with_snapshots = camp.states()
    store.drop_snapshots(camp.id)
    assert open_campaign(store).states() == with_snapshots  # snapshots change no answer
    assert store.secret_rows(camp.id) != []  # the downtime seed, until advancement
    store.close()


# --- several processes at once ------------------------------------------------------------------


def processes() -> Any:
    """A multiprocessing context whose processes are forked from a server process that has
    imported this module once (``forkserver``): each writer is a process of its own with
    its own connection to the store, and none pays for importing the engine again."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload([__name__])
    return ctx


def conformance_writer(target: str, writer: int, count: int, go: str, out: str) -> None:
    """One writer process: ``count`` notes in batches of 1-9 to campaign ``a`` (the shared
    stream, expected versions, retrying on conflict) and to campaign ``b`` (its own stream);
    writes what it was told to ``out``."""
    rng = random.Random(writer)
    store = open_store(target)
    shared = open_campaign(store, "a")
    report: dict[str, list] = {"a": [], "b": [], "conflicts": []}
    while not os.path.exists(go):
        time.sleep(0.001)
    done = 0
    while done < count:
        size = min(count - done, rng.randint(1, 9))
        texts = [f"w{writer}:{done + i}" for i in range(size)]
        if rng.random() < 0.5:
            while True:
                version = store.stream_version("a", "campaign")
                time.sleep(rng.random() / 2000)  # think between reading and writing: races
                try:
                    recs = shared.append(
                        [NoteAdded(text=t) for t in texts],
                        actor=f"w{writer}",
                        at=AT,
                        expected_versions={"campaign": version},
                    )
                except ConflictError as e:
                    report["conflicts"].append(str(e))
                    continue
                report["a"].append([texts, [r.seq for r in recs]])
                break
        else:
            rows = store.append(
                "b",
                [Pending(NoteAdded(text=t, character=f"w{writer}")) for t in texts],
                actor=f"w{writer}",
                recorded_at=AT,
                session=None,
            )
            report["b"].append([texts, [e.seq for e in rows]])
        done += size
    Path(out).write_text(json.dumps(report))


def test_several_processes_lose_and_duplicate_nothing(store_target, tmp_path):
    writers, count = 4, 150
    store = open_store(store_target)
    Campaign.create(store, "a", system="decision-dice", actor="gm", at=AT)
    Campaign.create(store, "b", system="decision-dice", actor="gm", at=AT)
    go = tmp_path / "go"
    ctx = processes()
    procs = [
        ctx.Process(
            target=conformance_writer,
            args=(store_target, w, count, str(go), str(tmp_path / f"w{w}.json")),
        )
        for w in range(writers)
    ]
    for proc in procs:
        proc.start()
    time.sleep(0.5)
    go.write_text("go")
    reports = []
    for w, proc in enumerate(procs):
        proc.join(timeout=600)
        assert proc.exitcode == 0, f"writer {w} failed (exit code {proc.exitcode})"
        reports.append(json.loads((tmp_path / f"w{w}.json").read_text()))
    told = {
        t: seq
        for rep in reports
        for c in ("a", "b")
        for texts, seqs in rep[c]
        for t, seq in zip(texts, seqs, strict=True)
    }
    assert len(told) == writers * count
    for campaign in ("a", "b"):
        rows = list(store.rows(campaign, columns="seq, data"))
        assert [r[0] for r in rows] == list(range(1, len(rows) + 1)), "seq is not gap-free"
        texts = Counter(json.loads(r[1]).get("text") for r in rows[1:])
        assert all(n == 1 for n in texts.values()), "an event was written twice"
        for text in texts:
            assert told[text] == next(r[0] for r in rows if json.loads(r[1]).get("text") == text)
        report = verify_store(store, campaign)
        assert report.ok, report.problem
    assert (
        sum(
            len(Counter(json.loads(r[1]).get("text") for r in store.rows(c, columns="seq, data")))
            - 1
            for c in "ab"
        )
        == writers * count
    )
    store.close()


# --- a writer killed mid-batch -----------------------------------------------------------------

BATCH = 300


def crash_writer(target: str, say: Any) -> None:
    """Append batches of :data:`BATCH` notes forever, saying ``begin K``/``commit K`` on the
    pipe ``say``."""
    store = open_store(target)
    k = 0
    while True:
        k += 1
        batch = [note(f"b{k}:{i} " + "x" * 400, f"s{k % 3}") for i in range(BATCH)]
        say.send(f"begin {k}")
        store.append("crash", batch, actor="writer", recorded_at=AT, session=None)
        say.send(f"commit {k}")


@pytest.mark.parametrize("seed", [1, 2])
def test_a_writer_killed_mid_batch_leaves_it_whole_or_absent(store_target, seed):
    rng = random.Random(seed)
    store = open_store(store_target)
    Campaign.create(store, "crash", system="decision-dice", actor="gm", at=AT)
    ctx = processes()
    heard, say = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=crash_writer, args=(store_target, say))
    proc.start()
    say.close()  # the writer's end is the writer's alone: its death ends the pipe
    wanted = rng.randint(2, 4)
    while heard.recv() != f"begin {wanted}":
        pass
    time.sleep(rng.random() * 0.05)
    proc.kill()  # SIGKILL
    said: list[str] = []  # what it said before it died
    while True:
        try:
            said += heard.recv().split()
        except EOFError:
            break
    proc.join()
    heard.close()
    begun = max([wanted] + [int(k) for w, k in zip(said, said[1:], strict=False) if w == "begin"])
    reopened = open_store(store_target)
    head = reopened.head("crash").seq
    assert (head - 1) % BATCH == 0, f"a partial batch: head {head}"
    batches = Counter(
        json.loads(d)["text"].split(":")[0]
        for (d,) in reopened.rows("crash", after=1, columns=["data"])
    )
    assert all(n == BATCH for n in batches.values())
    assert len(batches) in (begun - 1, begun)  # the batch it was in: whole or absent
    assert verify_store(reopened, "crash").ok
    append(reopened, "crash", note("after the crash"))  # the lock died with the writer
    assert reopened.head("crash").seq == head + 1
    reopened.close()
    store.close()


# --- tampering ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "column, value",
    [
        ("data", '{"character":null,"text":"forged","type":"note.added"}'),
        ("actor", "mallory"),
        ("recorded_at", "2026-03-01T19:00:00.000001Z"),
    ],
)
def test_verify_finds_a_changed_byte_at_its_seq(store_target, column, value):
    store = open_store(store_target)
    Campaign.create(store, "t", system="decision-dice", actor="gm", at=AT)
    append(store, "t", *[note(str(i)) for i in range(6)])
    assert verify_store(store, "t").ok
    if is_url(store_target):
        raw(store_target, "alter table events disable trigger events_no_update")
        raw(
            store_target,
            f"update events set {column} = ? where campaign = 't' and seq = 4",
            (value,),
        )
        problems = store.integrity()
        assert any("events_no_update" in p and "disabled" in p for p in problems), problems
        report = verify_store(store, "t")
        assert not report.ok and report.bad_seq == 0  # the missing guard is found first
        raw(store_target, "alter table events enable trigger events_no_update")
    else:
        raw(store_target, "drop trigger events_no_update")
        raw(store_target, f"update events set {column} = ? where seq = 4", (value,))
    report = verify_store(store, "t")
    assert not report.ok and report.bad_seq == 4, (report.bad_seq, report.problem)
    store.close()


# --- PostgreSQL only -------------------------------------------------------------------------


def test_a_store_on_a_pooled_connection(postgres_url):
    """A service lends each request a connection from a psycopg_pool pool: the store uses it
    and leaves it open for the pool; appends from two lent connections chain as one log."""
    from psycopg_pool import ConnectionPool

    from ledger.store.postgres import PostgresStore

    with ConnectionPool(postgres_url, min_size=2, max_size=2, open=True) as pool:
        with pool.connection() as conn:
            store = PostgresStore(conn)
            Campaign.create(store, "pooled", system="decision-dice", actor="gm", at=AT)
            store.close()
            assert not conn.closed
        with pool.connection() as a, pool.connection() as b:
            first = append(PostgresStore(a), "pooled", note("from a"))
            second = append(PostgresStore(b), "pooled", note("from b"))
            assert (first[0].seq, second[0].seq) == (2, 3)
            assert second[0].prev_hash == first[0].hash
            assert verify_store(PostgresStore(a), "pooled").ok


def test_an_application_role_with_insert_and_select_only(postgres_url):
    """The grants docs/postgres.md gives a hosted application: it appends and reads, and the
    database refuses it UPDATE and DELETE on events even without the triggers' help."""
    import uuid

    import psycopg

    store = open_store(postgres_url)
    Campaign.create(store, "granted", system="decision-dice", actor="gm", at=AT)
    store.close()
    role = f"app_{uuid.uuid4().hex[:10]}"
    schema = postgres_url.rsplit("%3D", 1)[1]
    grants = [
        f"create role {role} login",
        f"grant usage on schema {schema} to {role}",
        f"grant select, insert on {schema}.events to {role}",
        f"grant select, insert, delete on {schema}.secrets to {role}",
        f"grant select, insert, update, delete on {schema}.snapshots to {role}",
        f"grant select on {schema}.ledger_migrations to {role}",
        # the Merkle tree, checkpoints and cosignatures: only the frontier is updated
        f"grant select, insert, update on {schema}.merkle_frontier to {role}",
        f"grant select, insert on {schema}.merkle_tiles, {schema}.checkpoints, "
        f"{schema}.cosignatures to {role}",
    ]
    for sql in grants:
        raw(postgres_url, sql)
    try:
        import re

        head, rest = postgres_url.split("://", 1)
        app_url = f"{head}://{role}@{re.sub(r'^[^@/]*@', '', rest)}"
        app = open_store(app_url)
        camp = open_campaign(app, "granted")
        camp.append([NoteAdded(text="by the app")], actor="gm", at=AT)
        assert verify_store(app, "granted").ok
        # the store's connection gives the server's refusal as its own StoreError
        for sql in (
            "update events set actor = 'x'",
            "delete from events",
            "truncate events",
            "alter table events disable trigger events_no_update",
        ):
            with pytest.raises(StoreError) as refused:
                app.conn.execute(sql)
            assert isinstance(refused.value.__cause__, psycopg.errors.InsufficientPrivilege)
        app.close()
    finally:
        raw(postgres_url, f"drop owned by {role}")
        raw(postgres_url, f"drop role {role}")


def _rows_read(node: dict[str, Any]) -> int:
    """Rows a PostgreSQL plan (``explain (analyze, format json)``) read from ``events``."""
    own = node["Actual Rows"] * node["Actual Loops"] if node.get("Relation Name") == "events" else 0
    return own + sum(_rows_read(child) for child in node.get("Plans", []))


def test_an_append_reads_one_entry_per_stream_on_postgres(postgres_url):
    """The expected-version check reads each stream's last version by one index seek: the
    work of an append does not grow with the log (``max(version) ... group by stream`` read
    every event of the streams, a sequential scan of the campaign)."""
    import psycopg

    from ledger.store import postgres as pgstore

    s = open_store(postgres_url)
    for _ in range(3):
        append(s, "c", *[note(str(i), "ann") for i in range(100)], note("x"))
    assert s.stream_version("c", "ann") == 300
    s.close()
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        for sql, args in (
            (pgstore._VERSIONS, ("c", ["ann", "campaign", "nobody"])),
            (pgstore._STREAM_VERSION, ("c", "ann")),
        ):
            ((plan,),) = conn.execute("explain (analyze, format json) " + sql, args).fetchall()
            assert _rows_read(plan[0]["Plan"]) <= 3, plan


def test_the_store_contract_catches_batches_that_interleave(tmp_path):
    """A store that writes a batch one event at a time (a transaction each) fails the
    contract's many-writers check: another writer's events land inside the batch."""
    import time

    class OneAtATime:
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def append(self, campaign: str, batch: list, **kw: Any) -> list:
            rows = []
            for item in batch:
                rows += self.inner.append(campaign, [item], **kw)
                time.sleep(0.002)  # room for another writer
            return rows

        def __getattr__(self, name: str) -> Any:
            return getattr(self.inner, name)

    db = str(tmp_path / "ledger.db")
    with pytest.raises(AssertionError):
        TestStoreContract().test_writers_on_many_threads_and_readers_meanwhile_lose_nothing(
            lambda: OneAtATime(open_store(db))
        )
