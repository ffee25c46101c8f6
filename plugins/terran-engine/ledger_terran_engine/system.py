"""The Terran Engine rule system (seed ``003_2aeb47bc6ca82a40.txt``, Terran Engine SRD v0.4.5).

Wiring only: the mechanics are in :mod:`.rules`, the appliers in :mod:`.appliers`, the words
in :mod:`.words`, the sheet in :mod:`.sheet` and the odds and their chart in :mod:`.odds`.
"""

from __future__ import annotations

from ledger import RollParam

from .appliers import Appliers
from .events import EVENT_TYPES, UPCASTERS
from .odds import Odds
from .rules import Rules
from .sheet import SheetRules
from .state import Character, Options
from .words import Words


class TerranEngine(Rules, Appliers, Words, SheetRules, Odds):
    """Terran Engine: Light and Dark d6 pools, Ego, HP and wounds, Challenges, Advancements.

    Seed ``003_2aeb47bc6ca82a40.txt``; digest ``rules/terran-engine.md``; rulings and
    options in docs/rulings/terran-engine.md.
    """

    id = "terran-engine"
    name = "Terran Engine"
    source = "003_2aeb47bc6ca82a40.txt"
    book = "Terran Engine SRD v0.4.5"
    example_roll = "roll jen Exploration --attribute Agility --dark 1 --montage --challenge 'Greywater ford' --dice 2,3,1,4  # 3 Light and 1 Dark die, highest 4"
    dice_faces = ("1", "2", "3", "4", "5", "6")
    dice_words = "the d6s"
    contests = True  # an Effect against a character on the ledger (--vs-character, T24)
    has_harm = True  # `campaign damage` and --apply: physical harm through armour (T24)
    time_spans = {  # "1.3.1 HP": "a well rested night", "a week of rest"
        "a well rested night": (8 * 60, True),
        "a night's sleep": (8 * 60, True),
        "a week of rest": (7 * 24 * 60, True),
    }
    chart = ".odds"  # the odds chart's odds_series and draw_odds
    event_types = EVENT_TYPES
    upcasters = UPCASTERS
    state_type = Character
    options_type = Options
    roll_options = (  # "2.1 Risky Actions", "Light and Dark Dice", "2.2 Challenges (Effects)"
        RollParam("attribute", "Terran: the Attribute rolled with the Skill.", common=True,
                  words="with {}", odds=False),
        RollParam("dark", "Terran: Dark Dice risked (Ego).", type=int, min=0, max=30,
                  label="Dark Dice risked", common=True, words="risking {} Dark Dice"),
        RollParam("position", "Terran: GM's position, +1 or -1 dice.", type=int,
                  min=-1, max=1, choices=("-1", "0", "1"), label="Position (+1 or −1 dice)", common=True,
                  words="Position {}", odds=False),
        RollParam("pool", "Terran: total dice (Light + Dark) of a Risky Action.", type=int,
                  min=0, max=30, roll=False),
        RollParam("ego", "Terran: current Ego (Ego risk).", type=int, min=0, max=30, roll=False),
        RollParam("extra", "Terran: other dice, e.g. -1 or +1.", type=int, min=-10, max=10,
                  label="Other dice (+ or −)", words="other dice {}", odds=False),
        RollParam("advancement", "Terran: an Advancement that applies.", multiple=True,
                  label="Advancement that applies", words="with {}", odds=False),
        RollParam("condition", "Terran: a Condition that applies (-1d).", multiple=True,
                  label="Condition that applies", words="under {}", odds=False),
        RollParam("challenge", "Terran: the Challenge the roll concerns.",
                  words="on the Challenge {}", odds=False),
        RollParam("hindered", "Terran: heavy armour hinders this action (-1d).", is_flag=True,
                  label="Hindered by heavy armour", words="hindered by heavy armour", odds=False),
        RollParam("improvised", "Terran: improvised tool (-1d).", is_flag=True,
                  label="Improvised tool", words="with an improvised tool", odds=False),
        RollParam("montage", "Terran: resolve the whole Challenge in one roll.", is_flag=True,
                  words="as a Montage", odds_help="Terran: Montage (2 Ego per Dark die)."),
        RollParam("pooled", "Terran: Ego companions offer to pay in a Montage.", type=int,
                  min=0, max=40, label="Ego offered by companions",
                  words="with {} Ego from companions", odds=False),
        RollParam("creation", "Terran: roll this Attribute at creation (2d6).", is_flag=True,
                  label="Roll this Attribute at creation", words="at creation", odds=False),
        RollParam("effect", "Terran: Effect dice, e.g. d/2, 1d, 1d+1, 2d.", label="Effect dice",
                  words="Effect {}"),
        RollParam("weapon", "Terran: the weapon or tool used for the Effect.",
                  label="Weapon or tool", words="with {}", odds=False),
        RollParam("twohands", "Terran: a medium weapon held two-handed (1d+1).", is_flag=True,
                  label="Held two-handed", words="held two-handed", odds=False),
        RollParam("consequence", "Terran: harm, complication, fork or none.",
                  choices=("harm", "complication", "fork", "none"), words="consequence {}",
                  odds=False),
        RollParam("fork", "Terran: name of the Challenge a consequence forks into.",
                  label="Challenge it forks into", words="forking into {}", odds=False),
        RollParam("protected", "Terran: roll Protected's Dark Dice.", is_flag=True,
                  words="Protected", odds=False),
        RollParam("sacrifice", "Terran: sacrifice the shield to avoid the Effect.", is_flag=True,
                  label="Sacrifice the shield", words="sacrificing the shield", odds=False),
        RollParam("fortune", "Terran: the chances of a Fortune die.", label="Fortune die",
                  words="Fortune die {}", odds=False),
        RollParam("ego_check", "Terran: simultaneous or sequential (default: the campaign's).",
                  choices=("simultaneous", "sequential"), roll=False),
        RollParam("d_half", "Terran: ceil, floor_min1 or explode_then_halve (default: the "
                  "campaign's).", choices=("ceil", "floor_min1", "explode_then_halve"),
                  roll=False),
        RollParam("upto", "Terran: list effect values up to this one (default 30).", type=int,
                  min=1, max=200, roll=False),
        RollParam("spend", "Terran: Experience spent (dice summed).", type=int, min=0, max=100,
                  roll=False),
        RollParam("threshold", "Terran: Advancement target (Ego_max + HP_max).", type=int,
                  min=0, max=200, roll=False),
        RollParam("rating", "Terran: current Skill rating for Skill Development.", type=int,
                  min=0, max=30, roll=False),
    )  # fmt: skip
    sections = {  # the seed section each event type implements (shown by audits)
        "terran-engine.attribute_rolled": "1.2 Attributes",
        "terran-engine.risky_action_rolled": "2.1 Risky Actions",
        "terran-engine.effect_rolled": "2.2 Challenges (Effects)",
        "terran-engine.consequence_rolled": "2.1 Risky Actions",
        "terran-engine.fortune_rolled": "2.3 Fortune die",
        "terran-engine.advancement_rolled": "1.4 Advancements",
        "terran-engine.skill_development_rolled": "1.4 Advancements (Skills)",
        "terran-engine.experience_gained": "1.4 Advancements",
        "terran-engine.advancement_chosen": "1.4 Advancements",
        "terran-engine.challenge_opened": "2.2 Challenges",
        "terran-engine.disposition_reduced": "2.2 Challenges",
        "terran-engine.challenge_closed": "2.2 Challenges",
        "terran-engine.complication_added": "2.2 Challenges",
        "terran-engine.harm_taken": "1.3 HP and Ego",
        "terran-engine.attribute_lost": "1.3 HP and Ego",
        "terran-engine.condition_taken": "1.5 Conditions",
        "terran-engine.rested_night": "1.3 HP and Ego",
        "terran-engine.wound_recovered": "1.3 HP and Ego",
        "terran-engine.ego_pooled": "2.2 Challenges (Montage)",
        "terran-engine.rallied": "1.3 HP and Ego",
        "terran-engine.equipment_changed": "2.2 Challenges (Effects)",
        "terran-engine.skill_adapted": "1.2.1 Skills",
        "terran-engine.shared_challenge_opened": "2.2 Challenges",
        "terran-engine.shared_disposition_reduced": "2.2 Challenges",
        "terran-engine.shared_challenge_closed": "2.2 Challenges",
        "terran-engine.archetype_evolved": "1.1 Archetypes",
    }
