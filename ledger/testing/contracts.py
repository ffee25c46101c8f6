"""Contracts a rule system and a store backend run in their own tests.

The way eventsourcing ships ``ApplicationRecorderTestCase``: subclass, give what the class
asks for, and pytest runs every check on your code. Needs pytest (a test dependency; the
core does not import this module).

A rule system's contract, in three lines::

    from ledger.testing import RuleSystemContract

    class TestMySystemContract(RuleSystemContract):
        system = MySystem()
        sheet = {"id": "ann", "name": "Ann", "skills": {"climb": 2}}  # passes create_sheet
        # optional: rolls = ["roll ann climb --target 8 --dice 4,5"]; history = [events]

It plays the system's :attr:`~ledger.RuleSystem.example_roll` (or the ``rolls`` you give, in
the same ``roll CHARACTER SKILL --option value --dice FACES`` form, in order) with the book's
dice, and checks:

- every event type is frozen, keyword-only, documented, tagged ``<id>.<name>``, and names
  the section of the rule text it implements (``sections``);
- the system cites its seed and refuses an unknown option;
- ``resolve`` → ``request_of`` → ``rederive`` gives the same event back, from physical and
  from engine dice;
- appliers are pure: applying an event twice to one state gives equal states and leaves
  the state given unchanged;
- ``blind_form`` of a roll is an event of the system (or a :class:`~ledger.RuleError`).
"""

from __future__ import annotations

import hashlib
import inspect
import shlex
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

import msgspec
import pytest

from ledger.chain import ZERO_HASH, chain_hash
from ledger.dice.engine import EngineDice, PhysicalDice, parse_faces
from ledger.errors import ConflictError, RuleError, StoreError
from ledger.events import CORE_EVENT_TYPES, Event, NoteAdded, Roll, event_tag
from ledger.rules.params import pick_params
from ledger.rules.requests import RollRequest
from ledger.rules.system import RuleSystem
from ledger.store.base import EventStore, Pending, RowStream


def parse_roll_line(system: RuleSystem, line: str) -> tuple[str | None, str | None, dict[str, Any]]:
    """``(skill, faces, params)`` of a ``roll CHARACTER [SKILL] [--option value]... [--dice
    FACES]`` line (a trailing ``# comment`` is ignored), params converted by the system's
    :attr:`~ledger.RuleSystem.roll_params` as the CLI converts them.

    :raises ValueError: a line that is not a ``roll`` line.
    :raises ledger.rules.params.ParamError: an option the system does not take, or a bad value.
    """
    words = shlex.split(line, comments=True)
    if len(words) < 2 or words[0] != "roll":
        raise ValueError(f"not a roll line: {line!r}")
    own = {p.name: p for p in system.roll_params}
    skill: str | None = None
    faces: str | None = None
    given: dict[str, Any] = {}
    rest = words[2:]
    i = 0
    while i < len(rest):
        word = rest[i]
        if not word.startswith("--"):
            if skill is not None:
                raise ValueError(f"two skills in {line!r}")
            skill, i = word, i + 1
            continue
        name = word[2:].replace("-", "_")
        if name == "dice":
            faces, i = rest[i + 1], i + 2
            continue
        param = own.get(name)
        if param is not None and param.is_flag:
            given[name], i = True, i + 1
            continue
        value = rest[i + 1]
        if param is not None and param.multiple:
            given[name] = (*given.get(name, ()), value)
        else:
            given[name] = value
        i += 2
    return skill, faces, pick_params(system, "roll_params", given)


