"""A player's phone answers roll requests: ``/requests/part`` lists the open requests
addressed to the viewer, ``POST /answer/SEQ`` answers one.

A request (``roll.requested``, :mod:`ledger.campaign.roll_requests`) is addressed to a player when
it names them (``asked``), or names nobody and the player plays its character
(:func:`ledger.web.access.characters_of`). The phone's script (``static/requests.js``) shows
each one as a card with the roll's inputs in words and two answers:

- **Roll**: the browser makes 32 bytes with ``crypto.getRandomValues``, keeps a copy in
  IndexedDB keyed by the request's seq, and posts them as ``entropy`` (64 hex digits); the
  server draws the dice from the committed session seed and that entropy (scheme
  ``ledger-roll-v2``) through :meth:`ledger.campaign.aggregate.Campaign.roll` with
  ``answer=SEQ``: the same code as ``campaign roll CHARACTER --answer SEQ --entropy HEX``.
- **Enter dice**: the faces of physical dice, as ``dice`` (``campaign roll ... --answer SEQ
  --dice FACES``), tried first against the players' view (:func:`ledger.campaign.entering.rehearse`)
  so a refusal names only what the player may know.

Each card carries a one-time nonce and the session's CSRF token, and a player's device is
held to the write limit of the roll form (:mod:`ledger.web.sessions`). A request is answered
once: a second answer gets 409 with what happened to it ("already answered at seq N", "the
GM withdrew it: REASON").

Answers come back as JSON (``{"roll": SEQ, "text": ..., "drawn": N, "entropy": HEX}`` or
``{"error": ...}``: ``text`` is what the card then says, :func:`answered_words`) when the request asks for it (``Accept: application/json``, as the script does), as
a redirect to the log or an error page otherwise.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from ledger.campaign import entering
from ledger.campaign.entering import Controls
from ledger.errors import Refused
from ledger.events import RollRequested
from ledger.web import access as accessmod
from ledger.web import sessions as sessionsmod
from ledger.web.common import (
    REFUSED_STATUS,
    FormError,
    Viewer,
    check_csrf,
    check_device_write,
    device_write,
    error_page,
    login_hint,
    read_form,
    redirect,
    render,
    run_sync,
)

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign
    from ledger.web.app import Server

#: The phone's names for its own controls in the shared refusals
#: (:mod:`ledger.campaign.entering`).
PHONE_CONTROLS = Controls(
    again="tap again",
    entropy="Roll (the phone's own randomness)",
    dice="the dice you rolled",
    randomness="the phone's randomness",
    fresh="tap Roll again",
)


def inputs_in_words(system: Any, name: str, skill: str | None, params: dict[str, Any]) -> str:
    """What a request asks, as the phone shows it, its options in the book's words
    (:meth:`~ledger.rules.form.RollForm.roll_words`): ``"Isa Marrow rolls Lockpicking
    (with time and tools)"``; an option set to ``False``/``None``/empty is left out."""
    text = f"{name} rolls {skill}" if skill else f"{name} rolls"
    said = system.roll_words(params)
    return text + (f" ({said})" if said else "")


def answered_words(campaign: Campaign, rec: Any) -> str:
    """What an answered request's card says: the roll as the log words it (its dice, the
    result and the outcome) and how its dice came, never claiming a draw that was not made:
    ``"Rolled: Isa Marrow — Forage +2, d20 15 = 17: messy, +1 xp (event 7), drawn with your
    phone's randomness."``; an answer the rules settle without dice (a request made before
    such requests were refused) says no dice were drawn."""
    from ledger.dice.engine import REQUESTED_SCHEME
    from ledger.web.logview import entry

    shown = entry(campaign, rec, campaign.corrections())
    text = f"{shown['text']} (event {rec.seq})"
    if not rec.data.draws:
        return (
            f"Recorded: {text}. No dice were drawn: the rules give this result without rolling."
        )
    if rec.data.source == "physical":
        return f"Recorded: {text}, with the dice you entered."
    if getattr(rec.data, "scheme", None) == REQUESTED_SCHEME:
        return f"Rolled: {text}, drawn with your phone's randomness."
    return f"Rolled: {text}."


def addressed(request: Any, viewer: Viewer, mine: dict[str, str]) -> bool:
    """Is the request (a ``RollRequested``) the viewer's to answer: a player's session and
    :func:`ledger.campaign.entering.addressed`. The GM answers at the laptop (``campaign
    roll --answer``), never through a phone's page."""
    return not viewer.as_gm and entering.addressed(request, viewer.access.who, mine)


