"""The Wyrd Engine plugin: the rule text's worked examples and damage vectors.

Seed 000_60e07241544698f0.txt; rulings in docs/rulings/wyrd-engine.md. Dice faces are the
book's, entered as physical dice; expected answers are the book's (or vectors worked by hand
from its rules), never copied from this code's output.
"""

from __future__ import annotations

import tomllib
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from ledger_wyrd_engine import WyrdEngine
from ledger_wyrd_engine.events import (
    BoonGranted,
    BoostGained,
    CheckRolled,
    DamageTaken,
    DeathRecorded,
    TraitAbilityUsed,
    WoundDescribed,
    WoundHealed,
    WoundInflicted,
)
from ledger_wyrd_engine.rules import (
    absorb,
    d6_as_fudge,
    damage_units,
    fudge_sum,
    parse_dr,
    parse_rating,
)
from ledger_wyrd_engine.state import Character

from ledger import RollRequest, RuleError
from ledger.dice.engine import DiceError, EngineDice, PhysicalDice, parse_faces
from ledger.events import SceneEnded, SessionEnded
from ledger.rules.results import result_problem

CAMPAIGN = Path(__file__).resolve().parents[2] / "campaigns" / "grand-casebook"


def load_sheet(stem: str) -> tuple[str, str, dict[str, Any]]:
    """``(id, name, system sheet)`` of a Grand Casebook character file."""
    data = tomllib.loads((CAMPAIGN / "characters" / f"{stem}.toml").read_text())
    ident = data.pop("id", stem)
    name = data.pop("name")
    data.pop("player", None)
    return ident, name, data


def make(system: WyrdEngine, stem: str) -> Character:
    ident, name, raw = load_sheet(stem)
    return system.initial_state(ident, name, system.create_sheet(raw))


def roll(
    system: WyrdEngine, state: Character, skill: str, faces: str, **params: Any
) -> CheckRolled:
    """Resolve with the book's faces; the event re-derives to itself (verify's check)."""
    request = RollRequest(character=state.id, name=state.name, skill=skill, params=params)
    event = system.resolve(state, request, PhysicalDice(parse_faces(faces)))
    event = system.with_inputs(event, request)  # as the core records it
    assert result_problem(system, state, event, name=state.name) is None
    return event


def apply(system: WyrdEngine, state: Character, event: Any) -> Character:
    return system.appliers()[type(event)](state, event)


@pytest.fixture
def wyrd() -> WyrdEngine:
    system = WyrdEngine().configure({})
    assert isinstance(system, WyrdEngine)
    return system


# --- W1, W2, W14, W16: the dice ------------------------------------------------------------


def test_w1_w2_fudge_sums_from_the_book() -> None:
    assert fudge_sum([1, 1, -1, 0]) == 1
    assert fudge_sum([-1, 1, -1, -1]) == -2


def test_fudge_sum_refuses_a_face_or_count_a_fudge_die_cannot_give() -> None:
    with pytest.raises(RuleError, match="four Fudge dice"):
        fudge_sum([1, 1, 0])
    with pytest.raises(RuleError, match="not 2"):
        fudge_sum([1, 1, 0, 2])


def test_w14_d6_substitute() -> None:
    assert [d6_as_fudge(f) for f in range(1, 7)] == [-1, -1, 0, 0, 1, 1]
    with pytest.raises(RuleError):
        d6_as_fudge(7)


def test_w16_plus_one_shifts_the_range() -> None:
    from ledger_wyrd_engine.odds import fudge_distribution

    shifted = [k + 1 for k in fudge_distribution()]
    assert (min(shifted), max(shifted)) == (-3, 5)


# --- W3 to W6: Julian's "Skills in Action" -------------------------------------------------


