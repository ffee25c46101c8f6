"""Rolling: one roll resolved by the rules and written with its parts, as one batch.

:func:`roll` draws (engine dice from the open session's committed seed, or the physical
faces typed), resolves through the campaign's rule system and appends, through
:meth:`~ledger.campaign.aggregate.Campaign.append`, the roll and what comes with it: the
opponent's side of a contest (``contest.opposed``), the harm a hit deals (``--apply``) and
the system's follow-ups. It returns them as a :class:`RollBatch`.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec

from ledger.campaign import sessions
from ledger.dice import engine as dicemod
from ledger.errors import RuleError
from ledger.events import ContestOpposed, Event, Recorded, Roll
from ledger.rules.roll_inputs import Opponent, RollRequest

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign


class AutomaticResult(RuleError):
    """A roll the rules settle without dice (:meth:`RuleSystem.automatic`), refused because
    it was not accepted up front (``Campaign.roll(..., automatic_ok=False)``); nothing
    was written. ``str()`` is the rule system's sentence."""


@dataclass(frozen=True)
class RollBatch:
    """What one :func:`roll` wrote, in log order.

    :ivar roll: the roll's record.
    :ivar opposed: the opponent's side (``contest.opposed``), for a roll against a character
        on the ledger, else ``None``.
    :ivar harm: the harm the hit dealt (``--apply``), else ``None``.
    :ivar follow_ups: what the roll does beyond its streams (a shared objective's count).
    """

    roll: Recorded
    opposed: Recorded | None = None
    harm: Recorded | None = None
    follow_ups: list[Recorded] = field(default_factory=list)

    @property
    def records(self) -> list[Recorded]:
        """Every record of the batch, in log order."""
        parts = [self.roll, self.opposed, self.harm]
        return [r for r in parts if r is not None] + self.follow_ups


def blind_client_seed() -> str:
    """A blind engine roll's client seed: ``"blind:"`` + 32 random hex digits (a secret kept
    in the roll's GM-only payload)."""

    return "blind:" + secrets.token_hex(16)


