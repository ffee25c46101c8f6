"""A roll entered through the JSON API: the body read, then the code of ``campaign
roll`` and the web form (:func:`ledger.campaign.entering.enter_roll`), with the same
refusals."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ledger.campaign.entering import Controls
from ledger.web.access import Access

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign

#: The API's names for its own controls in the shared refusals
#: (:mod:`ledger.campaign.entering`): its body's fields.
API_CONTROLS = Controls(
    auto='send "auto": true to record it',
    again="send it again",
    entropy='"entropy" (your own randomness)',
    dice='"dice"',
    randomness='"entropy"',
    fresh="send 32 bytes of your own randomness",
)


#: The members of the API's bodies a refusal may be about, besides the roll options.
BODY_MEMBERS = ("dice", "skill", "entropy", "auto", "character", "asked")


def pointer(error: Any, system: Any = None) -> str | None:
    """The JSON pointer (RFC 6901) of the body member a refusal is about, from its
    ``param`` (:class:`ledger.errors.RuleError`): ``"/dice"``, ``"/skill"``, or a roll
    option's ``"/params/time"``; ``None`` for a refusal about no one member, or about an
    option the body has no member for (one of the command line's only; a
    :class:`~ledger.rules.params.ParamError`, or a refusal of the body's ``input``, is
    about a name the body gave).

    :param system: the campaign's rule system: only its roll options are ``/params/...``
        (``None``: any other name is taken as one).
    """
    param = getattr(error, "param", None)
    if not param:
        return None
    if param in BODY_MEMBERS:
        return f"/{param}"
    from ledger.rules.params import ParamError

    # a ParamError, or a Refused of the body's input: about a name the body gave
    given = isinstance(error, ParamError) or getattr(error, "reason", None) == "input"
    known = given or system is None
    if not known and param not in {p.name for p in system.roll_params}:
        return None
    return f"/params/{param}"


def given_params(system: Any, params: dict[str, Any]) -> dict[str, Any]:
    """The body's ``params`` as click would give them to ``pick_params``
    (:func:`ledger.rules.params.from_text`, as the web form's fields): a switch ``true`` is
    on and ``false`` off, a number is its digits, a list is its values separated by commas.

    :raises ParamError: a name the system's roll does not take.
    """
    from ledger.rules.params import ParamError, from_text

    known = {p.name for p in system.roll_params}
    for name in params:
        if name not in known:
            names = ", ".join(sorted(known)) or "none"
            raise ParamError(
                f"{system.name}'s rolls take no option {name[:40]!r} (they take: {names})",
                option=name,
            )
    return from_text(system, {name: _text(value) for name, value in params.items()})


def _text(value: Any) -> str:
    """A body's option value as a form field's text (``False``: empty, not given)."""
    if value is True:
        return "yes"
    if value is False or value is None:
        return ""
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return str(value)


def record_api(campaign: Campaign, access: Access, cid: str, body: Any) -> Any:
    """Record ``body`` (a :class:`ledger.web.api.types.RollIn`) for ``cid`` as ``access``,
    through :func:`ledger.campaign.entering.enter_roll` (physical dice only).

    :returns: the recorded roll.
    :raises Refused: nothing written; a player is told only what the players' view holds
        (:data:`ledger.campaign.entering.SECRET_REFUSAL` for a GM-only reason).
    """
    from ledger.campaign.clock import now
    from ledger.campaign.entering import dice_wanted, enter_roll
    from ledger.errors import Refused
    from ledger.rules.params import ParamError, pick_params

    faces = body.dice.strip()
    if not faces:
        raise Refused(dice_wanted(campaign.system), reason="input", dice=True)
    try:
        given = pick_params(
            campaign.system, "roll_params", given_params(campaign.system, body.params)
        )
    except ParamError as e:
        raise Refused(str(e), reason="input", param=e.param) from None
    return enter_roll(
        campaign, cid, (body.skill or "").strip() or None, given, faces=faces,
        as_gm=access.is_gm, actor=access.who, at=now(), controls=API_CONTROLS,
        automatic_ok=body.auto,
    ).roll  # fmt: skip
