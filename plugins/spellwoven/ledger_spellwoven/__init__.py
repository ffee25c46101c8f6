"""Spellwoven: 3d10 roll-under success counting with Effort, Weaknesses, static and
Attribute difficulties, Contests of Skill and advantage/disadvantage (seed
004_663ae3e4ecc71fd1.txt, "Rules for the Game").

Registers :class:`Spellwoven` through the ``ledger`` entry point, as a third-party plugin
would, and the ``campaign effort`` command (:mod:`.commands`). This module is the wiring;
the rest: :mod:`.events`, :mod:`.state` (character state, options), :mod:`.rules` (a request
to dice, resolve, re-derive; the rules as pure functions in :mod:`.rules.mechanics`),
:mod:`.appliers`, :mod:`.words` (log lines, changes, recap notes), :mod:`.sheet` (creation,
sheet view and layout), :mod:`.odds` (exact distributions and the odds chart).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ledger import RollParam, hookimpl

from .appliers import Appliers
from .events import UPCASTERS
from .odds import Odds
from .rules import Rules
from .rules.mechanics import DIFFICULTIES, notation
from .sheet import SheetRules
from .state import Character, Options
from .words import Words

if TYPE_CHECKING:
    from collections.abc import Callable

    import click

    from ledger import RuleSystem

__all__ = ["Spellwoven"]

DIFFICULTY_NAMES = tuple(name.casefold().replace(" ", "-") for name in DIFFICULTIES.values())
"""The level names ``--difficulty`` offers in the table shell ("Difficulty levels")."""


class Spellwoven(Rules, Appliers, Words, SheetRules, Odds):
    """Spellwoven: roll 3d10 under the Skill Level, count successes (1s count double, 10s
    never), meet a difficulty of 1..4 or beat an opponent; Effort adds the Attribute.

    (004_663ae3e4ecc71fd1.txt, "Rules for the Game"; rulings in docs/rulings/spellwoven.md)
    """

    id = "spellwoven"
    name = "Spellwoven"
    source = "004_663ae3e4ecc71fd1.txt"
    book = "Spellwoven: Rules for the Game"
    example_roll = (
        'roll jen Sprint --difficulty 1 --dice 6,6,10  # "Example: Static Difficulty": no success'
    )
    dice_faces = tuple(str(n) for n in range(1, 11))
    dice_words = "the d10s"
    contests = True  # --vs-character: the opponent's Skill Level from their sheet (SW5)
    upcasters = UPCASTERS
    state_type = Character
    options_type = Options
    line_names = {"notation": notation}  # skill lines in the sheet's notation
    time_spans = {"a night's sleep": (8 * 60, True)}  # "refreshes with a night's sleep"
    chart = ".odds"  # the odds chart's odds_series and draw_odds
    roll_options = (  # "Test of Skill", "Difficulty levels", "Advantage & Disadvantage", "Effort"
        RollParam("difficulty", "Spellwoven: successes needed, 1 Normal to 4 Daunting (number "
                  "or name).", suggestions=DIFFICULTY_NAMES, common=True, words="against {}",
                  odds_help="Successes required (1-4 or Normal ... Daunting): adds the "
                  "chance to pass."),
        RollParam("advantage", "Spellwoven: roll 4d10, keep the three that score most.",
                  is_flag=True, common=True, words="with advantage"),
        RollParam("disadvantage", "Spellwoven: roll 4d10, keep the three highest faces.",
                  is_flag=True, common=True, words="with disadvantage"),
        RollParam("effort", "Spellwoven: spend 1 Effort to add the Attribute to the successes.",
                  is_flag=True, label="Spend 1 Effort", common=True, words="spending 1 Effort",
                  odds=False),
        RollParam("skill", "Skill Level 1-20 (leave out for every level 1-20).", type=int,
                  min=1, max=20, roll=False),
        RollParam("target", "Spellwoven: the target's relevant Attribute (1-4); difficulty = "
                  "Attribute - 1.", type=int, min=0, max=100, label="Target's Attribute",
                  words="against a Target's Attribute of {}"),
        RollParam("weakness", "Spellwoven: the target's Weakness is used against them: roll at "
                  "advantage.", is_flag=True, label="Use the target's Weakness",
                  words="using the target's Weakness"),
        RollParam("vs", "Spellwoven: Contest of Skill against an opponent: S, NAME:S or "
                  "NAME:S:advantage.", label="Contest of Skill against",
                  words="a Contest of Skill against {}"),
        RollParam("attribute", "Spellwoven: the relevant Attribute when the GM names one.",
                  words="with {}", odds=False),
        RollParam("vs_effort", "Spellwoven: the opponent on the ledger spends 1 Effort: + "
                  "their Attribute.", is_flag=True, label="The opponent spends 1 Effort",
                  words="the opponent spending 1 Effort", odds=False),
        RollParam("pool", "Spellwoven: dice kept instead of 3, by the GM's fiat.", type=int,
                  min=0, max=20, label="Dice kept (the GM's fiat)", words="keeping {} dice"),
        RollParam("bonus", "Successes added by Effort (the Attribute, 1-4).", type=int,
                  min=0, max=4, roll=False),
    )  # fmt: skip


@hookimpl
def register_rule_systems(register: Callable[[RuleSystem], None]) -> None:
    """Register the Spellwoven rule system."""
    register(Spellwoven())


@hookimpl
def register_commands(cli: click.Group) -> None:
    """Add ``campaign effort CHARACTER`` (spend Effort after a roll)."""
    from .commands import effort

    cli.add_command(effort)