def roll(
    campaign: Campaign,
    character: str,
    skill: str | None,
    params: dict[str, Any],
    *,
    faces: str | None,
    client_seed: str = "",
    blind: bool = False,
    automatic_ok: bool = True,
    opponent: str | None = None,
    opponent_skill: str | None = None,
    apply: bool = False,
    answer: int | None = None,
    entropy: str | None = None,
    actor: str,
    at: str,
) -> RollBatch:
    """Resolve and append one roll (engine dice unless ``faces`` are given).

    :param automatic_ok: write a result the rules give without rolling
        (:meth:`RuleSystem.automatic`); ``False`` refuses it with
        :class:`AutomaticResult`, so the caller can show it and ask first.
    :param opponent: a character on the ledger (id or name) opposing the roll
        (``--vs-character``). The rules resolve it with both characters' current
        states (:class:`~ledger.rules.system.Opponent`); the batch is the roll, then
        ``contest.opposed`` on the opponent's stream, both streams checked at the
        versions their states were read at. Systems with ``contests = False`` refuse it.
    :param opponent_skill: the skill the opponent opposes with (``--vs-skill``).
    :param apply: a hit's harm goes on the character hit in the same batch
        (``--apply``): :meth:`RuleSystem.harm_of` gives who and how much, the system's
        ``harm_event`` the event.

    The rule system's :meth:`~ledger.rules.system.RuleSystem.follow_ups` of the roll end
    the batch.

    :param answer: the seq of the open roll request (``roll.requested``) this roll
        answers: its skill and options are the request's (``skill`` and ``params`` must be
        empty); engine dice are drawn with the roller's ``entropy`` (64 hex digits, scheme
        ``ledger-roll-v2``), or ``faces`` are the physical dice the player entered.
    :param entropy: the roller's 32 bytes of entropy, in hex, for an engine answer.

    :returns: the batch written: the roll, its opponent's side, the harm, the follow-ups.

    A GM-only (``blind``) engine roll draws with a secret client seed,
    ``"blind:" + secrets.token_hex(16)``, kept in its GM-only payload: a player who learns
    the session seed still cannot recompute its faces, while the GM's export verifies it.
    It takes the session's next nonce like any engine roll.

    :raises RuleError: the rules refuse the roll; ``client_seed`` on a blind roll.
    :raises AutomaticResult: an automatic result with ``automatic_ok`` false.
    :raises DiceError: bad faces.
    """
    with campaign.store.transaction():
        cid = campaign.find_character(character)
        if answer is not None:
            skill, params = _answered(campaign, cid, answer, skill, params, blind, client_seed, opponent)
        elif entropy is not None:
            raise RuleError(
                "the roller's entropy answers a roll request: name the request", param="answer"
            )
        state = campaign.reader.head_state(cid)
        names = campaign.characters()
        versions = {cid: campaign.store.stream_version(campaign.id, cid)}
        opp = _opponent(campaign, cid, names, opponent, opponent_skill, apply)
        if opp is not None:
            versions[opp.character] = campaign.store.stream_version(campaign.id, opp.character)
        request = RollRequest(cid, names[cid], skill, params, opp)
        source: dicemod.DiceSource
        if faces is not None:
            if client_seed:
                raise RuleError(
                    "a client seed is for engine rolls; physical dice take none",
                    param="client_seed",
                )
            source = dicemod.PhysicalDice(dicemod.parse_faces(faces))
        else:
            if blind and client_seed:
                raise RuleError(
                    "a client seed is for public rolls: a blind roll draws with a secret "
                    "client seed of its own, so players cannot recompute it",
                    param="client_seed",
                )
            if answer is not None:
                if entropy is None:
                    raise RuleError(
                        "an engine answer to a roll request draws with the roller's entropy "
                        "(32 bytes from their device, in hex): give it, or the dice they rolled"
                    )
                source = sessions.engine_dice(campaign, "", request=answer, entropy=entropy)
            else:
                source = sessions.engine_dice(
                    campaign, blind_client_seed() if blind else client_seed
                )
        try:
            event = campaign.system.resolve(state, request, source)
        except dicemod.DiceError as e:
            if not isinstance(source, dicemod.PhysicalDice) or not source.ran_short:
                raise
            needed = dicemod.dice_needed(
                lambda dice: campaign.system.resolve(state, request, dice), source.faces
            )
            if needed is None:
                raise
            raise dicemod.DiceError(f"this roll uses {needed}: {e}") from None
        source.finish()
        if not automatic_ok:
            automatic = campaign.system.automatic(event)
            if automatic:
                raise AutomaticResult(str(automatic), param=getattr(automatic, "param", None))
        if (
            faces is None
            and not blind
            and getattr(type(event), "visibility", "public") == "gm"
        ):  # a GM-only roll type: drawn again, blind (the first draws are never shown)
            source = sessions.engine_dice(campaign, blind_client_seed())
            event = campaign.system.resolve(state, request, source)
            source.finish()
        if not isinstance(event, Roll):
            raise TypeError(
                f"{campaign.system.id}.resolve returned {type(event).__name__}, not a Roll"
            )
        event = campaign.system.with_inputs(event, request)  # what it was asked, by name
        if answer is not None and event.request is msgspec.UNSET:  # physical dice answer it
            event = msgspec.structs.replace(event, request=answer)
        events: list[Event] = [event]
        head = campaign.store.head(campaign.id).seq
        harm: list[Event] = []
        if opp is not None:
            if campaign.system.opponent_of(event) != opp.character:
                # the rules resolved it as a roll against no one: say so, write nothing
                raise RuleError(
                    f"{campaign.system.name} does not resolve this roll against a character on "
                    f"the ledger: roll it without {opp.name or opp.character} as the opponent "
                    "on the ledger",
                    param="vs_character",
                )
            harm = _harm(campaign, cid, state, opp, event) if apply else []
            link = ContestOpposed(character=opp.character, roller=cid, roll=head + 1)
            if harm:
                link = msgspec.structs.replace(link, harm=head + 3)
            events += [link, *harm]
        # what the roll does beyond its streams (a shared objective's or Challenge's count)
        events.extend(campaign.system.follow_ups(state, event, seq=head + 1))
        written = campaign.append(
            events,
            actor=actor,
            at=at,
            visibility="gm" if blind else None,
            expected_versions=versions,
        )
    parts = written[1:]
    opposed = parts.pop(0) if opp is not None else None
    hit = parts.pop(0) if opp is not None and harm else None
    return RollBatch(written[0], opposed, hit, parts)



