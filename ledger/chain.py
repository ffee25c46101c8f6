"""The hash chain's canonical bytes: one pure module, used by every store backend and by
``verify`` (docs/events.md "The envelope").

- :data:`encode_canonical` is the one canonical JSON encoder (keys sorted at every level, no
  whitespace, UTF-8); :func:`canonical_envelope` gives the bytes an event's hash covers (its
  envelope without ``hash``).
- ``hash = sha256(bytes.fromhex(prev_hash) + canonical).hexdigest()`` (:func:`chain_hash`);
  the first event's ``prev_hash`` is :data:`ZERO_HASH`.
- :func:`chain_rows` envelopes and chains a whole batch of already-encoded payloads after a
  head, giving the stored rows in :data:`COLUMNS` order. It assembles the canonical bytes from
  pre-encoded pieces (faster than encoding an :class:`~ledger.envelope.Envelope` per event);
  the bytes are identical, which ``verify`` checks by recomputing them the slow way
  (:func:`hash_of`).

Nothing here does I/O or knows a database: a backend stores the rows this module makes,
byte for byte, and the same rows verify whichever backend held them.
"""

from __future__ import annotations

import datetime
import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import msgspec

from ledger.envelope import COLUMNS, StoredEvent, chain_input

__all__ = [
    "COLUMNS",
    "ZERO_HASH",
    "Encoded",
    "Head",
    "canonical_envelope",
    "chain_hash",
    "chain_rows",
    "encode_canonical",
    "hash_of",
    "instant",
    "not_before",
]

#: The ``prev_hash`` of a campaign's first event.
ZERO_HASH = "0" * 64


def _enc_hook(obj: Any) -> Any:
    # freezegun's FakeDatetime is refused by msgspec (msgspec issue 678 on GitHub)
    if isinstance(obj, datetime.datetime | datetime.date):
        return obj.isoformat()
    raise TypeError(f"cannot encode {type(obj).__name__}")


_encoder = msgspec.json.Encoder(enc_hook=_enc_hook, order="sorted")
#: Canonical JSON of any value: ``msgspec.json.encode(value, order="sorted")``.
encode_canonical = _encoder.encode


@dataclass(frozen=True)
class Head:
    """A campaign's head: last ``seq`` (0 when empty), its ``hash`` and its ``recorded_at``
    (``""`` when empty)."""

    seq: int
    hash: str
    recorded_at: str = ""


def instant(stamp: str) -> datetime.datetime | None:
    """The moment a ``recorded_at`` stamp names (UTC; a stamp without a zone is read as
    UTC), or ``None`` when it is not an ISO 8601 time."""
    try:
        moment = datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except (ValueError, TypeError, AttributeError):
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=datetime.UTC)


def not_before(recorded_at: str, head_recorded_at: str) -> str:
    """The ``recorded_at`` an append after a head stamped ``head_recorded_at`` gets: its own,
    or the head's when its own is earlier (a clock behind the ledger's). Within a campaign
    ``recorded_at`` never decreases along ``seq`` (docs/events.md "Time"), so ``--as-of
    TIME`` is the log as it stood then. A stamp that is not an ISO time is kept as given."""
    if not head_recorded_at:
        return recorded_at
    mine, head = instant(recorded_at), instant(head_recorded_at)
    if mine is None or head is None or mine >= head:
        return recorded_at
    return head_recorded_at


def canonical_envelope(envelope: Any) -> bytes:
    """Canonical JSON of an envelope without its hash (a :class:`ledger.envelope.Envelope`,
    ``data`` carried as ``msgspec.Raw``): the bytes the chain hashes."""
    return _encoder.encode(envelope)


def hash_of(stored: StoredEvent) -> str:
    """The hash a stored event's contents give, recomputed the slow way: its envelope
    without ``hash`` (:func:`ledger.envelope.chain_input`), canonical, chained after its own
    ``prev_hash`` (:func:`chain_hash`). Equal to ``stored.hash`` unless a byte changed.

    :raises ValueError: ``prev_hash`` is not hex.
    :raises TypeError: a field of a type the canonical encoder refuses.
    """
    return chain_hash(stored.prev_hash, _encoder.encode(chain_input(stored)))


def chain_hash(prev_hash: str, canonical: bytes) -> str:
    """``sha256(bytes.fromhex(prev_hash) + canonical).hexdigest()`` (docs/events.md "The envelope").

    :raises ValueError: ``prev_hash`` is not hex.
    """
    return hashlib.sha256(bytes.fromhex(prev_hash) + canonical).hexdigest()


#: One event ready to chain: ``(stream, type tag, visibility, canonical payload bytes)``.
Encoded = tuple[str, str, str, bytes]


def chain_rows(
    campaign: str,
    batch: Iterable[Encoded],
    head: Head,
    *,
    actor: str,
    recorded_at: str,
    session: int | None,
    version_of: Callable[[str], int],
) -> list[tuple[Any, ...]]:
    """Envelope and chain a batch after ``head``: the stored rows in :data:`COLUMNS` order
    (``data`` as text, seqs ``head.seq + 1, ...``, each stream's versions counting on).
    Every row is stamped ``recorded_at`` as given (the store passes it through
    :func:`not_before` first).

    :param batch: encoded events (:data:`Encoded`), in append order.
    :param version_of: ``fn(stream) -> int``, the stream's version before the batch.
    """
    enc = encode_canonical

    def lit(value: Any) -> bytes:  # a JSON literal, safe inside a %-template
        return enc(value).replace(b"%", b"%%")

    template = (
        b'{"actor":' + lit(actor) + b',"campaign":' + lit(campaign)
        + b',"data":%s,"prev_hash":"%s","recorded_at":' + lit(recorded_at)
        + b',"seq":%d,"session":' + lit(session)
        + b',"stream":%s,"type":%s,"version":%d,"visibility":%s}'
    )  # fmt: skip
    versions: dict[str, int] = {}
    stream_json: dict[str, bytes] = {}
    # a type's and a visibility's JSON literal, one lookup per event (a batch has a few)
    literal: dict[str, bytes] = {}
    sha256 = hashlib.sha256
    rows: list[tuple[Any, ...]] = []
    append = rows.append
    prev = head.hash
    prev_ascii = prev.encode()
    prev_raw = bytes.fromhex(prev)
    seq = head.seq
    for stream, type_, visibility, data in batch:
        version = versions.get(stream)
        if version is None:
            version = version_of(stream)
            stream_json[stream] = enc(stream)
        version += 1
        versions[stream] = version
        seq += 1
        type_json = literal.get(type_)
        if type_json is None:
            type_json = literal[type_] = enc(type_)
        visibility_json = literal.get(visibility)
        if visibility_json is None:
            visibility_json = literal[visibility] = enc(visibility)
        canonical = template % (
            data,
            prev_ascii,
            seq,
            stream_json[stream],
            type_json,
            version,
            visibility_json,
        )
        prev_raw = sha256(prev_raw + canonical).digest()
        row_hash = prev_raw.hex()
        append(
            (
                seq,
                campaign,
                stream,
                version,
                type_,
                data.decode(),
                recorded_at,
                actor,
                session,
                visibility,
                prev,
                row_hash,
            )
        )
        prev = row_hash
        prev_ascii = row_hash.encode()
    return rows
