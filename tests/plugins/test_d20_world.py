"""d20-world: the rule text's worked examples as test vectors, with
the book's dice faces entered as physical dice, plus the rules around them.

Seed 001_a3a02f9b7363775f.txt; rulings in docs/rulings/d20-world.md.
"""

from __future__ import annotations

import inspect
import json
from fractions import Fraction
from typing import Any

import msgspec
import pytest
from ledger_d20_world import D20World
from ledger_d20_world.events import (
    AttackResolved,
    CheckRolled,
    ConditionAdded,
    ConditionEnded,
    DamageTaken,
    ExperienceMarked,
    FavourChanged,
    ItemAdded,
    ItemMoved,
    ItemRepaired,
    ObjectiveContributed,
    ObjectiveFailed,
    ObjectiveOpened,
    Rested,
    ShockRolled,
    WoundHealed,
)
from ledger_d20_world.rules.mechanics import (
    action_cost,
    add_experience,
    band_of,
    check_gate,
    contribute,
    damage_dealt,
    experience_for,
    jinx_recovered,
)
from ledger_d20_world.state import Character, Objective, Skill

from ledger import RollRequest, RuleError
from ledger.dice.engine import DiceError, PhysicalDice
from ledger.rules.results import result_problem

SYS = D20World().configure({})


def sheet(caster: bool = False) -> dict[str, Any]:
    """Isa: Lockpicking +3 (via the Guild), Forage +2, Sing +1; a caster has Mending +2 as a
    spell instead of Forage."""
    two = (
        {"name": "Mending", "proficiency": 2, "spell": True}
        if caster
        else {"name": "Forage", "proficiency": 2}
    )
    return {
        "traits": [
            {"name": "Wiry", "kind": "body"},
            {"name": "Stubborn", "kind": "personality"},
            {"name": "Hears the dead", "kind": "free"},
        ],
        "bonds": [
            {"name": "the Guild", "kind": "faction"},
            {"name": "Old Maren", "kind": "mentor"},
            {"name": "Captain Voss", "kind": "rival"},
        ],
        "skills": [
            {"name": "Lockpicking", "proficiency": 3, "via_bond": "the Guild"},
            two,
            {"name": "Sing", "proficiency": 1},
        ],
        "items": [
            {"name": "Guild seal", "for_bond": "the Guild"},
            {"name": "Maren's lantern", "for_bond": "Old Maren"},
            {"name": "Voss's warrant", "for_bond": "Captain Voss"},
            {"name": "Lockpicks", "for_skill": "Lockpicking"},
            {"name": "Knife", "for_skill": two["name"]},
            {"name": "Lute", "for_skill": "Sing", "bulky": True},
            {"name": "Lamp oil", "consumable": True},
        ],
    }


def new(system: D20World = SYS, caster: bool = False) -> Character:
    return system.initial_state("isa", "Isa Marrow", system.create_sheet(sheet(caster)))


def roll(
    state: Character, skill: str | None, faces: list[int], system: D20World = SYS, **params: Any
) -> Any:
    """The roll ``resolve`` gives for the book's faces, checked to re-derive to itself from
    its recorded inputs and draws (ledger.results: what verify, import and audit do)."""
    dice = PhysicalDice([str(f) for f in faces])
    request = RollRequest(character="isa", name="Isa Marrow", skill=skill, params=params)
    ev = system.with_inputs(system.resolve(state, request, dice), request)  # as recorded
    dice.finish()
    assert result_problem(system, state, ev, name="Isa Marrow") is None
    return ev


def apply(state: Character, *events: Any, system: D20World = SYS) -> Character:
    table = system.appliers()
    for ev in events:
        state = table[type(ev)](state, ev)
    return state


def skill(state: Character, name: str) -> Skill:
    return next(s for s in state.skills if s.name == name)


def trait(state: Character, name: str) -> Any:
    return next(t for t in state.traits if t.name == name)


# --- T1-T5: the text's own examples ---------------------------------------------------------


