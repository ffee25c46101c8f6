"""The Terran Engine's mechanics (seed ``003_2aeb47bc6ca82a40.txt``, Terran Engine SRD v0.4.5).

- :mod:`.mechanics`: pure functions (dice pools, outcomes, Ego, Effects, Challenges, harm);
- :mod:`.rolls`: ``campaign roll`` (:class:`.rolls.Rolls`, ``resolve``);
- :mod:`.rederive`: rolls re-derived from their inputs and draws (:class:`.rederive.Rederive`);
- :mod:`.advancement`: the end of a session (:class:`.advancement.Advancement`);
- here: :class:`Rules`, all of them plus harm, Challenges the group shares and what
  ``campaign roll ID WHAT`` accepts.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from ledger import HOUR, WEEK, Event, Roll, RuleError, TimePassed

from .. import state as st
from ..events import (
    ChallengeOpened,
    EffectRolled,
    HarmTaken,
    RestedNight,
    SharedChallengeOpened,
    SharedDispositionReduced,
    WoundRecovered,
)
from ..state import Character
from . import mechanics as m
from .advancement import Advancement
from .rederive import Rederive
from .rolls import KINDS, Rolls

__all__ = ["Rules"]


class Rules(Rolls, Rederive, Advancement):
    """Rolls, re-derivation and advancement, with the rules for harm and shared Challenges.

    Seed ``003_2aeb47bc6ca82a40.txt``; digest ``rules/terran-engine.md``; rulings in
    docs/rulings/terran-engine.md.
    """

    def skills_of(self, state: Character) -> Iterable[str]:
        """What ``roll ID WHAT`` accepts: the Skills, the four Attributes and the roll kinds."""
        return list(st.skill_list(state, self.options)) + list(m.ATTRIBUTES) + list(KINDS)

    def harm_of(self, event: Roll) -> tuple[str, int] | None:
        """``--apply`` on an Effect against a character: their harm is its value, before
        their armour ("2.2.1": "Physical harm Effects applied to you impacts your HP [...] The
        armour you wear modifies the Effect"; ruling T24). Other rolls cannot harm."""
        if isinstance(event, EffectRolled) and event.vs_character:
            return event.vs_character, event.value
        return None

    def harm_event(self, state: Character, character: str, amount: int) -> Event:
        """Physical harm of ``amount`` (an Effect before armour) to ``character``: a
        ``harm_taken`` through their armour and shield, then the HP procedure ("2.2.1",
        "1.3.1")."""
        return HarmTaken(character=character, effect=amount)

    def blind_form(self, event: Event) -> Event:
        """A Challenge is opened in the open: the Effects and consequences rolled against it
        are public events that name it, and a player's sheet without it could not replay
        them (ruling T25). Other events stay as they are when recorded GM-only.

        :raises RuleError: a GM-only ``challenge_opened`` or ``shared_challenge_opened``.
        """
        if isinstance(event, ChallengeOpened | SharedChallengeOpened):
            raise RuleError(
                f"the Challenge {event.challenge} cannot be opened GM-only: the Effects and "
                "consequences rolled against it name it in public; open it in the open "
                "when the players meet it"
            )
        return event

    def follow_up_of(self, event: Event) -> int | None:
        """A shared Challenge's count written with its Effect roll (``roll``, ruling T25);
        one entered by hand (``roll`` 0) is its own."""
        if isinstance(event, SharedDispositionReduced) and event.roll:
            return event.roll
        return None

    def follow_ups(self, state: Character, event: Roll, *, seq: int) -> list[Event]:
        """An Effect roll (to be ``seq``) on a Challenge the group shares is followed, in its
        batch, by the ``shared_disposition_reduced`` that lowers that Disposition on every
        sheet (rules.html "2.2"; ruling T25). Other rolls: ``[]``."""
        if isinstance(event, EffectRolled) and event.challenge:
            ch = st.find_challenge(state, event.challenge)
            if ch.shared:
                return [SharedDispositionReduced(
                    challenge=ch.name, amount=event.value, by=state.id, roll=seq
                )]
        return []

    def time_passed(self, states: dict[str, Any], span: TimePassed) -> list[Event]:
        """What time does in the Terran Engine (003_2aeb47bc6ca82a40.txt, "1.3.1 HP"):

        - "A Mortal Wound becomes a Critical Wound through appropriate care and a week of
          rest. [...] A Critical Wound recovers in a week, also given appropriate care.":
          every full week of rest with care (``--rest --care``) is one step, Mortal →
          Critical → none (``wound_recovered``, one event with its ``weeks``); rest without
          care, or care without rest, heals nothing.
        - "If you have no Wounds, HP recovers to its maximum after a well rested night.": a
          rest of at least ``night_hours`` (option, default 8: the text gives no length;
          ruling T30-1) with no Wound left at the end of it brings HP to HP_max
          (``rested_night``), counting only the rest after the last Wound healed.

        Ego recovers only by taking a Condition (ruling R9): time restores no Ego. Rally and
        Curse last "until the end of the scene", a scene's matter, not the clock's.
        """
        out: list[Event] = []
        hours = self.options.night_hours
        night = (8 if hours is msgspec.UNSET else hours) * HOUR
        if not span.rest:
            return out
        for cid, state in states.items():
            if not isinstance(state, Character) or state.wound == "dead" or st.out_of_play(state):
                continue
            after = span.minutes  # rest left after the last Wound step
            wound = state.wound
            if wound in ("critical", "mortal") and span.care:
                total = state.wound_rest + span.minutes
                weeks = min(total // WEEK, 2 if wound == "mortal" else 1)
                if weeks:
                    out.append(WoundRecovered(character=cid, weeks=weeks, care=True))
                    wound = "critical" if wound == "mortal" and weeks == 1 else "none"
                    after = min(span.minutes, total - weeks * WEEK)
            if wound == "none" and after >= night and state.hp < st.hp_max(state):
                out.append(RestedNight(character=cid))
        return out
