"""The roll form of the web view (``/roll/CHARACTER``): fields built from the rule system's
roll parameters, a player's roll rehearsed in the players' view first, and the roll written
through the same code as ``campaign roll`` (a one-time nonce per form, a write limit per
device)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response

from ledger.web import access as accessmod
from ledger.web import sessions as sessionsmod
from ledger.web.common import (
    FormError,
    Viewer,
    check_csrf,
    error_page,
    login_hint,
    read_form,
    redirect,
    run_sync,
)
from ledger.web.pages import Endpoint, _not_found, page

if TYPE_CHECKING:
    from ledger.web.app import Server


def roll_fields(system: Any) -> list[dict[str, Any]]:
    """The roll form's fields: one per :attr:`RuleSystem.roll_params` entry."""
    out = []
    for p in system.roll_params:
        kind = "flag" if p.is_flag else ("number" if p.type is int and not p.multiple else "text")
        out.append(
            {
                "name": p.name,
                "label": p.name.replace("_", " "),
                "help": p.help + p.range_text(),
                "kind": kind,
                "min": p.min,
                "max": p.max,
                "multiple": p.multiple,
                "suggestions": list(p.suggestions),
            }
        )
    return out


def _given(system: Any, form: dict[str, str]) -> dict[str, Any]:
    """Form values as click would give them to ``pick_params`` (flags ``True``, repeatable
    values split on commas into a tuple, empty fields absent)."""
    given: dict[str, Any] = {}
    for p in system.roll_params:
        value = form.get(p.name, "").strip()
        if not value:
            continue
        if p.is_flag:
            given[p.name] = True
        elif p.multiple:
            given[p.name] = tuple(v.strip() for v in value.split(",") if v.strip())
        else:
            given[p.name] = value
    return given


#: What a player is told when only the GM's view refuses their roll: the players' view of
#: the character allows it, so the reason is a GM-only fact (a hidden condition, a trait a
#: blind check spent, a skill only the GM's records hold) and must not be named.
SECRET_REFUSAL = (
    "The GM's records refuse this roll as entered, for a reason only the GM can see: "
    "ask your GM (nothing was written)."
)


def rehearse(
    campaign: Any,
    cid: str,
    skill: str | None,
    given: dict[str, Any],
    faces: str,
    *,
    automatic_ok: bool,
) -> str | None:
    """A player's physical roll tried against the players' view of ``cid``, writing nothing.

    The same steps as :meth:`ledger.campaign.aggregate.Campaign.roll` (the rule system's ``resolve``
    with the entered faces, the automatic-result question, then
    :meth:`~ledger.campaign.aggregate.Campaign.validate`), but on the state a player may see: a
    refusal found here names only what the players' view holds, so it can be shown to the
    player word for word. A roll that passes here and is still refused by the GM's view is
    refused for a GM-only fact (:data:`SECRET_REFUSAL`).

    :returns: the refusal as one sentence, or ``None`` when the players' view allows it.
    """
    from ledger.campaign.aggregate import AutomaticResult
    from ledger.campaign.validation import validate
    from ledger.dice.engine import DiceError, PhysicalDice, dice_needed, parse_faces
    from ledger.errors import RuleError
    from ledger.rules.requests import RollRequest

    system = campaign.system
    try:
        state = campaign.state_of(cid, as_gm=False, save_snapshots=False)
        request = RollRequest(cid, campaign.characters()[cid], skill, given, None)
        source = PhysicalDice(parse_faces(faces))
        try:
            event = system.resolve(state, request, source)
        except DiceError as e:
            needed = dice_needed(lambda dice: system.resolve(state, request, dice), source.faces)
            if not source.ran_short or needed is None:
                raise
            raise DiceError(f"this roll uses {needed}: {e}") from None
        source.finish()
        if not automatic_ok and system.automatic(event):
            raise AutomaticResult(system.automatic(event))
        validate(campaign, [event], cached={cid: state})
    except AutomaticResult as e:
        return f"{e}: tick “record an automatic result” to record it"
    except (RuleError, DiceError) as e:
        return str(e)
    return None


