"""Resolving ``campaign roll`` requests into Terran Engine roll events.

``campaign roll ID WHAT [options]`` where WHAT is:

- an Attribute with ``--creation``: the creation roll (2d6 keep highest, "1.2");
- ``effect``: the character's Effect roll (``--weapon NAME`` or ``--effect CODE``,
  ``--challenge NAME`` to lower its Disposition, "2.2.1");
- ``consequence``: a Challenge's Effect on the character (``--challenge NAME`` or
  ``--effect CODE``; ``--consequence harm|complication|fork|none``, "2.2", "2.2.1");
- ``fortune``: the Fortune die (``--fortune "chances"``, "2.3");
- a Skill (with ``--attribute``) or an Attribute: a Risky Action ("2.1"; ``--dark N``,
  ``--position ±1``, ``--extra ±N``, ``--montage``, ...).

Seed ``003_2aeb47bc6ca82a40.txt``. Each function draws the dice in the order the rule lists
them and returns one event with every face; :meth:`Rolls.resolve` picks the function.
"""

from __future__ import annotations

from typing import Any

from ledger import DiceError, DiceSource, Roll, RollRequest, RuleError, RuleSystem

from .. import state as st
from ..events import (
    AttributeRolled,
    ConsequenceRolled,
    EffectRolled,
    FortuneRolled,
    RiskyActionRolled,
)
from ..state import Character, Options
from . import mechanics as m

KINDS = ("effect", "consequence", "fortune")


def _int(params: dict[str, Any], key: str, default: int = 0) -> int:
    value = params.get(key)
    if value is None:
        return default
    try:
        return int(value)
    except (TypeError, ValueError):
        raise RuleError(f"the {key} must be a whole number, not {value!r}", param=key) from None


def _many(params: dict[str, Any], key: str) -> list[str]:
    value = params.get(key)
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


def _ready(state: st.Character) -> None:
    """Refuse a roll from a character who cannot act (dead, lost, retired, unfinished)."""
    why = st.out_of_play(state)
    if why:
        raise RuleError(f"{why} and makes no more rolls")
    if not st.complete(state):
        missing = [a for a in m.ATTRIBUTES if a not in state.rolled]
        raise RuleError(
            f"{state.name} has unrolled Attributes ({', '.join(missing)}); roll each first: "
            f"roll {missing[0]} with “Roll this Attribute at creation”", param="creation")


def _against_no_one(request: RollRequest, what: str) -> None:
    """Refuse ``--vs-character`` on a roll the rules make against no one (ruling T27).

    Only an Effect is rolled against a character on the ledger (T24); a Challenge's Effect
    on the roller is their ``consequence``.

    :param what: the roll and why it opposes no one, e.g. ``"the Fortune die is the GM's
        1d (SEED 2.3)"``.
    :raises RuleError: ``request.opponent`` is set.
    """
    if request.opponent is not None:
        raise RuleError(f"{what}, not a roll against a character: roll it against no character on the ledger")


def creation_roll(state: st.Character, request: RollRequest, dice: DiceSource) -> AttributeRolled:
    """Roll one creation Attribute: 2d6, keep the highest (SEED "1.2 Attributes").

    :raises RuleError: not an Attribute, already rolled/given on the sheet, or
        ``--vs-character`` (ruling T27).
    """
    _against_no_one(request, "an Attribute is rolled once, at creation (2d, SEED 1.2)")
    attribute = m.canonical(request.skill or "", m.ATTRIBUTES, "Attribute")
    if attribute in state.rolled:
        raise RuleError(
            f"{state.name}'s {attribute} is already set ({state.rolled[attribute]}); "
            "an Attribute is rolled once, at creation"
        )
    faces = dice.roll(2, 6)
    return AttributeRolled(
        character=state.id, attribute=attribute, faces=faces, highest=max(faces),
        value=m.attribute_from_faces(faces), **dice.fields(),
    )


def _advancements_used(
    state: st.Character, names: list[str], allowed: tuple[str, ...]
) -> list[str]:
    used = []
    for raw in names:
        name = m.canonical(st.advancement_name(raw), st.ADVANCEMENTS, "Advancement")
        if not st.has(state, name):
            raise RuleError(f"{state.name} does not have the Advancement {name}")
        if name not in allowed:
            raise RuleError(
                f"{name} does not change this roll; it applies to: {', '.join(allowed)}"
            )
        used.append(name)
    return used


