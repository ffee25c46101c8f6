"""Roll requests through the JSON API: the caller's open requests and their answers,
through the phone's code (:func:`ledger.campaign.entering.answer_request`: the same checks,
the same :func:`ledger.campaign.rolling.roll` with ``answer=SEQ`` as ``campaign roll
--answer SEQ --entropy HEX``), and the Merkle proofs of :mod:`ledger.history.tree_proofs`."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ledger.web.access import Access

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign


@dataclass(frozen=True)
class Caller:
    """A token seen as the web code's viewer (``access``, ``as_gm``)."""

    access: Access

    @property
    def as_gm(self) -> bool:
        """The GM's view?"""
        return self.access.is_gm


def open_for(campaign: Campaign, access: Access) -> list[dict[str, Any]]:
    """The open requests addressed to the caller (:func:`ledger.web.answers.open_requests`)."""
    from ledger.web.answers import open_requests

    return open_requests(campaign, Caller(access))  # type: ignore[arg-type]


def answer(
    campaign: Campaign, access: Access, seq: int, entropy: str | None, dice: str | None
) -> Any:
    """Answer the request at ``seq`` with ``entropy`` (64 hex digits) or ``dice``, through
    :func:`ledger.campaign.entering.answer_request` (the phone's code).

    :returns: the recorded roll.
    :raises ledger.errors.Refused: ``missing`` not the caller's (or none; always
        for the GM, who answers at the laptop), ``closed``, ``input``, ``rules`` (a player
        told only what the players' view holds), ``conflict``.
    """
    from ledger.campaign import entering
    from ledger.campaign.clock import now
    from ledger.web.access import characters_of
    from ledger.web.api.rolling import API_CONTROLS

    mine = {} if access.is_gm else characters_of(campaign, access)
    return entering.answer_request(
        campaign, seq, entropy=entropy, faces=dice, who=access.who, mine=mine, at=now(),
        controls=API_CONTROLS,
    )  # fmt: skip


def b64(h: bytes) -> str:
    """A hash in base64 (as ``/proof/...`` gives them)."""
    return base64.b64encode(h).decode()