def test_t1_potion_from_bag_in_six_second_round_costs_two_actions():
    # 6-second round: 2-second actions; retrieving and drinking takes more than one action
    assert action_cost(3, 6) == 2
    assert action_cost(4, 6) == 2
    assert action_cost(2, 6) == 1
    assert action_cost(Fraction(13, 2), 6) == 4  # longer than the round: more than 3 actions
    assert action_cost(20 * 60, 30 * 60) == 2  # 20 minutes of a 30-minute round


def test_t2_panicked_condition_penalises_every_check_until_ended():
    s = apply(
        new(),
        ConditionAdded(
            character="isa", condition="panicked", check_penalty=1, ends_when="the torch is relit"
        ),
    )
    ev = roll(s, "Lockpicking", [14], time=True)
    assert (ev.condition_penalty, ev.total, ev.outcome) == (1, 16, "messy")
    s = apply(s, ConditionEnded(character="isa", condition="Panicked"))
    ev = roll(s, "Lockpicking", [14], time=True)
    assert (ev.condition_penalty, ev.total) == (0, 17)


def test_t3_sick_condition_cuts_carried_capacity_to_four():
    s = new()
    assert SYS.sheet_view(s, as_gm=False)["derived"]["carried_capacity"] == 5
    s = apply(
        s,
        ConditionAdded(character="isa", condition="sick", capacity_delta=-1, ends_when="six hours"),
    )
    view = SYS.sheet_view(s, as_gm=False)["derived"]
    assert (view["carried_capacity"], view["carried"], view["over_capacity"]) == (4, 5, True)
    with pytest.raises(RuleError, match="only 4 fit"):
        apply(s, ItemAdded(character="isa", item="Rope"))
    s = apply(s, ItemMoved(character="isa", item="Knife", to="bag"))
    assert SYS.sheet_view(s, as_gm=False)["derived"]["over_capacity"] is False
    s = apply(s, ConditionEnded(character="isa", condition="sick"))
    s = apply(s, ItemAdded(character="isa", item="Rope"))
    assert SYS.sheet_view(s, as_gm=False)["derived"]["carried"] == 5


def test_t4_objective_needs_at_least_two_good_checks():
    with pytest.raises(RuleError, match="at least two good checks"):
        apply(new(), ObjectiveOpened(character="isa", objective="Vault", required_good=1))
    s = apply(new(), ObjectiveOpened(character="isa", objective="Vault", required_good=2))
    assert s.objectives[0].required_good == 2


def test_t5_starting_inventory_seven_items_fill_five_carried_and_the_bag():
    s = new()
    assert len(s.items) == 7
    assert [i.location for i in s.items].count("carried") == 5
    assert [i.location for i in s.items].count("bag") == 2
    assert s.has_bag


# --- D1-D4: the time/tools/skill/help gate ---------------------------------------------------


def test_d1_no_factor_with_help_fails_without_a_check_or_experience():
    assert check_gate(time=False, tools=False, skill=False, help=True) == "auto_fail"
    s = new()
    ev = roll(s, "Swim", [], practice=True, help_from="Bram")
    assert (ev.gate, ev.outcome, ev.dice, ev.kept, ev.total, ev.experience) == (
        "auto_fail",
        "bad",
        [],
        None,
        None,
        0,
    )
    assert ev.draws == []
    after = apply(s, ev)
    assert after.skills == s.skills


def test_d2_time_tools_and_skill_succeed_without_a_check():
    assert check_gate(time=True, tools=True, skill=True, help=False) == "auto_success"
    s = new()
    ev = roll(s, "Lockpicking", [], time=True, tools=True)
    assert (ev.gate, ev.outcome, ev.dice, ev.experience) == ("auto_success", "good", [], 0)
    assert apply(s, ev) == s


def test_d3_one_factor_with_help_is_disadvantage():
    assert check_gate(time=False, tools=True, skill=False, help=True) == "disadvantage"
    ev = roll(new(), "Swim", [12, 5], practice=True, tools=True, help_from="Bram")
    assert (ev.mode, ev.dice, ev.kept, ev.total) == ("disadvantage", [12, 5], 5, 5)


