"""End-of-session advancement (SEED ``003_2aeb47bc6ca82a40.txt``, characters.html "1.4").

``campaign advance --session N [--choice KEY=VALUE ...]``:

1. Every character gains one Experience per Ego lost during session N, counted by replaying
   the session's events (Risky Action ``ego_lost`` plus Ego pooled for a companion's
   Montage; gross, Montage double costs included, R8). One ``experience_gained`` event per
   character, once per session (``credited`` in the replayed state).
2. The players' choices spend Experience (banked Experience too, R12), each roll an engine
   roll of one d6 per Experience spent:

   ``ID.advance=K``            Roll Advancement with K Experience (sum ≥ Ego_max + HP_max);
   ``ID.advancement=NAME``     the Advancement chosen with the GM if it succeeds (e.g.
                               ``Tough``, ``Extra Attribute: Strength``); without it a won
                               Advancement waits for ``record advancement-chosen``;
   ``ID.develop.SKILL=K``      Skill Development of SKILL with K Experience (sum ≥ 3 × rating).

   The dice are engine dice from the downtime seed committed at session N's end; their
   client seed is fixed before the roll, ``"advance:<N>:<ID>"`` (the nonce tells a
   character's rolls apart), never chosen by the player: a chosen client seed let a player
   try seeds until known dice passed. ``ID.client_seed`` is refused.

   Thresholds come from the sheet as session N ended (ruling T22): advancing an earlier
   session after later ones uses Ego_max, HP_max and the Skills of then.

   ``ID`` is the character id. Spending happens once per character and session (``spent``
   in the replayed state): running ``advance`` again returns no events.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ledger import DiceSource, Event, Recorded, RuleError, RuleSystem

from .. import state as st
from ..events import (
    AdvancementRolled,
    EgoPooled,
    ExperienceGained,
    RiskyActionRolled,
    SkillDevelopmentRolled,
)
from ..state import Character, Options
from . import mechanics as m


def ego_lost_in(session_events: Sequence[Recorded], character: str) -> int:
    """Ego ``character`` lost in these events: Risky Actions' ``ego_lost`` + Ego pooled.

    (SEED "1.4": "one Experience for each Ego you have lost"; gross, R8.)
    """
    total = 0
    for record in session_events:
        data = record.data
        if isinstance(data, RiskyActionRolled) and data.character == character:
            total += data.ego_lost
        elif isinstance(data, EgoPooled) and data.character == character:
            total += data.amount
    return total


def parse_choices(choices: dict[str, Any], states: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Group ``--choice`` pairs by character: ``{id: {"advance": K, "advancement": NAME,
    "develop": {skill: K}}}``.

    :raises RuleError: an unknown character or key, or a count that is not a whole number ≥ 1
        (every problem at once).
    """
    out: dict[str, dict[str, Any]] = {}
    problems: list[str] = []
    by_lower = {cid.casefold(): cid for cid in states}
    for key, value in choices.items():
        cid_raw, _, rest = str(key).partition(".")
        cid = by_lower.get(cid_raw.casefold())
        if cid is None:
            problems.append(
                f"the choice {key}: no character {cid_raw!r} (ids: {', '.join(states) or 'none'})"
            )
            continue
        mine = out.setdefault(cid, {"develop": {}})
        action, _, skill = rest.partition(".")
        if action in ("advance", "develop"):
            try:
                count = int(value)
            except (TypeError, ValueError):
                count = 0
            if count < 1:
                problems.append(
                    f"the choice {key}={value}: spend a whole number of Experience, 1 or more"
                )
                continue
            if action == "advance" and not skill:
                mine["advance"] = count
            elif action == "develop" and skill:
                mine["develop"][skill] = count
            else:
                problems.append(f"the choice {key}: write {cid}.advance=K or {cid}.develop.SKILL=K")
        elif action == "advancement" and not skill:
            mine["advancement"] = str(value)
        elif action == "client_seed" and not skill:
            problems.append(
                f"the choice {key}: advancement client seeds are fixed before the roll "
                f"(advance:<session>:{cid}), not chosen; drop this choice"
            )
        else:
            problems.append(
                f"the choice {key}: unknown key; use {cid}.advance=K, {cid}.advancement=NAME "
                f"or {cid}.develop.SKILL=K"
            )
    if problems:
        raise RuleError(*problems, param="choice")
    return out


