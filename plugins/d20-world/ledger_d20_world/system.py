"""The d20-world rule system (seed 001_a3a02f9b7363775f.txt): the :class:`D20World` class.

Wiring only: the mechanics are in :mod:`.rules`, the appliers in :mod:`.appliers`, the words
in :mod:`.words`, creation and the sheet in :mod:`.sheet`, the odds and their chart in
:mod:`.odds`; each follows the plugin contract in docs/plugin-guide.md.
"""

from __future__ import annotations

from ledger import RollParam

from .appliers import Appliers
from .events import EVENT_TYPES, UPCASTERS
from .odds import Odds
from .rules import Rules
from .rules.turns import Turns
from .sheet import SheetRules
from .state import Character, Options
from .words import Words


class D20World(Turns, Rules, Appliers, Words, SheetRules, Odds):
    """d20 "The World" game: time/tools/skill checks on a d20, traits, bonds with hidden
    favor, experience marks, jinx, wounds and objectives (seed 001_a3a02f9b7363775f.txt)."""

    id = "d20-world"
    name = "d20 The World"
    source = "001_a3a02f9b7363775f.txt"
    book = 'untitled d20 rules ("The World" runs the game)'
    example_roll = "roll isa Lockpicking --time --objective 'Open the vault' --dice 16  # \"Objectives\": 16 + 3 = 19, good"
    has_harm = True  # `campaign damage` appends damage_taken (harm_event)
    event_types = EVENT_TYPES
    upcasters = UPCASTERS
    state_type = Character
    options_type = Options
    # "Checks": time, tools, skill and help. A check is rolled when success is uncertain:
    # skill and one more factor, most often time, so the form starts with it
    roll_options = (
        RollParam("time", "d20-world: you have time to plan and enact (Checks).", is_flag=True,
                  label="Time: to plan it and to enact it", default=True, common=True,
                  words="with time", odds=False),
        RollParam("tools", "d20-world: you have proper tools or faculties (Checks).",
                  is_flag=True, label="Tools: proper tools, weapons or faculties", common=True,
                  words="with tools", odds=False),
        RollParam("help_from", "d20-world: the ally who helps (has time, tools or skill).",
                  label="Help from an ally", common=True, words="with help from {}", odds=False),
        RollParam("trait", "d20-world: invoke a trait, NAME:help or NAME:hinder.",
                  label="Invoke a trait (Name:help or Name:hinder)", words="invoking {}",
                  odds=False),
        RollParam("advantage", "d20-world: an extra source of advantage The World grants.",
                  is_flag=True, label="Advantage from The World",
                  words="with advantage from The World",
                  odds_help="d20-world: roll with advantage."),
        RollParam("disadvantage", "d20-world: an extra source of disadvantage.", is_flag=True,
                  words="with disadvantage", odds_help="d20-world: roll with disadvantage."),
        RollParam("practice", "d20-world: practise a skill the character lacks (+0).",
                  is_flag=True, label="Practise a skill you lack", words="practising", odds=False),
        RollParam("spell", "d20-world: the check casts a spell the character knows.",
                  is_flag=True, label="Cast a spell you know", words="casting a spell", odds=False),
        RollParam("objective", "d20-world: the objective this check contributes to.",
                  label="Objective it contributes to", words="towards objective {}", odds=False),
        RollParam("shock", "d20-world: roll the 1d6 shock roll owed after a wound.",
                  is_flag=True, label="Shock roll after a wound", words="the shock roll",
                  odds=False),
        RollParam("weapon", "d20-world: against a character on the ledger, the weapon item the "
                  "attack uses: it is the check's tools, and its damage comes from the item.",
                  words="with {}", odds=False),
        RollParam("proficiency", "d20-world: skill proficiency (0 for an unknown skill; "
                  "leave out for every one from +0 to +10).", type=int, min=0, max=20, roll=False),
        RollParam("penalty", "d20-world: total penalty (wounds + conditions + jinx).", type=int,
                  min=0, max=30, roll=False),
        RollParam("hinder", "d20-world: a trait invoked to hinder (+2 experience).",
                  is_flag=True, roll=False),
        RollParam("wounds", "d20-world: wound damage total after a new wound (shock chance).",
                  type=int, min=0, max=30, roll=False),
    )  # fmt: skip
    dice_words = "the d20"

    contests = True
    sections = {  # the seed section each event type implements (shown by audits)
        "d20-world.check_rolled": "Core Rules: Checks; Natural 1 & 20",
        "d20-world.blind_check_rolled": "Core Rules: Checks; Natural 1 & 20",
        "d20-world.shock_rolled": "Harm: Wounds",
        "d20-world.experience_marked": "Skills",
        "d20-world.skill_increased": "Skills; Learning Skills",
        "d20-world.favour_changed": "Bonds",
        "d20-world.bond_called": "Bonds",
        "d20-world.trait_gained": "Traits",
        "d20-world.trait_lost": "Traits",
        "d20-world.corruption_marked": "Traits; Magic",
        "d20-world.bond_formed": "Bonds",
        "d20-world.item_added": "Inventory",
        "d20-world.item_removed": "Inventory",
        "d20-world.item_moved": "Inventory",
        "d20-world.item_repaired": "Harm: Armor",
        "d20-world.bag_changed": "Inventory",
        "d20-world.damage_taken": "Harm: Armor; Wounds",
        "d20-world.attack_resolved": "Harm: Attacking; Weapons; Armor",
        "d20-world.wound_healed": "Harm: Wounds",
        "d20-world.condition_added": "Harm: Conditions",
        "d20-world.condition_ended": "Harm: Conditions",
        "d20-world.hidden_condition_added": "Harm: Conditions",
        "d20-world.hidden_condition_ended": "Harm: Conditions",
        "d20-world.rested": "Magic: Jinx",
        "d20-world.objective_opened": "Objectives",
        "d20-world.objective_contributed": "Objectives",
        "d20-world.objective_failed": "Objectives",
        "d20-world.group_objective_opened": "Objectives",
        "d20-world.group_objective_contributed": "Objectives",
        "d20-world.group_objective_failed": "Objectives",
    }
    # odds_series / draw_odds of `campaign odds --plot`; named in full, not ".odds", so that a
    # subclass defined in another module (tests/test_charts.py) still finds it
    time_spans = {"a rest": (8 * 60, True)}  # "After resting" (length: ruling R8, T30-2)
    chart = ".odds"
    #: "Time": "Each round, each character has three actions. An action represents time
    #: equal to one third of a round." (001_a3a02f9b7363775f.txt)
    actions_per_round = 3