@pytest.mark.parametrize(
    ("skill", "faces", "dr", "dice", "total", "margin", "outcome"),
    [
        ("Investigate", "++-0", "Good", [1, 1, -1, 0], 4, 2, "success"),  # W3 crime scene
        ("Notice", "+--0", "Fair", [1, -1, -1, 0], 1, 0, "tie"),  # W4 ambush: meets DR
        ("Rapport", "+---", "Good", [1, -1, -1, -1], 0, -2, "failure"),  # W5 witness
        ("Provoke", "++00", "Fair", [1, 1, 0, 0], 3, 2, "success"),  # W6 thief
    ],
)
def test_w3_to_w6_julian(
    wyrd: WyrdEngine, skill: str, faces: str, dr: str, dice: list[int],
    total: int, margin: int, outcome: str,
) -> None:  # fmt: skip
    julian = make(wyrd, "julian")
    event = roll(wyrd, julian, skill.lower(), faces, dr=dr)
    assert (event.skill, event.dice, event.total) == (skill, dice, total)
    assert (event.margin, event.outcome, event.source) == (margin, outcome, "physical")
    assert event.draws == [(3, {-1: 1, 0: 2, 1: 3}[f]) for f in dice]
    assert apply(wyrd, julian, event) == julian  # a plain roll changes no state


def test_w4_tie_is_described_as_a_success(wyrd: WyrdEngine) -> None:
    julian = make(wyrd, "julian")
    line = wyrd.describe(roll(wyrd, julian, "notice", "+,-,-,0", dr="fair"))
    assert line is not None
    assert line.startswith("julian: Notice +2, dice [+ − − ·] = -1, total 1 vs Challenging/Fair")
    assert "succeeds" in line


# --- W7, W8: Felix repairs the safe ("Example 1: Applying a +2 Bonus") ---------------------


def test_w7_without_the_trait_is_a_margin_one_success(wyrd: WyrdEngine) -> None:
    felix = make(wyrd, "felix")
    event = roll(wyrd, felix, "Crafts", "+000", dr="Great")
    assert (event.total, event.margin, event.outcome) == (4, 1, "success")


def test_w7_minor_cost_option_reproduces_the_books_label() -> None:
    system = WyrdEngine().configure({"minor_cost_margins": [1]})
    assert isinstance(system, WyrdEngine)
    event = roll(system, make(system, "felix"), "Crafts", "+000", dr="Great")
    assert (event.margin, event.outcome) == (1, "success_at_cost")


def test_w8_trait_bonus_gives_success_with_style(wyrd: WyrdEngine) -> None:
    felix = make(wyrd, "felix")
    event = roll(wyrd, felix, "Crafts", "+000", dr="+3", trait="master tinkerer")
    assert (event.trait, event.trait_bonus, event.total) == ("Master Tinkerer", 2, 6)
    assert (event.margin, event.outcome) == (3, "success_with_style")


def test_a_bonus_trait_only_helps_its_own_skill(wyrd: WyrdEngine) -> None:
    felix = make(wyrd, "felix")
    with pytest.raises(RuleError, match="Master Tinkerer gives \\+2 to Crafts, not Lore"):
        roll(wyrd, felix, "Lore", "+000", dr="Great", trait="Master Tinkerer")


def test_an_ability_is_not_a_roll_bonus(wyrd: WyrdEngine) -> None:
    felix = make(wyrd, "felix")
    with pytest.raises(RuleError, match="trait-ability-used"):
        roll(wyrd, felix, "Crafts", "+000", dr="Great", trait="Unstable Prototype")


def test_substitution_rolls_the_other_skills_rating(wyrd: WyrdEngine) -> None:
    # Felix, "A Calculated Risk": Will (+1) instead of Athletics (+0) when escaping.
    felix = make(wyrd, "felix")
    event = roll(wyrd, felix, "Athletics", "0000", dr="Fair", trait="A Calculated Risk")
    assert (event.skill, event.rating_skill, event.rating) == ("Athletics", "Will", 1)
    assert (event.trait_bonus, event.total, event.outcome) == (0, 1, "tie")


# --- W9, W10: permission and once-per-session -----------------------------------------------