def risky_action(
    options: st.Options, state: st.Character, request: RollRequest, dice: DiceSource
) -> RiskyActionRolled:
    """Roll a Risky Action (SEED rules.html "2.1 Risky Actions", "2.2.2 Montage").

    Light Dice = Attribute + Skill + ``--position`` (±1, the GM's) + ``--extra`` (other ±Nd)
    + Advancements (Sensory acuity, Sneak attack, Sniper +1d) + Rally (+1d) − Conditions
    (−1d each; Obsessive Focus by skill) − wounds (−1d/−2d) − the Challenge's complication −
    heavy armour ``--hindered`` (−1d) − ``--improvised`` tool (−1d), clamped to 0..4. Then
    ``--dark N`` Dark Dice. Light faces are drawn first, then Dark.

    A Risky Action is rolled against no one (ruling T27): "“Challenge” is used to represent
    anything that is antagonistic to you, be that an NPC, the environment, etc." (index.html
    "Taxonomy"), and the pool is the roller's alone ("Take a number of Light Dice equal to
    your Attribute (and Skill, if applicable)"). An NPC opposes it as a Challenge
    (``--challenge``); its harm is an Effect against them (``roll ID effect
    --vs-character NPC``, T24).

    :raises RuleError: a character who cannot act, an unknown Skill/Attribute, a missing
        ``--attribute``, an Advancement or Condition the character lacks, bad numbers, an
        opponent on the ledger (``--vs-character``).
    """
    if request.opponent is not None:
        who = request.opponent.name or request.opponent.character
        raise RuleError(
            f"a Risky Action is not rolled against a character: {who} is a Challenge "
            "(“Challenge” is used to represent anything that is antagonistic to you, be that "
            "an NPC: Taxonomy); roll against no character on the ledger, naming the Challenge "
            f"{state.name} faces (record challenge-opened), and harm {who} with an effect "
            f"roll against them"
        )
    _ready(state)
    params = request.params
    if state.pending_loss:
        raise RuleError(
            f"{state.name} must first choose the Attribute point the Mortal Wound takes: "
            "record attribute-lost, naming the Attribute"
        )
    token = (request.skill or "").strip()
    skill: str | None = None
    if params.get("attribute"):
        attribute = m.canonical(str(params["attribute"]), m.ATTRIBUTES, "Attribute")
        if token and token.casefold() != attribute.casefold():
            skill = m.canonical(token, st.skill_list(state, options), "Skill")
    elif token.casefold() in {a.casefold() for a in m.ATTRIBUTES}:
        attribute = m.canonical(token, m.ATTRIBUTES, "Attribute")
    elif token:
        skill = m.canonical(token, st.skill_list(state, options), "Skill")
        raise RuleError(
            f"say which Attribute {skill} is rolled with, e.g. Agility "
            "(the GM and player choose it, SEED 2.1)", param="attribute")
    else:
        raise RuleError(
            "name the Skill or Attribute rolled, e.g. Violence with the Attribute Strength", param="attribute")
    if skill and options.attributes_only:
        raise RuleError("this campaign plays without Skills: roll an Attribute alone")

    value = st.attribute_or_zero(state, attribute)
    rating = state.skills.get(skill, 0) if skill else 0
    parts: dict[str, int] = {attribute: value}
    modifiers = [f"{attribute} {value}"]
    if skill:
        parts[skill] = rating
        modifiers.append(f"{skill} {rating}")

    def add(label: str, dice_delta: int) -> None:
        if dice_delta:
            parts[label] = dice_delta
            modifiers.append(f"{label} {dice_delta:+d}d")

    position = _int(params, "position")
    if position not in (-1, 0, 1):
        raise RuleError(f"Position is the GM's ±1d: use -1, 0 or 1, not {position}", param="position")
    add("position", position)
    add("extra", _int(params, "extra"))
    used = _advancements_used(
        state, _many(params, "advancement"),
        st.POOL_BONUS_ADVANCEMENTS + ("Rally", "Curse", "Multi-attack"),
    )
    for name in used:
        if name in st.POOL_BONUS_ADVANCEMENTS:
            add(name, 1)
    conditions = []
    for raw in _many(params, "condition"):
        name = m.canonical(raw, st.SITUATIONAL_CONDITIONS, "situational Condition")
        if not st.has_condition(state, name):
            raise RuleError(f"{state.name} has not taken the Condition {name}")
        conditions.append(name)
        add(name, -1)
    for c in state.conditions:
        if c.name == "Obsessive Focus" and skill:
            if skill == c.focus:
                add("Obsessive Focus", 1)
            elif skill in c.neglected:
                add("Obsessive Focus", -1)
    if state.rallied:
        add("Rallied", 1)
    add({"critical": "Critically Wounded", "mortal": "Mortally Wounded"}.get(state.wound, "wound"),
        -m.wound_penalty(state.wound))
    challenge_name: str | None = None
    complication = 0
    if params.get("challenge"):
        challenge = st.find_challenge(state, str(params["challenge"]))
        if challenge.status != "open":
            raise RuleError(f"the Challenge {challenge.name} is already {challenge.status}")
        challenge_name, complication = challenge.name, challenge.complication
        add(f"complication ({challenge.name})", -complication)
    if params.get("hindered"):
        if state.armour != "heavy":
            raise RuleError(
                f"“Hindered by heavy armour” is heavy armour's −1d, and {state.name} wears {state.armour}", param="hindered")
        add("heavy armour", -1)
    if params.get("improvised"):
        add("improvised tool", -1)
    light_count = m.light_dice(parts)
    if light_count != sum(parts.values()):
        modifiers.append(f"clamped to {light_count}")

    dark_count = _int(params, "dark")
    if dark_count < 0:
        raise RuleError(f"Dark Dice risked is how many Dark Dice to risk: 0 or more, not {dark_count}", param="dark")
    montage = bool(params.get("montage"))
    pooled_offer = _int(params, "pooled")
    if pooled_offer and not montage:
        raise RuleError("companions pool their Ego only in a Montage: roll it as a Montage", param="montage")
    if pooled_offer < 0:
        raise RuleError(f"Ego offered by companions must be 0 or more, not {pooled_offer}", param="pooled")
    if montage and not challenge_name:
        raise RuleError("a Montage resolves a whole Challenge: name the Challenge", param="challenge")
    if montage and challenge_name not in state.montage_effects:
        raise RuleError(
            f"a Montage rolls the Challenge Effect first (SEED 2.2.2: \"rolling the Challenge "
            f"Effect prior to gathering your Dice Pool\"): roll {state.id}'s consequence "
            f"on the Challenge '{challenge_name}', Consequence complication", param="challenge")

    try:
        light = dice.roll(light_count, 6)
        dark = dice.roll(dark_count, 6)
        dice.finish()
    except DiceError as e:
        raise DiceError(
            f"{e} (this Risky Action rolls {light_count} Light then {dark_count} Dark Dice)"
        ) from None
    highest = max(light + dark, default=0)
    outcome = m.outcome_of(highest)
    cost = m.ego_cost(dark, state.ego, 2 if montage else 1, options.ego_check)
    pooled = min(pooled_offer, cost)
    ego_lost = min(state.ego, cost - pooled)
    succeeded = outcome != "fail"
    return RiskyActionRolled(
        character=state.id, attribute=attribute, attribute_value=value, skill=skill,
        skill_value=rating, modifiers=modifiers, light=light, dark=dark, highest=highest,
        outcome=outcome, ego_before=state.ego, ego_cost=cost, pooled=pooled, ego_lost=ego_lost,
        montage=montage, challenge=challenge_name, complication=complication,
        advancements=used, conditions=conditions,
        allies_rallied=dark_count if "Rally" in used else 0,
        rivals_cursed=dark_count if "Curse" in used else 0,
        extra_damage=sum(1 for f in dark if f == 6) if "Multi-attack" in used and succeeded else 0,
        **dice.fields(),
    )


