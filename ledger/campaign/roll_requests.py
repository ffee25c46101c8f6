"""Roll requests: the GM asks, the roller's device answers with its own entropy.

``campaign request CHARACTER SKILL [options]`` appends ``roll.requested`` with the roll's
inputs; from then on they are fixed. It is answered once, by a roll that names the request
(``Roll.request``): engine dice drawn with the roller's 32 bytes of entropy (scheme
``ledger-roll-v2``: the GM cannot know the draw before the entropy arrives, the roller
cannot grind it, knowing neither the seed nor getting a second answer) or physical dice the
player entered instead. A request not yet answered can be withdrawn (``roll.withdrawn``);
an answered one cannot, so a result the GM saw stays in the log.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ledger.dice import engine as dicemod
from ledger.errors import NotFound, RuleError
from ledger.events import Recorded, Roll, RollRequested, RollWithdrawn
from ledger.rules.roll_inputs import RollRequest

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign


class NothingToRoll(RuleError):
    """A roll request refused when it is made: the rules give its result without a die
    (:func:`nothing_to_roll`). ``str()`` is the one sentence every front end shows.

    ``param`` (as every :class:`RuleError`'s) is the roll option the sentence is about
    (``"time"``: a form shows it next to that field, the API points at it), or ``None``.
    """


def nothing_to_roll(system: Any, event: Any, *, drawn: int) -> str | RuleError | None:
    """Why a request resolved as ``event`` (``drawn`` dice drawn doing so) asks a player for
    nothing: the rule system's sentence (:meth:`RuleSystem.settled_without_dice
    <ledger.rules.system.RuleSystem.settled_without_dice>`, a :class:`RuleError` when it
    names the option it is about), else, for a roll that drew no die all the same, the
    core's; ``None``: the request draws dice."""
    reason = system.settled_without_dice(event)
    if reason is None and drawn == 0:
        said = system.automatic(event)
        reason = (
            f"The rules of {system.name} give this roll's result without a die"
            + (f" ({said})" if said else "")
            + ": there is nothing for a player to roll; record the result instead"
        )
    return reason


def find_request(campaign: Campaign, seq: int) -> Recorded:
    """The ``roll.requested`` record at ``seq``.

    :raises NotFound: no event ``seq``, or it is not a roll request.
    """
    rec = campaign.record(seq)
    if not isinstance(rec.data, RollRequested):
        raise NotFound(f"event {seq} is not a roll request ({rec.type})")
    return rec


def closed_by(campaign: Campaign, request: Recorded) -> Recorded | None:
    """The roll that answered ``request`` or the ``roll.withdrawn`` that withdrew it, if any
    (read from the requested character's events after it)."""
    for rec in campaign.records(after=request.seq, stream=request.stream):
        data = rec.data
        if isinstance(data, Roll) and data.request == request.seq:
            return rec
        if isinstance(data, RollWithdrawn) and data.request == request.seq:
            return rec
    return None


def open_request(campaign: Campaign, seq: int) -> RollRequested:
    """The request at ``seq``, still waiting for its answer.

    :raises NotFound: no such request.
    :raises RuleError: it was answered or withdrawn already (naming the seq that did).
    """
    rec = find_request(campaign, seq)
    done = closed_by(campaign, rec)
    if done is not None:
        how = "withdrawn" if isinstance(done.data, RollWithdrawn) else "answered"
        raise RuleError(
            f"roll request {seq} was {how} at seq {done.seq}: a request is answered once"
        )
    assert isinstance(rec.data, RollRequested)
    return rec.data


def inputs_of(request: RollRequested) -> tuple[str | None, dict[str, Any]]:
    """``(skill, params)`` a request fixed, as ``campaign roll`` passes them (a repeated
    option's values as a tuple again)."""
    params = {k: tuple(v) if isinstance(v, list) else v for k, v in request.params.items()}
    return request.skill, params


def request_roll(
    campaign: Campaign,
    character: str,
    skill: str | None,
    params: dict[str, Any],
    *,
    asked: str | None = None,
    actor: str,
    at: str,
) -> Recorded:
    """Append ``roll.requested``: ``character`` is asked to roll ``skill`` with ``params``.

    The inputs are checked now, by resolving them once with throwaway dice (never written),
    so a request the rules would refuse is refused here, not at the answer; and so is one
    the rules settle without a die (:func:`nothing_to_roll`): a player is never asked to
    roll dice that are not drawn.

    :raises NotFound: no such character.
    :raises NothingToRoll: the rules give the result without dice.
    :raises RuleError: the rules refuse the roll's inputs.
    """
    cid = campaign.find_character(character)
    names = campaign.characters()
    state = campaign.reader.head_state(cid)
    trial = dicemod.EngineDice(bytes(32), campaign.id, 0, 0, "request check")
    try:
        tried = campaign.system.resolve(state, RollRequest(cid, names[cid], skill, params), trial)
    except dicemod.DiceError as e:
        raise RuleError(f"the rules cannot roll that: {e}") from None
    reason = nothing_to_roll(campaign.system, tried, drawn=len(trial.draws))
    if reason is not None:
        raise NothingToRoll(str(reason), param=getattr(reason, "param", None))
    stored = {k: list(v) if isinstance(v, tuple) else v for k, v in params.items()}
    event = RollRequested(character=cid, skill=skill, params=stored, asked=asked)
    return campaign.append([event], actor=actor, at=at)[0]


def withdraw(campaign: Campaign, seq: int, reason: str, *, actor: str, at: str) -> Recorded:
    """Append ``roll.withdrawn`` for the open request at ``seq``.

    :raises RuleError: no reason, or the request was answered or withdrawn already.
    """
    if not reason.strip():
        raise RuleError("say why the request is withdrawn", param="reason")
    request = open_request(campaign, seq)
    event = RollWithdrawn(character=request.character, request=seq, reason=reason.strip())
    return campaign.append([event], actor=actor, at=at)[0]


def check(campaign: Campaign, event: Any) -> None:
    """Refuse an answer or a withdrawal that does not fit its request (called by
    :func:`ledger.campaign.validation.check_kinds` for every event appended).

    :raises RuleError: a roll naming a request that is not an open ``roll.requested`` of
        the same character, or an engine answer not drawn with the roller's entropy; a
        withdrawal of a request that is not open.
    """
    if isinstance(event, Roll) and isinstance(event.request, int):
        request = open_request(campaign, event.request)
        if request.character != getattr(event, "character", None):
            raise RuleError(f"roll request {event.request} is {request.character}'s to answer")
        if event.source == "engine" and event.scheme != dicemod.REQUESTED_SCHEME:
            raise RuleError(
                "an engine answer to a roll request is drawn with the roller's entropy "
                f"(scheme {dicemod.REQUESTED_SCHEME})"
            )
    elif isinstance(event, RollWithdrawn):
        request = open_request(campaign, event.request)
        if request.character != event.character:
            raise RuleError(f"roll request {event.request} is not {event.character}'s")


#: The counts of :func:`tally`, in the order the fairness report names them.
TALLY_KEYS = (
    "asked",
    "answered_with_entropy",
    "answered_with_dice",
    "withdrawn",
    "open",
    "withdrawn_after_answer",
    "answered_twice",
)


def tally(
    campaign: Campaign,
    *,
    as_gm: bool,
    character: str | None = None,
    session: int | None = None,
) -> dict[str, int]:
    """What became of the roll requests (``campaign fairness``), as counts by
    :data:`TALLY_KEYS`: ``asked``; answered by a roll drawn with the roller's entropy
    (``answered_with_entropy``) or by physical dice (``answered_with_dice``); ``withdrawn``
    before an answer; still ``open``. And what the server can catch of a GM who threw an
    answer away: ``withdrawn_after_answer`` and ``answered_twice`` count a withdrawal or a
    second roll after a request's answer, which the one writer refuses (:func:`check`), so
    only a ledger changed behind its back holds one. (A log rebuilt without the answer at
    all looks like an open or withdrawn request here: the phone that sent the entropy
    catches it, ``static/answers-check.js``.)

    :param as_gm: the GM's view; a player's leaves out GM-only requests and answers.
    :param character: only this character's requests (an id).
    :param session: only requests made in session N.
    """
    counts = dict.fromkeys(TALLY_KEYS, 0)
    asked: dict[int, str] = {}  # request seq -> what closed it first ("" while open)
    for rec in campaign.records(as_gm=as_gm):
        data = rec.data
        if isinstance(data, RollRequested):
            if (character is None or data.character == character) and (
                session is None or rec.session == session
            ):
                asked[rec.seq] = ""
            continue
        request = getattr(data, "request", None)
        if not isinstance(request, int) or request not in asked:
            continue
        if isinstance(data, RollWithdrawn):
            if asked[request] == "":
                asked[request] = "withdrawn"
            elif asked[request] != "withdrawn":
                counts["withdrawn_after_answer"] += 1
        elif isinstance(data, Roll):
            if asked[request] == "":
                asked[request] = "entropy" if data.source == "engine" else "dice"
            else:
                counts["answered_twice"] += 1
    counts["asked"] = len(asked)
    for how in asked.values():
        key = {"": "open", "withdrawn": "withdrawn", "entropy": "answered_with_entropy"}.get(
            how, "answered_with_dice"
        )
        counts[key] += 1
    return counts