def test_w9_permission_trait_is_recorded_without_a_bonus(wyrd: WyrdEngine) -> None:
    isadora = make(wyrd, "isadora")
    permission = {"name": "Speaks with the Dead", "kind": "permission", "skill": "Lore"}
    isadora = wyrd.initial_state(
        "isadora", "Isadora Lovelace",
        {**wyrd.create_sheet({"npc": True, "skills": dict(isadora.skills),
                              "traits": [permission]})},
    )  # fmt: skip
    event = roll(wyrd, isadora, "Lore", "+0-0", dr="Good", trait="speaks with the dead")
    assert (event.trait_kind, event.trait_bonus, event.total) == ("permission", 0, 2)
    with pytest.raises(RuleError, match="permits rolls of Lore, not Rapport"):
        roll(wyrd, isadora, "Rapport", "0000", dr="Good", trait="Speaks with the Dead")


def test_w10_once_per_session_ability(wyrd: WyrdEngine) -> None:
    cornelius = make(wyrd, "cornelius")
    use = TraitAbilityUsed(character="cornelius", trait="clockwork grappling hook")
    once = apply(wyrd, cornelius, use)
    assert once.used_this_session == ("Clockwork Grappling Hook",)
    with pytest.raises(RuleError, match="already used Clockwork Grappling Hook this session"):
        apply(wyrd, once, use)
    after_scene = apply(wyrd, once, SceneEnded())
    with pytest.raises(RuleError, match="this session"):
        apply(wyrd, after_scene, use)
    next_session = apply(wyrd, once, SessionEnded(number=1, seed_reveal="00"))
    assert apply(wyrd, next_session, use).used_this_session == ("Clockwork Grappling Hook",)


def test_once_per_scene_resets_at_scene_end(wyrd: WyrdEngine) -> None:
    isadora = make(wyrd, "isadora")
    use = TraitAbilityUsed(character="isadora", trait="Hidden Derringer")
    used = apply(wyrd, isadora, use)
    with pytest.raises(RuleError, match="this scene"):
        apply(wyrd, used, use)
    assert apply(wyrd, apply(wyrd, used, SceneEnded()), use).used_this_scene == (
        "Hidden Derringer",
    )


def test_trait_ability_refuses_non_abilities_and_unknown_names(wyrd: WyrdEngine) -> None:
    cornelius = make(wyrd, "cornelius")
    with pytest.raises(RuleError, match="substitution trait, not a once-per"):
        apply(wyrd, cornelius, TraitAbilityUsed(character="cornelius",
                                                trait="Always an Escape Plan"))  # fmt: skip
    with pytest.raises(RuleError, match="no trait or gear called 'Lucky Coin'"):
        apply(wyrd, cornelius, TraitAbilityUsed(character="cornelius", trait="Lucky Coin"))


# --- W11: Example Attack -------------------------------------------------------------------


def test_w11_example_attack_hits_on_higher_total(wyrd: WyrdEngine) -> None:
    jonathan = make(wyrd, "jonathan")
    event = roll(wyrd, jonathan, "Fight", "0000 0000", vs=1, attack=True, opponent="thug")
    assert (event.total, event.opposition_total) == (2, 1)
    assert (event.mode, event.outcome, event.damage, event.margin) == ("attack", "hit", 1, 1)
    assert len(event.draws) == 8


def test_attack_tie_misses(wyrd: WyrdEngine) -> None:
    jonathan = make(wyrd, "jonathan")
    event = roll(wyrd, jonathan, "Fight", "0000 +000", vs=1, attack=True)
    assert (event.total, event.opposition_total, event.outcome, event.damage) == (2, 2, "miss", 0)


def test_defence_reports_the_hit_on_the_roller(wyrd: WyrdEngine) -> None:
    josephine = make(wyrd, "josephine")
    event = roll(wyrd, josephine, "Athletics", "0000 ++00", vs=1, defend=True, opponent="gunman")
    assert (event.total, event.opposition_total) == (0, 3)
    assert (event.outcome, event.damage) == ("hit", 3)


@pytest.mark.parametrize(
    ("faces", "outcome", "margin"),
    [("++++ ----", "success_with_style", 8), ("+000 0000", "success", 1),
     ("0000 0000", "tie", 0), ("0000 +000", "failure", -1)],
)  # fmt: skip
def test_active_opposition_bands(wyrd: WyrdEngine, faces: str, outcome: str, margin: int) -> None:
    cornelius = make(wyrd, "cornelius")
    event = roll(wyrd, cornelius, "Deceive", faces, vs=3)
    assert (event.mode, event.outcome, event.margin) == ("contest", outcome, margin)