class RuleSystemContract:
    """Checks every rule system must pass; subclass it as ``Test...`` in a plugin's tests.

    :cvar system: the rule system (configured with its default options by the contract).
    :cvar sheet: a character sheet as ``campaign character add --sheet`` reads it (``id``,
        ``name`` and ``player`` beside what the system's creation rules accept).
    :cvar rolls: the ``roll ...`` lines to check, played in order on one character (each
        with ``--dice`` faces from the book); default: the system's ``example_roll`` alone.
    :cvar history: events of the character applied before each roll (an objective or a
        Challenge the example roll names).
    """

    system: ClassVar[RuleSystem]
    sheet: ClassVar[dict[str, Any]]
    rolls: ClassVar[Sequence[str]] = ()
    history: ClassVar[Sequence[Event]] = ()

    # -- what the checks share ----------------------------------------------------------

    def configured(self) -> RuleSystem:
        return self.system.configure({})

    def character(self, system: RuleSystem) -> tuple[str, str, Any]:
        """``(id, name, initial state)`` of the contract's sheet."""
        given = {k: v for k, v in self.sheet.items() if k not in ("id", "name", "player")}
        cid = str(self.sheet.get("id", "pc"))
        name = str(self.sheet.get("name", cid))
        state = system.initial_state(cid, name, system.create_sheet(given))
        appliers = system.appliers()
        for event in self.history:
            state = appliers[type(event)](state, event)
        return cid, name, state

    def roll_lines(self) -> list[str]:
        """The rolls to check, in order: ``rolls``, else the system's ``example_roll``."""
        return list(self.rolls) or [line for line in [self.system.example_roll] if line]

    def played(self, system: RuleSystem, *, engine: bool = False) -> list[tuple[str, Any, Roll]]:
        """``(line, state before, event)`` of each roll line in turn, each roll's event
        applied before the next (the book's faces, or engine dice where ``engine``)."""
        cid, name, state = self.character(system)
        appliers = system.appliers()
        out = []
        for nonce, line in enumerate(self.roll_lines()):
            skill, faces, params = parse_roll_line(system, line)
            if engine or faces is None:
                dice: Any = EngineDice(b"\x07" * 32, campaign="contract", session=1, nonce=nonce)
            else:
                dice = PhysicalDice(parse_faces(faces))
            event = system.resolve(state, RollRequest(cid, name, skill, params), dice)
            if isinstance(dice, PhysicalDice):
                dice.finish()
            out.append((line, state, event))
            if type(event) in appliers:
                state = appliers[type(event)](state, event)
        return out

    # -- the checks -----------------------------------------------------------------------

    def test_events_are_frozen_keyword_only_documented_and_namespaced(self) -> None:
        system = self.system
        assert system.event_types, f"{system.id} declares no event types"
        for cls in system.event_types:
            assert issubclass(cls, Event), cls
            assert cls.__struct_config__.frozen, f"{cls.__name__} is not frozen"
            params = inspect.signature(cls).parameters.values()
            assert all(p.kind is p.KEYWORD_ONLY for p in params), f"{cls.__name__}: kw_only"
            assert event_tag(cls).startswith(system.id + "."), event_tag(cls)
            assert cls.__doc__, f"{cls.__name__} needs a docstring"
            assert cls not in CORE_EVENT_TYPES

    def test_every_event_type_names_its_rule_section(self) -> None:
        system = self.system
        tags = {event_tag(t) for t in system.event_types}
        missing = sorted(tags - set(system.sections))
        assert not missing, f"no section in {system.id}.sections for {missing}"
        assert set(system.sections) <= tags, set(system.sections) - tags

    def test_cites_its_book_and_refuses_an_unknown_option(self) -> None:
        system = self.system
        assert system.id and system.name and system.source
        assert isinstance(self.configured().options, system.options_type)
        with pytest.raises(RuleError, match="option"):
            system.configure({"no_such_option_anywhere": 1})

    def test_the_example_roll_resolves_with_the_books_dice(self) -> None:
        assert self.system.example_roll, f"{self.system.id} gives no example_roll"
        system = self.configured()
        for line, _, event in self.played(system):
            assert isinstance(event, Roll), line
            assert event.source == "physical" or parse_roll_line(system, line)[1] is None

    @pytest.mark.parametrize("engine", [False, True], ids=["physical", "engine"])
    def test_resolve_request_of_rederive_round_trip(self, engine: bool) -> None:
        system = self.configured()
        name = str(self.sheet.get("name", ""))
        for line, state, event in self.played(system, engine=engine):
            given, read = parse_roll_line(system, line)[0], system.request_of(event).skill
            assert read is None or (given or "").casefold() == read.casefold(), (line, read)
            again = system.rederive(state, event, name=name)
            assert again == event, f"{line}: re-derived {again!r} != recorded {event!r}"

    def test_appliers_are_pure(self) -> None:
        system = self.configured()
        appliers = system.appliers()
        for line, state, event in self.played(system):
            fn = appliers.get(type(event))
            if fn is None:
                continue
            before = msgspec.json.encode(state)
            once, twice = fn(state, event), fn(state, event)
            assert msgspec.json.encode(state) == before, f"{line}: the applier changed its input"
            assert once == twice, f"{line}: the applier gave two answers for one event"

    def test_time_passing_is_pure_and_gives_the_systems_events(self) -> None:
        """``time_passed`` (#30) answers a span with the system's own events (or the core's),
        the same answer twice, without changing the states it is handed."""
        from ledger.events import TimePassed

        system = self.configured()
        cid, _, state = self.character(system)
        for minutes, rest, care in ((1, False, False), (8 * 60, True, False), (30 * 1440, True, True)):
            span = TimePassed(minutes=minutes, words=f"{minutes}m", rest=rest, care=care)
            before = msgspec.json.encode(state)
            once = system.time_passed({cid: state}, span)
            assert once == system.time_passed({cid: state}, span), "two answers for one span"
            assert msgspec.json.encode(state) == before, "time_passed changed the state"
            for event in once:
                assert type(event) in (*system.event_types, *CORE_EVENT_TYPES), event

    def test_blind_form_of_a_roll_is_an_event_of_the_system(self) -> None:
        system = self.configured()
        own = set(system.event_types)
        for line, _, event in self.played(system):
            try:
                hidden = system.blind_form(event)
            except RuleError:
                continue
            assert type(hidden) in own, f"{line}: blind_form gave a {type(hidden).__name__}"


