"""The roll form of the web view (``/roll/CHARACTER``): fields built from the rule system's
roll parameters, a player's roll rehearsed in the players' view first, and the roll written
through the same code as ``campaign roll`` (a one-time nonce per form, a write limit per
device)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response

from ledger.campaign.entering import SECRET_REFUSAL as SECRET_REFUSAL  # where tests and pages look
from ledger.campaign.entering import Controls
from ledger.web import access as accessmod
from ledger.web import sessions as sessionsmod
from ledger.web.common import (
    FormError,
    Viewer,
    check_csrf,
    check_device_write,
    device_write,
    error_page,
    login_hint,
    read_form,
    redirect,
    run_sync,
)
from ledger.web.pages import Endpoint, _not_found, page

if TYPE_CHECKING:
    from ledger.web.app import Server


#: What a roll settled without dice asks of the player (the form's "auto" field).
AUTO_HINT = "if that is right, tick “Record it without rolling” (under More options)"

#: The form's names for its own controls in the shared refusals
#: (:mod:`ledger.campaign.entering`).
FORM_CONTROLS = Controls(auto=AUTO_HINT, again="send the form again")


def roll(server: Server) -> Endpoint:
    """``/roll/ID``: the physical-dice form for a character the viewer plays (the GM: any,
    with engine and blind rolls as well); POST records it through
    :meth:`ledger.campaign.aggregate.Campaign.roll`, with the viewer as actor, and redirects
    to ``/log?recorded=SEQ#eSEQ`` (the log's "Recorded #SEQ — outcome" banner).

    The form is built from the system's roll params (:mod:`ledger.web.roll_help`): the
    character's skills as buttons, most rolled first; the dice as face buttons or the
    numeric keypad; the common options shown, the rest folded; the odds of the roll as it
    stands. A refusal is shown next to the field it is about (422, nothing written); a
    field the form does not show is refused (422).

    Each form carries a one-time nonce (:func:`ledger.web.sessions.issue_nonce`), used in the
    transaction that appends the roll: a form sent again gets 409 "This form was already
    sent" and writes nothing. A player's device writes at most
    :attr:`~ledger.web.sessions.SessionPolicy.burst` rolls at once and then one per
    :attr:`~ledger.web.sessions.SessionPolicy.refill_seconds` (429 "Slow down", nothing
    written; charged in the same transaction, so a refused roll costs nothing); the GM's
    are not limited."""
    from ledger.web import roll_help

    def form_page(
        viewer: Viewer,
        cid: str,
        values: dict[str, str],
        error: str = "",
        status: int = 200,
        headers: dict[str, str] | None = None,
        field: str = "",
    ) -> Response:
        campaign = server.campaign()
        system = campaign.system
        state = campaign.state_of(cid, as_gm=viewer.as_gm, save_snapshots=False)
        skills = roll_help.skills_by_use(
            campaign, cid, list(dict.fromkeys(system.skills_of(state))), as_gm=viewer.as_gm
        )
        nonce = sessionsmod.issue_nonce(
            campaign.store, viewer.session, server.clock(), server.policy
        )
        fresh = not values
        fields = roll_help.fields(system, values, fresh)
        skill = roll_help.skill_of(values)
        chances: dict[str, Any] = {"lines": [], "note": "", "field": ""}
        if not error:
            try:
                picked = preview_params(viewer, {k: f["value"] for k, f in _named(fields).items()})
                chances = roll_help.odds(campaign, cid, skill, picked, as_gm=viewer.as_gm)
            except (roll_help.Forged, ValueError) as e:
                chances["note"] = str(e)
        response = page(
            viewer,
            "roll.html.j2",
            status,
            campaign=campaign,
            system=system,
            cid=cid,
            name=campaign.characters()[cid],
            fields=fields,
            skills=skills,
            skill=skill or "",
            other=values.get("skill_other", "") if skill and skill not in skills else "",
            values=values,
            error="" if field else error,
            field_error={field: error} if field else {},
            open_more=bool(field) and field not in {f["name"] for f in fields if f["common"]}
            and field not in ("skill", "dice"),
            chances=chances,
            nonce=nonce,
        )
        response.headers.update(headers or {})
        return response

    def _named(fields: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
        return {f["name"]: f for f in fields if f["value"]}

    def preview_params(viewer: Viewer, values: dict[str, str]) -> dict[str, Any]:
        """The roll params of ``values`` converted as ``campaign roll`` converts them.

        :raises roll_help.Forged: a field the form does not show.
        :raises ParamError: a bad value (a ``ValueError`` too: a RuleError)."""
        from ledger.rules.params import pick_params

        system = server.campaign().system
        return pick_params(system, "roll_params", roll_help.given(system, values, as_gm=viewer.as_gm))

    def allowed(viewer: Viewer, cid: str) -> bool:
        campaign = server.campaign()
        return cid in accessmod.characters_of(campaign, viewer.access)

    def record(viewer: Viewer, cid: str, form: dict[str, str]) -> tuple[Any, str, str]:
        """The roll written through :func:`ledger.campaign.entering.enter_roll` (the code of
        ``campaign roll``): ``(record, "", "")``; or refused: ``(None, sentence, field)``
        (``field`` the form field it is about, ``""`` for none)."""
        from ledger.campaign.clock import now
        from ledger.campaign.entering import enter_roll
        from ledger.errors import Refused
        from ledger.rules.params import ParamError, pick_params

        campaign = server.campaign()
        system = campaign.system
        try:
            given = pick_params(system, "roll_params", roll_help.given(system, form, as_gm=viewer.as_gm))
        except roll_help.Forged as e:
            return None, str(e), ""
        except ParamError as e:
            return None, str(e), roll_help.field_of(system, e)
        skill, faces = roll_help.skill_of(form), form.get("dice", "").strip() or None
        automatic_ok = bool(form.get("auto"))
        if faces and not automatic_ok:  # dice typed for a roll the rules settle without them
            settled = roll_help.settled(campaign, cid, skill, given, as_gm=viewer.as_gm)
            if settled:
                return None, f"{settled}: {AUTO_HINT}", roll_help.field_of(system, settled)
        try:
            rec = enter_roll(
                campaign,
                cid,
                skill,
                given,
                faces=faces,
                as_gm=viewer.as_gm,
                actor=viewer.access.who,
                at=now(),
                controls=FORM_CONTROLS,
                automatic_ok=automatic_ok,
                blind=viewer.as_gm and bool(form.get("blind")),
                also=device_write(server, viewer, form),  # the nonce, the bucket and the roll
            ).roll
        except Refused as e:
            if e.secret or e.reason == "conflict":
                return None, e.text, ""
            return None, e.text, roll_help.field_of(system, e)
        return rec, "", ""  # committed: the server's event_appended listener woke the streams

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
            await run_sync(server.attempt, check_device_write, server, viewer, form)
            # a write lost before its commit is tried again (nothing was written); one
            # whose commit got no answer is looked up by the store: stored (acknowledged
            # here), not stored (tried again), or unknown (CommitUnknown: the 503 page says
            # to look first). The form's nonce is used in the same transaction as the roll.
            rec, error, field = await run_sync(server.attempt, record, viewer, cid, form)
        except sessionsmod.FormUsed as e:  # sent twice: the form again, empty
            values = form if e.expired else {}
            return await run_sync(server.attempt, form_page, viewer, cid, values, str(e), 409)
        except sessionsmod.SlowDown as e:
            wait = {"retry-after": str(max(1, int(-(-e.wait // 1))))}
            return await run_sync(server.attempt, form_page, viewer, cid, form, str(e), 429, wait)
        if rec is None:
            return await run_sync(
                server.attempt, form_page, viewer, cid, form, error, 422, None, field
            )
        verdict = await run_sync(server.attempt, lambda: server.campaign().system.verdict(rec.data))
        shown = f"&verdict={verdict}" if verdict else ""
        return redirect(f"/log?recorded={rec.seq}{shown}#e{rec.seq}")

    return endpoint


def preview(server: Server) -> Endpoint:
    """``GET /roll/ID/preview?skill=...&PARAM=...``: the odds of the roll the form holds,
    as an HTML fragment (``_odds.html.j2``) the form's script swaps in as fields change:
    "you need 15+ for good: 30%", or why there are none (the rules' refusal, an automatic
    result) with the field it is about (``data-field``). Read in the viewer's view of the
    character; writes nothing. 404 for a character the viewer does not play."""
    from ledger.rules.params import ParamError, pick_params
    from ledger.web import roll_help
    from ledger.web.common import render

    def run(request: Request) -> Response:
        from starlette.responses import HTMLResponse

        viewer = server.viewer(request)
        if viewer is None:
            return login_hint()
        campaign = server.campaign()
        cid = request.path_params["character"]
        if cid not in accessmod.characters_of(campaign, viewer.access):
            return _not_found()
        query = {k: v[:500] for k, v in request.query_params.items()}
        system = campaign.system
        try:
            picked = pick_params(
                system, "roll_params", roll_help.given(system, query, as_gm=viewer.as_gm)
            )
            chances = roll_help.odds(
                campaign, cid, roll_help.skill_of(query), picked, as_gm=viewer.as_gm
            )
        except roll_help.Forged as e:
            chances = {"lines": [], "note": str(e), "field": ""}
        except ParamError as e:
            chances = {"lines": [], "note": str(e), "field": roll_help.field_of(system, e)}
        return HTMLResponse(render("_odds.html.j2", chances=chances))

    def endpoint(request: Request) -> Response:
        return server.attempt(run, request)

    return endpoint