def client_seed(session: int, character: str) -> str:
    """The fixed client seed of a character's advancement rolls: ``"advance:<session>:<id>"``."""
    return f"advance:{session}:{character}"


def advance(
    options: st.Options,
    states: dict[str, Any],
    session: int,
    session_events: Sequence[Recorded],
    dice: Callable[[str], DiceSource],
    choices: dict[str, Any],
) -> list[Event]:
    """The events of session ``session``'s advancement (see the module docstring).

    :raises RuleError: bad choices, more Experience spent than banked, an unknown Skill or
        Advancement, a character who cannot advance (dead, lost, retired).
    """
    wanted = parse_choices(choices, states)
    events: list[Event] = []
    problems: list[str] = []
    for cid, state in states.items():
        if not isinstance(state, st.Character):
            continue
        gained = 0
        if session not in state.credited:
            gained = ego_lost_in(session_events, cid)
            events.append(ExperienceGained(character=cid, session=session, amount=gained))
        mine = wanted.get(cid)
        if not mine or session in state.spent:
            continue
        if not mine.get("advance") and not mine["develop"]:
            problems.append(f"{state.name}: say how much Experience to spend ({cid}.advance=K)")
            continue
        why = st.out_of_play(state)
        if why:
            problems.append(f"{why} and cannot advance")
            continue
        available = state.experience + gained
        total = mine.get("advance", 0) + sum(mine["develop"].values())
        if total > available:
            problems.append(
                f"{state.name} spends {total} Experience but has {available}"
            )
            continue
        seed = client_seed(session, cid)
        advancement = mine.get("advancement")
        if advancement:
            try:
                advancement = st.known_advancement(advancement, options)
            except RuleError as e:
                problems.extend(e.problems)
                continue
        then = st.session_sheet(state, session)
        if mine.get("advance"):
            k = mine["advance"]
            threshold = m.advancement_threshold(then.ego_max, then.hp_max)
            src = dice(seed)
            faces = src.roll(k, 6)
            src.finish()
            success = sum(faces) >= threshold
            events.append(AdvancementRolled(
                character=cid, session=session, spent=k, faces=faces, total=sum(faces),
                threshold=threshold, success=success,
                advancement=advancement if success else None, **src.fields(),
            ))
        elif advancement:
            problems.append(f"{state.name}: {cid}.advancement needs {cid}.advance=K to roll for it")
            continue
        for raw_skill, k in mine["develop"].items():
            try:
                skill = m.canonical(raw_skill, st.skill_list(state, options), "Skill")
            except RuleError as e:
                problems.extend(e.problems)
                continue
            rating = then.skills.get(skill, 0)
            threshold = m.skill_threshold(rating)
            src = dice(seed)
            faces = src.roll(k, 6)
            src.finish()
            events.append(SkillDevelopmentRolled(
                character=cid, session=session, skill=skill, spent=k, faces=faces,
                total=sum(faces), threshold=threshold, rating=rating,
                success=sum(faces) >= threshold, **src.fields(),
            ))
    if problems:
        raise RuleError(*problems)
    return events


class Advancement(RuleSystem[Character, Options]):
    """``campaign advance``: the end of a session by the rules ("1.4 Advancements")."""

    def advance(
        self,
        states: dict[str, Any],
        session: int,
        session_events: Sequence[Recorded],
        dice: Callable[[str], DiceSource],
        choices: dict[str, Any],
    ) -> list[Event]:
        """End of session: Experience from Ego lost, then the chosen rolls ("1.4"): the pure
        :func:`advance` under this campaign's options (see the module for ``choices``).

        :raises RuleError: as :func:`advance`.
        """
        return advance(self.options, states, session, session_events, dice, choices)