AT = "2026-03-01T19:00:00.000000Z"


def note(text: str, character: str | None = None) -> Pending:
    """A ``note.added`` to append (the contract's plain event)."""
    return Pending(NoteAdded(text=text, character=character))


def append(store: EventStore, campaign: str, *items: Pending, **kw: Any) -> list[tuple[Any, ...]]:
    """``store.append`` of ``items`` by the GM at :data:`AT` (``session`` default ``None``)."""
    kw.setdefault("session", None)
    return store.append(campaign, list(items), actor="gm", recorded_at=AT, **kw)


class EventStoreContract:
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
    type and actor, newest first; paged reads; secrets; snapshots as a cache; and many threads
    writing while others read, two batches never interleaving.
    """

    @pytest.fixture
    def store(self, store_factory: Any) -> Iterator[EventStore]:
        s = store_factory()
        yield s
        s.close()

    def test_the_store_speaks_the_four_protocols(self, store: EventStore) -> None:
        from ledger.store.protocols import AccessStore, EventRecorder, SecretStore, SnapshotStore

        for protocol in (EventRecorder, SecretStore, SnapshotStore, AccessStore, EventStore):
            assert isinstance(store, protocol), protocol.__name__

    def test_chain_bytes_are_the_chain_modules(self, store: EventStore) -> None:
        rows = append(store, "c", note("a"), note("b", "ann"))
        (s1, *_, prev1, h1), (s2, *_, prev2, h2) = rows
        assert (s1, s2) == (1, 2) and prev1 == ZERO_HASH and prev2 == h1
        canonical = (
            b'{"actor":"gm","campaign":"c","data":{"character":null,"text":"a","type":"note.added"},'
            b'"prev_hash":"' + ZERO_HASH.encode() + b'","recorded_at":"' + AT.encode() + b'","seq":1,'
            b'"session":null,"stream":"campaign","type":"note.added","version":1,"visibility":"public"}'
        )
        assert h1 == hashlib.sha256(bytes.fromhex(ZERO_HASH) + canonical).hexdigest()
        assert h1 == chain_hash(ZERO_HASH, canonical)
        assert [tuple(r) for r in store.rows("c")] == [tuple(r) for r in rows]  # stored as returned

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
        assert rows[0][0] == 1 and rows[0][10] == ZERO_HASH  # own seq and chain
        assert store.stream_version("c", "ann") == 2
        assert store.stream_version("c", "campaign") == 1
        assert store.stream_version("c", "nobody") == 0
        assert store.head("c").seq == 3
        assert store.head("none").seq == 0 and store.head("none").hash == ZERO_HASH
        assert store.campaign_ids() == ["c", "d"]

    def test_expected_version_conflict_names_both_and_writes_nothing(self, store: EventStore) -> None:
        append(store, "c", note("a", "ann"))
        with pytest.raises(ConflictError, match="version 1, not the expected version 0"):
            append(store, "c", note("b", "ann"), note("c"), expected_versions={"ann": 0})
        assert store.head("c").seq == 1
        with pytest.raises(ConflictError, match="'bob' is at version 0, not the expected version 3"):
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
        assert [r[0] for r in store.rows("c")] == [1]
        assert store.rollbacks >= 1

    def test_reads_by_range_stream_session_type_and_actor(self, store: EventStore) -> None:
        append(store, "c", note("a"), note("b", "ann"), session=1)
        store.append(
            "c", [note("c", "bob")], actor="pat", recorded_at="2026-03-02T19:00:00.000000Z", session=2
        )
        append(store, "c", note("d", "ann"), session=2)
        assert [r[0] for r in store.rows("c", stream="ann")] == [2, 4]
        assert [r[0] for r in store.rows("c", after=1, upto=3)] == [2, 3]
        assert [r[0] for r in store.rows("c", streams=["bob", "campaign"])] == [1, 3]
        assert [r[0] for r in store.rows("c", session=2)] == [3, 4]
        assert [r[0] for r in store.rows("c", actor="pat")] == [3]
        assert [r[0] for r in store.rows("c", types=["note.added"], descending=True)] == [4, 3, 2, 1]
        assert [r[0] for r in store.rows("c", types=["session.started"])] == []
        assert list(store.rows("c", upto=2, columns="seq, stream")) == [(1, "campaign"), (2, "ann")]
        narrow = store.rows("c", upto=2)
        assert isinstance(narrow, RowStream) and not narrow.started
        assert [r[:4] for r in narrow.narrow(["seq", "stream"])] == [
            (1, None, "campaign", None),
            (2, None, "ann", None),
        ]
        with pytest.raises(StoreError, match="unknown event columns"):
            store.rows("c", columns="seq, 1; drop table events")
        last = store.last_of_types("c", ["note.added"])
        assert last is not None and last[0] == 4
        assert store.last_of_types("c", ["nothing"]) is None

        assert [r[0] for r in store.rows("c", columns="recorded_at")][2:] == [
            "2026-03-02T19:00:00.000000Z"
        ] * 2
        assert store.last_seq_at("c", "2026-03-01T23:00:00.000000Z") == 2
        assert store.last_seq_at("c", "2026-03-02T19:00:00.000000Z") == 4  # one index seek
        assert store.last_seq_at("c", "2026-03-01T18:59:59.999999Z") == 0
        head = store.head("c")
        assert store.seq_of_hash("c", head.hash) == 4 and store.seq_of_hash("d", head.hash) is None

    def test_paged_reads_stream_every_row_once(self, store: EventStore) -> None:
        append(store, "c", *[note(str(i), f"s{i % 3}") for i in range(12_345)])
        seqs = [r[0] for r in store.rows("c", columns=["seq"])]
        assert seqs == list(range(1, 12_346))
        assert [r[0] for r in store.rows("c", descending=True, after=10, upto=12_000)] == list(
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
            store.restore_secrets([{"campaign": "e", "session": 3, "kind": "session", "seed": "ab"}])
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

    def test_writers_on_many_threads_and_readers_meanwhile_lose_nothing(self, store_factory: Any) -> None:
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
                        written.append((w, [r[0] for r in rows]))
            except Exception as e:  # noqa: BLE001 (reported, not raised in a thread)
                problems.append(f"writer {w}: {type(e).__name__}: {e}")
            finally:
                s.close()

        def read() -> None:
            s = store_factory()
            try:
                while not done.is_set():
                    seqs = [r[0] for r in s.rows("c", columns=["seq"])]
                    if seqs != list(range(1, len(seqs) + 1)):
                        problems.append(f"a reader saw a gap: {seqs[-5:]}")
                        return
                    texts = [r[0] for r in s.rows("c", columns=["data"])][1:]
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
            for row in rows:  # one chain through every batch
                assert row[10] == prev
                prev = row[11]
        finally:
            check.close()
