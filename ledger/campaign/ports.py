"""What the modules of :mod:`ledger.campaign` need of a campaign: :class:`CampaignPort`.

:class:`ledger.campaign.aggregate.Campaign` is the one writer; it hands itself to the
modules that build its batches and check them (sessions, rolling, requests, corrections,
validation, timeline, encounters, reading, ...). They annotate against this Protocol, not
the class, so that none of them imports :mod:`ledger.campaign.aggregate` back, not even for
type checking: the aggregate stands above them all (docs/architecture.md). This module
imports nothing of :mod:`ledger.campaign` itself.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from ledger.rules.hookspecs import WrittenCampaign

if TYPE_CHECKING:
    from ledger.codec import Codec
    from ledger.events import CampaignCreated, Event, Recorded
    from ledger.rules.projection import Corrections, Projector

__all__ = ["CampaignPort", "HeadStates"]


class HeadStates(Protocol):
    """The head states a campaign keeps for its next append
    (:class:`ledger.campaign.reading.StateReader` is one)."""

    def head_state(self, character: str) -> Any:
        """``character``'s state at the head, GM view.

        :raises NotFound: no such character."""
        ...


class CampaignPort(WrittenCampaign, Protocol):
    """One campaign's log and rules, as the modules of :mod:`ledger.campaign` use it: what a
    listener may use (:class:`~ledger.rules.hookspecs.WrittenCampaign`: ``id``, ``store``,
    ``system``, ``records``, ``characters``, ``state_of``, ``append``) and the members below.

    Implemented by :class:`ledger.campaign.aggregate.Campaign`; each member says what the
    class's does. Attributes are read-only here.
    """

    @property
    def created(self) -> CampaignCreated:
        """The campaign's ``campaign.created`` payload (its checkpoint key among others)."""
        ...

    @property
    def codec(self) -> Codec:
        """The decoder of the campaign's event types (core and the system's)."""
        ...

    @property
    def appliers(self) -> dict[type[Event], Callable[[Any, Event], Any]]:
        """The rule system's ``{event class: applier}`` table."""
        ...

    @property
    def allowed(self) -> frozenset[type[Event]]:
        """The event classes this campaign's log may hold."""
        ...

    @property
    def reader(self) -> HeadStates:
        """The head states kept for the next append."""
        ...

    # --- reading ---------------------------------------------------------------------------

    def record(self, seq: int) -> Recorded:
        """One stored event. :raises NotFound: no such seq."""
        ...

    def find_character(self, text: str) -> str:
        """A character id from an id, a full or a first name.

        :raises NotFound: no match."""
        ...

    def current_session(self) -> int | None:
        """The open session's number, or ``None`` between sessions."""
        ...

    def last_session(self) -> int:
        """The number of the last session started (0 when none)."""
        ...

    def projector(self) -> Projector:
        """A fresh projector for this campaign."""
        ...

    def corrections(self, upto: int | None = None) -> Corrections:
        """The corrections in force up to ``upto`` (default: head)."""
        ...

    def states(self, *, upto: int | None = None, as_gm: bool = True) -> dict[str, Any]:
        """Every character's state as of ``upto`` (default: head)."""
        ...

    def state_before(
        self, target: Recorded, corrections: Corrections, stream: str | None = None
    ) -> Any:
        """The state of ``target``'s character (or ``stream``'s) just before it.

        :raises NotFound: the character did not exist then."""
        ...

    def harm_event(self, state: Any, character: str, amount: int) -> Event:
        """The event recording ``amount`` (≥ 1) harm to ``character`` in ``state``.

        :raises RuleError: the system records harm otherwise."""
        ...

    # --- writing ---------------------------------------------------------------------------

    def one_write(self) -> contextlib.AbstractContextManager[None]:
        """Several appends that listeners hear of as one write."""
        ...
