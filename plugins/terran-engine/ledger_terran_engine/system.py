"""The Terran Engine rule system (seed ``003_2aeb47bc6ca82a40.txt``, Terran Engine SRD v0.4.5).

Wiring only: the mechanics are in :mod:`.rules`, the appliers in :mod:`.appliers`, the words
in :mod:`.words`, the sheet in :mod:`.sheet` and the odds and their chart in :mod:`.odds`.
"""

from __future__ import annotations

from ledger import RollParam

from .appliers import Appliers
from .events import EVENT_TYPES, UPCASTERS
from .odds import ODDS_PARAMS, Odds
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
    # the roll form on a phone (#27): "Risky Actions", "Light and Dark Dice", "Effect"
    common_roll_params = ("attribute", "dark", "position")
    roll_labels = {
        "attribute": "Attribute",
        "dark": "Dark Dice risked",
        "position": "Position (+1 or −1 dice)",
        "extra": "Other dice (+ or −)",
        "advancement": "Advancement that applies",
        "condition": "Condition that applies",
        "challenge": "Challenge",
        "hindered": "Hindered by heavy armour",
        "improvised": "Improvised tool",
        "montage": "Montage",
        "pooled": "Ego offered by companions",
        "creation": "Roll this Attribute at creation",
        "effect": "Effect dice",
        "weapon": "Weapon or tool",
        "twohands": "Held two-handed",
        "consequence": "Consequence",
        "fork": "Challenge it forks into",
        "protected": "Protected",
        "sacrifice": "Sacrifice the shield",
        "fortune": "Fortune die",
    }
    dice_faces = ("1", "2", "3", "4", "5", "6")
    dice_words = "the d6s"
    # a request with no dice at all is refused next to "Dark Dice risked" (ruling R3)
    refusal_fields = {"no Light and no Dark Dice": "dark"}
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
    roll_params = (
        RollParam("attribute", "Terran: the Attribute rolled with the Skill.", words="with {}"),
        RollParam("dark", "Terran: Dark Dice risked (Ego).", type=int, min=0, max=20, words="risking {} Dark Dice"),
        RollParam("position", "Terran: GM's position, +1 or -1 dice.", type=int, min=-1, max=1, words="Position {}"),
        RollParam("extra", "Terran: other dice, e.g. -1 or +1.", type=int, min=-10, max=10, words="other dice {}"),
        RollParam("advancement", "Terran: an Advancement that applies.", multiple=True, words="with {}"),
        RollParam("condition", "Terran: a Condition that applies (-1d).", multiple=True, words="under {}"),
        RollParam("challenge", "Terran: the Challenge the roll concerns.", words="on the Challenge {}"),
        RollParam("hindered", "Terran: heavy armour hinders this action (-1d).", is_flag=True, words="hindered by heavy armour"),
        RollParam("improvised", "Terran: improvised tool (-1d).", is_flag=True, words="with an improvised tool"),
        RollParam("montage", "Terran: resolve the whole Challenge in one roll.", is_flag=True, words="as a Montage"),
        RollParam("pooled", "Terran: Ego companions offer to pay in a Montage.", type=int,
                  min=0, max=40, words="with {} Ego from companions"),
        RollParam("creation", "Terran: roll this Attribute at creation (2d6).", is_flag=True, words="at creation"),
        RollParam("effect", "Terran: Effect dice, e.g. d/2, 1d, 1d+1, 2d.", words="Effect {}"),
        RollParam("weapon", "Terran: the weapon or tool used for the Effect.", words="with {}"),
        RollParam("twohands", "Terran: a medium weapon held two-handed (1d+1).", is_flag=True, words="held two-handed"),
        RollParam("consequence", "Terran: harm, complication, fork or none.", words="consequence {}"),
        RollParam("fork", "Terran: name of the Challenge a consequence forks into.", words="forking into {}"),
        RollParam("protected", "Terran: roll Protected's Dark Dice.", is_flag=True, words="Protected"),
        RollParam("sacrifice", "Terran: sacrifice the shield to avoid the Effect.", is_flag=True, words="sacrificing the shield"),
        RollParam("fortune", "Terran: the chances of a Fortune die.", words="Fortune die {}"),
    )
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
    odds_params = ODDS_PARAMS
