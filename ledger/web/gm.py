"""The GM's page that runs the night: ``GET /gm`` and its taps, ``POST /gm/ACTION``.

Only the GM's session sees it: a player's session, or none, gets the generic 404 page
("There is nothing here"), no hint that the page exists. Per character: apply damage
(:func:`ledger.campaign.recording.harm`, the code of ``campaign damage``), add or end a
condition and mark experience (the rule system's own events, :func:`ledger.campaign.recording.
record_event`, the code of ``campaign record``; which events these are:
:func:`~ledger.campaign.recording.kinds_of`), and request a roll (``campaign request``); every
other recordable event as a folded form. Each write redirects to ``/gm?done=SEQ``, which says
what was written and what it changed in the book's words, with an undo that takes a reason
(``campaign undo``'s own: :mod:`ledger.campaign.undo`, the whole entry the line belongs to;
an open roll request is withdrawn). A refused write shows the page again (422) with the reason next to
the form that caused it; nothing is written.

Who is connected: each live link's signed-in devices (browser and system, signed in, last
seen) with **Sign out** (the session ends at once: the phone's next request gets the login
hint, its live stream ``event: ended``). Links are printed once and the ledger keeps only
their hashes, so the page cannot show a player's current link: **New link** issues a fresh
one (``campaign access add NAME --replace``: the old link and its devices stop) and shows it
once, with its QR code, in the answer to that POST (never in a URL, never again).

**Add a character from a passport** uploads a passport file (``POST /gm/join``, the one
form sent as ``multipart/form-data``): it is verified and the character added by
:func:`ledger.history.passports.join`, the code of ``campaign character add --passport``,
so the same checks and the same one-line refusals.

Every POST carries the session's CSRF token and is checked for the same origin
(:func:`ledger.web.common.check_csrf`), and the page's one-time nonce
(:func:`ledger.web.sessions.issue_nonce`), used in the transaction of the write: a form sent
twice writes once (409 the second time).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response

from ledger.errors import Refused
from ledger.web import sessions as sessionsmod
from ledger.web.common import (
    REFUSED_STATUS,
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
    from ledger.campaign.aggregate import Campaign
    from ledger.web.app import Server

#: The taps ``POST /gm/ACTION`` takes.
#: The actor of the page's writes: the GM's link.
GM = "gm"

ACTIONS = ("damage", "record", "request", "undo", "signout", "link", "next", "end", "join")


def gm_page(server: Server) -> Endpoint:
    """``GET /gm``: the GM's page (404 for anyone else). ``?done=SEQ`` shows what the tap
    that wrote SEQ changed, with its undo; ``?out=1`` that a device was signed out."""

    def run(request: Request) -> Response:
        viewer = server.viewer(request)
        if viewer is None:
            return login_hint()
        if not viewer.as_gm:
            return _not_found()
        done = request.query_params.get("done", "")
        note = (
            "The device is signed out: its next page asks for the link again."
            if (request.query_params.get("out"))
            else ""
        )
        seq = int(done) if done.isdigit() and len(done) <= 18 else 0
        return render_page(server, viewer, done=seq, note=note)

    def endpoint(request: Request) -> Response:
        return server.attempt(run, request)  # type: ignore[no-any-return]

    return endpoint


def render_page(
    server: Server,
    viewer: Viewer,
    *,
    done: int = 0,
    note: str = "",
    failed: Refused | None = None,
    where: str = "",
    values: dict[str, str] | None = None,
    new_link: dict[str, str] | None = None,
    status: int = 200,
) -> Response:
    """The GM's page, with a fresh one-time nonce for its forms. A refusal (the shared
    :class:`ledger.errors.Refused`, worded for this page by :func:`worded`) is shown next to
    the form ``where`` it came from, or at the top when the page no longer has that form (a
    device signed out meanwhile, an entry gone from the recent ones)."""
    shown = (
        {"text": worded(failed), "form": where, "field": failed.param or ""}
        if failed is not None
        else None
    )
    if shown is not None and where:
        first = _render(server, viewer, done, note, shown, values, new_link, status)
        if f'id="err-{where}"'.encode() in first.body:
            return first
        shown = {"text": shown["text"], "form": "", "field": ""}
    return _render(server, viewer, done, note, shown, values, new_link, status)


def worded(refused: Refused | None) -> str:
    """A refusal as this page says it: one sentence, capitalised, ending "(nothing was
    written)."."""
    return _sentence(refused.text) if refused is not None else ""


