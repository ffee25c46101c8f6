"""Roll requests through the JSON API (#29): the caller's open requests and their answers,
through the phone's path (:mod:`ledger.web.answers`: the same checks, the same
:meth:`ledger.campaign.aggregate.Campaign.roll` with ``answer=SEQ`` as ``campaign roll
--answer SEQ --entropy HEX``), and the Merkle proofs of :mod:`ledger.history.proofs`."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

from ledger.web.access import Access


@dataclass(frozen=True)
class Caller:
    """A token seen as the web code's viewer (``access``, ``as_gm``)."""

    access: Access

    @property
    def as_gm(self) -> bool:
        """The GM's view?"""
        return self.access.is_gm


class Refused(Exception):
    """An answer refused: ``status`` and why (nothing written)."""

    def __init__(self, status: int, text: str) -> None:
        super().__init__(text)
        self.status = status
        self.text = text


def open_for(campaign: Any, access: Access) -> list[dict[str, Any]]:
    """The open requests addressed to the caller (:func:`ledger.web.answers.open_requests`)."""
    from ledger.web.answers import open_requests

    return open_requests(campaign, Caller(access))  # type: ignore[arg-type]


def answer(campaign: Any, access: Access, seq: int, entropy: str | None, dice: str | None) -> Any:
    """Answer the request at ``seq`` with ``entropy`` (64 hex digits) or ``dice``.

    :returns: the recorded roll.
    :raises Refused: 404 not the caller's (or none), 409 closed, 422 refused by the rules
        (a player told only what the players' view holds).
    """
    from ledger.campaign import requests as requestsmod
    from ledger.campaign.clock import now
    from ledger.dice.engine import DiceError
    from ledger.errors import ConflictError, NotFound, RuleError
    from ledger.web.access import characters_of
    from ledger.web.answers import ENTROPY, _closed_text, addressed
    from ledger.web.roll_form import SECRET_REFUSAL, rehearse

    caller = Caller(access)
    try:
        rec = requestsmod.find_request(campaign, seq)
    except NotFound:
        raise Refused(404, "There is no such roll request for you.") from None
    mine = characters_of(campaign, access)
    if rec.visibility != "public" or not addressed(rec.data, caller, mine):  # type: ignore[arg-type]
        raise Refused(404, "There is no such roll request for you.")
    closed = _closed_text(campaign, seq)
    if closed:
        raise Refused(409, closed)
    cid = rec.data.character  # type: ignore[attr-defined]
    skill, params = requestsmod.inputs_of(rec.data)  # type: ignore[arg-type]
    entropy = (entropy or "").strip().lower() or None
    faces = (dice or "").strip() or None
    if (entropy is None) == (faces is None):
        raise Refused(422, "Answer with entropy (your own randomness) or dice, not both.")
    if entropy is not None and not ENTROPY.fullmatch(entropy):
        raise Refused(422, "entropy is 32 bytes written as 64 hex digits")
    if faces is not None:
        problem = rehearse(campaign, cid, skill, params, faces, automatic_ok=True)
        if problem:
            raise Refused(422, problem)
    try:
        return campaign.roll(
            cid, None, {}, faces=faces, answer=seq, entropy=entropy, actor=access.who, at=now()
        ).roll
    except ConflictError:
        raise Refused(409, "another entry was written at the same moment: send it again") from None
    except (RuleError, DiceError):
        closed = _closed_text(campaign, seq)
        if closed:
            raise Refused(409, closed) from None
        raise Refused(422, SECRET_REFUSAL) from None


def b64(h: bytes) -> str:
    """A hash in base64 (as ``/proof/...`` gives them)."""
    return base64.b64encode(h).decode()
