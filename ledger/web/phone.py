"""What the pages tell the phone's own scripts.

A player's page loads ``static/requests.js`` (roll requests, :mod:`ledger.web.answers`) and
``static/phone-witness.js`` (the phone as witness of the campaign's checkpoints,
``static/witness.js``). The witness runs only where ``main[data-witness="on"]``: the server
serves ``/checkpoint`` and the campaign has a signed checkpoint (:func:`witnessed`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign


def witnessed(campaign: Campaign) -> bool:
    """Does ``campaign`` have a signed checkpoint for the phones to witness? (A page turns
    the phone's witness on only then: a ``GET /checkpoint`` answered 404 would show as an
    error in the browser's console on every page of a campaign that has none yet.)

    Asks the store's ``latest_checkpoint(campaign_id)`` (the checkpoints' table); a store
    without one has none."""
    latest = getattr(campaign.store, "latest_checkpoint", None)
    return latest is not None and latest(campaign.id) is not None
