"""The one shape of a stored event: :class:`StoredEvent`, the twelve envelope fields of
docs/events.md "The envelope" by name, exactly as a store keeps them (``data`` the payload's canonical
JSON text).

Every full-row read of a store gives these (:meth:`ledger.store.protocols.EventRecorder.rows`,
``last_of_types``, ``append``); the other shapes of an event are derived from one, each by one
function:

- the bytes the hash chain covers: :func:`chain_input` (an :class:`Envelope`, every field but
  ``hash``, ``data`` carried raw), hashed by :func:`ledger.chain.hash_of`;
- a decoded event: :class:`ledger.events.Recorded` (a stored event and its payload);
- an export line and a player's stub of a GM-only event:
  :func:`ledger.exchange.ndjson.export_line` and :func:`ledger.exchange.ndjson.stub_line`.

This module sits below :mod:`ledger.chain` and :mod:`ledger.events` (both use it) and imports
nothing of ``ledger``.
"""

from __future__ import annotations

from typing import Literal

import msgspec

#: Who may see an event: everyone at the table, or the GM alone (docs/trust.md "A player's view never holds a GM fact").
#: These are the stored values (``visibility`` column, export lines, hashed bytes).
Visibility = Literal["public", "gm"]


class StoredEvent(msgspec.Struct, frozen=True, gc=False):
    """One event as stored: the envelope of docs/events.md "The envelope" (the export format's fields,
    in its order).

    Positional construction follows :data:`COLUMNS` (a store builds one from a row with
    ``StoredEvent(*row)``); everything else names the fields.

    :ivar seq: gap-free position in the campaign's log, from 1.
    :ivar campaign: the campaign id.
    :ivar stream: the character id, or ``"campaign"``.
    :ivar version: the stream's version after this event (from 1; optimistic concurrency).
    :ivar type: the payload's tag (``"session.started"``, ``"wyrd-engine.damage_taken"``).
    :ivar data: the payload's canonical JSON (keys sorted, no whitespace) as text, exactly
        the bytes the hash covers (a GM-only payload carries its salt).
    :ivar recorded_at: UTC time, ``YYYY-MM-DDTHH:MM:SS.ffffffZ``; never decreases along seq.
    :ivar actor: who recorded it.
    :ivar session: the session number it was recorded in, or ``None``.
    :ivar visibility: ``"public"`` or ``"gm"`` (:data:`Visibility`).
    :ivar prev_hash: the previous event's ``hash`` (64 zeros for seq 1).
    :ivar hash: ``sha256(bytes.fromhex(prev_hash) + canonical)`` in hex
        (:func:`ledger.chain.hash_of`).
    """

    seq: int
    campaign: str
    stream: str
    version: int
    type: str
    data: str
    recorded_at: str
    actor: str
    session: int | None
    visibility: Visibility
    prev_hash: str
    hash: str


#: The envelope's fields in stored order: the columns of the ``events`` table, the order of
#: :class:`StoredEvent`'s positional fields (a narrowed read names some of them).
COLUMNS: tuple[str, ...] = StoredEvent.__struct_fields__


class Envelope(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """The canonical form hashed into the chain: every envelope field but ``hash``
    (:func:`chain_input`). ``data`` is the payload's canonical JSON, carried as
    ``msgspec.Raw`` so it is hashed byte for byte."""

    seq: int
    campaign: str
    stream: str
    version: int
    type: str
    data: msgspec.Raw
    recorded_at: str
    actor: str
    session: int | None
    visibility: str
    prev_hash: str


def chain_input(stored: StoredEvent) -> Envelope:
    """The envelope a stored event's hash covers: every field but ``hash``, ``data`` raw
    (docs/events.md "The envelope"; :func:`ledger.chain.hash_of` encodes and hashes it)."""
    return Envelope(
        seq=stored.seq,
        campaign=stored.campaign,
        stream=stored.stream,
        version=stored.version,
        type=stored.type,
        data=msgspec.Raw(stored.data),
        recorded_at=stored.recorded_at,
        actor=stored.actor,
        session=stored.session,
        visibility=stored.visibility,
        prev_hash=stored.prev_hash,
    )
