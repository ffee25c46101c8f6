"""Re-deriving recorded Terran Engine rolls from their inputs and draws.

docs/events.md "Engine dice schemes": a roll's recorded result must be what the rules
give for its recorded inputs and draws. :meth:`Rederive.request_of` turns a roll made by
:meth:`TerranEngine.resolve` back into the request that made it (input fields only);
:func:`advancement_roll` and :func:`development_roll` recompute the rolls ``advance`` makes
(SEED ``003_2aeb47bc6ca82a40.txt``, characters.html "1.4 Advancements"); :func:`fill_inputs`
supplies inputs an event written before they were recorded leaves out.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from msgspec import UNSET
from msgspec.structs import replace

from ledger import Opponent, ReplayDice, Roll, RollRequest, RuleError, RuleSystem

from .. import state as st
from ..events import (
    AdvancementRolled,
    AttributeRolled,
    ConsequenceRolled,
    EffectRolled,
    FortuneRolled,
    RiskyActionRolled,
    SkillDevelopmentRolled,
)
from ..state import Character, Options
from . import mechanics as m

_DICE_MODIFIER = re.compile(r"^(position|extra) ([+-]\d+)d$")
_FLAG_MODIFIERS = {"heavy armour -1d": "hindered", "improvised tool -1d": "improvised"}


def _risky_params(e: RiskyActionRolled) -> dict[str, Any]:
    """The ``roll`` options of a Risky Action, read back from its recorded inputs.

    ``--position``, ``--extra``, ``--hindered`` and ``--improvised`` are the entries
    :func:`.rolls.risky_action` writes into ``modifiers`` (``"position +1d"``,
    ``"heavy armour -1d"``, ...); ``--dark`` is the number of Dark Dice; ``--pooled`` is the
    Ego companions paid (an offer above the cost pays only the cost, "2.2.2", R21).
    """
    params: dict[str, Any] = {"attribute": e.attribute, "dark": len(e.dark)}
    for entry in e.modifiers:
        found = _DICE_MODIFIER.match(entry)
        if found:
            params[found[1]] = int(found[2])
        elif entry in _FLAG_MODIFIERS:
            params[_FLAG_MODIFIERS[entry]] = True
    if e.advancements:
        params["advancement"] = list(e.advancements)
    if e.conditions:
        params["condition"] = list(e.conditions)
    if e.challenge:
        params["challenge"] = e.challenge
    if e.montage:
        params["montage"] = True
    if e.pooled:
        params["pooled"] = e.pooled
    return params


def _effect_given(e: EffectRolled) -> str:
    """The ``--effect`` code of a weaponless Effect roll written before ``effect`` was
    recorded: its code less the +1d per Advancement used (Sneak attack, Sniper; "1.4"), the
    inverse of :meth:`.mechanics.EffectCode.more` (d/2 +kd is kd)."""
    code = m.parse_effect(e.code)
    k = len(e.advancements)
    if not k:
        return e.code
    if code.n > k:
        return str(m.EffectCode(n=code.n - k, plus=code.plus))
    return str(m.EffectCode(n=1, half=True, plus=code.plus))


def _attribute_request(e: AttributeRolled) -> RollRequest:
    return RollRequest(e.character, "", e.attribute, {"creation": True})


def _risky_request(e: RiskyActionRolled) -> RollRequest:
    return RollRequest(e.character, "", e.skill or e.attribute, _risky_params(e))


def _effect_request(e: EffectRolled) -> RollRequest:
    params: dict[str, Any] = {}
    if e.weapon:
        params["weapon"] = e.weapon
    else:
        params["effect"] = _effect_given(e) if e.effect is UNSET else e.effect
    if e.twohands is True:
        params["twohands"] = True
    if e.advancements:
        params["advancement"] = list(e.advancements)
    if e.challenge:
        params["challenge"] = e.challenge
    if e.vs_character:
        return RollRequest(e.character, "", "effect", params, opponent=Opponent(e.vs_character))
    return RollRequest(e.character, "", "effect", params)


def _consequence_request(e: ConsequenceRolled) -> RollRequest:
    params: dict[str, Any] = {"consequence": e.consequence}
    effect = e.effect if e.effect is not UNSET else (None if e.challenge else e.code)
    if effect:
        params["effect"] = effect
    if e.challenge:
        params["challenge"] = e.challenge
    if e.fork is not None:
        params["fork"] = e.fork
    if e.shield_sacrificed:
        params["sacrifice"] = True
    if e.protected:
        params["protected"] = True
    return RollRequest(e.character, "", "consequence", params)


def _fortune_request(e: FortuneRolled) -> RollRequest:
    return RollRequest(e.character, "", "fortune", {"fortune": e.chances})


REQUESTS: dict[type[Roll], Callable[[Any], RollRequest]] = {
    AttributeRolled: _attribute_request,
    RiskyActionRolled: _risky_request,
    EffectRolled: _effect_request,
    ConsequenceRolled: _consequence_request,
    FortuneRolled: _fortune_request,
}
"""The request each kind of roll :meth:`Rolls.resolve` makes was asked with (its inputs)."""


def fill_inputs(state: st.Character, event: Roll) -> Roll:
    """``event`` with the inputs it left out (``UNSET``: written before they were recorded)
    read from the state before it: whether a medium weapon was held two-handed (its code is
    the weapon's 1d +1, "2.2.1"; a weaponless code is read as the ``--effect`` given),
    whether a consequence's dice were ``--effect`` rather than
    the Challenge's ("2.2"). Other events are returned as they are."""
    if isinstance(event, EffectRolled) and event.twohands is UNSET:
        base = state.weapons.get(event.weapon or "")
        held = m.EffectCode(n=1, plus=1).more(len(event.advancements))
        two = base is not None and m.parse_effect(base) == m.EffectCode(n=1)
        return replace(event, twohands=two and event.code == str(held))
    if isinstance(event, ConsequenceRolled) and event.effect is UNSET:
        own = None
        if event.challenge:
            try:
                own = str(m.challenge_effect(st.find_challenge(state, event.challenge).level))
            except RuleError:
                own = None
        return replace(event, effect=None if own == event.code else event.code)
    return event


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
        event, faces=faces, total=sum(faces), threshold=threshold, success=success,
        advancement=event.advancement if success else None,
    )


