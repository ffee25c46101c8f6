"""The contract every store backend runs in its own tests (:class:`EventStoreContract`), the
way eventsourcing ships ``ApplicationRecorderTestCase``: subclass it and give a
``store_factory`` fixture. Needs pytest (a test dependency; the core does not import this
module). :mod:`ledger.testing.contracts` holds the rule systems' contract.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest

from ledger.chain import ZERO_HASH, chain_hash, hash_of
from ledger.errors import ConflictError, StoreError
from ledger.events import NoteAdded
from ledger.store.base import EventStore, Pending, RowStream, StoredEvent
from ledger.testing.tree_contract import TreeContract
from ledger.testing.webhook_contract import WebhookContract

AT = "2026-03-01T19:00:00.000000Z"


def note(text: str, character: str | None = None) -> Pending:
    """A ``note.added`` to append (the contract's plain event)."""
    return Pending(NoteAdded(text=text, character=character))


def append(store: EventStore, campaign: str, *items: Pending, **kw: Any) -> list[StoredEvent]:
    """``store.append`` of ``items`` by the GM at :data:`AT` (``session`` default ``None``)."""
    kw.setdefault("session", None)
    return store.append(campaign, list(items), actor="gm", recorded_at=AT, **kw)


class EventStoreContract(TreeContract, WebhookContract):
    """The checks every store backend passes; subclass it as ``Test...`` in a backend's
    tests, the way eventsourcing ships ``ApplicationRecorderTestCase``::

        class TestMyStore(EventStoreContract):
            @pytest.fixture
            def store_factory(self, tmp_path):
                return lambda: MyStore(tmp_path / "ledger.db")  # a store on one empty database

    ``store_factory()`` opens a new store (its own connection) on the same database each
    call; the contract closes what it opens. The checks: the chain's bytes are
    :mod:`ledger.chain`'s; payloads stored byte for byte; seqs, versions and campaigns apart;
    an expected-version conflict names both versions and writes nothing; a batch is all or
    nothing; reads by seq range (``after`` = greater than, ``upto`` = up to), stream, session,
    type and actor, newest first; reads by a stream's version range with a ``limit`` (what
    eventsourcing's recorder cases check, tests/test_eventsourcing_recorder.py); paged reads;
    secrets; snapshots as a cache; access links, API tokens and the public address; webhooks (:class:`WebhookContract`); and many threads writing while others read, two batches
    never interleaving.
    """

    @pytest.fixture
    def store(self, store_factory: Any) -> Iterator[EventStore]:
        s = store_factory()
        yield s
        s.close()

    def test_access_links_and_api_tokens_keep_hashes_and_revoke_by_name(
        self, store: EventStore
    ) -> None:
        """The access part of the store (what the web view and the API sign in with): a
        link or token keeps only its hash, its role or scope and characters, campaigns
        apart; revoking by name ignores case, counts what it revoked, and twice is none."""
        append(store, "c", note("a"))
        append(store, "d", note("b"))
        later = "2026-03-01T20:00:00.000000Z"
        first = store.add_access("c", "Dana", "player", ["isa"], "h1", AT)
        second = store.add_access("c", "gm", "gm", [], "h2", AT)
        store.add_access("d", "Dana", "player", [], "h3", AT)
        assert first != second
        links = store.access_rows("c")
        assert [(r["id"], r["who"], r["role"], r["token_hash"]) for r in links] == [
            (first, "Dana", "player", "h1"),
            (second, "gm", "gm", "h2"),
        ]
        assert msgspec.json.decode(links[0]["characters"]) == ["isa"]
        assert [r["revoked_at"] for r in links] == [None, None]
        assert store.revoke_access("c", "DANA", later) == 1
        assert store.revoke_access("c", "dana", later) == 0  # nothing live is left
        assert [r["revoked_at"] for r in store.access_rows("c")] == [later, None]
        assert store.access_rows("d")[0]["revoked_at"] is None  # another campaign's stays

        token = store.add_api_token("c", "Olu", "roll", ["bram"], "t1", AT)
        rows = store.api_token_rows("c")
        assert [(r["id"], r["who"], r["scope"], r["token_hash"]) for r in rows] == [
            (token, "Olu", "roll", "t1")
        ]
        assert store.revoke_api_token("c", "olu", later) == 1
        assert store.revoke_api_token("c", "olu", later) == 0
        assert store.api_token_rows("c")[0]["revoked_at"] == later
        assert store.api_token_rows("d") == []

        assert (store.public_url("c"), store.serve_port("c")) == (None, None)
        store.set_public_url("c", "http://127.0.0.1:8765", AT, port=8765)
        store.set_public_url("c", "https://table.example.org", later)  # the port stays
        assert (store.public_url("c"), store.serve_port("c")) == ("https://table.example.org", 8765)
        assert store.public_url("d") is None

    def test_chain_bytes_are_the_chain_modules(self, store: EventStore) -> None:
        rows = append(store, "c", note("a"), note("b", "ann"))
        first, second = rows
        assert all(isinstance(r, StoredEvent) for r in rows)
        s1, prev1, h1 = first.seq, first.prev_hash, first.hash
        assert (s1, second.seq) == (1, 2) and prev1 == ZERO_HASH and second.prev_hash == h1
        canonical = (
            b'{"actor":"gm","campaign":"c","data":{"character":null,"text":"a","type":"note.added"},'
            b'"prev_hash":"'
            + ZERO_HASH.encode()
            + b'","recorded_at":"'
            + AT.encode()
            + b'","seq":1,'
            b'"session":null,"stream":"campaign","type":"note.added","version":1,"visibility":"public"}'
        )
        assert h1 == hashlib.sha256(bytes.fromhex(ZERO_HASH) + canonical).hexdigest()
        assert h1 == chain_hash(ZERO_HASH, canonical) == hash_of(first)
        assert second.hash == hash_of(second)
        assert list(store.rows("c")) == rows  # stored as returned

    def test_data_is_stored_byte_for_byte(self, store: EventStore) -> None:
        hostile = 'é \u0000 \\ "quoted" %s %d \U0001f3b2 \u2028'
        append(store, "c", note(hostile, "ann"))
        ((data,),) = list(store.rows("c", columns=["data"]))
        assert (
            data
            == msgspec.json.encode(
                {"character": "ann", "text": hostile, "type": "note.added"}, order="sorted"
            ).decode()
        )

    def test_seq_versions_and_campaigns_are_separate(self, store: EventStore) -> None:
        append(store, "c", note("a"), note("b", "ann"), note("c", "ann"))
        rows = append(store, "d", note("x"))
        assert rows[0].seq == 1 and rows[0].prev_hash == ZERO_HASH  # own seq and chain
        assert store.stream_version("c", "ann") == 2
        assert store.stream_version("c", "campaign") == 1
        assert store.stream_version("c", "nobody") == 0
        assert store.head("c").seq == 3
        assert store.head("none").seq == 0 and store.head("none").hash == ZERO_HASH
        assert store.campaign_ids() == ["c", "d"]

    def test_expected_version_conflict_names_both_and_writes_nothing(
        self, store: EventStore
    ) -> None:
        append(store, "c", note("a", "ann"))
        with pytest.raises(ConflictError, match="version 1, not the expected version 0"):
            append(store, "c", note("b", "ann"), note("c"), expected_versions={"ann": 0})
        assert store.head("c").seq == 1
        with pytest.raises(
            ConflictError, match="'bob' is at version 0, not the expected version 3"
        ):
            append(store, "c", note("b", "ann"), expected_versions={"ann": 1, "bob": 3})
        assert store.head("c").seq == 1
        append(store, "c", note("b", "ann"), expected_versions={"ann": 1, "bob": 0})
        assert store.head("c").seq == 2

    def test_batch_is_all_or_nothing(self, store: EventStore) -> None:
        append(store, "c", note("a"))

        class Boom(NoteAdded, frozen=True, kw_only=True, tag="boom.added"):
            bad: object = object()

        with pytest.raises(TypeError):
            append(store, "c", note("b"), Pending(Boom(text="x")))
        with pytest.raises(RuntimeError), store.transaction():
            append(store, "c", note("b"), note("c"))
            raise RuntimeError("the caller fails after the append")
        assert store.head("c").seq == 1
        assert [e.seq for e in store.rows("c")] == [1]
        assert store.rollbacks >= 1

    def test_reads_by_range_stream_session_type_and_actor(self, store: EventStore) -> None:
        append(store, "c", note("a"), note("b", "ann"), session=1)
        store.append(
            "c",
            [note("c", "bob")],
            actor="pat",
            recorded_at="2026-03-02T19:00:00.000000Z",
            session=2,
        )
        append(store, "c", note("d", "ann"), session=2)
        assert [e.seq for e in store.rows("c", stream="ann")] == [2, 4]
        assert [e.seq for e in store.rows("c", after=1, upto=3)] == [2, 3]
        assert [e.seq for e in store.rows("c", streams=["bob", "campaign"])] == [1, 3]
        assert [e.seq for e in store.rows("c", session=2)] == [3, 4]
        assert [e.seq for e in store.rows("c", actor="pat")] == [3]
        assert [e.seq for e in store.rows("c", types=["note.added"], descending=True)] == [
            4,
            3,
            2,
            1,
        ]
        assert [e.seq for e in store.rows("c", types=["session.started"])] == []
        # several types at once, with the type column (Campaign.append's one read)
        assert list(
            store.rows("c", types=["session.started", "note.added"], after=2, columns="seq, type")
        ) == [(3, "note.added"), (4, "note.added")]
        assert list(store.rows("c", upto=2, columns="seq, stream")) == [(1, "campaign"), (2, "ann")]
        narrow = store.rows("c", upto=2)
        assert isinstance(narrow, RowStream) and not narrow.started
        assert list(narrow.narrow(["stream", None, "seq"])) == [
            ("campaign", None, 1),
            ("ann", None, 2),
        ]
        with pytest.raises(RuntimeError, match="already being read"):
            narrow.narrow(["seq"])
        full = list(store.rows("c", upto=1))
        assert [type(e) for e in full] == [StoredEvent] and full[0].visibility == "public"
        with pytest.raises(StoreError, match="unknown event columns"):
            store.rows("c", columns="seq, 1; drop table events")
        last = store.last_of_types("c", ["note.added"])
        assert last is not None and last.seq == 4 and last.actor == "gm"
        assert store.last_of_types("c", ["nothing"]) is None

        assert [at for (at,) in store.rows("c", columns="recorded_at")][2:] == [
            "2026-03-02T19:00:00.000000Z"
        ] * 2
        assert store.last_seq_at("c", "2026-03-01T23:00:00.000000Z") == 2
        assert store.last_seq_at("c", "2026-03-02T19:00:00.000000Z") == 4  # one index seek
        assert store.last_seq_at("c", "2026-03-01T18:59:59.999999Z") == 0
        head = store.head("c")
        assert store.seq_of_hash("c", head.hash) == 4 and store.seq_of_hash("d", head.hash) is None

    def test_reads_by_version_range_and_limit(self, store: EventStore) -> None:
        """What an event-sourced aggregate reads of itself (eventsourcing's
        ``select_events(gt, lte, desc, limit)``): one stream's versions after one and up to
        another, oldest or newest first, at most ``limit``; ``limit`` on any read."""
        append(store, "c", *[note(f"a{v}", "ann") for v in range(1, 6)], note("b1", "bob"))
        append(store, "c", note("a6", "ann"), note("c1"))

        def versions(**kw: Any) -> list[int]:
            return [e.version for e in store.rows("c", stream="ann", **kw)]

        assert versions() == [1, 2, 3, 4, 5, 6]
        assert versions(version_after=2, version_upto=4) == [3, 4]
        assert versions(version_upto=4, descending=True, limit=1) == [4]  # the last before 5
        assert versions(descending=True, limit=1) == [6]  # the latest (a snapshot's start)
        assert versions(version_after=6) == [] and versions(limit=0) == []
        assert versions(version_after=1, limit=2) == [2, 3]
        assert [e.seq for e in store.rows("c", limit=3)] == [1, 2, 3]
        assert [e.seq for e in store.rows("c", after=5, descending=True, limit=2)] == [8, 7]
        assert [s for (s,) in store.rows("c", types=["note.added"], limit=2, columns="seq")] == [
            1,
            2,
        ]
        assert [e.stream for e in store.rows("c", version_upto=1)] == ["ann", "bob", "campaign"]
        for bad in (-1, 1.5, "2"):
            with pytest.raises(StoreError, match="limit must be a whole number"):
                store.rows("c", limit=bad)  # type: ignore[arg-type]

    def test_a_limit_ends_a_paged_read(self, store: EventStore) -> None:
        append(store, "c", *[note(str(i)) for i in range(6_000)])
        assert [e.seq for e in store.rows("c", limit=5_500)] == list(range(1, 5_501))
        assert [e.seq for e in store.rows("c", descending=True, limit=5_001)][-1] == 1_000

    def test_paged_reads_stream_every_row_once(self, store: EventStore) -> None:
        append(store, "c", *[note(str(i), f"s{i % 3}") for i in range(12_345)])
        seqs = [seq for (seq,) in store.rows("c", columns=["seq"])]
        assert seqs == list(range(1, 12_346))
        assert [e.seq for e in store.rows("c", descending=True, after=10, upto=12_000)] == list(
            range(12_000, 10, -1)
        )
        assert sum(1 for _ in store.rows("c", stream="s1")) == 4115

    def test_secrets(self, store: EventStore) -> None:
        store.put_secret("c", 1, b"\x01" * 32)
        store.put_secret("c", 1, b"\x02" * 32, "downtime")
        assert store.get_secret("c", 1) == b"\x01" * 32
        assert store.get_secret("c", 1, "downtime") == b"\x02" * 32
        rows = store.secret_rows("c")
        assert [(r["kind"], r["seed"]) for r in rows] == [  # by kind, then session
            ("downtime", "02" * 32),
            ("session", "01" * 32),
        ]
        assert list(rows[0]) == ["campaign", "session", "kind", "seed"]
        store.drop_secret("c", 1)
        assert store.get_secret("c", 1) is None
        with store.transaction():
            store.restore_secrets(
                [{"campaign": "e", "session": 3, "kind": "session", "seed": "ab"}]
            )
        assert store.get_secret("e", 3) == b"\xab"
        with pytest.raises(StoreError, match="unknown fields: evil"), store.transaction():
            store.restore_secrets([{"campaign": "e", "session": 4, "evil": 1}])

    def test_snapshots_are_a_cache(self, store: EventStore) -> None:
        store.save_snapshot("c", "ann", 10, True, b"s10", basis="b", digest="d10")
        store.save_snapshot("c", "ann", 20, True, b"s20", basis="b", digest="d20")
        store.save_snapshot("c", "ann", 12, True, b"x12", basis="other", digest="x")
        store.save_snapshot("c", "ann", 10, True, b"t10", basis="b", digest="e10")  # replaces
        assert store.load_snapshot("c", "ann", 15, True, basis="b") == (10, b"t10", "e10")
        assert store.load_snapshot("c", "ann", 15, True, basis="b", after=11) is None
        assert store.load_snapshot("c", "ann", 15, False, basis="b") is None
        assert [r[:3] for r in store.snapshot_rows("c")] == [
            ("ann", 1, 10),
            ("ann", 1, 12),
            ("ann", 1, 20),
        ]
        with store.transaction():
            store.drop_snapshot("c", "ann", 10, True, "b")
        assert store.load_snapshot("c", "ann", 15, True, basis="b") is None
        assert store.drop_snapshots("c") == 2

    def test_writers_on_many_threads_and_readers_meanwhile_lose_nothing(
        self, store_factory: Any
    ) -> None:
        """Eight threads, each with its own store, append 25 batches of 1 to 4 events to one
        campaign while four threads read it: every batch is stored once, at consecutive seqs
        (two batches never interleave), and a reader never sees a gap or a torn batch."""
        import threading

        writers, batches = 8, 25
        setup = store_factory()
        append(setup, "c", note("start"))
        setup.close()
        done = threading.Event()
        written: list[tuple[int, list[int]]] = []
        problems: list[str] = []
        lock = threading.Lock()

        def write(w: int) -> None:
            s = store_factory()
            try:
                for b in range(batches):
                    size = 1 + (w + b) % 4
                    rows = append(s, "c", *[note(f"{w}.{b}.{i}", f"w{w}") for i in range(size)])
                    with lock:
                        written.append((w, [e.seq for e in rows]))
            except Exception as e:  # noqa: BLE001 (reported, not raised in a thread)
                problems.append(f"writer {w}: {type(e).__name__}: {e}")
            finally:
                s.close()

        def read() -> None:
            s = store_factory()
            try:
                while not done.is_set():
                    seqs = [seq for (seq,) in s.rows("c", columns=["seq"])]
                    if seqs != list(range(1, len(seqs) + 1)):
                        problems.append(f"a reader saw a gap: {seqs[-5:]}")
                        return
                    texts = [data for (data,) in s.rows("c", columns=["data"])][1:]
                    batches_seen: dict[str, int] = {}
                    for data in texts:
                        key = msgspec.json.decode(data)["text"].rsplit(".", 1)[0]
                        batches_seen[key] = batches_seen.get(key, 0) + 1
                    for key, count in batches_seen.items():
                        w, b = map(int, key.split("."))
                        if count != 1 + (w + b) % 4:
                            problems.append(f"a reader saw batch {key} torn ({count} events)")
                            return
            finally:
                s.close()

        threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
        readers = [threading.Thread(target=read) for _ in range(4)]
        for t in readers + threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        done.set()
        for t in readers:
            t.join(timeout=30)
        assert problems == []
        assert len(written) == writers * batches
        for _, seqs in written:  # each batch at consecutive seqs: nothing interleaved
            assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
        every = sorted(s for _, seqs in written for s in seqs)
        assert every == list(range(2, 2 + len(every)))  # once each, no gap
        check = store_factory()
        try:
            assert check.head("c").seq == 1 + len(every)
            rows = list(check.rows("c"))
            prev = ZERO_HASH
            for stored in rows:  # one chain through every batch
                assert stored.prev_hash == prev and hash_of(stored) == stored.hash
                prev = stored.hash
        finally:
            check.close()
