"""eventsourcing's own recorder cases, run on our store through an adapter.

eventsourcing ships ``AggregateRecorderTestCase`` and ``ApplicationRecorderTestCase``
(eventsourcing/tests/persistence.py): subclass them with a recorder and they check it the
way they check their own SQLite and PostgreSQL recorders. :class:`LedgerRecorder` speaks
their ``ApplicationRecorder`` interface on one campaign of a :class:`ledger.store.sqlite.Store`:

- an aggregate (``originator_id``) is a stream; a stored event's ``topic`` is our ``type``
  (an event class made for it, :func:`payload_class`), its ``state`` bytes go in the payload
  (base64), and a notification's ``id`` is our ``seq`` (the campaign's log is the
  application sequence: gap-free from 1, as ``EXPECT_CONTIGUOUS_NOTIFICATION_IDS`` asks);
- ``insert_events`` is ``store.append`` with each stream's expected version, so a version
  already written is a :class:`~ledger.errors.ConflictError`, which the adapter raises as
  eventsourcing's ``IntegrityError``, and the whole batch is refused;
- ``select_events(gt, lte, desc, limit)`` is ``store.rows(stream=..., version_after=...,
  version_upto=..., descending=..., limit=...)``: reads by version range.

Versions. Our streams count from 1 and have no gaps (the store gives each event the next
version, and an append names the version it expects the stream to be at). eventsourcing
lets a sequence begin at any version (a case writes one at 0, another from 0 to 99) and
only asks versions to be unique. So the adapter keeps the first version written to a
stream (``origin``, in each payload) and maps ``ours = theirs - origin + 1``; a batch
whose versions do not follow on (a gap, a repeat, one before the stream's last) is refused
as an ``IntegrityError``, as a unique index would refuse the repeat. With ``origin`` 1,
every case's own ``INITIAL_VERSION``, the mapping is the identity.

What cannot apply: ``subscribe`` (a blocking feed; eventsourcing runs those cases only as
``optional_test_*``) and the tracking and process recorders (our store keeps no tracking
records). Every ``test_*`` of the two cases runs here.
"""

from __future__ import annotations

import base64
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from uuid import UUID

import msgspec
import pytest
import sqlite_utils

pytest.importorskip("eventsourcing")

from eventsourcing.persistence import (  # noqa: E402
    ApplicationRecorder,
    IntegrityError,
    Notification,
    StoredEvent,
)
from eventsourcing.tests.persistence import (  # noqa: E402
    AggregateRecorderTestCase,
    ApplicationRecorderTestCase,
)

from ledger.errors import ConflictError  # noqa: E402
from ledger.events import Event  # noqa: E402
from ledger.store.base import Pending  # noqa: E402
from ledger.store.sqlite import Store  # noqa: E402

CAMPAIGN = "es"
AT = "2026-03-01T19:00:00.000000Z"


class Payload(Event, frozen=True, kw_only=True):
    """What an eventsourcing stored event becomes: its aggregate (our stream, so the field
    is ``character``), its version and the stream's first version, its state bytes."""

    character: str
    version: int
    origin: int
    state: str  # base64


_CLASSES: dict[str, type[Payload]] = {}
_PAYLOAD = msgspec.json.Decoder(dict[str, Any])


def payload_class(topic: str) -> type[Payload]:
    """The event class whose tag is ``topic`` (made once per topic)."""
    cls = _CLASSES.get(topic)
    if cls is None:
        cls = _CLASSES[topic] = msgspec.defstruct(
            "Payload_" + str(len(_CLASSES)), [], bases=(Payload,), tag=topic, frozen=True,
            kw_only=True,
        )  # fmt: skip
    return cls


def _their(stored: Any, originator_id: UUID | str | None = None) -> tuple[UUID | str, int, bytes]:
    payload = _PAYLOAD.decode(stored.data)
    oid: UUID | str = originator_id if originator_id is not None else _originator(stored.stream)
    return oid, payload["version"], base64.b64decode(payload["state"])


def _originator(stream: str) -> UUID | str:
    try:
        return UUID(stream)
    except ValueError:
        return stream