def test_d4_two_factors_normal_and_with_help_advantage():
    assert check_gate(time=True, tools=True, skill=False, help=False) == "normal"
    assert check_gate(time=True, tools=True, skill=False, help=True) == "advantage"
    ev = roll(new(), "Swim", [12], practice=True, time=True, tools=True)
    assert (ev.mode, ev.dice) == ("normal", [12])
    ev = roll(new(), "Swim", [3, 12], practice=True, time=True, tools=True, help_from="Bram")
    assert (ev.mode, ev.kept) == ("advantage", 12)


def test_r1_one_factor_without_help_auto_fails_by_default_or_disadvantage_by_option():
    assert check_gate(time=True, tools=False, skill=False, help=False) == "auto_fail"
    assert (
        check_gate(
            time=True, tools=False, skill=False, help=False, one_factor_no_help="disadvantage"
        )
        == "disadvantage"
    )
    system = D20World().configure({"one_factor_no_help": "disadvantage"})
    ev = roll(new(system), "Lockpicking", [9, 17], system=system)  # skill only
    assert (ev.gate, ev.kept, ev.total) == ("disadvantage", 9, 12)


# --- D5-D12: the check -----------------------------------------------------------------------


def test_d5_proficiency_three_d20_twelve_is_messy_fifteen():
    ev = roll(new(), "Lockpicking", [12], time=True)
    assert (ev.dice, ev.kept, ev.total, ev.outcome, ev.experience) == ([12], 12, 15, "messy", 1)


@pytest.mark.parametrize(
    ("face", "total", "band", "xp"),
    [(5, 8, "bad", 2), (6, 9, "messy", 1), (14, 17, "messy", 1), (15, 18, "good", 0)],
)
def test_d6_band_edges(face, total, band, xp):
    ev = roll(new(), "Lockpicking", [face], time=True)
    assert (ev.total, ev.outcome, ev.experience) == (total, band, xp)
    assert band_of(total) == band


def test_d7_natural_one_marks_three_and_restores_hinder():
    s = new()
    s = apply(s, roll(s, "Forage", [1, 15], time=True, trait="Stubborn:hinder"))
    assert trait(s, "Stubborn").can_hinder  # restored by its own natural 1
    # spend Wiry's hinder on a roll without a natural 1, then a natural 1 restores it
    s = apply(s, roll(s, "Forage", [10, 15], time=True, trait="Wiry:hinder"))
    assert not trait(s, "Wiry").can_hinder
    ev = roll(s, "Lockpicking", [1], time=True)
    assert (ev.total, ev.outcome, ev.experience) == (4, "bad", 3)
    s = apply(s, ev)
    assert trait(s, "Wiry").can_hinder


def test_d8_natural_twenty_at_proficiency_zero_marks_one_and_restores_help():
    s = new()
    s = apply(s, roll(s, "Sing", [2, 9], time=True, trait="Wiry:help"))
    assert not trait(s, "Wiry").can_help
    ev = roll(s, "Swim", [20], practice=True, time=True, tools=True)
    assert (ev.proficiency, ev.total, ev.outcome, ev.experience) == (0, 20, "good", 1)
    s = apply(s, ev)
    assert trait(s, "Wiry").can_help
    swim = skill(s, "Swim")
    assert (swim.known, swim.proficiency, swim.experience) == (False, 0, 1)


def test_d9_natural_twenty_with_three_wound_penalty_is_messy():
    s = apply(new(), DamageTaken(character="isa", amount=3))
    ev = roll(s, "Swim", [20], practice=True, time=True, tools=True)
    assert (ev.wound_penalty, ev.total, ev.outcome, ev.experience) == (3, 17, "messy", 2)


def test_d10_advantage_keeps_the_higher_die():
    ev = roll(new(), "Forage", [7, 15], time=True, help_from="Bram")
    assert (ev.mode, ev.dice, ev.kept, ev.total, ev.outcome, ev.experience) == (
        "advantage",
        [7, 15],
        15,
        17,
        "messy",
        1,
    )