def open_requests(campaign: Campaign, viewer: Viewer) -> list[dict[str, Any]]:
    """The open requests addressed to ``viewer``, oldest first: ``seq``, ``character`` (id),
    ``name``, ``skill``, ``params``, ``words`` (:func:`inputs_in_words`).

    Two reads of the viewer's characters' streams: their requests (a GM-only one is not
    shown), then their withdrawals and rolls from the first of those requests on. A request
    is open until a roll names it (``Roll.request``) or a ``roll.withdrawn`` does. A GM's
    session is asked nothing.
    """
    from ledger.events import Roll, RollWithdrawn

    if viewer.as_gm:
        return []
    mine = accessmod.characters_of(campaign, viewer.access)
    if not mine:
        return []
    streams = list(mine)
    found: dict[int, dict[str, Any]] = {}
    for rec in campaign.records(as_gm=True, streams=streams, types=["roll.requested"]):
        data = rec.data
        if not isinstance(data, RollRequested):
            continue
        if rec.visibility == "public" and addressed(data, viewer, mine):
            found[rec.seq] = {
                "seq": rec.seq,
                "character": data.character,
                "name": mine[data.character],
                "skill": data.skill,
                "params": data.params,
                "words": inputs_in_words(
                    campaign.system, mine[data.character], data.skill, data.params
                ),
            }
    if not found:
        return []
    closing = ["roll.withdrawn"] + [
        tag for tag, cls in campaign.codec.types.items() if issubclass(cls, Roll)
    ]
    for rec in campaign.records(as_gm=True, streams=streams, types=closing, after=min(found)):
        request = getattr(rec.data, "request", None)
        if isinstance(rec.data, Roll | RollWithdrawn) and isinstance(request, int):
            found.pop(request, None)
    return [found[s] for s in sorted(found)]


def requests_part(server: Server) -> Any:
    """``/requests/part``: the open requests addressed to the viewer as HTML cards (what
    ``static/requests.js`` swaps in whenever the live stream says something was written),
    each with a fresh one-time nonce; empty for the GM and for a player asked nothing."""

    def run(request: Request) -> Response:
        viewer = server.viewer(request)
        if viewer is None:
            return login_hint()
        campaign = server.campaign()
        cards = open_requests(campaign, viewer)
        for card in cards:
            card["nonce"] = sessionsmod.issue_nonce(
                campaign.store, viewer.session, server.clock(), server.policy
            )
        return HTMLResponse(
            render("_requests.html.j2", cards=cards, viewer=viewer, system=campaign.system)
        )

    def endpoint(request: Request) -> Response:
        return server.attempt(run, request)

    return endpoint


def answer(server: Server) -> Any:
    """``POST /answer/SEQ``: answer the open request at SEQ with ``entropy`` (64 hex digits
    from the phone) or ``dice`` (the faces of physical dice), plus ``csrf`` and ``nonce``.

    Statuses: 200 (or 303 to the log without ``Accept: application/json``) with the roll
    written; 403 without a live session or from another page (CSRF); 404 for a request that
    is not the viewer's (or no request at all: the same answer, so a player learns nothing
    of others' requests); 409 for a request already answered or withdrawn, or a form sent
    twice; 422 for an answer the rules refuse (for a player, in the players' view only:
    :data:`ledger.campaign.entering.SECRET_REFUSAL` when only the GM's records refuse it); 429
    past the device's write limit (``retry-after``). Nothing is written on any of them.
    """

    def check_request(viewer: Viewer, seq: int) -> None:
        """:raises Refused: ``missing`` not the viewer's; ``closed``."""
        campaign = server.campaign()
        mine = {} if viewer.as_gm else accessmod.characters_of(campaign, viewer.access)
        entering.request_for(campaign, seq, viewer.access.who, mine)

    def record(viewer: Viewer, seq: int, form: dict[str, str]) -> Any:
        """The answer written through :func:`ledger.campaign.entering.answer_request`."""
        from ledger.campaign.clock import now

        campaign = server.campaign()
        also = device_write(server, viewer, form)  # the nonce, the bucket and the roll
        mine = {} if viewer.as_gm else accessmod.characters_of(campaign, viewer.access)
        return entering.answer_request(
            campaign, seq, entropy=form.get("entropy"), faces=form.get("dice"),
            who=viewer.access.who, mine=mine, at=now(), controls=PHONE_CONTROLS, also=also,
        )  # fmt: skip

    def reply(request: Request, status: int, body: dict[str, Any], headers: Any = None) -> Response:
        if "application/json" in request.headers.get("accept", ""):
            return JSONResponse(body, status_code=status, headers=headers)
        if status == 200:
            return redirect(f"/log#e{body['roll']}")
        return error_page(status, body["error"])

    async def endpoint(request: Request) -> Response:
        viewer = await run_sync(server.attempt, server.viewer, request)
        if viewer is None:
            return login_hint()
        seq = request.path_params["seq"]
        try:
            form = await read_form(request)
        except FormError as e:
            return reply(request, 413, {"error": f"{e}."})
        if not check_csrf(request, viewer, form):
            return reply(
                request, 403, {"error": "This answer did not come from this page: reload it."}
            )
        if not await run_sync(server.attempt, server.still_live, viewer):
            return login_hint()
        try:
            await run_sync(server.attempt, check_request, viewer, seq)
            await run_sync(server.attempt, check_device_write, server, viewer, form)
            rec = await run_sync(server.attempt, record, viewer, seq, form)
        except Refused as e:  # the shared refusal, its status from why
            return reply(request, REFUSED_STATUS.get(e.reason, 422), {"error": e.text})
        except sessionsmod.FormUsed as e:
            return reply(request, 409, {"error": str(e)})
        except sessionsmod.SlowDown as e:
            wait = {"retry-after": str(max(1, int(-(-e.wait // 1))))}
            return reply(request, 429, {"error": str(e)}, wait)
        entropy = getattr(rec.data, "entropy", None)
        said = await run_sync(server.attempt, lambda: answered_words(server.campaign(), rec))
        return reply(
            request,
            200,
            {
                "roll": rec.seq,
                "text": said,
                "drawn": len(rec.data.draws),
                "entropy": entropy if isinstance(entropy, str) else None,
            },
        )

    return endpoint