def development_roll(
    state: st.Character, event: SkillDevelopmentRolled
) -> SkillDevelopmentRolled:
    """Skill Development recomputed (SEED "1.4": "If the sum of your dice is equal of higher
    than 3x your current Skill rating, the Skill improves in 1"; rating 0 needs 0, R11): the
    rating from ``state``.

    :raises ledger.DiceError: the draws are not ``spent`` d6."""
    faces = _draw(event)
    rating = st.session_sheet(state, event.session, event.sheet).skills.get(event.skill, 0)
    threshold = m.skill_threshold(rating)
    return replace(
        event, faces=faces, total=sum(faces), threshold=threshold, rating=rating,
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

    def request_of(self, event: Roll) -> RollRequest:
        """The request :meth:`resolve` turned into ``event`` (input fields only; see
        :data:`REQUESTS`).

        :raises RuleError: an advancement roll (made by ``advance``, not by ``resolve``) or a
            roll of another system.
        """
        make = REQUESTS.get(type(event))
        if make is None:
            raise RuleError(f"terran-engine's resolve does not make {type(event).__name__} rolls")
        return make(event)

    def rederive(
        self, state: Character, event: Roll, *, name: str, opponent: Any = None
    ) -> Roll:
        """The roll the rules give for ``event``'s recorded inputs and draws.

        Advancement and Skill Development rolls are recomputed from the state and the draws
        (SEED "1.4 Advancements"); the others go through :meth:`resolve`, with the inputs an
        older event did not record read from the state (:func:`fill_inputs`).

        :raises RuleError: the rules refuse the recorded inputs. :raises DiceError: other
            dice were recorded than the rules draw.
        """
        if isinstance(event, AdvancementRolled):
            return advancement_roll(state, event)
        if isinstance(event, SkillDevelopmentRolled):
            return development_roll(state, event)
        filled = fill_inputs(state, event)
        result = super().rederive(state, filled, name=name, opponent=opponent)
        unset = {k: UNSET for k in ("twohands", "effect") if getattr(event, k, None) is UNSET}
        return replace(result, **unset) if unset else result
