"""Snapshot fingerprints: a snapshot is used only when it provably came from what is in force now.

A snapshot caches one character's projected state at a ``seq`` (docs/architecture.md: a
cache; deleting them changes no answer, only its speed). Each stored snapshot carries

- ``basis``: a SHA-256 of what produced it: the snapshot format, the rule system's id,
  distribution name and version, campaign options, the state type (msgspec type info:
  field names, types, defaults), the code of its appliers, the event types' schema versions,
  the upcasters in force, the core fold's code, and the corrections in force whose target
  is at or before the snapshot's ``seq`` (a correction of a later event does not change the
  state at ``seq``, so the snapshots before an early correction stay usable);
- ``digest``: ``sha256(basis + state bytes)``, so a flipped byte of the MessagePack state
  (or of the basis) is found before the state is read.

:func:`load` returns the newest snapshot whose basis and digest match; every other one is
ignored (and rebuilt by the replay that follows). :func:`snapshot_problems` replays a
campaign and names every stored snapshot that is not what the replay gives (``verify``).
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import re
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgspec

from ledger.codec import Codec, encode_canonical
from ledger.events import CORE_EVENT_TYPES, event_tag

if TYPE_CHECKING:
    from ledger.rules.projection import Corrections
    from ledger.rules.system import RuleSystem
    from ledger.store.base import EventStore

#: Bump when the meaning of a stored snapshot changes (every older snapshot is then ignored).
FORMAT = "ledger-snapshot-v2"

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _const_text(value: Any) -> str:
    """A stable text of a code constant (sets sorted: their order varies between runs)."""
    if isinstance(value, frozenset):
        return "frozenset(" + repr(sorted(_const_text(v) for v in value)) + ")"
    if isinstance(value, tuple):
        return "(" + ",".join(_const_text(v) for v in value) + ")"
    return _ADDRESS.sub("", repr(value))


def _code_into(h: Any, code: types.CodeType) -> None:
    h.update(code.co_code)
    h.update(repr(code.co_names).encode())
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _code_into(h, const)
        else:
            h.update(_const_text(const).encode())


_CODE_DIGESTS: dict[Any, str] = {}
_TYPE_DIGESTS: dict[Any, str] = {}


def code_digest(fn: Any) -> str:
    """A hash of a function's code (bytecode, names and constants; not its file or lines).

    Bound methods, ``functools.partial`` objects and other callables are unwrapped as far
    as they go; a callable without code is named by its qualified name.
    """
    fn = getattr(fn, "__func__", fn)
    fn = getattr(fn, "func", fn)  # functools.partial
    code = getattr(fn, "__code__", None)
    key = code if isinstance(code, types.CodeType) else fn
    try:
        return _CODE_DIGESTS[key]
    except (KeyError, TypeError):
        pass
    h = hashlib.sha256()
    if isinstance(code, types.CodeType):
        _code_into(h, code)
    else:
        h.update(_ADDRESS.sub("", repr(getattr(fn, "__qualname__", fn))).encode())
    found = h.hexdigest()
    with contextlib.suppress(TypeError):  # an unhashable callable is hashed each time
        _CODE_DIGESTS[key] = found
    return found


def type_digest(state_type: Any) -> str:
    """A hash of a state type's msgspec type info: every field's name, type and default."""
    found = _TYPE_DIGESTS.get(state_type)
    if found is None:
        info = msgspec.inspect.type_info(state_type)
        found = _TYPE_DIGESTS[state_type] = hashlib.sha256(
            _ADDRESS.sub("", repr(info)).encode()
        ).hexdigest()
    return found


def system_fingerprint(system: RuleSystem, codec: Codec) -> dict[str, Any]:
    """What of a configured rule system and codec a snapshot depends on (JSON-ready).

    Keys: ``format``, ``system``, ``distribution`` (``[name, version]``), ``options``,
    ``state_type``, ``appliers`` (``{event tag: code digest}``), ``schema_versions``
    (``{event tag: version}``), ``upcasters`` (``{event tag: code digest}``), ``fold``.
    """
    from ledger.rules.plugins import system_distribution
    from ledger.rules.projection import Projector

    return {
        "format": FORMAT,
        "system": system.id,
        "distribution": list(system_distribution(system)),
        "options": msgspec.to_builtins(system.options),
        "state_type": type_digest(system.state_type),
        "appliers": {event_tag(cls): code_digest(fn) for cls, fn in system.appliers().items()},
        "schema_versions": {
            event_tag(cls): cls.schema_version for cls in (*CORE_EVENT_TYPES, *system.event_types)
        },
        "upcasters": {tag: _upcaster_digest(fn) for tag, fn in codec.upcasters.items()},
        "fold": [code_digest(Projector.fold), code_digest(Projector.decode_row)],
    }


def _upcaster_digest(fn: Any) -> Any:
    if isinstance(fn, dict):  # {stored version: step}
        return {str(k): code_digest(v) for k, v in sorted(fn.items())}
    return code_digest(fn)


class Basis:
    """The basis of every snapshot under one set of corrections: ``basis(seq)`` is the
    fingerprint a snapshot at ``seq`` must carry to be used now.

    :param static: :func:`system_fingerprint` (or any JSON-ready value).
    :param corrections: the corrections in force for the view being projected.
    """

    def __init__(self, static: Any, corrections: Corrections) -> None:
        self.static = hashlib.sha256(encode_canonical(static)).digest()
        items: list[tuple[int, Any]] = [(t, ["retract"]) for t in corrections.retracted]
        items += [(t, ["amend", data]) for t, data in corrections.amended.items()]
        items.sort(key=lambda item: item[0])
        #: targets, ascending, and the basis of a snapshot at or after each (before the next)
        self.targets: list[int] = []
        self.bases: list[str] = [self._basis(b"")]
        running = hashlib.sha256()
        for target, what in items:
            running.update(encode_canonical([target, what]))
            self.targets.append(target)
            self.bases.append(self._basis(running.digest()))

    def _basis(self, prefix: bytes) -> str:
        return hashlib.sha256(self.static + prefix).hexdigest()

    def at(self, seq: int) -> str:
        """The basis of a snapshot at ``seq``."""
        return self.bases[bisect.bisect_right(self.targets, seq)]

    def intervals(self, upto: int) -> Iterator[tuple[int, int, str]]:
        """``(low, high, basis)`` of the seqs ``<= upto`` sharing a basis, newest first."""
        i = bisect.bisect_right(self.targets, upto)
        high = upto
        while i >= 0 and high >= 0:
            low = self.targets[i - 1] if i > 0 else 0
            yield low, high, self.bases[i]
            high = low - 1
            i -= 1


def digest(basis: str, blob: bytes) -> str:
    """``sha256(basis + state bytes)``: the check that a stored snapshot is whole."""
    return hashlib.sha256(basis.encode() + blob).hexdigest()


@dataclass(frozen=True)
class Snapshot:
    """A snapshot found valid: its ``seq`` and decoded ``state``."""

    seq: int
    state: Any


def load(
    store: EventStore,
    campaign: str,
    stream: str,
    upto: int,
    as_gm: bool,
    basis: Basis,
    decode: Callable[[bytes], Any],
) -> Snapshot | None:
    """The newest snapshot of ``stream`` at or before ``upto`` whose basis and digest match
    (``None`` when there is none). A snapshot with the right basis but a wrong digest, or
    bytes that do not decode, is skipped and deleted (inside a write transaction: it is a
    cache, and the replay that follows rebuilds it)."""
    for low, high, want in basis.intervals(upto):
        while high >= low:
            found = store.load_snapshot(campaign, stream, high, as_gm, basis=want, after=low)
            if found is None:
                break
            seq, blob, stored = found
            if stored == digest(want, blob):
                try:
                    return Snapshot(seq, decode(blob))
                except (msgspec.DecodeError, msgspec.ValidationError):
                    pass
            with store.transaction():
                store.drop_snapshot(campaign, stream, seq, as_gm, want)
            high = seq - 1
    return None


@dataclass(frozen=True)
class SnapshotProblem:
    """A stored snapshot that is not what a replay gives: where it is and what is wrong."""

    seq: int
    stream: str
    as_gm: bool
    problem: str

    def __str__(self) -> str:
        view = "GM" if self.as_gm else "player"
        return f"snapshot of {self.stream!r} at seq {self.seq} ({view} view): {self.problem}"


def snapshot_problems(camp: Any, *, drop: bool = False) -> list[SnapshotProblem]:
    """Check every stored snapshot of a campaign against a replay.

    A snapshot whose basis is current (one :meth:`Campaign.state_of` would use under the
    corrections in force at the head) must have a matching digest and hold exactly the
    state a full replay gives at its seq; each one that does not is a problem. Snapshots of
    another basis (older plugin versions, as-of views before a correction) are never used
    under the current basis, so they are not checked.

    :param camp: a :class:`ledger.campaign.aggregate.Campaign`.
    :param drop: delete every snapshot found wrong (the next read rebuilds them).
    :returns: the problems, in seq order (one full replay per view that has snapshots).
    """
    from ledger.rules.projection import Projector, decode_state, encode_state

    store: EventStore = camp.store
    head = store.head(camp.id).seq
    corrections = camp.corrections(head)
    basis = Basis(system_fingerprint(camp.system, camp.codec), corrections)
    todo: dict[tuple[bool, int], list[tuple[str, str, bytes]]] = {}
    for stream, as_gm, seq, row_basis, row_digest, blob in store.snapshot_rows(camp.id):
        if seq <= head and row_basis == basis.at(seq):
            todo.setdefault((bool(as_gm), seq), []).append((stream, row_digest, blob))
    problems: list[SnapshotProblem] = []

    def judge(stream: str, seq: int, row_digest: str, blob: bytes, states: dict[str, Any]) -> str:
        if row_digest != digest(basis.at(seq), blob):
            return "its bytes do not match its fingerprint (digest)"
        if stream not in states:
            return "the character does not exist there in a replay"
        try:
            stored = decode_state(camp.system, blob)
        except (msgspec.DecodeError, msgspec.ValidationError) as e:
            return f"its bytes do not decode ({e})"
        if encode_state(stored) != encode_state(states[stream]):
            return "its state differs from a replay"
        return ""

    for as_gm in (True, False):
        seqs = sorted(seq for gm, seq in todo if gm is as_gm)
        if not seqs:
            continue
        visited: set[int] = set()

        def check(
            seq: int, states: dict[str, Any], as_gm: bool = as_gm, visited: set[int] = visited
        ) -> None:
            for stream, row_digest, blob in todo.get((as_gm, seq), ()):
                visited.add(seq)
                problem = judge(stream, seq, row_digest, blob, states)
                if problem:
                    problems.append(SnapshotProblem(seq, stream, as_gm, problem))

        Projector(camp.system, camp.codec).fold(
            store.rows(camp.id, upto=seqs[-1]), {}, corrections, as_gm=as_gm, on_step=check
        )
        for seq in seqs:
            if seq not in visited:  # the ledger never saves one there (e.g. a GM-only event)
                for stream, _d, _b in todo[(as_gm, seq)]:
                    problems.append(
                        SnapshotProblem(seq, stream, as_gm, "no event of this view has its seq")
                    )
    problems.sort(key=lambda p: (p.seq, p.stream, not p.as_gm))
    if drop and problems:
        with store.transaction():
            for p in problems:
                store.drop_snapshot(camp.id, p.stream, p.seq, p.as_gm, basis.at(p.seq))
    return problems


__all__ = [
    "FORMAT",
    "Basis",
    "Snapshot",
    "SnapshotProblem",
    "code_digest",
    "digest",
    "load",
    "snapshot_problems",
    "system_fingerprint",
    "type_digest",
]