def test_d11_only_the_kept_die_counts_for_natural_one():
    s = new()
    s = apply(s, roll(s, "Forage", [10, 15], time=True, trait="Wiry:hinder"))
    ev = roll(s, "Lockpicking", [1, 15], time=True, help_from="Bram")
    assert (ev.kept, ev.total, ev.outcome, ev.experience) == (15, 18, "good", 0)
    assert not trait(apply(s, ev), "Wiry").can_hinder  # no natural-1 effect


def test_d12_hinder_marks_five_and_the_natural_one_restores_the_trait():
    s = new()
    ev = roll(s, "Forage", [1, 15], time=True, trait="Wiry:hinder")
    assert (ev.mode, ev.kept, ev.total, ev.outcome, ev.experience) == (
        "disadvantage",
        1,
        3,
        "bad",
        5,
    )
    assert ev.invocations[0].trait == "Wiry" and ev.invocations[0].mode == "hinder"
    s = apply(s, ev)
    assert trait(s, "Wiry").can_hinder
    assert skill(s, "Forage").experience == 5
    assert experience_for("bad", 1, hinder=True) == 5


def test_spent_trait_cannot_be_invoked_again_until_refreshed():
    s = new()
    s = apply(s, roll(s, "Forage", [10, 15], time=True, trait="Wiry:help"))
    with pytest.raises(RuleError, match="already invoked to help"):
        roll(s, "Forage", [10, 15], time=True, trait="Wiry:help")
    # hinder is an independent flag
    assert roll(s, "Forage", [10, 15], time=True, trait="wiry:hinder").mode == "disadvantage"


def test_advantage_and_disadvantage_cancel_and_one_trait_per_check():
    ev = roll(new(), "Forage", [4], time=True, help_from="Bram", trait="Wiry:hinder")
    assert (ev.mode, ev.dice, ev.experience) == ("normal", [4], 4)  # bad 2 + hinder 2
    with pytest.raises(RuleError, match="at most 1 trait"):
        roll(new(), "Forage", [4], time=True, trait="Wiry:help,Stubborn:hinder")
    with pytest.raises(RuleError, match="NAME:help or NAME:hinder"):
        roll(new(), "Forage", [4], time=True, trait="Wiry")
    with pytest.raises(RuleError, match="no trait called 'Grumpy'"):
        roll(new(), "Forage", [4], time=True, trait="Grumpy:help")


def test_trait_or_objective_on_an_automatic_result_is_refused():
    with pytest.raises(RuleError, match="no check is made"):
        roll(new(), "Lockpicking", [], time=True, tools=True, trait="Wiry:hinder")


def test_unknown_skill_needs_practice_and_typos_are_named():
    with pytest.raises(RuleError, match=r"no skill 'Lockpickin'.*“Practise a skill you lack”"):
        roll(new(), "Lockpickin", [10], time=True)
    ev = roll(new(), "lockpicking", [10], time=True)
    assert ev.skill == "Lockpicking"


def test_dice_faces_a_d20_cannot_show_are_refused():
    with pytest.raises(DiceError, match="cannot show 21"):
        roll(new(), "Lockpicking", [21], time=True)
    with pytest.raises(DiceError, match="too few"):
        roll(new(), "Forage", [10], time=True, help_from="Bram")
    with pytest.raises(DiceError, match="remove the extra faces"):
        roll(new(), "Forage", [10, 11], time=True)


# --- D13-D17: advancement and learning -------------------------------------------------------


def test_d13_proficiency_three_at_eleven_gains_two_and_rises():
    s = apply(new(), ExperienceMarked(character="isa", skill="Lockpicking", amount=11))
    assert (skill(s, "Lockpicking").proficiency, skill(s, "Lockpicking").experience) == (3, 11)
    s = apply(s, ExperienceMarked(character="isa", skill="Lockpicking", amount=2))
    assert (skill(s, "Lockpicking").proficiency, skill(s, "Lockpicking").experience) == (4, 0)


def test_d14_proficiency_one_at_ten_gains_one_and_rises():
    s = add_experience(Skill(name="Sing", proficiency=1, experience=10), 1)
    assert (s.proficiency, s.experience) == (2, 0)


