"""A roll entered through the JSON API (#29): the web form's path
(:func:`ledger.web.roll_form.rehearse` on the players' view, then
:meth:`ledger.campaign.aggregate.Campaign.roll`), with the same refusals."""

from __future__ import annotations

from typing import Any

from ledger.web.access import Access


def given_params(system: Any, params: dict[str, str]) -> dict[str, Any]:
    """The body's ``params`` as click would give them to ``pick_params`` (as the web form's
    fields: flags true when non-empty, repeatable values split on commas).

    :raises ParamError: a name the system's roll does not take.
    """
    from ledger.rules.params import ParamError

    known = {p.name: p for p in system.roll_params}
    given: dict[str, Any] = {}
    for name, raw in params.items():
        p = known.get(name)
        if p is None:
            names = ", ".join(sorted(known)) or "none"
            raise ParamError(
                f"this system's rolls take no {name!r} (they take: {names})", option=name
            )
        value = raw.strip()
        if not value:
            continue
        if p.is_flag:
            given[name] = True
        elif p.multiple:
            given[name] = tuple(v.strip() for v in value.split(",") if v.strip())
        else:
            given[name] = value
    return given


def record_api(campaign: Any, access: Access, cid: str, body: Any) -> tuple[Any, str]:
    """Record ``body`` (a :class:`ledger.web.api.types.RollIn`) for ``cid`` as ``access``.

    :returns: ``(recorded roll, "")``, or ``(None, why)`` with nothing written: a player is
        told only what the players' view holds (:data:`ledger.web.roll_form.SECRET_REFUSAL`
        for a GM-only reason).
    """
    import click

    from ledger.campaign.aggregate import AutomaticResult
    from ledger.campaign.clock import now
    from ledger.dice.engine import DiceError
    from ledger.errors import ConflictError, RuleError
    from ledger.rules.params import ParamError, pick_params
    from ledger.web.roll_form import SECRET_REFUSAL, rehearse

    faces = body.dice.strip()
    if not faces:
        return None, "enter the dice you rolled (the faces, in order: 3,5 or ++-0)"
    skill = (body.skill or "").strip() or None
    try:
        given = pick_params(
            campaign.system, "roll_params", given_params(campaign.system, body.params)
        )
    except ParamError as e:
        return None, str(e)
    if not access.is_gm:
        problem = rehearse(campaign, cid, skill, given, faces, automatic_ok=body.auto)
        if problem:
            return None, problem
    try:
        rec = campaign.roll(
            cid, skill, given, faces=faces, blind=False, automatic_ok=body.auto,
            actor=access.who, at=now(),
        ).roll  # fmt: skip
    except ConflictError as e:
        return None, str(e) if access.is_gm else (
            "another entry was written at the same moment: send the roll again"
        )
    except AutomaticResult as e:
        return None, f'{e}: send "auto": true to record it' if access.is_gm else SECRET_REFUSAL
    except click.UsageError as e:
        return None, e.format_message()
    except (RuleError, DiceError) as e:
        return None, str(e) if access.is_gm else SECRET_REFUSAL
    return rec, ""
