"""A roll entered through the JSON API: the body read, then the code of ``campaign
roll`` and the web form (:func:`ledger.campaign.entering.enter_roll`), with the same
refusals."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ledger.campaign.entering import Words
from ledger.web.access import Access

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign

#: The API's words in the shared refusals (:mod:`ledger.campaign.entering`): its body's
#: fields for the controls.
API_WORDS = Words(
    auto='send "auto": true to record it',
    again="send it again",
    entropy='"entropy" (your own randomness)',
    dice='"dice"',
    randomness='"entropy"',
    fresh="send 32 bytes of your own randomness",
)


def pointer(error: Any) -> str | None:
    """The JSON pointer (RFC 6901) of the body member a refusal is about, from its
    ``param`` (:class:`ledger.errors.RuleError`): ``"/dice"``, ``"/skill"``, or a roll
    option's ``"/params/time"``; ``None`` for a refusal about no one member."""
    param = getattr(error, "param", None)
    if not param:
        return None
    return f"/{param}" if param in ("dice", "skill") else f"/params/{param}"


def given_params(system: Any, params: dict[str, str]) -> dict[str, Any]:
    """The body's ``params`` as click would give them to ``pick_params``
    (:func:`ledger.rules.params.from_text`, as the web form's fields).

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
    return from_text(system, params)


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
        as_gm=access.is_gm, actor=access.who, at=now(), words=API_WORDS,
        automatic_ok=body.auto,
    ).roll  # fmt: skip


#: A command-line option named in a shared refusal (``--dice``, ``--help-from``).
_OPTION = re.compile(r"--([a-z][a-z0-9-]*)")
#: The body's own members, as a refusal names them in place of an option.
_BODY_WORDS = {"dice": '"dice"', "auto": '"auto": true', "entropy": '"entropy"'}


def in_api_words(system: Any, message: str) -> str:
    """A shared refusal in the API's words: each ``--option`` it names becomes the body
    member that gives it (``--dice`` → ``"dice"``, a roll option ``--help-from`` →
    ``params.help_from``), as the web form names its fields
    does."""
    names = {p.name for p in system.roll_params}

    def word(match: re.Match[str]) -> str:
        option = match.group(1)
        name = option.replace("-", "_")
        if name in names:
            return f"params.{name}"
        return _BODY_WORDS.get(option, f'"{name}"')

    return _OPTION.sub(word, message)