def test_d15_unknown_skill_at_eight_gains_two_and_is_learned():
    s = apply(new(), ExperienceMarked(character="isa", skill="Swim", amount=8))
    assert skill(s, "Swim").known is False
    s = apply(s, ExperienceMarked(character="isa", skill="Swim", amount=2))
    swim = skill(s, "Swim")
    assert (swim.known, swim.proficiency, swim.experience) == (True, 1, 0)


def test_d16_unknown_skill_at_eight_gains_one_stays_unknown():
    s = add_experience(Skill(name="Swim", proficiency=0, experience=8, known=False), 1)
    assert (s.known, s.proficiency, s.experience) == (False, 0, 9)


def test_d17_overflow_is_discarded():
    s = apply(new(), ExperienceMarked(character="isa", skill="Sing", amount=9))
    ev = roll(s, "Sing", [1, 6], time=True, trait="Wiry:hinder")
    assert (ev.total, ev.outcome, ev.experience) == (2, "bad", 5)
    s = apply(s, ev)
    assert (skill(s, "Sing").proficiency, skill(s, "Sing").experience) == (2, 0)


def test_learned_skill_then_gives_the_skill_factor():
    s = apply(new(), ExperienceMarked(character="isa", skill="Swim", amount=10))
    ev = roll(s, "Swim", [], time=True, tools=True)
    assert ev.gate == "auto_success"


# --- D18-D21: objectives ---------------------------------------------------------------------


def test_d18_objective_completes_on_the_third_good_check():
    o = Objective(name="Vault", required_good=3)
    for i, band in enumerate(["good", "messy", "good", "bad"]):
        o = contribute(o, skill=f"skill {i}", band=band)  # type: ignore[arg-type]
        assert o.status == "open"
    o = contribute(o, skill="skill 4", band="good")
    assert (o.status, o.good, o.close_calls, o.bad) == ("completed", 3, 1, 1)


def test_d19_fourth_messy_fails_after_three_close_calls():
    o = Objective(name="Vault", required_good=2)
    for i in range(3):
        o = contribute(o, skill=f"skill {i}", band="messy")
        assert (o.close_calls, o.status) == (i + 1, "open")
    o = contribute(o, skill="skill 3", band="messy")
    assert (o.close_calls, o.status) == (3, "failed")


def test_d20_third_bad_fails():
    o = Objective(name="Vault", required_good=2)
    o = contribute(contribute(o, skill="a", band="bad"), skill="b", band="bad")
    assert o.status == "open"
    assert contribute(o, skill="c", band="bad").status == "failed"


def test_d21_same_skill_twice_is_refused_unless_warn_only():
    s = apply(new(), ObjectiveOpened(character="isa", objective="Vault", required_good=2))
    s = apply(s, roll(s, "Lockpicking", [12], time=True, objective="vault"))
    assert s.objectives[0].skills_used == ("Lockpicking",)
    assert s.objectives[0].close_calls == 1
    with pytest.raises(RuleError, match="already contributed"):
        roll(s, "Lockpicking", [12], time=True, objective="Vault")
    with pytest.raises(RuleError, match="already contributed"):
        apply(
            s,
            ObjectiveContributed(
                character="isa", objective="Vault", skill="lockpicking", outcome="good"
            ),
        )
    lax = D20World().configure({"objective_distinct_skills": "warn_only"})
    o = contribute(
        Objective(name="V", required_good=2), skill="A", band="good", distinct_skills=False
    )
    assert contribute(o, skill="A", band="good", distinct_skills=False).status == "completed"
    assert lax.options.objective_distinct_skills == "warn_only"


def test_objective_by_another_character_auto_success_and_outside_failure():
    s = apply(
        new(),
        ObjectiveOpened(character="isa", objective="Vault", required_good=2),
        ObjectiveContributed(
            character="isa", objective="Vault", skill="Brawl", outcome="good", by="bram", auto=True
        ),
    )
    assert s.objectives[0].good == 1
    s = apply(s, ObjectiveFailed(character="isa", objective="Vault", reason="the watch came"))
    assert (s.objectives[0].status, s.objectives[0].reason) == ("failed", "the watch came")
    with pytest.raises(RuleError, match="already failed"):
        roll(s, "Sing", [12], time=True, objective="Vault")