# --- W12, W13 and the absorption vectors -----------------------------------------------------


def test_w12_example_wound(wyrd: WyrdEngine) -> None:
    josephine = make(wyrd, "josephine")
    full = apply(wyrd, josephine, DamageTaken(character="josephine", amount=5))
    assert (full.stress, full.wounds) == (5, {})
    shot = apply(wyrd, full, DamageTaken(character="josephine", amount=2,
                                          affected_skills=["Athletics", "Fight"]))  # fmt: skip
    assert list(shot.wounds) == ["moderate"]
    assert shot.wounds["moderate"].absorbed == 2
    dodge = roll(wyrd, shot, "Athletics", "0000", dr="Basic")
    assert (dodge.wound_penalty, dodge.total) == (2, -2)
    notice = roll(wyrd, shot, "Notice", "0000", dr="Basic")
    assert notice.wound_penalty == 0


def test_w13_mild_taken_one_damage_fills_moderate() -> None:
    result = absorb(1, stress=5, stress_max=5, taken=["mild"])
    assert result.wounds_taken == (("moderate", 1),)


@pytest.mark.parametrize(
    ("stress", "taken", "damage", "stress_after", "wounds", "overflow", "out", "risk"),
    [
        (0, [], 5, 5, [], 0, False, False),
        (0, [], 6, 5, ["mild"], 0, False, False),
        (0, [], 7, 5, ["moderate"], 0, False, False),
        (0, [], 8, 5, ["severe"], 0, False, False),
        (0, [], 9, 5, ["severe", "mild"], 0, False, False),
        (0, [], 10, 5, ["severe", "moderate"], 0, False, False),
        (0, [], 11, 5, ["severe", "moderate", "mild"], 0, True, False),
        (0, [], 12, 5, ["severe", "moderate", "mild"], 1, True, False),
        (3, [], 3, 5, ["mild"], 0, False, False),
        (5, ["moderate"], 2, 5, ["severe"], 0, False, False),
        (5, ["severe"], 1, 5, ["mild"], 0, False, True),
        (5, ["severe", "moderate"], 2, 5, ["mild"], 1, True, True),
    ],
)
def test_absorption_vectors(
    stress: int, taken: list[str], damage: int, stress_after: int, wounds: list[str],
    overflow: int, out: bool, risk: bool,
) -> None:  # fmt: skip
    result = absorb(damage, stress=stress, stress_max=5, taken=taken)
    assert result.stress == stress_after
    assert [w for w, _ in result.wounds_taken] == wounds
    assert (result.overflow, result.taken_out, result.at_risk_of_death) == (overflow, out, risk)


def test_severe_absorbs_two_and_loses_one() -> None:
    result = absorb(2, stress=5, stress_max=5, taken=["moderate"])
    assert result.wounds_taken == (("severe", 2),)


def test_three_stress_boxes_option() -> None:
    system = WyrdEngine().configure({"stress_boxes": 3})
    assert isinstance(system, WyrdEngine)
    felix = make(system, "felix")
    assert felix.stress_max == 3
    four = apply(system, felix, DamageTaken(character="felix", amount=4))
    assert (four.stress, list(four.wounds)) == (3, ["mild"])
    nine = apply(system, felix, DamageTaken(character="felix", amount=9))
    assert sorted(nine.wounds) == ["mild", "moderate", "severe"] and nine.taken_out


@pytest.mark.parametrize(
    ("damage", "ratio", "units"), [(3, 2, 2), (1, 3, 1), (4, 3, 2), (6, 1, 6), (0, 2, 0)]
)
def test_damage_ratio_rounds_up(damage: int, ratio: int, units: int) -> None:
    assert damage_units(damage, ratio) == units


def test_damage_ratio_option_and_override() -> None:
    system = WyrdEngine().configure({"damage_ratio": 2})
    assert isinstance(system, WyrdEngine)
    felix = make(system, "felix")
    assert apply(system, felix, DamageTaken(character="felix", amount=3)).stress == 2
    assert apply(system, felix, DamageTaken(character="felix", amount=3, ratio=1)).stress == 3
    with pytest.raises(RuleError, match="1, 2 or 3"):
        apply(system, felix, DamageTaken(character="felix", amount=3, ratio=4))