def _answered(
    campaign: Campaign,
    cid: str,
    answer: int,
    skill: str | None,
    params: dict[str, Any],
    blind: bool,
    client_seed: str,
    opponent: str | None,
) -> tuple[str | None, dict[str, Any]]:
    """The skill and options of the open request ``answer`` for ``cid`` to roll.

    :raises RuleError: not ``cid``'s open request, or inputs given beside it (the request
        fixed them), or a blind, client-seeded or opposed answer.
    """
    from ledger.campaign import roll_requests

    request = roll_requests.open_request(campaign, answer)
    if request.character != cid:
        raise RuleError(f"roll request {answer} is {request.character}'s to answer, not {cid}'s")
    if skill is not None or any(v not in (None, (), False) for v in params.values()):
        raise RuleError(
            f"roll request {answer} fixed the roll's skill and options: answer it without them"
        )
    if blind or client_seed or opponent is not None:
        raise RuleError("an answer to a roll request is neither blind, client-seeded nor opposed")
    return roll_requests.inputs_of(request)


def _opponent(campaign: Campaign, cid: str,
    names: dict[str, str],
    opponent: str | None,
    skill: str | None,
    apply: bool,
) -> Opponent | None:
    """The :class:`Opponent` of a roll by ``cid`` (``None`` without ``opponent``).

    :raises RuleError: the system cannot take one, the roller opposes themself,
        ``--vs-skill`` or ``--apply`` without ``--vs-character``.
    """
    if opponent is None:
        if skill is not None:
            raise RuleError(
                "the opponent's skill is the skill of an opponent on the ledger: name the "
                "opponent too, or neither",
                param="vs_skill",
            )
        if apply:
            raise RuleError(
                "applying the harm puts a hit's harm on a character on the ledger: name "
                "them as the opponent (or record it with `campaign damage`)",
                param="apply",
            )
        return None
    if not campaign.system.contests:
        raise RuleError(
            f"{campaign.system.name} does not yet resolve a roll against a character on the "
            "ledger: give the opposition as a number (the roll's options name it)",
            param="vs_character",
        )
    oid = campaign.find_character(opponent)
    if oid == cid:
        raise RuleError(
            f"{names[cid]} cannot oppose their own roll: name another character as the "
            "opponent",
            param="vs_character",
        )
    if skill is not None and not skill.strip():
        raise RuleError("the opponent's skill needs a skill name, e.g. Athletics", param="vs_skill")
    return Opponent(oid, skill.strip() if skill else None, names[oid], campaign.state_of(oid))



def _harm(campaign: Campaign, cid: str, state: Any, opp: Opponent, event: Roll) -> list[Event]:
    """The harm ``event`` (a roll by ``cid`` in ``state``) deals (``--apply``): ``[]``
    for a miss, else the rule system's harm event for the character hit
    (``harm_event(state, character, amount)``, or its ``<id>.damage_taken`` with
    ``character`` and ``amount``).

    :raises RuleError: the roll cannot harm (not an attack), or the system records
        harm otherwise.
    """
    harm = campaign.system.harm_of(event)
    if harm is None:
        raise RuleError(
            "applying the harm is for an attack or a defence: this roll deals no harm "
            "(roll an attack or a defence, or leave it out)",
            param="apply",
        )
    target, amount = harm
    if amount <= 0:
        return []
    if target not in (cid, opp.character):
        raise TypeError(f"{campaign.system.id}.harm_of names {target!r}, not in the contest")
    target_state = opp.state if target == opp.character else state
    return [campaign.harm_event(target_state, target, amount)]
