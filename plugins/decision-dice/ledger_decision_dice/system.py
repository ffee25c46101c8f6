"""The decision-dice rule system (seed 002_735c6d6cd834a641.txt, "Core Mechanics").

2d6 + STAT + MODIFIERS vs. TARGET NUMBER; advantage 3d6, disadvantage 1d6; contested rolls
with tie rerolls; supply dice d12 → d10 → d8 → d6 → d4 → Empty; percentage trackers. The
parts the page leaves undefined (stats, levels, Luck, Stress, Vitality) are campaign options
(see :class:`ledger_decision_dice.state.Options` and docs/rulings/decision-dice.md).

Wiring only: the rules are in :mod:`.rules`, the appliers in :mod:`.appliers`, the words in
:mod:`.words`, the sheet in :mod:`.sheet` and the odds and their chart in :mod:`.odds`.
"""

from __future__ import annotations

from ledger import RollParam

from .appliers import Appliers
from .events import UPCASTERS
from .odds import Odds
from .rules import Rules
from .sheet import SheetRules
from .state import Character, Options
from .words import Words


class DecisionDice(Rules, Appliers, Words, SheetRules, Odds):
    """The "Decision Dice" 2d6 system (seed 002_735c6d6cd834a641.txt).

    Roll ``campaign roll CHARACTER STAT --target N|rung [--advantage] [--disadvantage]
    [--bonus N] [--penalty N] [--modifier N] [--adjust N] [--impossible] [--supply ITEM]``,
    or ``--opponent NAME [--opponent-modifier N] ...`` for a contested roll, or
    ``campaign roll CHARACTER ITEM`` for a supply roll on its own.
    """

    id = "decision-dice"
    name = "Decision Dice (2d6 + STAT)"
    source = "002_735c6d6cd834a641.txt"
    book = '"Core Mechanics" of an untitled 2d6 rulebook (Decision Dice)'
    example_roll = "roll jen might --target 8 --bonus -2 --penalty 1 --dice 4,4  # bonus -2 and penalty +1 count 0: 8 vs 8 succeeds"
    skill_label = "STAT"
    dice_faces = ("1", "2", "3", "4", "5", "6")
    dice_words = "the d6s"
    contests = True  # --vs-character: the opponent's stat, conditions and modifiers (DD6)
    has_harm = True  # `campaign damage` spends the harm_track derived value (DD10)
    # odds_series / draw_odds of `campaign odds --plot`; named in full, not ".odds", so that a
    # subclass defined in another module (tests/test_charts.py) still finds it
    chart = ".odds"
    upcasters = UPCASTERS
    state_type = Character
    options_type = Options
    roll_options = (  # "Decision Rolls", "Advantage and Disadvantage", "Contested Rolls"
        RollParam("target", "Target number: a number or simple (6), challenging (12), "
                  "strenuous (18), impossible (20).", label="Target number", common=True,
                  words="against {}", odds_help="Target number: a number or simple, "
                  "challenging, strenuous, impossible (omitted: every target 2-22)."),
        RollParam("advantage", "Advantage: roll 3d6 instead of 2d6 (does not stack; cancels "
                  "disadvantage).", is_flag=True, common=True, label="Advantage (3d6)",
                  words="with advantage"),
        RollParam("disadvantage", "Disadvantage: roll 1d6 instead of 2d6 (cancels advantage).",
                  is_flag=True, common=True, label="Disadvantage (1d6)", words="with disadvantage"),
        RollParam("stat", "The STAT value (leave out for every STAT 0-10).", type=int,
                  min=-100, max=100, roll=False),
        RollParam("modifier", "A modifier of either sign (repeatable).", multiple=True, type=int,
                  min=-100, max=100, words="modifier {}"),
        RollParam("bonus", "A bonus; a negative bonus counts 0 (repeatable).",
                  multiple=True, type=int, min=-100, max=100, words="bonus {}"),
        RollParam("penalty", "A penalty (negative); a positive penalty counts 0 (repeatable).",
                  multiple=True, type=int, min=-100, max=100, words="penalty {}"),
        RollParam("adjust", "An adjustment to the target number (repeatable); an adjusted "
                  "target is never an \"Impossible\" task.", multiple=True, type=int,
                  min=-100, max=100, label="Target number adjustment",
                  words="target adjusted by {}", odds=False),
        RollParam("impossible", "The GM allows an attempt at an \"Impossible\" task "
                  "(base target 20+).", is_flag=True, label="Attempt an “Impossible” task",
                  words="an Impossible task", odds=False),
        RollParam("supply", "An item whose supply die is rolled after the action.",
                  label="Supply die of the item", words="then the supply roll of {}",
                  odds_help="Odds of a supply die instead: d12, d10, d8, d6 or d4."),
        RollParam("opponent", "Contested roll against this opponent (ties are rerolled).",
                  words="against {}"),
        RollParam("opponent_modifier", "The opponent's STAT and modifiers (repeatable).",
                  multiple=True, type=int, min=-100, max=100,
                  label="Opponent's STAT and modifiers", words="the opponent's STAT and modifiers {}"),
        RollParam("opponent_advantage", "The opponent has advantage (3d6).", is_flag=True,
                  label="Opponent has advantage", words="the opponent with advantage"),
        RollParam("opponent_disadvantage", "The opponent has disadvantage (1d6).", is_flag=True,
                  label="Opponent has disadvantage", words="the opponent with disadvantage"),
    )  # fmt: skip