def test_severe_wound_penalises_physical_actions(wyrd: WyrdEngine) -> None:
    julian = make(wyrd, "julian")
    hurt = apply(wyrd, julian, WoundInflicted(character="julian", severity="severe"))
    assert roll(wyrd, hurt, "Athletics", "0000", dr="Fair").wound_penalty == 3
    assert roll(wyrd, hurt, "Investigate", "0000", dr="Fair").wound_penalty == 0
    forced = roll(wyrd, hurt, "Investigate", "0000", dr="Fair", physical=True)
    assert (forced.wound_penalty, forced.total) == (3, 0)


def test_wound_penalties_add(wyrd: WyrdEngine) -> None:
    julian = make(wyrd, "julian")
    for severity in ("mild", "moderate"):
        julian = apply(wyrd, julian, WoundInflicted(character="julian", severity=severity,
                                                    affected_skills=["Notice"]))  # fmt: skip
    assert roll(wyrd, julian, "notice", "0000", dr="Fair").wound_penalty == 3


def test_wound_inflicted_on_a_taken_slot_becomes_damage(wyrd: WyrdEngine) -> None:
    julian = make(wyrd, "julian")
    once = apply(wyrd, julian, WoundInflicted(character="julian", severity="mild"))
    twice = apply(wyrd, once, WoundInflicted(character="julian", severity="mild"))
    assert (twice.stress, list(twice.wounds)) == (1, ["mild"])


def test_wound_described_and_healed(wyrd: WyrdEngine) -> None:
    felix = make(wyrd, "felix")
    hurt = apply(wyrd, felix, DamageTaken(character="felix", amount=6))
    named = apply(wyrd, hurt, WoundDescribed(character="felix", severity="mild",
                                              affected_skills=["Crafts"]))  # fmt: skip
    assert roll(wyrd, named, "Crafts", "0000", dr="Good").wound_penalty == 1
    with pytest.raises(RuleError, match="unknown healing method 'bandages'"):
        apply(wyrd, named, WoundHealed(character="felix", severity="mild", method="bandages"))
    healed = apply(wyrd, named, WoundHealed(character="felix", severity="mild",
                                             method="first_aid"))  # fmt: skip
    assert healed.wounds == {}
    with pytest.raises(RuleError, match="no mild wound to heal"):
        apply(wyrd, healed, WoundHealed(character="felix", severity="mild", method="first_aid"))


def test_healing_needs_strong_enough_care(wyrd: WyrdEngine) -> None:
    felix = make(wyrd, "felix")
    hurt = apply(wyrd, felix, WoundInflicted(character="felix", severity="severe"))
    with pytest.raises(RuleError, match="weeks_of_rest or surgery or supernatural"):
        apply(wyrd, hurt, WoundHealed(character="felix", severity="severe", method="first_aid"))
    mild = apply(wyrd, felix, WoundInflicted(character="felix", severity="mild"))
    assert apply(wyrd, mild, WoundHealed(character="felix", severity="mild",
                                         method="surgery")).wounds == {}  # fmt: skip


def test_scene_end_clears_stress_boons_boosts_and_taken_out(wyrd: WyrdEngine) -> None:
    felix = make(wyrd, "felix")
    out = apply(wyrd, felix, DamageTaken(character="felix", amount=11))
    out = apply(wyrd, out, BoostGained(character="felix", value=1))
    out = apply(wyrd, out, BoonGranted(character="felix", boon="Rattled Guard"))
    assert out.taken_out and out.stress == 5
    after = apply(wyrd, out, SceneEnded())
    assert (after.stress, after.taken_out, after.boons, after.boosts) == (0, False, (), ())
    assert len(after.wounds) == 3  # wounds need healing, not a scene end


