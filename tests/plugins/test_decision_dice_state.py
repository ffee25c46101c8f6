"""decision-dice: sheet validation, campaign options and the appliers
(docs/rulings/decision-dice.md; seed 002_735c6d6cd834a641.txt, "Supply Rolls", "D100 or
Percentage")."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from ledger_decision_dice import DecisionDice, events
from ledger_decision_dice.events import (
    ConditionAdded,
    ConditionRemoved,
    ItemAdded,
    ItemRemoved,
    LevelChanged,
    Resupplied,
    StatChanged,
    SupplyRolled,
    TrackerChanged,
)

from ledger import Event, RollRequest, RuleError
from ledger.dice.engine import PhysicalDice

SHEET: dict[str, Any] = {
    "stats": {"Agility": 1, "Might": 0},
    "equipment": [{"name": "Field Medkit", "supply": "D10"}, {"name": "Rope"}],
    "trackers": {"Rifle ammunition": 60},
}


def make(options: dict[str, Any] | None = None, sheet: dict[str, Any] | None = None):
    system = DecisionDice().configure(options or {})
    state = system.initial_state("jen", "Nimble Jen", system.create_sheet(sheet or SHEET))
    return system, state


def apply(system, state, event):
    return system.appliers()[type(event)](state, event)


def roll(system, state, skill, faces, **params):
    return system.resolve(
        state,
        RollRequest(character="jen", name="Nimble Jen", skill=skill, params=params),
        PhysicalDice(faces.split()),
    )


# --- sheets --------------------------------------------------------------------------------


def test_sheet_is_normalised():
    system = DecisionDice().configure({})
    sheet = system.create_sheet(SHEET)
    assert sheet["equipment"][0] == {"name": "Field Medkit", "note": "", "supply": "d10"}
    assert "supply" not in sheet["equipment"][1]
    assert sheet["stats"] == {"Agility": 1, "Might": 0}


def test_sheet_lists_every_problem_at_once():
    system = DecisionDice().configure({})
    bad = {
        "stats": {"Agility": 11, "Might": "two"},
        "equipment": [{"name": "Kit", "supply": "d20"}, {"supply": "d4"}],
        "trackers": {"Ammo": 120},
        "level": 0,
        "luck": 3,
    }
    with pytest.raises(RuleError) as err:
        system.create_sheet(bad)
    text = str(err.value)
    for fragment in (
        "stats.Agility: expected an integer from 0 to 10",
        'stats.Might: expected an integer, got "two"',
        "d20",
        "equipment[2].name: missing",
        "trackers.Ammo: expected an integer from 0 to 100",
        "level: expected an integer of 1 or more",
        "luck: not a field",
    ):
        assert fragment in text, fragment
    assert len(err.value.problems) == 7


def test_sheet_needs_stats():
    with pytest.raises(RuleError, match=r"stats: missing, expected a \[stats\] table"):
        DecisionDice().configure({}).create_sheet({})


def test_declared_stat_list_is_enforced():
    system = DecisionDice().configure({"stats": ["Body", "Mind"]})
    with pytest.raises(RuleError) as err:
        system.create_sheet({"stats": {"body": 2, "Soul": 1}})
    assert "stats.Mind: missing" in str(err.value)
    assert "stats.Soul: not a stat of this campaign" in str(err.value)
    sheet = system.create_sheet({"stats": {"body": 2, "mind": 1}})
    assert sheet["stats"] == {"Body": 2, "Mind": 1}  # the campaign's spelling


def test_stat_range_option():
    system = DecisionDice().configure({"stat_min": -2, "stat_max": 4})
    assert system.create_sheet({"stats": {"A": -2}})["stats"] == {"A": -2}
    with pytest.raises(RuleError, match="from -2 to 4"):
        system.create_sheet({"stats": {"A": 5}})


def test_derived_stats_must_exist_on_the_sheet():
    system = DecisionDice().configure({"derived": {"Stress": ["Grit", "Will"]}})
    with pytest.raises(RuleError, match="stats.Grit: missing"):
        system.create_sheet({"stats": {"Will": 1}})


def test_unknown_option_is_refused():
    with pytest.raises(RuleError, match="decision-dice"):
        DecisionDice().configure({"stress_boxes": 3})


def test_sheet_conditions_apply_to_rolls():
    sheet = {
        **SHEET,
        "conditions": [{"name": "Bad knee", "kind": "penalty", "value": -1, "stat": "Agility"}],
    }
    system, state = make(sheet=sheet)
    ev = roll(system, state, "Agility", "4 4", target="9")
    assert ev.conditions == ["Bad knee"]
    assert (ev.total, ev.outcome) == (8, "failure")
    ev = roll(system, state, "Might", "4 4", target="9")
    assert ev.conditions == [] and ev.total == 8
    view = system.sheet_view(state, as_gm=False)
    assert view["conditions"][0]["counted"] == -1


# --- appliers ---------------------------------------------------------------------------------


def test_condition_lasts_its_rolls_then_ends():
    system, state = make()
    state = apply(
        system,
        state,
        ConditionAdded(character="jen", condition="Cornered", kind="disadvantage", rolls=2),
    )
    first = roll(system, state, "Might", "5", target="4")
    assert first.decision_dice == 1 and first.conditions == ["Cornered"]
    state = apply(system, state, first)
    assert state.conditions[0].rolls_left == 1
    second = roll(system, state, "Agility", "2 2 3", opponent="Goblin")
    assert second.decision_dice == 1 and second.opponent_decision_dice == 2
    assert (second.total, second.target, second.winner) == (3, 5, "Goblin")
    state = apply(system, state, second)
    assert state.conditions == []
    assert roll(system, state, "Might", "5 1", target="4").decision_dice == 2


def test_condition_until_removed():
    system, state = make()
    state = apply(
        system, state, ConditionAdded(character="jen", condition="Blessed", kind="bonus", value=2)
    )
    ev = roll(system, state, "Might", "3 3", target="8")
    assert ev.total == 8
    state = apply(system, state, ev)
    assert state.conditions[0].name == "Blessed"
    state = apply(system, state, ConditionRemoved(character="jen", condition="blessed"))
    assert state.conditions == []


def test_condition_refusals():
    system, state = make()
    added = ConditionAdded(character="jen", condition="Blessed", kind="bonus", value=2)
    state = apply(system, state, added)
    with pytest.raises(RuleError, match="already has"):
        apply(system, state, added)
    with pytest.raises(RuleError, match="stat"):
        apply(
            system,
            state,
            ConditionAdded(character="jen", condition="X", kind="bonus", stat="Charm"),
        )
    with pytest.raises(RuleError, match="condition"):
        apply(system, state, ConditionRemoved(character="jen", condition="Cursed"))


def test_supply_event_must_match_the_items_die():
    system, state = make()
    stale = SupplyRolled(
        character="jen",
        item="Field Medkit",
        die="d8",
        dice=[3],
        total=3,
        target=4,
        after="d6",
        outcome="failure",
        source="physical",
        draws=[(8, 3)],
    )
    with pytest.raises(RuleError, match="has a d10 now"):
        apply(system, state, stale)
    lying = SupplyRolled(
        character="jen",
        item="Field Medkit",
        die="d10",
        dice=[9],
        total=9,
        target=4,
        after="d8",
        outcome="failure",
        source="physical",
        draws=[(10, 9)],
    )
    with pytest.raises(RuleError, match="leaves d10"):
        apply(system, state, lying)


def test_resupply_refills_an_empty_item():
    system, state = make()
    state = apply(system, state, Resupplied(character="jen", item="Field Medkit", die="empty"))
    with pytest.raises(RuleError, match="Empty"):
        roll(system, state, "Field Medkit", "5")
    state = apply(system, state, Resupplied(character="jen", item="field medkit", die="D12"))
    assert state.equipment[0].supply == "d12"
    with pytest.raises(RuleError, match="supply die"):
        apply(system, state, Resupplied(character="jen", item="Field Medkit", die="d20"))


def test_items_added_and_removed():
    system, state = make()
    state = apply(system, state, ItemAdded(character="jen", item="Climbing kit", die="d6"))
    assert state.equipment[-1].supply == "d6"
    with pytest.raises(RuleError, match="already carries"):
        apply(system, state, ItemAdded(character="jen", item="climbing kit"))
    state = apply(system, state, ItemRemoved(character="jen", item="Rope"))
    assert [i.name for i in state.equipment] == ["Field Medkit", "Climbing kit"]
    with pytest.raises(RuleError, match="did you mean 'Field Medkit'"):
        apply(system, state, ItemRemoved(character="jen", item="Field Medkt"))


def test_trackers_refuse_values_outside_0_100():
    # "D100 or Percentage": a percentage tracker; 60 − 75 would be −15 (no silent clamp)
    system, state = make()
    with pytest.raises(
        RuleError, match=r"Rifle ammunition would be 60 -75 = -15.*\(delta -60 to \+40\)"
    ):
        apply(system, state, TrackerChanged(character="jen", tracker="rifle ammunition", delta=-75))
    with pytest.raises(RuleError, match="would be 130"):
        apply(system, state, TrackerChanged(character="jen", tracker="Rifle ammunition", value=130))
    state = apply(
        system, state, TrackerChanged(character="jen", tracker="Rifle ammunition", delta=-60)
    )
    assert state.trackers == {"Rifle ammunition": 0}
    state = apply(system, state, TrackerChanged(character="jen", tracker="Arrows", value=40))
    assert state.trackers["Arrows"] == 40
    # asked for in so many words, the cut is in the event
    cut = apply(
        system, state, TrackerChanged(character="jen", tracker="Arrows", delta=90, clamp=True)
    )
    assert cut.trackers["Arrows"] == 100
    with pytest.raises(RuleError, match="not both"):
        apply(system, state, TrackerChanged(character="jen", tracker="Arrows", value=1, delta=1))
    with pytest.raises(RuleError, match="tracker"):
        apply(system, state, TrackerChanged(character="jen", tracker="Bolts", delta=-1))


def test_tracker_changes_written_before_16_still_replay_clamped():
    # a version-1 payload (no schema_version) was clamped when written: upcast, it still is
    import msgspec

    from ledger.codec import Codec, encode_data

    system, state = make()
    codec = Codec(system.event_types, system.upcasters)
    old = b'{"type":"decision-dice.tracker_changed","character":"jen","tracker":"Rifle ammunition","delta":-75,"value":null,"reason":""}'
    event = codec.decode(old, "decision-dice.tracker_changed")
    assert event.clamp is True
    assert apply(system, state, event).trackers == {"Rifle ammunition": 0}
    new = TrackerChanged(character="jen", tracker="Ammo", delta=-5)
    assert msgspec.json.decode(encode_data(new))["schema_version"] == 2


def test_stat_and_level_changes():
    system, state = make()
    state = apply(system, state, StatChanged(character="jen", stat="might", value=2))
    assert state.stats["Might"] == 2
    with pytest.raises(RuleError, match="0 to 10"):
        apply(system, state, StatChanged(character="jen", stat="Might", value=11))
    state = apply(system, state, LevelChanged(character="jen", level=3))
    assert state.level == 3
    with pytest.raises(RuleError, match="level"):
        apply(system, state, LevelChanged(character="jen", level=0))


def test_appliers_do_not_mutate_the_old_state():
    system, state = make()
    before = msgspec.json.encode(state)
    apply(system, state, TrackerChanged(character="jen", tracker="Rifle ammunition", delta=-5))
    apply(system, state, roll(system, state, "Field Medkit", "1"))
    assert msgspec.json.encode(state) == before


# --- the contract --------------------------------------------------------------------------------


def test_every_event_is_tagged_frozen_and_has_an_applier_and_a_line():
    system, _ = make()
    table = system.appliers()
    defined = [
        v
        for v in vars(events).values()
        if isinstance(v, type) and issubclass(v, Event) and v.__module__ == events.__name__
    ]
    assert len(defined) == 14 and set(system.event_types) == set(defined)  # each one registered
    for cls in defined:
        tag = cls.__struct_config__.tag
        assert isinstance(tag, str) and tag.startswith("decision-dice.")
        assert cls.__struct_config__.frozen
        with pytest.raises(TypeError):
            cls("jen")  # keyword-only
        assert cls in table


def test_describe_names_what_happened():
    system, state = make()
    ev = roll(system, state, "Agility", "3 4 2", target="8", supply="Field Medkit")
    line = system.describe(ev)
    assert line is not None
    assert "[3, 4]" in line and "= 8 vs 8: success" in line and "d10 shows 2 → d8" in line
    contest = roll(
        system, state, "Agility", "2 5 4 3 6 1 1 1", opponent="Goblin", opponent_modifier=(1,)
    )
    assert "jen wins" in (system.describe(contest) or "")
    assert system.describe(TrackerChanged(character="jen", tracker="Ammo", delta=-5)) == (
        "jen: Ammo -5%"
    )


def test_skills_of_lists_stats_and_supply_items():
    system, state = make()
    assert list(system.skills_of(state)) == ["Agility", "Might", "Field Medkit"]


def test_advance_is_a_no_op():
    system, state = make()
    assert system.advance({"jen": state}, 1, [], lambda seed: PhysicalDice([]), {}) == []


# --- harm, and the current Stress and Vitality -----------------------------------------------


def test_stress_and_vitality_are_spent_and_recovered():
    # "The Rounding Rule": Stress and Vitality "require two values to be halved and added
    # together": Wits 3 and Grit 2 give 1.5 + 1 = 2.5, rounded down: Stress 2; Might 3 and
    # Grit 2 give Vitality 2 as well (the salt road's derived option)
    from ledger_decision_dice.events import HarmTaken, Recovered

    options = {"derived": {"Stress": ["Wits", "Grit"], "Vitality": ["Might", "Grit"]}}
    system, state = make(options, {"stats": {"Wits": 3, "Grit": 2, "Might": 3}})
    view = system.sheet_view(state, as_gm=False)
    assert view["derived"] == view["current"] == {"Stress": 2, "Vitality": 2}
    hurt = apply(system, state, HarmTaken(character="jen", track="vitality", amount=1))
    assert system.sheet_view(hurt, as_gm=False)["current"] == {"Stress": 2, "Vitality": 1}
    # harm beyond what is left stops at 0 (harm happens); recovery never passes the value
    down = apply(system, hurt, HarmTaken(character="jen", track="Vitality", amount=5))
    assert system.sheet_view(down, as_gm=False)["current"]["Vitality"] == 0
    with pytest.raises(RuleError, match="recover 0 \\(all\\) to 2 Vitality, not 3"):
        apply(system, down, Recovered(character="jen", track="Vitality", amount=3))
    up = apply(system, down, Recovered(character="jen", track="Vitality", amount=1))
    assert system.sheet_view(up, as_gm=False)["current"]["Vitality"] == 1
    assert apply(system, up, Recovered(character="jen", track="Vitality")).spent == {}
    with pytest.raises(RuleError, match="no derived value named 'Luck'"):
        apply(system, state, HarmTaken(character="jen", track="Luck", amount=1))
    with pytest.raises(RuleError, match="1 or more"):
        apply(system, state, HarmTaken(character="jen", track="Stress", amount=0))
    plain, bare = make()
    with pytest.raises(RuleError, match="campaign option derived"):
        apply(plain, bare, HarmTaken(character="jen", track="Vitality", amount=1))


def test_campaign_damage_takes_harm_from_vitality_or_the_harm_track_option():
    # the event `campaign damage CHARACTER AMOUNT` appends (RuleSystem.harm_event)
    from ledger_decision_dice.events import HarmTaken

    derived = {"Stress": ["Wits", "Grit"], "Vitality": ["Might", "Grit"]}
    system, state = make({"derived": derived}, {"stats": {"Wits": 3, "Grit": 2, "Might": 3}})
    assert system.has_harm
    event = system.harm_event(state, "jen", 2)
    assert event == HarmTaken(character="jen", track="Vitality", amount=2)
    assert system.sheet_view(apply(system, state, event), as_gm=False)["current"] == {
        "Stress": 2,
        "Vitality": 0,
    }
    stress, state = make(
        {"derived": derived, "harm_track": "Stress"}, {"stats": {"Wits": 3, "Grit": 2, "Might": 3}}
    )
    assert stress.harm_event(state, "jen", 1).track == "Stress"
