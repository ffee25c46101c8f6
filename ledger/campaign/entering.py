"""A roll entered at the table, one code path for every front end.

``campaign roll``, the web view's roll form (``POST /roll/ID``) and the JSON API's ``POST
/api/v1/roll`` record a roll through :func:`enter_roll`; the phone's ``POST /answer/SEQ``
and the API's ``POST /api/v1/answer/{seq}`` answer a roll request through
:func:`answer_request`. Each checks the same things in the same order and refuses with the
same sentence (:class:`ledger.errors.Refused`, nothing written); a front end adds only the names
of its own controls (:class:`Controls`: how to accept an automatic result, what to do after
a concurrent write, what the roller's randomness is called) and its own transport (an exit
code, a form field, a problem document).

A player's roll is tried first against the players' view (:func:`rehearse`): a refusal
found there names only what a player may know, and one that only the GM's view refuses is
told as :data:`SECRET_REFUSAL`. The GM (``campaign roll``, the GM's page and token) is told
the rules' own sentence.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ledger.campaign.rolling import AutomaticResult, RollBatch
from ledger.dice.engine import DiceError, PhysicalDice, dice_needed, parse_faces
from ledger.errors import ConflictError, NotFound, Refused, RuleError
from ledger.events import Recorded, RollWithdrawn
from ledger.rules.roll_inputs import RollRequest

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign

#: What a player is told when only the GM's view refuses their roll: the players' view of
#: the character allows it, so the reason is a GM-only fact (a hidden condition, a trait a
#: blind check spent, a skill only the GM's records hold) and must not be named.
SECRET_REFUSAL = (
    "The GM's records refuse this roll as entered, for a reason only the GM can see: "
    "ask your GM (nothing was written)."
)

#: The roller's entropy as a device sends it: 32 bytes as 64 lower-case hex digits.
ENTROPY = re.compile(r"[0-9a-f]{64}")

@dataclass(frozen=True)
class Controls:
    """How a front end names its own controls at the end of a shared refusal.

    :ivar auto: how to accept a result the rules give without dice (after the rules'
        sentence and a colon): ``"add --auto to record it"``.
    :ivar again: what to do after another entry was written first (after a colon).
    :ivar entropy: the roller's randomness as one of an answer's two ways ("Answer with
        ENTROPY or with DICE, not both.").
    :ivar dice: the physical dice as the other way.
    :ivar randomness: the roller's randomness as a malformed one is named ("RANDOMNESS is
        32 bytes written as 64 hex digits: FRESH.").
    :ivar fresh: what to do about malformed randomness.
    """

    auto: str = "add --auto to record it"
    again: str = "run the command again"
    entropy: str = "--entropy (your own randomness)"
    dice: str = "--dice"
    randomness: str = "--entropy"
    fresh: str = "give 32 bytes of your own randomness as 64 hex digits"


def dice_wanted(system: Any) -> str:
    """The refusal of a player's roll sent without dice (a player enters physical dice)."""
    return f"enter the dice you rolled: what {system.dice_words} show"


def rehearse(
    campaign: Campaign, cid: str, skill: str | None, given: dict[str, Any], faces: str,
    *, automatic_ok: bool, controls: Controls,
) -> None:  # fmt: skip
    """A player's physical roll tried against the players' view of ``cid``, writing nothing.

    The same steps as :func:`ledger.campaign.rolling.roll` (the rule system's ``resolve``
    with the entered faces, the automatic-result question, then
    :func:`~ledger.campaign.validation.validate`), but on the state a player may see: a
    refusal found here names only what the players' view holds, so it can be shown to the
    player word for word. A roll that passes here and is still refused by the GM's view is
    refused for a GM-only fact (:data:`SECRET_REFUSAL`).

    :raises Refused: the players' view refuses it (``rules``, ``dice`` for a
        :class:`DiceError`), or the rules settle it without dice (``automatic``).
    """
    from ledger.campaign.validation import validate

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
        automatic = system.automatic(event)
        if not automatic_ok and automatic:
            raise AutomaticResult(str(automatic), param=getattr(automatic, "param", None))
        validate(campaign, [event], cached={cid: state})
    except AutomaticResult as e:
        raise Refused(
            f"{e}: {controls.auto}", reason="automatic", automatic=str(e), param=e.param
        ) from None
    except DiceError as e:
        raise Refused(str(e), dice=True) from None
    except RuleError as e:
        raise Refused(str(e), param=e.param) from None


def enter_roll(
    campaign: Campaign,
    character: str,
    skill: str | None,
    given: dict[str, Any],
    *,
    faces: str | None,
    as_gm: bool,
    actor: str,
    at: str,
    controls: Controls,
    automatic_ok: bool = False,
    also: Callable[[], None] | None = None,
    **more: Any,
) -> RollBatch:
    """Record a roll entered by ``actor``: physical ``faces``, or (the GM only) engine dice.

    In order: a player must give dice; a player's roll is rehearsed in the players' view
    (:func:`rehearse`); then ``also()`` (what the front end writes in the
    same transaction: a form's nonce, a device's write allowance) and
    :func:`ledger.campaign.rolling.roll` with ``more`` (``blind``, ``client_seed``,
    ``opponent``, ``answer``, ``entropy``...) run in one transaction: all or nothing.

    :param given: the roll params, already converted (:func:`ledger.rules.params.pick_params`).
    :param as_gm: the GM's authority and view (told the rules' sentence); else a player's.
    :returns: the batch written.
    :raises Refused: refused, nothing written; a player refused by a GM-only fact is told
        :data:`SECRET_REFUSAL`.
    :raises NotFound: no such character.
    """
    system = campaign.system
    if faces is None and not as_gm:
        raise Refused(dice_wanted(system), reason="input", dice=True)
    cid = campaign.find_character(character)
    if not as_gm:
        rehearse(campaign, cid, skill, given, faces or "", automatic_ok=automatic_ok, controls=controls)
    try:
        with campaign.store.transaction():
            if also is not None:
                also()
            return campaign.roll(
                cid, skill, given, faces=faces, automatic_ok=automatic_ok, actor=actor, at=at,
                **more,
            )  # fmt: skip
    except ConflictError as e:
        # a stream's version counts GM-only events too: a player is not told it
        text = str(e) if as_gm else f"another entry was written at the same moment: {controls.again}"
        raise Refused(text, reason="conflict") from None
    except AutomaticResult as e:
        if not as_gm:
            raise Refused(SECRET_REFUSAL, secret=True) from None
        raise Refused(
            f"{e}: {controls.auto}", reason="automatic", automatic=str(e), param=e.param
        ) from None
    except (RuleError, DiceError) as e:
        if not as_gm:
            raise Refused(SECRET_REFUSAL, secret=True) from None
        raise Refused(
            str(e), dice=isinstance(e, DiceError), param=getattr(e, "param", None)
        ) from None


def addressed(request: Any, who: str, mine: dict[str, str]) -> bool:
    """Is the request (a ``RollRequested``) ``who``'s to answer: a character they play
    (``mine``), and it names them or nobody (names compared case-insensitively)."""
    if request.character not in mine:
        return False
    asked = request.asked
    return asked is None or asked.strip().casefold() == who.strip().casefold()


def closed_text(campaign: Campaign, seq: int) -> str | None:
    """What happened to the request at ``seq``, if it is closed, in the player's words (a
    GM-only answer's seq is not named)."""
    from ledger.campaign import roll_requests

    done = roll_requests.closed_by(campaign, roll_requests.find_request(campaign, seq))
    if done is None:
        return None
    if isinstance(done.data, RollWithdrawn):
        return f"The GM withdrew this request ({done.data.reason}): there is nothing to answer."
    if done.visibility != "public":
        return "This request was already answered: a request is answered once."
    return f"This request was already answered (event {done.seq}): a request is answered once."


def request_for(campaign: Campaign, seq: int, who: str, mine: dict[str, str]) -> Recorded:
    """The open public request at ``seq`` addressed to ``who`` (playing ``mine``).

    :raises Refused: ``missing`` (none, GM-only, or not theirs: one sentence for all, so a
        player learns nothing of others' requests), ``closed`` (answered or withdrawn).
    """
    from ledger.campaign import roll_requests

    missing = Refused("There is no such roll request for you.", reason="missing")
    try:
        rec = roll_requests.find_request(campaign, seq)
    except NotFound:
        raise missing from None
    if rec.visibility != "public" or not addressed(rec.data, who, mine):
        raise missing
    closed = closed_text(campaign, seq)
    if closed:
        raise Refused(closed, reason="closed")
    return rec


def answer_request(
    campaign: Campaign,
    seq: int,
    *,
    entropy: str | None,
    faces: str | None,
    who: str,
    mine: dict[str, str],
    at: str,
    controls: Controls,
    also: Callable[[], None] | None = None,
) -> Recorded:
    """A player's device answers the roll request at ``seq`` with ``entropy`` (64 hex
    digits: engine dice drawn with it, scheme ``ledger-roll-v2``) or ``faces`` (physical
    dice, rehearsed in the players' view first): :func:`ledger.campaign.rolling.roll` with
    ``answer=seq``, the code of ``campaign roll CHARACTER --answer SEQ``. ``also()`` runs in
    the same transaction (a nonce, a write allowance).

    :param who: the player answering (the roll's actor); ``mine`` the characters they play.
    :returns: the roll recorded.
    :raises Refused: ``missing``/``closed`` (:func:`request_for`), ``input`` (both or neither
        of entropy and dice, malformed entropy), ``rules`` (the players' view refuses the
        dice; :data:`SECRET_REFUSAL` when only the GM's does), ``conflict``; ``closed`` also
        when another answer or a withdrawal came first.
    """
    from ledger.campaign import roll_requests

    rec = request_for(campaign, seq, who, mine)
    cid = rec.data.character  # type: ignore[attr-defined]
    skill, params = roll_requests.inputs_of(rec.data)  # type: ignore[arg-type]
    entropy = (entropy or "").strip().lower() or None
    faces = (faces or "").strip() or None
    if (entropy is None) == (faces is None):
        raise Refused(
            f"Answer with {controls.entropy} or with {controls.dice}, not both.", reason="input"
        )
    if entropy is not None and not ENTROPY.fullmatch(entropy):
        text = f"{controls.randomness} is 32 bytes written as 64 hex digits: {controls.fresh}."
        raise Refused(text[:1].upper() + text[1:], reason="input")
    if faces is not None:
        rehearse(campaign, cid, skill, params, faces, automatic_ok=True, controls=controls)
    try:
        with campaign.store.transaction():
            if also is not None:
                also()
            return campaign.roll(
                cid, None, {}, faces=faces, answer=seq, entropy=entropy, actor=who, at=at
            ).roll
    except ConflictError:
        text = f"another entry was written at the same moment: {controls.again}"
        raise Refused(text, reason="conflict") from None
    except (RuleError, DiceError):
        closed = closed_text(campaign, seq)
        if closed:  # answered or withdrawn while this answer was on its way
            raise Refused(closed, reason="closed") from None
        raise Refused(SECRET_REFUSAL, secret=True) from None