def test_death_is_never_automatic_and_ends_rolls(wyrd: WyrdEngine) -> None:
    felix = make(wyrd, "felix")
    risk = apply(wyrd, apply(wyrd, felix, DamageTaken(character="felix", amount=8)),
                 DamageTaken(character="felix", amount=1))  # fmt: skip
    assert risk.at_risk_of_death and not risk.dead
    dead = apply(wyrd, risk, DeathRecorded(character="felix", reason="the prototype exploded"))
    with pytest.raises(RuleError, match="dead"):
        roll(wyrd, dead, "Crafts", "0000", dr="Good")
    with pytest.raises(RuleError, match="dead"):
        apply(wyrd, dead, DamageTaken(character="felix", amount=1))


# --- boosts, teamwork, boons ---------------------------------------------------------------


def test_boost_and_teamwork_add_and_the_boost_is_spent(wyrd: WyrdEngine) -> None:
    julian = apply(wyrd, make(wyrd, "julian"), BoostGained(character="julian", value=2))
    event = roll(wyrd, julian, "Rapport", "+---", dr="Good", boost=2, teamwork=1)
    assert (event.total, event.margin, event.outcome) == (3, 1, "success")
    spent = apply(wyrd, julian, event)
    assert spent.boosts == ()
    with pytest.raises(RuleError, match="holds no \\+2 boost"):
        apply(wyrd, spent, event)


def test_boost_must_be_held_and_teamwork_capped(wyrd: WyrdEngine) -> None:
    julian = make(wyrd, "julian")
    with pytest.raises(RuleError, match="holds no \\+1 boost"):
        roll(wyrd, julian, "Rapport", "0000", dr="Good", boost=1)
    with pytest.raises(RuleError, match="teamwork"):
        roll(wyrd, julian, "Rapport", "0000", dr="Good", teamwork=3)


def test_boon_is_a_one_use_plus_two(wyrd: WyrdEngine) -> None:
    cornelius = apply(wyrd, make(wyrd, "cornelius"),
                      BoonGranted(character="cornelius", boon="Flustered Mark"))  # fmt: skip
    event = roll(wyrd, cornelius, "Rapport", "0000", dr="Great", trait="flustered mark")
    assert (event.trait_kind, event.trait_bonus, event.total) == ("boon", 2, 4)
    used = apply(wyrd, cornelius, event)
    assert used.boons == ()
    with pytest.raises(RuleError, match="no trait, gear or boon"):
        roll(wyrd, used, "Rapport", "0000", dr="Great", trait="Flustered Mark")


# --- roll input ----------------------------------------------------------------------------


def test_unlisted_setting_skill_rolls_at_zero_and_typos_are_refused(wyrd: WyrdEngine) -> None:
    julian = make(wyrd, "julian")
    assert roll(wyrd, julian, "Crafts", "0000", dr="Basic").rating == 0
    with pytest.raises(RuleError, match="did you mean Investigate"):
        roll(wyrd, julian, "Investigat", "0000", dr="Basic")


def test_roll_needs_a_dr_or_an_opponent(wyrd: WyrdEngine) -> None:
    julian = make(wyrd, "julian")
    with pytest.raises(RuleError, match="give the Difficulty Rating"):
        roll(wyrd, julian, "Notice", "0000")
    with pytest.raises(RuleError, match="not both"):
        roll(wyrd, julian, "Notice", "0000 0000", dr="Fair", vs=1)
    with pytest.raises(RuleError, match="unknown difficulty 'hard'"):
        roll(wyrd, julian, "Notice", "0000", dr="hard")


def test_physical_dice_errors(wyrd: WyrdEngine) -> None:
    julian = make(wyrd, "julian")
    with pytest.raises(DiceError, match="Fudge die"):
        roll(wyrd, julian, "Notice", "7,0,0,0", dr="Fair")
    with pytest.raises(DiceError, match="too few"):
        roll(wyrd, julian, "Notice", "++0", dr="Fair")
    with pytest.raises(DiceError, match="extra faces"):
        roll(wyrd, julian, "Notice", "++00+", dr="Fair")