# --- D22-D28: harm ---------------------------------------------------------------------------


def test_d22_messy_hit_deals_half_rounded_up_or_down_by_option():
    assert damage_dealt(3, "messy") == 2
    assert damage_dealt(3, "messy", "floor") == 1
    assert [damage_dealt(3, o) for o in ("auto_hit", "good", "bad")] == [3, 3, 0]
    s = apply(
        new(),
        AttackResolved(
            character="isa", attacker="thug", weapon="club", weapon_damage=3, outcome="messy"
        ),
    )
    assert [w.damage for w in s.wounds] == [2]
    floor = D20World().configure({"messy_damage_rounding": "floor"})
    s = apply(
        new(floor),
        AttackResolved(character="isa", attacker="thug", weapon_damage=3, outcome="messy"),
        system=floor,
    )
    assert [w.damage for w in s.wounds] == [1]


def coat(durability: int = 2) -> ItemAdded:
    return ItemAdded(
        character="isa",
        item="Leather coat",
        location="bag",
        durability=durability,
        protects_against="blades and claws",
    )


def test_d23_armour_spends_durability_and_breaks_at_zero():
    s = apply(new(), coat(), DamageTaken(character="isa", amount=3, armour=["leather coat:2"]))
    item = next(i for i in s.items if i.name == "Leather coat")
    assert (item.durability, item.broken, item.destroyed) == (0, True, False)
    assert [w.damage for w in s.wounds] == [1]
    with pytest.raises(RuleError, match="broken"):
        apply(s, DamageTaken(character="isa", amount=1, armour=["Leather coat:1"]))
    repaired = apply(s, ItemRepaired(character="isa", item="Leather coat"))
    item = next(i for i in repaired.items if i.name == "Leather coat")
    assert (item.durability, item.broken) == (2, False)


def test_d24_desperate_use_of_broken_armour_destroys_it():
    s = apply(new(), coat(0), DamageTaken(character="isa", amount=1, desperate=["Leather coat"]))
    item = next(i for i in s.items if i.name == "Leather coat")
    assert item.destroyed
    assert s.wounds == () and not s.pending_shock  # R6: no wound, no shock roll
    with pytest.raises(RuleError, match="irreparable"):
        apply(s, ItemRepaired(character="isa", item="Leather coat"))


def test_armour_cannot_reduce_more_than_the_damage_or_more_than_its_durability():
    with pytest.raises(RuleError, match="only 1 is incoming"):
        apply(new(), coat(), DamageTaken(character="isa", amount=1, armour=["Leather coat:2"]))
    with pytest.raises(RuleError, match="2 durability left, not 3"):
        apply(new(), coat(), DamageTaken(character="isa", amount=4, armour=["Leather coat:3"]))
    with pytest.raises(RuleError, match="not broken"):
        apply(new(), coat(), DamageTaken(character="isa", amount=4, desperate=["Leather coat"]))


def test_d25_first_wound_of_two_and_a_two_is_shock():
    s = apply(new(), DamageTaken(character="isa", amount=2, description="knife"))
    assert s.pending_shock
    ev = roll(s, None, [2], shock=True)
    assert isinstance(ev, ShockRolled)
    assert (ev.die, ev.wound_total, ev.shock, ev.draws) == (2, 2, True, [(6, 2)])
    s = apply(s, ev)
    assert (s.pending_shock, s.shocks) == (False, 1)
    with pytest.raises(RuleError, match="owes no shock roll"):
        roll(s, None, [2], shock=True)
    with pytest.raises(RuleError, match="uses no skill"):
        roll(s, "Lockpicking", [2], shock=True)


def test_d26_wounds_three_and_a_four_is_no_shock():
    s = apply(new(), DamageTaken(character="isa", amount=2))
    s = apply(s, roll(s, None, [5], shock=True), DamageTaken(character="isa", amount=1))
    ev = roll(s, None, [4], shock=True)
    assert (ev.wound_total, ev.shock) == (3, False)


