"""One event waiting to be appended: what a caller hands :meth:`EventRecorder.append
<ledger.store.protocols.EventRecorder.append>`.

Below both the protocols that name it (:mod:`ledger.store.protocols`) and the SQL base that
encodes it (:mod:`ledger.store.base`, which hands it on under its old name).
"""

from __future__ import annotations

import msgspec

from ledger.events import Event, Visibility

__all__ = ["Pending"]


class Pending(msgspec.Struct, frozen=True, gc=False):
    """One event to append, with the envelope fields the caller decides: ``Pending(event)``
    or ``Pending(event, visibility="gm")``. A struct, not a frozen dataclass: one is made
    per appended event, ten times as fast (#28)."""

    event: Event
    visibility: Visibility | None = None  # None: the event class's own visibility