def _render(
    server: Server,
    viewer: Viewer,
    done: int,
    note: str,
    failed: dict[str, str] | None,
    values: dict[str, str] | None,
    new_link: dict[str, str] | None,
    status: int,
) -> Response:
    from ledger.campaign.encounters import encounter_view
    from ledger.web import gm_forms

    campaign = server.campaign()
    said, changes, about = gm_forms.changes_of(campaign, done) if done else ("", [], None)
    recent = gm_forms.recent(campaign)
    mine = next((r for r in recent if r["seq"] == done), None) if said else None
    undo, undo_seq = (mine["undo"], mine["undo_seq"]) if mine else ("", 0)
    nonce = sessionsmod.issue_nonce(campaign.store, viewer.session, server.clock(), server.policy)
    return page(
        viewer,
        "gm.html.j2",
        status,
        campaign=campaign,
        cards=gm_forms.character_cards(campaign),
        encounter=encounter_view(campaign, as_gm=True),
        taps=gm_forms.taps(campaign),
        recent=recent,
        links=gm_forms.connected(campaign, server.clock(), server.policy, viewer.session.id),
        done={"seq": done, "text": said, "changes": changes, "character": about, "undo": undo,
              "undo_seq": undo_seq}
        if said
        else None,
        note=note,
        failed=failed,
        values=values or {},
        new_link=new_link,
        nonce=nonce,
    )


def act(
    server: Server, viewer: Viewer, action: str, form: dict[str, str], upload: bytes = b""
) -> Any:
    """Do one tap in one transaction with the form's nonce; returns the redirect's URL, or
    ``{"link": ...}`` for a new link. ``upload``: the passport file of ``join``.

    :raises Refused: what was entered, or the rules, refuse it (nothing written); the page
        words it (:func:`worded`).
    :raises sessionsmod.FormUsed: the form was sent already (nothing more written).
    """
    from ledger.campaign import recording
    from ledger.campaign.clock import now
    from ledger.errors import ConflictError, RuleError

    campaign = server.campaign()
    store, moment = campaign.store, server.clock()
    sessionsmod.check_nonce(store, viewer.session, form.get("nonce", ""))
    try:
        with store.transaction():
            sessionsmod.use_nonce(store, viewer.session, form.get("nonce", ""), moment)
            if action == "signout":
                return _sign_out(server, campaign, form)
            if action == "link":
                return _new_link(campaign, form)
            if action == "undo":
                return _undo(campaign, form)
            if action == "request":
                return _request(campaign, form)
            if action in ("next", "end"):
                return _encounter(campaign, action, viewer.access.who)
            if action == "join":
                return _join(campaign, form, upload, viewer.access.who)
            named = form.get("character", "").strip()
            cid = campaign.find_character(named) if named or action == "damage" else None
            if action == "damage":
                assert cid is not None
                amount = form.get("amount", "").strip()
                if not amount.lstrip("-").isdigit() or len(amount) > 9:
                    raise Refused("give the damage as a whole number, 1 or more", reason="input")
                event = recording.harm(campaign, cid, int(amount), _items(form.get("affects")))
            else:
                texts = {k[2:]: v for k, v in form.items() if k.startswith("f.") and v.strip()}
                if cid is not None:
                    texts.setdefault("character", cid)
                event = recording.record_event(campaign, form.get("event", ""), texts)
            rec = recording.write(campaign, event, actor=viewer.access.who, at=now()).rec
            return f"/gm?done={rec.seq}" + (f"#c-{cid}" if cid else "")
    except recording.FieldError as e:
        raise Refused(e.message, reason="input") from None
    except ConflictError:
        raise Refused(
            "another entry was written at the same moment: tap again", reason="conflict"
        ) from None
    except Refused:
        raise
    except RuleError as e:
        raise Refused(str(e)) from None


def _items(text: str | None) -> list[str]:
    return [t.strip() for t in (text or "").split(",") if t.strip()]


def _sentence(text: str) -> str:
    text = text.strip()
    return (text[:1].upper() + text[1:]).rstrip(".") + " (nothing was written)."