def effect_roll(
    options: st.Options, state: st.Character, request: RollRequest, dice: DiceSource
) -> EffectRolled:
    """The character's Effect roll (SEED "2.2.1 Effects").

    Dice from ``--weapon NAME`` (the sheet's weapons; ``--twohands`` makes a medium 1d weapon
    1d+1) or ``--effect CODE``; Sneak attack and Sniper add +1d ("1.4"). With
    ``--challenge NAME`` the value lowers that Challenge's Disposition.

    :raises RuleError: no dice named, unknown weapon, an unusable ``--twohands``, a closed
        Challenge, or (Slow) a character taken out by this exchange's consequence.
    """
    why = st.out_of_play(state)
    if why:
        raise RuleError(f"{why} and makes no more rolls")
    if state.last_outcome == "fail":
        raise RuleError(
            f"{state.name}'s latest Risky Action failed: an Effect follows a success (4-6) "
            "(SEED 2.1: \"If the Risky Action is part of a longer Challenge, roll Effects\"); "
            "roll the Challenge's consequence instead"
        )
    params = request.params
    weapon = params.get("weapon")
    if weapon:
        known = {k.casefold(): k for k in state.weapons}
        if str(weapon).casefold() not in known:
            raise RuleError(
                f"{state.name} has no weapon or tool {weapon!r} "
                f"(theirs: {', '.join(state.weapons) or 'none'}); or give the Effect dice", param="weapon")
        weapon = known[str(weapon).casefold()]
        code = m.parse_effect(state.weapons[weapon])
        given = None
    elif params.get("effect"):
        code = m.parse_effect(str(params["effect"]))
        given = str(code)
    else:
        raise RuleError("name the weapon or tool, or the Effect dice (d/2, 1d, 1d+1, 2d)", param="effect")
    if params.get("twohands"):
        if code.half or code.n != 1 or code.plus:
            raise RuleError(f"only a medium weapon (1d) gains +1 held two-handed, not {code}")
        code = m.EffectCode(n=1, plus=1)
    used = _advancements_used(
        state, _many(params, "advancement"), ("Sneak attack", "Sniper")
    )
    code = code.more(len(used))
    challenge = None
    if params.get("challenge"):
        ch = st.find_challenge(state, str(params["challenge"]))
        if ch.status != "open":
            raise RuleError(f"the Challenge {ch.name} is already {ch.status}")
        challenge = ch.name
        if st.has_condition(state, "Slow") and state.exchange_taken_out:
            raise RuleError(
                f"Slow: the consequence took {state.name} out before this effect landed"
            )
    vs = request.opponent
    if vs is not None:
        if challenge is not None:
            raise RuleError("an Effect goes to a Challenge or to a character on the "
                            "ledger, not both", param="challenge")
        theirs = vs.state
        assert isinstance(theirs, st.Character)
        if theirs.wound == "dead":
            raise RuleError(f"{theirs.name} is dead: no Effect can harm them")
    result = m.roll_effect(dice, code, options.d_half)
    return EffectRolled(
        character=state.id, code=str(code), faces=result.faces, explosions=result.explosions,
        value=result.value, challenge=challenge, weapon=weapon, advancements=used,
        effect=given, twohands=bool(params.get("twohands")),
        vs_character=vs.character if vs is not None else None, **dice.fields(),
    )


