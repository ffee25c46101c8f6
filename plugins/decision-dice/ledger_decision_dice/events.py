"""Decision-dice events (seed 002_735c6d6cd834a641.txt; docs/rulings/decision-dice.md).

Tags are ``"decision-dice.<past_tense>"``. Every event with a ``character`` field goes to
that character's stream. No floats: every number is an ``int``.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from ledger import Event, Roll

Outcome = Literal["success", "failure"]
ConditionKind = Literal["bonus", "penalty", "modifier", "advantage", "disadvantage"]


class ModifierLine(msgspec.Struct, frozen=True, kw_only=True):
    """One line of a roll's modifier breakdown ("Key Terms", hint "Modifiers").

    :ivar origin: ``"stat"`` (the stat rolled), ``"option"`` (a roll option given with the
        roll) or ``"condition"`` (a condition of the character's).
    :ivar source: the stat's name, the roll option's declared name (``"bonus"``,
        ``"penalty"``, ``"modifier"``; ``"opponent_modifier"`` on the opposing side) or the
        condition's name.
    :ivar kind: ``"stat"``, ``"bonus"``, ``"penalty"`` or ``"modifier"``.
    :ivar stated: the value as stated.
    :ivar counted: the value added to the roll (a negative bonus or positive penalty is 0).
    """

    origin: Literal["stat", "option", "condition"]
    source: str
    kind: Literal["stat", "bonus", "penalty", "modifier"]
    stated: int
    counted: int


class SupplyResult(msgspec.Struct, frozen=True, kw_only=True):
    """A supply roll made after an action ("Supply Rolls").

    :ivar item: the item's name as on the sheet.
    :ivar die: the die rolled, ``"d12"`` … ``"d4"``.
    :ivar face: the face shown, 1..size.
    :ivar after: the die afterwards (one size lower when ``face <= 3``; may be ``"empty"``).
    """

    item: str
    die: str
    face: int
    after: str


class ContestRound(msgspec.Struct, frozen=True, kw_only=True):
    """One round of a contested roll: both sides' decision dice and results."""

    dice: list[int]
    total: int
    opponent_dice: list[int]
    opponent_total: int


class DecisionRolled(Roll, frozen=True, kw_only=True, tag="decision-dice.decision_rolled"):
    """A decision roll: 2d6 + STAT + MODIFIERS vs. TARGET NUMBER ("Decision Rolls").

    :ivar stat: the stat rolled (sheet spelling); ``stat_value`` its value.
    :ivar dice: every decision die face, in draw order (1, 2 or 3 d6).
    :ivar advantage, disadvantage: whether any advantage / disadvantage applied (they
        cancel; ``decision_dice`` is the resulting count, "Advantage and Disadvantage").
    :ivar modifiers: the breakdown, stat first; ``modifier_total`` is the sum of ``counted``.
    :ivar base_target: the difficulty the task starts at; ``target_adjustments`` change it;
        ``target`` is the final target number.
    :ivar impossible_task: the base target is at or above "Impossible" (the GM allowed it).
    :ivar total: dice + modifier_total; ``margin`` = total − target.
    :ivar outcome: ``"success"`` (total ≥ target, ties succeed) or ``"failure"``.
    :ivar conditions: names of the character's conditions that applied (each use counts).
    :ivar supply: the supply roll made after the action, if the action used supplies.

    What it was asked is in ``inputs`` (by option name, recorded by the core); a schema
    version 1 payload is read with them rebuilt from its fields (:func:`roll_kept_no_inputs`).
    """

    section = "Decision Rolls: Target Numbers, Success and Failure; Advantage and Disadvantage"
    schema_version = 2  # 1: no inputs, option lines with a flag as their source
    character: str
    stat: str
    stat_value: int
    dice: list[int]
    decision_dice: int
    advantage: bool = False
    disadvantage: bool = False
    modifiers: list[ModifierLine] = []
    modifier_total: int
    base_target: int
    target_adjustments: list[int] = []
    target: int
    difficulty: str = ""
    impossible_task: bool = False
    total: int
    margin: int
    outcome: Outcome
    conditions: list[str] = []
    supply: SupplyResult | None = None


class ContestRolled(Roll, frozen=True, kw_only=True, tag="decision-dice.contest_rolled"):
    """A contested roll, every reroll round kept ("Contested Rolls", "Resolving a Tie").

    Both sides roll their decision dice and add their modifiers; the highest result wins; a
    tie rerolls both sides' decision dice (same counts, same modifiers, ruling X7) until a
    winner is found. Dice are drawn per round: the character's, then the opponent's.

    :ivar dice, total: the character's final-round faces and result.
    :ivar target: the opponent's final-round result (the number the character had to beat).
    :ivar outcome: ``"success"`` when the character wins, else ``"failure"``.
    :ivar rounds: every round in order; all but the last are ties.
    :ivar vs_character: the opponent's id when they are a character on the ledger
        (``--vs-character``, ruling DD6): then ``vs_stat``/``vs_stat_value`` are the stat
        they oppose with, ``vs_modifiers`` their breakdown (the stat, ``--opponent-modifier``
        values, their conditions' values counted by the Modifiers rule) and
        ``vs_conditions`` the conditions of theirs that applied.

    What it was asked is in ``inputs``, as for :class:`DecisionRolled`.
    """

    section = "General Rules of Play: Contested Rolls; Resolving a Tie"
    schema_version = 2  # 1: no inputs, option lines with a flag as their source
    character: str
    stat: str
    stat_value: int
    decision_dice: int
    advantage: bool = False
    disadvantage: bool = False
    modifiers: list[ModifierLine] = []
    modifier_total: int
    opponent: str
    opponent_decision_dice: int
    opponent_advantage: bool = False
    opponent_disadvantage: bool = False
    opponent_modifiers: list[int] = []
    opponent_modifier_total: int
    rounds: list[ContestRound]
    dice: list[int]
    total: int
    target: int
    margin: int
    winner: str
    outcome: Outcome
    conditions: list[str] = []
    vs_character: str | None = None
    vs_stat: str | None = None
    vs_stat_value: int | None = None
    vs_modifiers: list[ModifierLine] = []
    vs_conditions: list[str] = []


class SupplyRolled(Roll, frozen=True, kw_only=True, tag="decision-dice.supply_rolled"):
    """A supply roll on its own ("Supply Rolls"): face ≤ 3 lowers the die one size.

    Refused when the item is Empty or when ``die`` is not the item's current die.
    :ivar dice: ``[face]``; ``total`` = face; ``target`` = 4 (the lowest face that keeps the
        size); ``outcome``: ``"success"`` when the die keeps its size, ``"failure"`` when it
        steps down.

    What it was asked is in ``inputs``: the item as named (:func:`supply_kept_no_inputs`
    reads a schema version 1 payload).
    """

    section = "Secondary Mechanics: Supply Rolls"
    line = "{character}: supply roll {item} {die} shows {dice[0]} → {after}"
    schema_version = 2  # 1: no inputs, option lines with a flag as their source
    character: str
    item: str
    die: str
    dice: list[int]
    total: int
    target: int
    after: str
    outcome: Outcome


class Resupplied(Event, frozen=True, kw_only=True, tag="decision-dice.resupplied"):
    """An item's supply die is set to ``die`` (d12..d4 or empty) ("Supply Rolls": "if/how an
    item can be resupplied is provided in its description" — the procedure is the item's)."""

    section = "Secondary Mechanics: Supply Rolls"
    line = "{character}: {item} resupplied to {die}"
    character: str
    item: str
    die: str
    reason: str = ""


class ItemAdded(Event, frozen=True, kw_only=True, tag="decision-dice.item_added"):
    """A piece of equipment joins the sheet; ``die`` is its supply die or ``""`` for none."""

    section = "Secondary Mechanics: Supply Rolls"
    line = "{{ character }} gains {{ item }}{% if die %} ({{ die }}){% endif %}"
    character: str
    item: str
    die: str = ""
    note: str = ""


class ItemRemoved(Event, frozen=True, kw_only=True, tag="decision-dice.item_removed"):
    """A piece of equipment leaves the sheet."""

    section = "Secondary Mechanics: Supply Rolls"
    line = "{character} loses {item}"
    character: str
    item: str
    reason: str = ""


class TrackerChanged(Event, frozen=True, kw_only=True, tag="decision-dice.tracker_changed"):
    """A percentage tracker (0–100) changes ("D100 or Percentage"; e.g. ammunition).

    Give ``delta`` (added) or ``value`` (set), not both; a result outside 0..100 is refused
    (ruling X12). Setting a ``value`` on an unknown tracker creates it. ``clamp`` cuts
    the result to 0..100 instead, said in the event: payloads written in an earlier release (schema
    version 1), when every change was clamped in silence, are upcast with ``clamp = True``.
    """

    section = "Secondary Mechanics: D100 or Percentage"
    line = (
        "{{ character }}: {{ tracker }} {% if delta is not none %}{{ '%+d' % delta }}"
        "{% else %}set to {{ value }}{% endif %}%"
    )
    schema_version = 2

    character: str
    tracker: str
    delta: int | None = None
    value: int | None = None
    reason: str = ""
    clamp: bool = False


def tracker_was_clamped(payload: dict[str, object]) -> dict[str, object]:
    """Upcast a version-1 ``tracker_changed`` payload: it was clamped to 0..100 (ruling X12
    in an earlier release), so replaying it keeps the value it gave."""
    return {**payload, "clamp": True}


#: A version-1 option line's source (the flag it was given with) → the option's name.
_FLAG_SOURCES = {"--bonus": "bonus", "--penalty": "penalty", "--modifier": "modifier"}


def _lines_by_name(lines: list[dict[str, Any]], modifier: str = "modifier") -> list[dict[str, Any]]:
    """Version-1 modifier lines with their ``origin``, an option's line naming the option
    (``"--bonus"`` → ``"bonus"``; ``"--modifier"`` on the opposing side → ``modifier``)."""
    out = []
    for line in lines:
        source = line["source"]
        if line["kind"] == "stat":
            out.append({**line, "origin": "stat"})
        elif source in _FLAG_SOURCES:
            name = modifier if source == "--modifier" else _FLAG_SOURCES[source]
            out.append({**line, "origin": "option", "source": name})
        else:
            out.append({**line, "origin": "condition"})
    return out


def _given(lines: list[dict[str, Any]], params: dict[str, Any]) -> None:
    """Each option's stated values in ``lines`` (upcast) as ``params[option]``, in order."""
    for line in lines:
        if line["origin"] == "option":
            params.setdefault(line["source"], []).append(line["stated"])


def roll_kept_no_inputs(payload: dict[str, Any]) -> dict[str, Any]:
    """Upcast a version-1 decision or contested roll: its option lines name their option
    (``"--bonus"`` read as the option ``bonus``) and its ``inputs`` are rebuilt from its
    fields, as the rules read them back before rolls kept their inputs: the stat, the base
    target (as text, as it is typed), the adjustments, an "Impossible" task allowed, the
    supply item, advantage and disadvantage (given or from a condition: the same dice either
    way), the option lines' stated values in order and, for a contest, the opponent (on the
    ledger: the character and the stat they opposed with, unless it is the roller's) and
    the opponent's modifiers and advantage ("Decision Rolls", "Contested Rolls")."""
    out = dict(payload)
    out["modifiers"] = _lines_by_name(payload.get("modifiers", []))
    params: dict[str, Any] = {}
    for flag in ("advantage", "disadvantage"):
        if payload.get(flag):
            params[flag] = True
    _given(out["modifiers"], params)
    inputs: dict[str, Any] = {"skill": payload["stat"]}
    if payload.get("type") == "decision-dice.contest_rolled":
        out["vs_modifiers"] = _lines_by_name(payload.get("vs_modifiers", []), "opponent_modifier")
        if payload.get("opponent_modifiers"):
            params["opponent_modifier"] = list(payload["opponent_modifiers"])
        for flag in ("opponent_advantage", "opponent_disadvantage"):
            if payload.get(flag):
                params[flag] = True
        vs = payload.get("vs_character")
        if vs:
            inputs["vs_character"] = vs
            vs_stat = payload.get("vs_stat")
            if vs_stat and vs_stat.lower() != payload["stat"].lower():
                inputs["vs_skill"] = vs_stat
        else:
            params["opponent"] = payload["opponent"]
    else:
        params["target"] = str(payload["base_target"])
        if payload.get("target_adjustments"):
            params["adjust"] = list(payload["target_adjustments"])
        if payload.get("impossible_task"):
            params["impossible"] = True
        if payload.get("supply"):
            params["supply"] = payload["supply"]["item"]
    out["inputs"] = {**inputs, "params": params}
    return out


def supply_kept_no_inputs(payload: dict[str, Any]) -> dict[str, Any]:
    """Upcast a version-1 supply roll: its ``inputs`` are the item it names ("Supply
    Rolls")."""
    return {**payload, "inputs": {"skill": payload["item"]}}


UPCASTERS = {
    "decision-dice.tracker_changed": {1: tracker_was_clamped},
    "decision-dice.decision_rolled": {1: roll_kept_no_inputs},
    "decision-dice.contest_rolled": {1: roll_kept_no_inputs},
    "decision-dice.supply_rolled": {1: supply_kept_no_inputs},
}
"""Old payload shapes of this plugin's event types (docs/plugin-guide.md "Revising an event
type")."""


class ConditionAdded(Event, frozen=True, kw_only=True, tag="decision-dice.condition_added"):
    """A lasting modifier, advantage or disadvantage on a character ("Key Terms",
    "Advantage and Disadvantage": they "usually only stick around for a roll or two").

    :ivar condition: its name (unique on the character).
    :ivar kind: ``bonus`` | ``penalty`` | ``modifier`` | ``advantage`` | ``disadvantage``.
    :ivar value: the stated value (bonus/penalty/modifier; ignored for advantage).
    :ivar stat: the stat it applies to; ``""`` for every decision roll.
    :ivar rolls: decision/contest rolls it lasts; ``0`` = until removed.
    """

    section = "Advantage and Disadvantage"
    line = (
        "{{ character }}: {{ condition }} ({{ kind }}"
        "{% if kind not in ('advantage', 'disadvantage') %} {{ '%+d' % value }}{% endif %})"
        "{% if rolls %} for {{ rolls }} roll(s){% endif %}"
    )
    character: str
    condition: str
    kind: ConditionKind
    value: int = 0
    stat: str = ""
    rolls: int = 0


class ConditionRemoved(Event, frozen=True, kw_only=True, tag="decision-dice.condition_removed"):
    """A condition ends before its rolls are used up."""

    section = "Advantage and Disadvantage"
    line = "{character}: {condition} ends"
    character: str
    condition: str
    reason: str = ""


class StatChanged(Event, frozen=True, kw_only=True, tag="decision-dice.stat_changed"):
    """A stat takes a new value (level up and other rules outside the seed's page, X1/X2)."""

    section = "Key Terms"
    line = "{character}: {stat} becomes {value}"
    character: str
    stat: str
    value: int
    reason: str = ""


class LevelChanged(Event, frozen=True, kw_only=True, tag="decision-dice.level_changed"):
    """The character's (informational) level changes ("Max Rolls" mentions levels 1-5; X2)."""

    section = "Key Terms"
    line = "{character} reaches level {level}"
    character: str
    level: int
    reason: str = ""


class LevelledUp(Event, frozen=True, kw_only=True, tag="decision-dice.levelled_up"):
    """A level up: the level rises by one and the choices made with it raise or lower stats,
    in one event ("Target Numbers": "This curve and scaling increase rewards choices during
    character creation/level up and makes low level modifiers the most volatile"; "Max
    Rolls": "low level characters (levels 1-5)"; ruling DD11).

    :ivar level: the new level, one above the sheet's.
    :ivar stats: the stats the choices change, as ``"NAME=VALUE"`` (the new value, within
        the campaign's stat range); may be empty (the page does not say what a level gives).
    """

    section = "Decision Rolls: Target Numbers (character creation/level up)"
    line = (
        "{{ character }} levels up to level {{ level }}{% if stats %}: "
        "{{ stats | map('replace', '=', ' becomes ', 1) | join(', ') }}{% endif %}"
    )
    character: str
    level: int
    stats: list[str] = []
    reason: str = ""


class HarmTaken(Event, frozen=True, kw_only=True, tag="decision-dice.harm_taken"):
    """Harm, or a cost paid, taken from a derived value such as Stress or Vitality
    ("The Rounding Rule": "calculating Stress and Vitality, which require two values to be
    halved and added together"; ruling DD10).

    :ivar track: the derived value spent (a name of the ``derived`` option, any case).
    :ivar amount: 1 or more; more than the value has left is not refused (harm happens):
        the value stops at 0.
    """

    section = "The Rounding Rule (Stress and Vitality)"
    line = "{{ character }} takes {{ amount }} {{ track }}{% if reason %} ({{ reason }}){% endif %}"
    character: str
    track: str
    amount: int
    reason: str = ""


class Recovered(Event, frozen=True, kw_only=True, tag="decision-dice.recovered"):
    """A derived value (Stress, Vitality) recovers ``amount`` of what was spent, never above
    its value from the stats (ruling DD10); ``amount`` 0 recovers all of it."""

    section = "The Rounding Rule (Stress and Vitality)"
    line = (
        "{{ character }} recovers {{ amount or 'all' }} {{ track }}"
        "{% if reason %} ({{ reason }}){% endif %}"
    )
    character: str
    track: str
    amount: int = 0
    reason: str = ""