class LedgerRecorder(ApplicationRecorder):
    """eventsourcing's ``ApplicationRecorder`` on one campaign of our SQLite store (a store
    per thread: a SQLite connection is used by the thread that opened it)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._local = threading.local()
        self._stores: list[Store] = []
        self._lock = threading.Lock()

    @property
    def store(self) -> Store:
        store = getattr(self._local, "store", None)
        if store is None:  # used by this thread only; closed by the test's at the end
            conn = sqlite3.connect(self.path, check_same_thread=False)
            store = self._local.store = Store(sqlite_utils.Database(conn))
            with self._lock:
                self._stores.append(store)
        return store

    def close(self) -> None:
        for store in self._stores:
            store.conn.close()

    def _origin(self, stream: str) -> int | None:
        """The first version written to ``stream`` (``None``: the stream is empty)."""
        for stored in self.store.rows(CAMPAIGN, stream=stream, limit=1):
            return int(_PAYLOAD.decode(stored.data)["origin"])
        return None

    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> list[int]:
        if not stored_events:
            return []  # the aggregate case wants None back, the application case []
        store = self.store
        with store.transaction():
            batch: list[Pending] = []
            expected: dict[str, int] = {}
            nxt: dict[str, tuple[int, int]] = {}  # stream: (origin, their next version)
            for e in stored_events:
                stream = str(e.originator_id)
                if stream not in nxt:
                    origin = self._origin(stream)
                    ours = store.stream_version(CAMPAIGN, stream)
                    if origin is None:
                        origin = e.originator_version
                    nxt[stream] = (origin, origin + ours)
                    expected[stream] = e.originator_version - origin
                origin, want = nxt[stream]
                if e.originator_version != want:
                    raise IntegrityError(
                        f"{stream} version {e.originator_version}: the stream's next is {want}"
                    )
                nxt[stream] = (origin, want + 1)
                event = payload_class(e.topic)(
                    character=stream,
                    version=e.originator_version,
                    origin=origin,
                    state=base64.b64encode(e.state).decode(),
                )
                batch.append(Pending(event))
            try:
                written = store.append(
                    CAMPAIGN, batch, actor="es", recorded_at=AT, session=None,
                    expected_versions=expected,
                )  # fmt: skip
            except ConflictError as e:
                raise IntegrityError(str(e)) from e
        return [stored.seq for stored in written]

    def select_events(
        self,
        originator_id: UUID | str,
        *,
        gt: int | None = None,
        lte: int | None = None,
        desc: bool = False,
        limit: int | None = None,
    ) -> list[StoredEvent]:
        stream = str(originator_id)
        origin = self._origin(stream)
        if origin is None:
            return []
        rows = self.store.rows(
            CAMPAIGN,
            stream=stream,
            version_after=None if gt is None else gt - origin + 1,
            version_upto=None if lte is None else lte - origin + 1,
            descending=desc,
            limit=limit,
        )
        out = []
        for stored in rows:
            oid, version, state = _their(stored, originator_id)
            out.append(StoredEvent(oid, version, stored.type, state))
        return out

    def select_notifications(
        self,
        start: int | None,
        limit: int,
        stop: int | None = None,
        topics: Sequence[str] = (),
        *,
        inclusive_of_start: bool = True,
    ) -> list[Notification]:
        after = 0 if start is None else (start - 1 if inclusive_of_start else start)
        rows = self.store.rows(
            CAMPAIGN, after=max(after, 0), upto=stop, types=list(topics) or None, limit=limit
        )
        out = []
        for stored in rows:
            oid, version, state = _their(stored)
            out.append(Notification(oid, version, stored.type, state, stored.seq))
        return out

    def max_notification_id(self) -> int | None:
        return self.store.head(CAMPAIGN).seq or None

    def subscribe(self, gt: int | None = None, topics: Sequence[str] = ()) -> Any:
        raise NotImplementedError("a blocking feed: the web view's live log is ours (SSE)")


class _Ours:
    """Each case on a fresh ledger file; the recorders made are closed after it."""

    tmp: Path
    recorders: list[LedgerRecorder]

    @pytest.fixture(autouse=True)
    def _ledger(self, tmp_path: Path) -> Any:
        self.tmp = tmp_path
        self.recorders = []
        before = set(threading.enumerate())
        yield
        # eventsourcing's concurrency case tells its reader threads to stop and returns
        # without joining them: a reader still inside a query when its connection is closed
        # crashes the process, so the threads the case started end first
        for thread in set(threading.enumerate()) - before:
            thread.join(timeout=60)
        for recorder in self.recorders:
            recorder.close()

    def create_recorder(self) -> LedgerRecorder:
        path = self.tmp / f"ledger-{len(self.recorders)}.db"
        Store(str(path)).close()  # migrated before threads open their own connections
        recorder = LedgerRecorder(str(path))
        self.recorders.append(recorder)
        return recorder


class TestLedgerAsAggregateRecorder(_Ours, AggregateRecorderTestCase):
    """eventsourcing's aggregate recorder case: insert, conflicts, atomic batches, reads by
    version range (``gt``, ``lte``), newest first, ``limit``."""

    def create_recorder(self) -> LedgerRecorder:
        recorder = super().create_recorder()
        insert = recorder.insert_events
        # an aggregate recorder returns no notification ids
        recorder.insert_events = lambda events, **kw: (insert(events, **kw), None)[1]  # type: ignore[method-assign]
        return recorder


class TestLedgerAsApplicationRecorder(_Ours, ApplicationRecorderTestCase):
    """eventsourcing's application recorder case: notification ids gap-free from 1, reads
    of the application sequence by range and topic, ten threads writing while two read."""


def test_the_adapter_refuses_what_our_versions_cannot_hold(tmp_path):
    """A gap, a repeat and a version before the stream's last are refused whole."""
    recorder = _Ours()
    recorder.tmp, recorder.recorders = tmp_path, []
    rec = recorder.create_recorder()
    try:
        assert rec.insert_events([StoredEvent("a", 1, "t", b"x"), StoredEvent("a", 2, "t", b"y")]) == [1, 2]
        for bad in ([StoredEvent("a", 4, "t", b"gap")], [StoredEvent("a", 2, "t", b"again")],
                    [StoredEvent("b", 1, "t", b"ok"), StoredEvent("b", 1, "t", b"repeat")]):  # fmt: skip
            with pytest.raises(IntegrityError):
                rec.insert_events(bad)
        assert rec.max_notification_id() == 2
        assert [e.state for e in rec.select_events("a", gt=1, lte=2)] == [b"y"]
        assert [e.originator_version for e in rec.select_events("a", desc=True, limit=1)] == [2]
    finally:
        rec.close()