def consequence_roll(
    options: st.Options, state: st.Character, request: RollRequest, dice: DiceSource
) -> ConsequenceRolled:
    """A Challenge's Effect against the character (SEED "2.2", "2.2.1"; docs/rulings/terran-engine.md).

    Dice: the Challenge's (``--challenge NAME``: Trivial d/2, else level × d) or
    ``--effect CODE``. ``--consequence harm`` (default) applies armour, shield
    (``--sacrifice`` it to avoid the Effect) and Protected (``--protected``: as many Dark Dice
    as the last Risky Action used, drawn after the Effect dice, R15), then the HP procedure;
    ``complication`` sets −Nd on the next related Risky Action; ``fork`` opens the Challenge
    ``--fork NAME``; ``none`` records a narrative consequence (R22).

    :raises RuleError: no dice, a closed Challenge, Fast pre-empting it, a shield or
        Protected the character lacks, a fork without a name.
    """
    why = st.out_of_play(state)
    if why:
        raise RuleError(f"{why}; no consequence can reach them")
    if request.opponent is not None:
        raise RuleError(
            "a consequence is a Challenge's Effect: for a character's attack, roll their "
            f"effect against {state.name} (their effect roll against {state.id}, applied)"
        )
    params = request.params
    kind = str(params.get("consequence") or "harm").strip().lower()
    if kind not in ("harm", "complication", "fork", "none"):
        raise RuleError(f"Consequence is harm, complication, fork or none, not {kind!r}", param="consequence")
    if state.last_outcome == "success" and kind != "complication":
        raise RuleError(
            f"{state.name}'s latest Risky Action rolled a 6, a success with no consequence "
            "(SEED 2.1: \"6 You succeed\"); only a Montage's Effect roll (Consequence "
            "complication) comes before the next Risky Action", param="consequence")
    challenge = None
    if params.get("challenge"):
        ch = st.find_challenge(state, str(params["challenge"]))
        if st.has(state, "Fast") and ch.name in state.exchange_overcame:
            raise RuleError(
                f"Fast: {state.name}'s effect overcame {ch.name} before its consequence"
            )
        if ch.status != "open" and ch.name not in state.exchange_overcame:
            raise RuleError(f"the Challenge {ch.name} is already {ch.status}")
        challenge = ch.name
        code = m.challenge_effect(ch.level)
    given = m.parse_effect(str(params["effect"])) if params.get("effect") else None
    if given is not None:
        code = given
    elif challenge is None:
        raise RuleError("name the Challenge or its Effect dice (e.g. 2d)", param="challenge")
    if kind == "complication" and challenge is None:
        raise RuleError("a complication belongs to a Challenge: name the Challenge", param="challenge")
    fork = params.get("fork")
    if kind == "fork" and not fork:
        raise RuleError("name the new Challenge the consequence forks into", param="fork")
    sacrifice = bool(params.get("sacrifice"))
    protected_on = bool(params.get("protected"))
    if kind != "harm" and (sacrifice or protected_on):
        raise RuleError("sacrificing the shield and Protected only answer physical harm", param="sacrifice")
    if sacrifice and not state.shield:
        raise RuleError(f"{state.name} carries no shield to sacrifice")
    if protected_on and not st.has(state, "Protected"):
        raise RuleError(f"{state.name} does not have the Advancement Protected")

    result = m.roll_effect(dice, code, options.d_half)
    protected = dice.roll(state.last_dark, 6) if protected_on else []
    damage = complication = 0
    if kind == "harm":
        damage = m.damage_after(result.value, state.armour, state.shield, sum(protected), sacrifice)
    elif kind == "complication":
        complication = m.complication_of(result.value, options.complication_over_17)
    return ConsequenceRolled(
        character=state.id, code=str(code), faces=result.faces, explosions=result.explosions,
        value=result.value, challenge=challenge, consequence=kind,  # type: ignore[arg-type]
        protected=protected, shield_sacrificed=sacrifice, damage=damage,
        complication=complication, fork=str(fork) if kind == "fork" else None,
        effect=None if given is None else str(given), **dice.fields(),
    )