def test_d27_wound_total_six_is_death_and_no_shock_is_owed():
    s = apply(new(), DamageTaken(character="isa", amount=5))
    s = apply(s, roll(s, None, [6], shock=True), DamageTaken(character="isa", amount=1))
    assert s.dead and not s.pending_shock
    with pytest.raises(RuleError, match="perished"):
        roll(s, "Lockpicking", [10], time=True)


def test_d28_wound_total_five_lives_with_minus_five():
    s = apply(new(), DamageTaken(character="isa", amount=4))
    s = apply(s, roll(s, None, [6], shock=True), DamageTaken(character="isa", amount=1))
    assert not s.dead
    s = apply(s, roll(s, None, [6], shock=True))
    ev = roll(s, "Lockpicking", [20], time=True)
    assert (ev.wound_penalty, ev.total, ev.outcome) == (5, 18, "good")


def test_wounds_heal_incrementally_and_vanish_at_zero():
    s = apply(new(), DamageTaken(character="isa", amount=3, description="bite"))
    s = apply(s, WoundHealed(character="isa", wound=1, amount=2))
    assert [(w.number, w.damage) for w in s.wounds] == [(1, 1)]
    s = apply(s, WoundHealed(character="isa", wound=1, amount=1))
    assert s.wounds == ()
    with pytest.raises(RuleError, match="no wound 1"):
        apply(s, WoundHealed(character="isa", wound=1))


# --- D29-D30: magic and jinx -----------------------------------------------------------------


def test_d29_jinx_follows_the_cast_and_penalises_the_next():
    s = new(caster=True)
    first = roll(s, "Mending", [15], time=True)
    assert (first.spell, first.jinx_penalty, first.total, first.miscast) == (True, 0, 17, True)
    s = apply(s, first)
    assert s.jinx == 1
    second = roll(s, "Mending", [10], time=True)
    assert (second.jinx_penalty, second.total, second.outcome, second.miscast) == (
        1,
        11,
        "messy",
        True,
    )
    assert apply(s, second).jinx == 2
    before = D20World().configure({"jinx_before_check": True})
    assert (
        roll(new(before, caster=True), "Mending", [10], system=before, time=True).jinx_penalty == 1
    )


def test_good_cast_is_no_miscast_and_unknown_spells_cannot_be_cast():
    s = new(caster=True)
    ev = roll(s, "Mending", [17], time=True)
    assert (ev.outcome, ev.miscast) == ("good", False)
    assert apply(s, ev).jinx == 1
    with pytest.raises(RuleError, match="cast only if known"):
        roll(s, "Fireball", [10], time=True, practice=True, spell=True)
    with pytest.raises(RuleError, match="does not know a spell"):
        roll(s, "Sing", [10], time=True, spell=True)


@pytest.mark.parametrize(("jinx", "left"), [(5, 2), (3, 1), (1, 0), (0, 0)])
def test_d30_rest_recovers_half_the_jinx_rounded_up(jinx, left):
    assert jinx - jinx_recovered(jinx) == left
    s = msgspec.structs.replace(new(caster=True), jinx=jinx)
    assert apply(s, Rested(character="isa")).jinx == left


def test_r7_keep_ceil_half_option():
    assert [j - jinx_recovered(j, "keep_ceil_half") for j in (5, 3, 1, 0)] == [3, 2, 1, 0]


# --- D31: inventory --------------------------------------------------------------------------


def test_d31_a_second_bulky_item_is_refused():
    with pytest.raises(RuleError, match="only one bulky"):
        apply(new(), ItemAdded(character="isa", item="Shield", location="bag", bulky=True))


def test_bag_holds_five_and_items_move_in_and_out():
    s = new()
    for n in range(3):
        s = apply(s, ItemAdded(character="isa", item=f"Arrow bundle {n}", location="bag"))
    with pytest.raises(RuleError, match="6 items in the bag but it holds 5"):
        apply(s, ItemAdded(character="isa", item="Rope", location="bag"))
    with pytest.raises(RuleError, match="6 items carried but only 5 fit"):
        apply(s, ItemMoved(character="isa", item="Lamp oil", to="carried", actions=2))


# --- bonds and visibility --------------------------------------------------------------------