def roll(server: Server) -> Endpoint:
    """``/roll/ID``: the physical-dice form for a character the viewer plays (the GM: any,
    with engine and blind rolls as well); POST records it through
    :meth:`ledger.campaign.aggregate.Campaign.roll`, with the viewer as actor.

    Each form carries a one-time nonce (:func:`ledger.web.sessions.issue_nonce`), used in the
    transaction that appends the roll: a form sent again gets 409 "This form was already
    sent" and writes nothing. A player's device writes at most
    :attr:`~ledger.web.sessions.SessionPolicy.burst` rolls at once and then one per
    :attr:`~ledger.web.sessions.SessionPolicy.refill_seconds` (429 "Slow down", nothing
    written; charged in the same transaction, so a refused roll costs nothing); the GM's
    are not limited."""

    def form_page(
        viewer: Viewer,
        cid: str,
        values: dict[str, str],
        error: str = "",
        status: int = 200,
        headers: dict[str, str] | None = None,
    ) -> Response:
        campaign = server.campaign()
        state = campaign.state_of(cid, as_gm=viewer.as_gm, save_snapshots=False)
        skills = sorted(campaign.system.skills_of(state))
        nonce = sessionsmod.issue_nonce(
            campaign.store, viewer.session, server.clock(), server.policy
        )
        response = page(
            viewer,
            "roll.html.j2",
            status,
            campaign=campaign,
            cid=cid,
            name=campaign.characters()[cid],
            fields=roll_fields(campaign.system),
            skills=skills,
            values=values,
            error=error,
            example=campaign.system.example_roll,
            nonce=nonce,
        )
        response.headers.update(headers or {})
        return response

    def allowed(viewer: Viewer, cid: str) -> bool:
        campaign = server.campaign()
        return cid in accessmod.characters_of(campaign, viewer.access)

    def precheck(viewer: Viewer, form: dict[str, str]) -> None:
        """The form's nonce unused and (a player's) bucket not empty, before any work;
        :func:`record` checks both again in its transaction."""
        campaign = server.campaign()
        sessionsmod.check_nonce(campaign.store, viewer.session, form.get("nonce", ""))
        if not viewer.as_gm:
            sessionsmod.check_write(
                campaign.store, campaign.id, viewer.session, server.clock(), server.policy
            )

    def record(viewer: Viewer, cid: str, form: dict[str, str]) -> tuple[Any, str]:
        import click

        from ledger.campaign.aggregate import AutomaticResult
        from ledger.campaign.clock import now
        from ledger.dice.engine import DiceError
        from ledger.errors import RuleError
        from ledger.rules.params import ParamError, pick_params
        from ledger.store.sqlite import ConflictError

        campaign = server.campaign()
        faces = form.get("dice", "").strip() or None
        blind = viewer.as_gm and bool(form.get("blind"))
        if faces is None and not viewer.as_gm:
            return None, "enter the dice you rolled (the faces, in order: 3,5 or ++-0)"
        skill = form.get("skill", "").strip() or None
        automatic_ok = bool(form.get("auto"))
        try:
            given = pick_params(campaign.system, "roll_params", _given(campaign.system, form))
        except ParamError as e:
            return None, str(e)
        if not viewer.as_gm:
            # the players' view first: its refusal names only what a player may know
            problem = rehearse(campaign, cid, skill, given, faces or "", automatic_ok=automatic_ok)
            if problem:
                return None, problem
        store, moment = campaign.store, server.clock()
        try:
            with store.transaction():  # the nonce, the bucket and the roll: all or nothing
                sessionsmod.use_nonce(store, viewer.session, form.get("nonce", ""), moment)
                if not viewer.as_gm:
                    sessionsmod.spend_write(
                        store, campaign.id, viewer.session, moment, server.policy
                    )
                rec = campaign.roll(
                    cid,
                    skill,
                    given,
                    faces=faces,
                    blind=blind,
                    automatic_ok=automatic_ok,
                    actor=viewer.access.who,
                    at=now(),
                ).roll
        except ConflictError as e:
            # a stream's version counts GM-only events too: a player is not told it
            return None, str(e) if viewer.as_gm else (
                "another entry was written at the same moment: send the form again"
            )
        except AutomaticResult as e:
            if not viewer.as_gm:
                return None, SECRET_REFUSAL
            return None, f"{e}: tick “record an automatic result” to record it"
        except click.UsageError as e:
            return None, e.format_message()
        except (RuleError, DiceError) as e:
            return None, str(e) if viewer.as_gm else SECRET_REFUSAL
        return rec, ""  # committed: the server's event_appended listener woke the streams

    async def endpoint(request: Request) -> Response:
        viewer = await run_sync(server.attempt, server.viewer, request)
        if viewer is None:
            return login_hint()
        cid = request.path_params["character"]
        if not await run_sync(server.attempt, allowed, viewer, cid):
            return _not_found()
        if request.method == "GET":
            return await run_sync(server.attempt, form_page, viewer, cid, {})
        try:
            form = await read_form(request)
        except FormError as e:
            return error_page(413, f"{e}.")
        if not check_csrf(request, viewer, form):
            return error_page(403, "This form did not come from this page: reload it.")
        if not await run_sync(server.attempt, server.still_live, viewer):
            return login_hint()
        try:
            await run_sync(server.attempt, precheck, viewer, form)
            # a write lost before its commit is tried once more (nothing was written); one
            # whose commit got no answer is looked up by the store: stored (acknowledged
            # here), not stored (tried again), or unknown (CommitUnknown: the 503 page says
            # to look first). The form's nonce is used in the same transaction as the roll.
            rec, error = await run_sync(server.attempt, record, viewer, cid, form)
        except sessionsmod.FormUsed as e:  # sent twice: the form again, empty
            values = form if e.expired else {}
            return await run_sync(server.attempt, form_page, viewer, cid, values, str(e), 409)
        except sessionsmod.SlowDown as e:
            wait = {"retry-after": str(max(1, int(-(-e.wait // 1))))}
            return await run_sync(server.attempt, form_page, viewer, cid, form, str(e), 429, wait)
        if rec is None:
            return await run_sync(server.attempt, form_page, viewer, cid, form, error, 422)
        return redirect(f"/log#e{rec.seq}")

    return endpoint