def fortune_roll(state: st.Character, request: RollRequest, dice: DiceSource) -> FortuneRolled:
    """The Fortune die: 1d6 against chances the GM states (SEED "2.3 Fortune die").

    :raises RuleError: ``--vs-character`` (ruling T27).
    """
    _against_no_one(request, "the Fortune die is the GM's 1d against chances they define "
                    "(SEED 2.3)")
    return FortuneRolled(
        character=state.id, face=dice.d(6), chances=str(request.params.get("fortune") or ""),
        **dice.fields(),
    )


class Rolls(RuleSystem[Character, Options]):
    """``campaign roll``: the request's WHAT and options pick the roll (see the module)."""

    def resolve(self, state: Character, request: RollRequest, dice: DiceSource) -> Roll:
        """Resolve ``campaign roll ID WHAT``: ``--creation`` rolls an Attribute ("1.2"),
        ``effect`` an Effect ("2.2.1"), ``consequence`` a Challenge's Effect ("2.2"),
        ``fortune`` (or ``--fortune``) the Fortune die ("2.3"), anything else a Risky Action
        ("2.1").

        :raises RuleError: see the roll functions. :raises DiceError: bad physical faces.
        """
        kind = (request.skill or "").strip().lower()
        event: Roll
        if request.params.get("creation"):
            event = creation_roll(state, request, dice)
        elif kind == "effect":
            event = effect_roll(self.options, state, request, dice)
        elif kind == "consequence":
            event = consequence_roll(self.options, state, request, dice)
        elif kind == "fortune" or request.params.get("fortune"):
            event = fortune_roll(state, request, dice)
        else:
            event = risky_action(self.options, state, request, dice)
        dice.finish()
        return event