def test_favour_is_gm_only_and_never_in_a_player_view():
    assert FavourChanged.visibility == "gm"
    assert CheckRolled.visibility == "public"
    s = new()
    assert [b.favor for b in s.bonds] == [1, 1, -1]  # R11 defaults
    s = apply(
        s, FavourChanged(character="isa", bond="the guild", delta=-2, reason="missed the tithe")
    )
    gm = SYS.sheet_view(s, as_gm=True)
    assert [b["favor"] for b in gm["bonds"]] == [-1, 1, -1]
    player = SYS.sheet_view(s, as_gm=False)
    assert "favor" not in json.dumps(player)
    assert [b["name"] for b in player["bonds"]] == ["the Guild", "Old Maren", "Captain Voss"]
    with pytest.raises(RuleError, match="no bond called 'the Watch'"):
        apply(s, FavourChanged(character="isa", bond="the Watch", delta=1))


def test_starting_favour_is_not_a_public_campaign_option():
    with pytest.raises(RuleError, match="bad option"):
        D20World().configure({"starting_favor_rival": -3})


# --- advancement hook ------------------------------------------------------------------------


def test_advance_is_a_no_op_by_default_and_rests_once_per_session_on_choice():
    s = msgspec.structs.replace(new(caster=True), jinx=3)
    dice = lambda seed: PhysicalDice([])  # noqa: E731 - never called
    assert SYS.advance({"isa": s}, 2, [], dice, {}) == []
    events = SYS.advance({"isa": s}, 2, [], dice, {"rest": "all"})
    assert events == [Rested(character="isa", session=2)]
    s = apply(s, *events)
    assert s.jinx == 1
    assert SYS.advance({"isa": s}, 2, [], dice, {"rest": "isa"}) == []
    with pytest.raises(RuleError, match="unknown characters bram"):
        SYS.advance({"isa": s}, 3, [], dice, {"rest": "bram"})


def test_deferred_skill_increase_waits_for_advance_and_is_idempotent():
    system = D20World().configure({"defer_skill_increase_to_session_end": True})
    s = apply(
        new(system), ExperienceMarked(character="isa", skill="Sing", amount=12), system=system
    )
    assert (skill(s, "Sing").proficiency, skill(s, "Sing").experience) == (1, 12)
    events = system.advance({"isa": s}, 1, [], lambda seed: PhysicalDice([]), {})
    assert [(e.skill, e.proficiency) for e in events] == [("Sing", 2)]
    s = apply(s, *events, system=system)
    assert (skill(s, "Sing").proficiency, skill(s, "Sing").experience) == (2, 0)
    assert system.advance({"isa": s}, 1, [], lambda seed: PhysicalDice([]), {}) == []
    with pytest.raises(RuleError, match="cannot rise"):
        apply(s, *events, system=system)


def test_events_are_frozen_keyword_only_and_namespaced():
    for et in SYS.event_types:
        cfg = et.__struct_config__
        assert cfg.frozen
        params = inspect.signature(et).parameters.values()
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params)
        assert isinstance(cfg.tag, str) and cfg.tag.startswith("d20-world.")
    assert len({et.__struct_config__.tag for et in SYS.event_types}) == len(SYS.event_types)


def test_trait_roll_param_has_the_shared_shape():
    p = next(p for p in SYS.roll_params if p.name == "trait")
    assert (p.type, p.multiple, p.is_flag) == (str, False, False)


def test_describe_reads_at_a_glance():
    ev = roll(new(), "Forage", [1, 15], time=True, trait="Wiry:hinder")
    line = SYS.describe(ev)
    assert line is not None
    assert "Forage +2 with disadvantage" in line and "= 3: bad, +5 xp" in line
    assert "natural 1" in line


def test_describe_attack_uses_the_campaign_rounding():
    ev = AttackResolved(
        character="isa", attacker="thug", weapon="club", weapon_damage=3, outcome="messy"
    )
    assert "2 of 3 damage" in (SYS.describe(ev) or "")
    floor = D20World().configure({"messy_damage_rounding": "floor"})
    assert "1 of 3 damage" in (floor.describe(ev) or "")