def _request(campaign: Campaign, form: dict[str, str]) -> str:
    """"Ask for a roll": the skill and the roll form's options (the same fields,
    :func:`ledger.web.roll_help.fields`), through :meth:`Campaign.request_roll` as
    ``campaign request``. A refusal about one option (a bad value; a roll the rules settle
    without dice) is shown next to that option."""
    from ledger.campaign.clock import now
    from ledger.campaign.roll_requests import NothingToRoll
    from ledger.rules.params import ParamError, pick_params
    from ledger.web.roll_help import field_of, given

    system = campaign.system
    cid = campaign.find_character(form.get("character", ""))
    skill = form.get("skill", "").strip() or None
    names = {p.name for p in system.roll_params}
    options = given(system, {k: v for k, v in form.items() if k in names}, as_gm=True)
    asked = form.get("asked", "").strip() or None
    try:
        picked = pick_params(system, "roll_params", options)
        rec = campaign.request_roll(cid, skill, picked, asked=asked, actor=GM, at=now())
    except (ParamError, NothingToRoll) as e:
        raise Refused(str(e), reason="input", param=field_of(system, e) or None) from None
    return f"/gm?done={rec.seq}#c-{cid}"


def _join(campaign: Campaign, form: dict[str, str], upload: bytes, who: str) -> str:
    """Add a character from a passport (the page's form): verify the uploaded passport and
    start the character from the state it proves (:func:`ledger.history.passports.join`,
    as ``campaign character add --passport``; its refusals word the error). With the
    league's URL and key, the passport must end at the league's newest entry
    (:func:`ledger.league.joining.newest_head`, as ``--league URL --league-key VKEY``)."""
    from ledger.campaign.clock import now
    from ledger.history.passports import join

    if not upload:
        raise Refused("choose the passport file the player brought", reason="input")
    named = form.get("id", "").strip() or None
    url, key = form.get("league", "").strip(), form.get("league_key", "").strip()
    newest = None
    if url or key:
        if not (url and key):
            raise Refused("give both the league's URL and its key, or neither", reason="input")
        from ledger.league.joining import newest_head

        newest = newest_head(url, key)  # LeagueNotAsked is a RuleError: worded as one
    created, _joined = join(campaign, upload, character=named, actor=who, at=now(), newest=newest)
    cid = created.data.character  # type: ignore[attr-defined]
    return f"/gm?done={created.seq}#c-{cid}"


async def read_upload(request: Request) -> tuple[dict[str, str], bytes]:
    """A ``multipart/form-data`` body (the passport form): its text fields and the bytes of
    its one file field ``passport`` (``b""`` without one), at most :data:`MAX_UPLOAD` bytes.

    :raises FormError: another content type, more than one file or ten fields, a field
        longer than :data:`ledger.web.common.MAX_VALUE`, or a body that cannot be read.
    """
    from starlette.datastructures import UploadFile

    from ledger.web.common import MAX_UPLOAD, MAX_VALUE

    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "multipart/form-data":
        raise FormError("send the form as the page does")
    try:
        got = await request.form(max_files=1, max_fields=10, max_part_size=MAX_UPLOAD)
    except Exception:  # starlette's MultiPartException and the parser's own errors
        raise FormError("the form could not be read") from None
    fields: dict[str, str] = {}
    data = b""
    for key, value in got.multi_items():
        if isinstance(value, UploadFile):
            if key == "passport":
                data = await value.read(MAX_UPLOAD + 1)
        elif len(value) > MAX_VALUE or len(key) > 100:
            raise FormError(f"a value is longer than {MAX_VALUE} characters")
        else:
            fields[key] = value
    await got.close()
    if len(data) > MAX_UPLOAD:
        raise FormError("the passport is too large")
    return fields, data


def _encounter(campaign: Campaign, action: str, who: str) -> str:
    """The encounter tracker's Next turn and End: ``campaign encounter next|end``'s
    own functions, so the same refusals (none running) and the same consequences (a
    lapsed Boost) in the same batch."""
    from ledger.campaign import initiative
    from ledger.campaign.clock import now

    move = initiative.next_turn if action == "next" else initiative.end
    records = move(campaign, actor=who, at=now())
    return f"/gm?done={records[0].seq}#encounter-tracker"


