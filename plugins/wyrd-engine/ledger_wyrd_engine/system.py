"""The Wyrd Engine rule system: 4dF + skill + trait against a Difficulty Rating.

Source: 000_60e07241544698f0.txt, chapter "The Wyrd Engine Core Mechanics"; digest
``rules/wyrd-engine.md`` with its rulings (C1–C17). Wiring only: the mechanics are in
:mod:`.rules`, the appliers in :mod:`.appliers`, the words in :mod:`.words`, creation and
the sheet in :mod:`.sheet`, the exact odds and their chart in :mod:`.odds`.
"""

from __future__ import annotations

from ledger import FUDGE_FACES, RollParam

from . import events as ev
from .appliers import Appliers
from .odds import Odds
from .rules import DR_NAMES, Rules
from .rules.turns import Turns
from .sheet import SheetRules
from .state import Character, Options
from .words import Words


class WyrdEngine(Turns, Rules, Appliers, Words, SheetRules, Odds):
    """The Wyrd Engine (000_60e07241544698f0.txt): 4dF, skills 0…+3, traits, stress and
    wounds. Configure with :class:`~ledger_wyrd_engine.state.Options`."""

    id = "wyrd-engine"
    name = "The Wyrd Engine"
    source = "000_60e07241544698f0.txt"
    book = "The Wyrd Engine Core Mechanics"
    example_roll = 'roll julian investigate --dr good --dice ++-0  # "Skills in Action": 4 vs Good (+2), success'
    has_harm = True  # `campaign damage` appends damage_taken (harm_event)
    event_types = ev.EVENT_TYPES
    upcasters = ev.UPCASTERS
    state_type = Character
    options_type = Options
    roll_options = (  # "Fudge dice (4dF)", "Difficulty Levels", "Traits"
        RollParam("dr", "Wyrd Engine: Difficulty Rating, a number or a name (good, Difficult).",
                  suggestions=DR_NAMES, label="Difficulty Rating", common=True,
                  words="against {}",
                  odds_help="Wyrd Engine: one Difficulty Rating (default: the whole ladder)."),
        RollParam("trait", "Wyrd Engine: the one trait, gear or boon invoked (they don't stack: "
                  "a second is refused).", multiple=True, label="Invoke a trait, gear or boon",
                  common=True, words="invoking {}", odds=False),
        RollParam("skill", "Wyrd Engine: the modifier added to 4dF (skill + bonuses).", type=int,
                  min=-10, max=20, roll=False),
        RollParam("boost", "Wyrd Engine: spend a held boost of +1 or +2.", type=int, min=1, max=2,
                  label="Spend a boost", words="spending a boost of +{}", odds=False),
        RollParam("teamwork", "Wyrd Engine: an ally's teamwork bonus, +1 (or +2).", type=int,
                  min=1, max=2, label="Teamwork bonus", words="with teamwork +{}", odds=False),
        RollParam("vs", "Wyrd Engine: the opponent's rating; they roll 4dF too.", type=int,
                  min=-10, max=20, label="Active opposition: their rating", words="opposed at {}",
                  odds_help="Wyrd Engine: an opponent's rating for a contest."),
        RollParam("opponent", "Wyrd Engine: who opposes the roll (for the record).",
                  label="Who opposes", words="opposed by {}", odds=False),
        RollParam("attack", "Wyrd Engine: against active opposition, an attack (hits if "
                  "strictly higher).", is_flag=True, label="Attacking", words="attacking",
                  odds=False),
        RollParam("defend", "Wyrd Engine: against active opposition, a defence against an "
                  "attack.", is_flag=True, label="Defending", words="defending", odds=False),
        RollParam("physical", "Wyrd Engine: count the roll as a physical action.", is_flag=True,
                  label="A physical action", words="a physical action", odds=False),
        RollParam("vs_trait", "Wyrd Engine: against a character on the ledger, the one trait or "
                  "gear the opponent invokes (+2).", label="The opponent's trait or gear",
                  words="they invoke {}", odds=False),
        RollParam("situational", "Wyrd Engine: a situational modifier the GM sets (a manoeuvre's "
                  "edge, an improvised weapon, an impaired character), kept apart from the "
                  "DR; say why it applies.", type=int, min=-6, max=6,
                  label="Situational modifier", words="situational {}", odds=False),
        RollParam("situation", "Wyrd Engine: why the situational modifier applies, e.g. "
                  "'improvised weapon', 'impaired (drugged)', 'disarmed him last turn'.",
                  suggestions=("manoeuvre", "improvised weapon", "impaired"),
                  label="Why it applies", words="for {}", odds=False),
        RollParam("initiative", "Wyrd Engine: roll for initiative, 4dF + Notice (or the skill "
                  "named), no DR; against an opponent the higher acts first.",
                  is_flag=True, label="Initiative", words="for initiative", odds=False),
    )  # fmt: skip
    dice_faces = FUDGE_FACES
    dice_words = "the four Fudge dice"
    contests = True
    sections = {  # the seed section each event type implements (shown by audits)
        "wyrd-engine.check_rolled": (
            "Fudge dice (4dF); Difficulty Levels: Passive Opposition, Active Opposition; Attacking and Defending"
        ),
        "wyrd-engine.damage_taken": "Damage: Stress and Wounds",
        "wyrd-engine.wound_inflicted": "Damage: Stress and Wounds; Weapons and Gear in Combat",
        "wyrd-engine.wound_described": "Damage: Stress and Wounds",
        "wyrd-engine.wound_healed": "Healing and Recovery",
        "wyrd-engine.stress_cleared": "Damage: Stress and Wounds",
        "wyrd-engine.trait_ability_used": "Traits: Using Traits in Play",
        "wyrd-engine.boon_granted": "Active Opposition",
        "wyrd-engine.boon_used": "Active Opposition",
        "wyrd-engine.boost_gained": "Boosts: Optional Rule for Increasing Success",
        "wyrd-engine.boost_used": "Boosts: Optional Rule for Increasing Success",
        "wyrd-engine.death_recorded": "Death and the End of Combat",
        "wyrd-engine.gear_gained": "Gear as Traits; Step 4: Select Gear",
        "wyrd-engine.gear_lost": "Gear as Traits",
        "wyrd-engine.trait_gained": "Traits",
        "wyrd-engine.trait_lost": "Traits",
    }
    time_spans = {  # "Healing and Recovery": "a short rest (a few hours)", "days", "weeks"
        "a short rest": (3 * 60, True),
        "a night's sleep": (8 * 60, True),
        "a week of rest": (7 * 24 * 60, True),
    }
    chart = ".odds"  # the odds chart's odds_series and draw_odds
    initiative_rule = (  # "Initiative: Who Acts First?" (the book's own words)
        "If one side is clearly ambushing the other, they act first. If no clear ambush is "
        "present, the GM determines turn order based on readiness. If multiple characters are "
        "competing to act first, roll 4dF + Notice (or another relevant skill). The highest "
        "roll acts first, with ties resolved narratively."
    )
