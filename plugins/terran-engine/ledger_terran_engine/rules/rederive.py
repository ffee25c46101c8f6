"""Re-deriving recorded Terran Engine rolls from their inputs and draws.

docs/events.md "Engine dice schemes": a roll's recorded result must be what the rules
give for its recorded inputs and draws. A roll :meth:`TerranEngine.resolve` makes keeps what
it was asked by option name (``inputs``, recorded by the core), which the core's default
``request_of`` reads back; :func:`advancement_roll` and :func:`development_roll` recompute
the rolls ``advance`` makes (SEED ``003_2aeb47bc6ca82a40.txt``, characters.html "1.4
Advancements"); :func:`held_two_handed` supplies what an Effect written before ``twohands``
was recorded leaves out.
"""

from __future__ import annotations

from typing import Any

from msgspec import UNSET
from msgspec.structs import replace

from ledger import ReplayDice, Roll, RuleError, RuleSystem

from .. import state as st
from ..events import AdvancementRolled, EffectRolled, RiskyActionRolled, SkillDevelopmentRolled
from ..state import Character, Options
from . import mechanics as m


def held_two_handed(state: st.Character, event: Roll) -> Roll:
    """``event`` with ``twohands`` in its inputs when it is an Effect written before
    ``twohands`` was recorded (``UNSET``) whose weapon, read from the state before it, is a
    medium 1d weapon and whose code is that weapon's 1d +1 (held two-handed, "2.2.1").
    Other events are returned as they are."""
    inputs = event.inputs
    if not isinstance(event, EffectRolled) or event.twohands is not UNSET or inputs is UNSET:
        return event
    base = state.weapons.get(event.weapon or "")
    held = m.EffectCode(n=1, plus=1).more(len(event.advancements))
    if base is None or event.code != str(held):
        return event
    if m.parse_effect(base) != m.EffectCode(n=1):
        return event
    return replace(event, inputs=replace(inputs, params={**inputs.params, "twohands": True}))


def _draw(event: AdvancementRolled | SkillDevelopmentRolled) -> list[int]:
    """The ``spent`` d6 of an advancement roll, from its recorded draws (one die per
    Experience spent, "1.4"). :raises ledger.DiceError: other dice were recorded."""
    dice = ReplayDice(event)
    faces = dice.roll(event.spent, 6)
    dice.finish()
    return faces


def advancement_roll(state: st.Character, event: AdvancementRolled) -> AdvancementRolled:
    """Roll Advancement recomputed (SEED "1.4 Advancements": "Roll one die for each
    Experience you are willing to use. If the sum of your dice is equal or higher than the sum
    of your Ego_max and HP_max you gain an Advancement"): faces from the draws, their sum, the
    threshold from the sheet as the session ended (T22, :func:`.state.session_sheet`); the
    chosen Advancement is kept only on a success (spent Experience is gone either way, R12).

    :raises ledger.DiceError: the draws are not ``spent`` d6."""
    faces = _draw(event)
    then = st.session_sheet(state, event.session, event.sheet)
    threshold = m.advancement_threshold(then.ego_max, then.hp_max)
    success = sum(faces) >= threshold
    return replace(
        event,
        faces=faces,
        total=sum(faces),
        threshold=threshold,
        success=success,
        advancement=event.advancement if success else None,
    )


def development_roll(state: st.Character, event: SkillDevelopmentRolled) -> SkillDevelopmentRolled:
    """Skill Development recomputed (SEED "1.4": "If the sum of your dice is equal of higher
    than 3x your current Skill rating, the Skill improves in 1"; rating 0 needs 0, R11): the
    rating from ``state``.

    :raises ledger.DiceError: the draws are not ``spent`` d6."""
    faces = _draw(event)
    rating = st.session_sheet(state, event.session, event.sheet).skills.get(event.skill, 0)
    threshold = m.skill_threshold(rating)
    return replace(
        event,
        faces=faces,
        total=sum(faces),
        threshold=threshold,
        rating=rating,
        success=sum(faces) >= threshold,
    )


class Rederive(RuleSystem[Character, Options]):
    """Every Terran Engine roll re-derives from its inputs and draws (``verify``, ``audit``,
    ``import``)."""

    def settled_without_dice(self, event: Roll) -> RuleError | None:
        """A Risky Action with no Light and no Dark Dice: the rules never roll it, it is a
        fail (003_2aeb47bc6ca82a40.txt "2.1 Risky Actions"; ruling R3: "0 total dice →
        automatic fail band"), so a request for it asks a player for nothing. ``None`` for
        every roll that draws a die."""
        if not isinstance(event, RiskyActionRolled) or event.light or event.dark:
            return None
        return RuleError(
            f"With no Light and no Dark Dice no roll is made ({self.id}, Risky Actions; "
            "ruling R3): it is a fail, so there is nothing to roll; ask with Dark Dice "
            "risked, a better Position or other dice",
            param="dark",
        )

    def rederive(self, state: Character, event: Roll, *, name: str, opponent: Any = None) -> Roll:
        """The roll the rules give for ``event``'s recorded inputs and draws.

        Advancement and Skill Development rolls are recomputed from the state and the draws
        (SEED "1.4 Advancements"); the others go through :meth:`resolve` with the inputs they
        keep, an Effect written before ``twohands`` was recorded held two-handed as the state
        says (:func:`held_two_handed`).

        :raises RuleError: the rules refuse the recorded inputs. :raises DiceError: other
            dice were recorded than the rules draw.
        """
        if isinstance(event, AdvancementRolled):
            return advancement_roll(state, event)
        if isinstance(event, SkillDevelopmentRolled):
            return development_roll(state, event)
        filled = held_two_handed(state, event)
        result = super().rederive(state, filled, name=name, opponent=opponent)
        unset = {k: UNSET for k in ("twohands", "effect") if getattr(event, k, None) is UNSET}
        return replace(result, **unset, inputs=event.inputs)