def test_engine_dice_are_recorded_and_reproducible(wyrd: WyrdEngine) -> None:
    julian = make(wyrd, "julian")
    request = RollRequest(character="julian", name="Julian Hargrave", skill="Investigate",
                          params={"dr": "good"})  # fmt: skip
    first = wyrd.resolve(julian, request, EngineDice(b"s" * 32, "casebook", 1, 0, ""))
    again = wyrd.resolve(julian, request, EngineDice(b"s" * 32, "casebook", 1, 0, ""))
    assert first == again
    assert (first.source, first.nonce, len(first.draws)) == ("engine", 0, 4)
    assert first.dice == [{1: -1, 2: 0, 3: 1}[v] for _s, v in first.draws]
    assert first.total == sum(first.dice) + 3


@pytest.mark.parametrize(
    ("text", "value"),
    [("Trivial", -3), ("terrible", -2), ("POOR", -1), ("average", 0), ("mediocre", 0),
     ("Challenging", 1), ("fair", 1), ("good", 2), ("Formidable", 3), ("superb", 4),
     ("fantastic", 5), ("Impossible", 6), ("epic", 6), ("+2", 2), ("-1", -1), ("9", 9)],
)  # fmt: skip
def test_dr_names(text: str, value: int) -> None:
    assert parse_dr(text)[0] == value


def test_strict_comparison_moves_the_ladder_and_keeps_outcomes() -> None:
    strict = WyrdEngine().configure({"dr_comparison": ">"})
    assert isinstance(strict, WyrdEngine)
    assert parse_dr("Basic", ">") == (-1, "Basic")
    julian = make(strict, "julian")
    event = roll(strict, julian, "Notice", "+--0", dr="Fair")  # W4 under the strict box
    assert (event.dr, event.margin, event.outcome) == (0, 0, "tie")


@pytest.mark.parametrize(
    ("value", "rating"), [("Expert", 3), ("great", 3), ("Skilled", 2), ("Fair", 1),
                          ("Untrained", 0), ("+2", 2), (1, 1)],
)  # fmt: skip
def test_skill_level_names(value: object, rating: int) -> None:
    assert parse_rating(value) == rating


def test_options_are_checked() -> None:
    with pytest.raises(RuleError, match="damage_ratio"):
        WyrdEngine().configure({"damage_ratio": 4})
    with pytest.raises(RuleError, match="bad option"):
        WyrdEngine().configure({"stress_box": 3})


# --- odds (000_60e07241544698f0.txt, "Fudge dice (4dF)") ------------------------------------


def test_w15_untrained_basic_is_50_of_81(wyrd: WyrdEngine) -> None:
    odds = wyrd.odds({"skill": 0, "dr": "Basic"})
    assert odds["ladder"][0]["success"] == "50/81"


# Digest §2.7, "Success probability per skill level" recomputed by hand (ruling C4: the
# text's four 38.7% cells are 31/81 = 38.3%).
HAND_TABLE = {
    0: ["80/81", "76/81", "22/27", "50/81", "31/81", "5/27", "5/81", "1/81", "0/1", "0/1"],
    1: ["1/1", "80/81", "76/81", "22/27", "50/81", "31/81", "5/27", "5/81", "1/81", "0/1"],
    2: ["1/1", "1/1", "80/81", "76/81", "22/27", "50/81", "31/81", "5/27", "5/81", "1/81"],
    3: ["1/1", "1/1", "1/1", "80/81", "76/81", "22/27", "50/81", "31/81", "5/27", "5/81"],
}


@pytest.mark.parametrize("skill", [0, 1, 2, 3])
def test_success_table(wyrd: WyrdEngine, skill: int) -> None:
    ladder = wyrd.odds({"skill": skill})["ladder"]
    assert [row["dr"] for row in ladder] == list(range(-3, 7))
    assert [row["success"] for row in ladder] == HAND_TABLE[skill]


def test_challenging_unskilled_is_38_3_percent_not_38_7(wyrd: WyrdEngine) -> None:
    row = wyrd.odds({"skill": 0, "dr": "Challenging"})["ladder"][0]
    assert (row["success"], row["percent"]) == ("31/81", "38.3")