def _undo(campaign: Campaign, form: dict[str, str]) -> str:
    """Undo the entry the line at ``seq`` belongs to (:func:`ledger.campaign.undo.undo_target`:
    what ``campaign undo`` takes back), with the reason typed."""
    from ledger.campaign.clock import now
    from ledger.campaign.undo import undo, undo_target

    seq_text = form.get("seq", "")
    if not seq_text.isdigit() or len(seq_text) > 18:
        raise Refused("choose the entry to undo", reason="input")
    reason = form.get("reason", "").strip()
    if not reason:  # before the target: a refusal names what is missing first
        raise Refused("give the reason: it is kept in the log beside the undo", reason="input")
    rec = undo(campaign, undo_target(campaign, int(seq_text)), reason, actor=GM, at=now())
    return f"/gm?done={rec.seq}"


def _sign_out(server: Server, campaign: Campaign, form: dict[str, str]) -> str:
    text = form.get("session", "")
    ended = None
    if text.isdigit() and len(text) <= 18:
        ended = sessionsmod.sign_out_device(
            campaign.store, campaign.id, int(text), server.clock(), server.policy
        )
    if ended is None:
        raise Refused("that device is not signed in any more", reason="input")
    return "/gm?out=1#devices"


def _new_link(campaign: Campaign, form: dict[str, str]) -> dict[str, str]:
    from ledger.campaign.clock import now
    from ledger.web import access as accessmod
    from ledger.web.gm_forms import qr_data_uri

    who = form.get("who", "").strip()
    players = {p.casefold(): p for p in accessmod.players_of(campaign, as_gm=True)}
    for link in accessmod.live(campaign.store, campaign.id):
        if not link.is_gm:
            players.setdefault(link.who.casefold(), link.who)
    if who.casefold() not in players:
        raise Refused("new links are for the players on this page", reason="input")
    found, token = accessmod.grant(
        campaign.store, campaign, players[who.casefold()], (), at=now(), replace=True
    )
    base = campaign.store.public_url(campaign.id) or form.get("_base", "")
    url = f"{base.rstrip('/')}/a/{token}"
    return {"who": found.who, "url": url, "qr": qr_data_uri(url)}


def gm_post(server: Server) -> Endpoint:
    """``POST /gm/ACTION``: one tap of the GM's page (:data:`ACTIONS`); 303 to the page
    (``?done=SEQ``), or the page again with the refusal next to its form (422, 409 for a
    form sent twice). 404 for anyone but the GM, 403 from another page (CSRF)."""

    async def endpoint(request: Request) -> Response:
        viewer = await run_sync(server.attempt, server.viewer, request)
        if viewer is None:
            return login_hint()
        if not viewer.as_gm or request.path_params["action"] not in ACTIONS:
            return _not_found()
        upload = b""
        try:
            if request.path_params["action"] == "join":
                form, upload = await read_upload(request)
            else:
                form = await read_form(request)
        except FormError as e:
            return error_page(413, f"{e}.")
        if not check_csrf(request, viewer, form):
            return error_page(403, "This form did not come from this page: reload it.")
        if not await run_sync(server.attempt, server.still_live, viewer):
            return login_hint()
        form["_base"] = f"{request.url.scheme}://{request.url.netloc}"
        action = request.path_params["action"]
        where = form.get("form", "")
        try:
            out = await run_sync(server.attempt, act, server, viewer, action, form, upload)
        except Refused as e:  # the shared refusal, worded here, its status from why
            again = functools.partial(
                render_page, server, viewer, failed=e, where=where, values=form,
                status=REFUSED_STATUS.get(e.reason, 422),
            )  # fmt: skip
            return await run_sync(server.attempt, again)
        except sessionsmod.FormUsed as e:
            text = (
                "this page has expired: reload it and tap again"
                if e.expired
                else "this form was already sent: it is in the log once"
            )
            failed = Refused(text, reason="conflict")
            return await run_sync(
                server.attempt,
                lambda: render_page(server, viewer, failed=failed, where=where, status=409),
            )
        if isinstance(out, dict):  # a new link: shown once, in this answer only
            return await run_sync(server.attempt, lambda: render_page(server, viewer, new_link=out))
        return redirect(out)

    return endpoint