def test_band_split_sums_to_one(wyrd: WyrdEngine) -> None:
    for row in wyrd.odds({"skill": 2})["ladder"]:
        assert sum(Fraction(v) for v in row["bands"].values()) == 1
    basic = wyrd.odds({"skill": 0, "dr": "Basic"})["ladder"][0]["bands"]
    # P(4dF<0)=31/81, P(=0)=19/81, P(1..2)=26/81, P(>=3)=5/81 (4dF outcomes out of 81)
    assert basic == {"failure": "31/81", "tie": "19/81", "success": "26/81",
                     "success_with_style": "5/81"}  # fmt: skip


def test_counts_agree_with_icepool() -> None:
    import icepool
    from ledger_wyrd_engine.odds import fudge_distribution

    fudge = icepool.Die([-1, 0, 1])
    four = 4 @ fudge
    counts = {k: p * 81 for k, p in fudge_distribution(4).items()}
    assert {k: four.quantity(k) for k in four.outcomes()} == counts
    assert counts == {-4: 1, -3: 4, -2: 10, -1: 16, 0: 19, 1: 16, 2: 10, 3: 4, 4: 1}


def test_contest_odds_are_symmetric_at_equal_ratings(wyrd: WyrdEngine) -> None:
    odds = wyrd.odds({"skill": 1, "vs": 1})
    bands = {k: Fraction(v) for k, v in odds["bands"].items()}
    assert bands["failure"] == bands["success"] + bands["success_with_style"]
    # P(8dF = 0) = 1107/6561 (central coefficient of (x^-1 + 1 + x)^8)
    assert bands["tie"] == Fraction(1107, 6561)


def test_odds_without_a_skill_give_the_family_of_the_books_table(wyrd: WyrdEngine) -> None:
    # Seen: `odds wyrd-engine --plot x.png` without --skill refused instead of drawing
    family = wyrd.odds({})["success_by_skill"]
    assert list(family) == [
        "Untrained/Average (+0)", "Novice/Fair (+1)", "Skilled/Good (+2)", "Expert/Great (+3)",
    ]  # fmt: skip
    for rating, row in enumerate(family.values()):  # each row is that skill's own ladder
        assert row == {
            f"{item['name']} ({item['dr']:+d})": item["success"]
            for item in wyrd.odds({"skill": rating})["ladder"]
        }
    assert family["Skilled/Good (+2)"]["Difficult (+2)"] == "50/81"  # P(4dF >= 0)
    assert wyrd.odds({"dr": "good"})["success_by_skill"]["Expert/Great (+3)"] == {
        "Difficult (+2)": "22/27"
    }
    with pytest.raises(RuleError, match="the roller's modifier \\(skill\\)"):
        wyrd.odds({"vs": 2})


def test_advance_gives_nothing(wyrd: WyrdEngine) -> None:
    states = {"julian": make(wyrd, "julian")}
    assert wyrd.advance(states, 1, [], lambda seed: EngineDice(b"x" * 32, "c", 1, 0), {}) == []


def test_single_dr_odds_name_the_step(wyrd: WyrdEngine) -> None:
    row = wyrd.odds({"skill": 1, "dr": "fair"})["ladder"][0]
    assert (row["dr"], row["name"], row["alias"], row["success"]) == (1, "Challenging", "Fair",
                                                                      "50/81")  # fmt: skip


def test_strict_comparison_keeps_every_named_dr_odds() -> None:
    strict = WyrdEngine().configure({"dr_comparison": ">"})
    assert isinstance(strict, WyrdEngine)
    for skill in range(4):
        ladder = strict.odds({"skill": skill})["ladder"]
        assert [row["dr"] for row in ladder] == list(range(-4, 6))
        assert [row["success"] for row in ladder] == HAND_TABLE[skill]


def test_a_roll_event_with_wrong_arithmetic_is_refused(wyrd: WyrdEngine) -> None:
    import msgspec

    julian = make(wyrd, "julian")
    event = roll(wyrd, julian, "investigate", "++-0", dr="good")
    for change, message in (
        ({"total": 9}, "total of 4, not 9"),
        ({"dice": [1, 1, 1, 0], "roll": 3}, "do not match its recorded draws"),
        ({"roll": 2}, "sum to 1, not 2"),
        ({"margin": 5}, "not margin 5"),
    ):
        with pytest.raises(RuleError, match=message):
            apply(wyrd, julian, msgspec.structs.replace(event, **change))
