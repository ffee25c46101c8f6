"""Time passing through each system's rules: `campaign time pass` and its undo.

Each test quotes the passage of the rule text it is built from and uses the text's own
numbers; where the text gives none, the campaign option's default (docs/rulings).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from freezegun import freeze_time

from ledger import RuleError
from ledger.campaign.aggregate import Campaign
from ledger.campaign.timeline import pass_time
from ledger.store.sqlite import Store

AT = "2026-03-01T19:00:00.000000Z"
CAMPAIGNS = Path(__file__).resolve().parents[2] / "campaigns"


@pytest.fixture(autouse=True)
def _frozen():
    with freeze_time("2026-03-01 19:00:00", tick=True):
        yield


def make(tmp_path: Path, system: str, folder: str, *sheets: str, **options) -> Campaign:
    store = Store(str(tmp_path / "ledger.db"))
    campaign = Campaign.create(
        store, "c", system=system, actor="gm", at=AT, options=options or None
    )
    for name in sheets:
        sheet = tomllib.loads((CAMPAIGNS / folder / "characters" / f"{name}.toml").read_text())
        campaign.add_character(sheet, actor="gm", at=AT)
    return campaign


def passes(campaign: Campaign, duration: str, **kw) -> list[str]:
    """Pass time; the types of its consequences."""
    done = pass_time(campaign, duration, actor="gm", at=AT, **kw)
    return [rec.type for rec in done.records[1:]]


def undo_last_span(campaign: Campaign) -> None:
    span = next(
        rec for rec in campaign.records(types=["time.passed"], descending=True)
    )
    campaign.correct(span.seq, "wrong span", actor="gm", at=AT)


# --- d20-world (001_a3a02f9b7363775f.txt) -----------------------------------------------


def test_d20_sick_for_six_hours_ends_at_six_hours_and_undo_brings_it_back(tmp_path):
    """"Each condition specifies what effects it imposes (if any) and how to end the
    condition. These can be temporal deadlines ... such as 'sick for six hours: inventory
    capacity reduced by 1'" ("Conditions")."""
    from ledger_d20_world.events import ConditionAdded

    campaign = make(tmp_path, "d20-world", "the-world", "isa")
    six_hours = 6 * 60
    campaign.append(
        [ConditionAdded(character="isa", condition="sick", capacity_delta=-1,
                        lasts_minutes=six_hours)],
        actor="gm", at=AT,
    )  # fmt: skip
    layout = campaign.system.sheet_layout(campaign.state_of("isa"), as_gm=True)
    assert "6 h left" in str(layout)
    assert passes(campaign, "4h") == []  # two hours still to go
    sick = campaign.state_of("isa").conditions[0]
    assert sick.ends_at - campaign.state_of("isa").clock == 2 * 60
    assert "2 h left" in str(campaign.system.sheet_layout(campaign.state_of("isa"), as_gm=True))
    assert passes(campaign, "2h") == ["d20-world.condition_ended"]
    assert campaign.state_of("isa").conditions == ()
    undo_last_span(campaign)
    assert [c.name for c in campaign.state_of("isa").conditions] == ["sick"]
    assert campaign.state_of("isa").clock == 4 * 60


def test_d20_hidden_condition_expiry_is_gm_only(tmp_path):
    """A hidden condition (ruling R33) ends by the clock in a GM-only event: a player's
    log and sheet never see it begin or end."""
    from ledger_d20_world.events import HiddenConditionAdded

    campaign = make(tmp_path, "d20-world", "the-world", "isa")
    campaign.append(
        [HiddenConditionAdded(character="isa", condition="Qzcursed", check_penalty=1,
                              lasts_minutes=90)],
        actor="gm", at=AT,
    )  # fmt: skip
    done = pass_time(campaign, "90m", actor="gm", at=AT)
    assert [(r.type, r.visibility) for r in done.records] == [
        ("time.passed", "public"),
        ("d20-world.hidden_condition_ended", "gm"),
    ]
    for rec in campaign.records(as_gm=False):
        assert rec.visibility == "public" or rec.data is None or "Qzcursed" not in str(rec.data)
    player = campaign.state_of("isa", as_gm=False)
    assert "Qzcursed" not in str(campaign.system.sheet_layout(player, as_gm=False))


def test_d20_objective_fails_when_its_time_runs_out(tmp_path):
    """"There may be other external factors that influence objectives. One such example is
    time constraints, in which the objective is failed if it is not completed in time"
    ("Objectives")."""
    from ledger_d20_world.events import ObjectiveOpened

    campaign = make(tmp_path, "d20-world", "the-world", "isa")
    campaign.append(
        [ObjectiveOpened(character="isa", objective="Reach the mill", required_good=2,
                         deadline="3 days")],
        actor="gm", at=AT,
    )  # fmt: skip
    assert passes(campaign, "2d") == []
    assert passes(campaign, "1d") == ["d20-world.objective_failed"]
    goal = campaign.state_of("isa").objectives[0]
    assert (goal.status, goal.reason) == ("failed", "time ran out: 3 days")
    undo_last_span(campaign)
    assert campaign.state_of("isa").objectives[0].status == "open"


def test_d20_a_deadline_in_words_is_text_only(tmp_path):
    from ledger_d20_world.events import ObjectiveOpened

    campaign = make(tmp_path, "d20-world", "the-world", "isa")
    campaign.append(
        [ObjectiveOpened(character="isa", objective="Find the relic", required_good=2,
                         deadline="before the moon sets")],
        actor="gm", at=AT,
    )  # fmt: skip
    assert passes(campaign, "2w") == []


def test_d20_a_rest_recovers_half_the_jinx_rounded_up(tmp_path):
    """"After resting, a character recovers from half their jinx, rounded up" ("Jinx");
    jinx 5 → 2. Plain time is no rest."""
    from ledger_d20_world.events import Rested

    campaign = make(tmp_path, "d20-world", "the-world", "isa")
    import msgspec

    # five casts' worth of jinx ("Whenever a character casts a spell, they receive one jinx")
    jinxed = msgspec.structs.replace(campaign.state_of("isa"), jinx=5)
    assert campaign.system.time_passed({"isa": jinxed}, _span(480, rest=True)) == [
        Rested(character="isa")
    ]
    assert campaign.system.time_passed({"isa": jinxed}, _span(480, rest=False)) == []
    assert campaign.system.on_rest(jinxed, Rested(character="isa")).jinx == 2


def _span(minutes: int, *, rest: bool = False, care: bool = False, words: str = ""):
    from ledger import TimePassed

    return TimePassed(minutes=minutes, words=words or f"{minutes}m", rest=rest, care=care)


# --- spellwoven (004_663ae3e4ecc71fd1.txt) ------------------------------------------------


def test_spellwoven_a_nights_sleep_refreshes_effort_and_undo_takes_it_back(tmp_path):
    """"you spend a point of Effort (a pool representing your state of exhaustion, this
    refreshes with a night's sleep)" ("Attributes and Effort")."""
    from ledger_spellwoven.events import EffortLost

    campaign = make(tmp_path, "spellwoven", "nimble-jen", "jen")
    full = campaign.state_of("jen").effort
    campaign.append([EffortLost(character="jen", amount=2)], actor="gm", at=AT)
    assert campaign.state_of("jen").effort == full - 2
    assert passes(campaign, "8h") == []  # awake: no sleep, no refresh
    assert passes(campaign, "a night's sleep") == ["spellwoven.slept"]
    assert campaign.state_of("jen").effort == full
    undo_last_span(campaign)
    assert campaign.state_of("jen").effort == full - 2


def test_spellwoven_a_rest_shorter_than_a_night_refreshes_nothing(tmp_path):
    from ledger_spellwoven.events import EffortLost

    campaign = make(tmp_path, "spellwoven", "nimble-jen", "jen", night_hours=6)
    campaign.append([EffortLost(character="jen", amount=1)], actor="gm", at=AT)
    assert passes(campaign, "5h", rest=True) == []
    assert passes(campaign, "6h", rest=True) == ["spellwoven.slept"]


# --- terran-engine (003_2aeb47bc6ca82a40.txt) ---------------------------------------------


def _hurt(campaign: Campaign, who: str, effect: int) -> None:
    from ledger_terran_engine.events import HarmTaken

    campaign.append([HarmTaken(character=who, effect=effect, armour=False)], actor="gm", at=AT)


def test_terran_hp_recovers_after_a_well_rested_night_with_no_wounds(tmp_path):
    """"If you have no Wounds, HP recovers to its maximum after a well rested night."
    ("1.3.1 HP")."""
    campaign = make(tmp_path, "terran-engine", "the-drowned-marches", "bo")
    hp_max = campaign.state_of("bo").hp
    _hurt(campaign, "bo", 1)
    assert campaign.state_of("bo").hp == hp_max - 1
    assert passes(campaign, "8h") == []  # awake all night
    assert passes(campaign, "a well rested night") == ["terran-engine.rested_night"]
    assert campaign.state_of("bo").hp == hp_max


def test_terran_a_mortal_wound_takes_two_weeks_of_rest_with_care(tmp_path):
    """"A Mortal Wound becomes a Critical Wound through appropriate care and a week of
    rest. ... A Critical Wound recovers in a week, also given appropriate care."
    ("1.3.1 HP")."""
    campaign = make(tmp_path, "terran-engine", "the-drowned-marches", "bo")
    hp_max = campaign.state_of("bo").hp
    _hurt(campaign, "bo", hp_max)  # HP 0: Critical
    _hurt(campaign, "bo", 1)  # any further damage: Mortal
    assert campaign.state_of("bo").wound == "mortal"
    assert passes(campaign, "1w", rest=True) == []  # rest without care heals nothing
    assert passes(campaign, "4d", rest=True, care=True) == []
    assert "3 days" in str(campaign.system.sheet_layout(campaign.state_of("bo"), as_gm=True))
    assert passes(campaign, "3d", rest=True, care=True) == ["terran-engine.wound_recovered"]
    assert campaign.state_of("bo").wound == "critical"
    assert campaign.state_of("bo").hp == 0  # HP stays 0 until a well rested night
    # the second week, and a night after it: no Wound, then HP back
    assert passes(campaign, "1w 8h", rest=True, care=True) == [
        "terran-engine.wound_recovered",
        "terran-engine.rested_night",
    ]
    assert (campaign.state_of("bo").wound, campaign.state_of("bo").hp) == ("none", hp_max)
    undo_last_span(campaign)
    assert (campaign.state_of("bo").wound, campaign.state_of("bo").hp) == ("critical", 0)


# --- wyrd-engine (000_60e07241544698f0.txt) -----------------------------------------------


def test_wyrd_wounds_heal_with_rest_on_the_books_schedule(tmp_path):
    """"Mild Wounds require a short rest (a few hours) or first aid. Moderate Wounds require
    days of rest or professional medical care. Severe Wounds require weeks of rest,
    surgery, or supernatural healing" ("Healing and Recovery"); the text gives no number:
    3 hours, 3 days, 3 weeks by default (ruling W-T1)."""
    from ledger_wyrd_engine.events import DamageTaken

    campaign = make(tmp_path, "wyrd-engine", "grand-casebook", "julian")
    stress = campaign.state_of("julian").stress_max
    # stress boxes first, then "the smallest free wound slot that can hold" the rest:
    # a Mild (holds 1), then a Moderate (holds 2)
    campaign.append([DamageTaken(character="julian", amount=stress + 1)], actor="gm", at=AT)
    campaign.append([DamageTaken(character="julian", amount=2)], actor="gm", at=AT)
    assert set(campaign.state_of("julian").wounds) == {"mild", "moderate"}
    assert passes(campaign, "3h") == []  # awake: no rest
    assert passes(campaign, "a short rest") == ["wyrd-engine.wound_healed"]
    assert set(campaign.state_of("julian").wounds) == {"moderate"}
    sheet = str(campaign.system.sheet_layout(campaign.state_of("julian"), as_gm=True))
    assert "heals after 2 days 21 h more of rest" in sheet
    assert passes(campaign, "2d21h", rest=True) == ["wyrd-engine.wound_healed"]
    assert campaign.state_of("julian").wounds == {}
    undo_last_span(campaign)
    assert set(campaign.state_of("julian").wounds) == {"moderate"}


def test_wyrd_rest_to_heal_is_the_gms_option(tmp_path):
    from ledger_wyrd_engine.events import DamageTaken

    campaign = make(tmp_path, "wyrd-engine", "grand-casebook", "julian",
                    rest_to_heal={"mild": 60})  # fmt: skip
    stress = campaign.state_of("julian").stress_max
    campaign.append([DamageTaken(character="julian", amount=stress + 1)], actor="gm", at=AT)
    assert passes(campaign, "1h", rest=True) == ["wyrd-engine.wound_healed"]


# --- decision-dice (002_735c6d6cd834a641.txt) ---------------------------------------------


def test_decision_dice_time_changes_nothing(tmp_path):
    """"No damage, healing, rest or scene/session resets are defined on this page" (no such rule
    in "Core Mechanics"); advantage lasts "a roll or two", counted in rolls, not time."""
    campaign = make(tmp_path, "decision-dice", "the-salt-road", "jen")
    before = campaign.state_of("jen")
    assert passes(campaign, "2w", rest=True, care=True) == []
    assert campaign.state_of("jen") == before


# --- the one writer checks a span's consequences ------------------------------------------


def test_a_span_with_invented_or_missing_consequences_is_refused(tmp_path):
    from ledger_spellwoven.events import EffortLost, Slept

    from ledger import TimePassed

    campaign = make(tmp_path, "spellwoven", "nimble-jen", "jen")
    head = campaign.store.head("c").seq
    sleep = TimePassed(minutes=480, words="a night's sleep", rest=True)
    with pytest.raises(RuleError, match="not the consequences"):  # jen has all her Effort
        campaign.append([sleep.__class__(**{**_fields(sleep), "consequences": 1}),
                         Slept(character="jen")], actor="gm", at=AT)  # fmt: skip
    campaign.append([EffortLost(character="jen")], actor="gm", at=AT)
    with pytest.raises(RuleError, match="counts 0 consequences"):  # the refresh left out
        campaign.append([sleep, Slept(character="jen")], actor="gm", at=AT)
    with pytest.raises(RuleError, match="not the consequences"):
        campaign.append([sleep], actor="gm", at=AT)
    with pytest.raises(RuleError, match="comes first"):
        campaign.append([EffortLost(character="jen"), sleep], actor="gm", at=AT)
    assert campaign.store.head("c").seq == head + 1  # only the EffortLost was written


def _fields(event) -> dict:
    return {f: getattr(event, f) for f in event.__struct_fields__}


def test_a_consequence_is_corrected_only_through_its_span(tmp_path):
    from ledger_spellwoven.events import EffortLost

    campaign = make(tmp_path, "spellwoven", "nimble-jen", "jen")
    campaign.append([EffortLost(character="jen")], actor="gm", at=AT)
    done = pass_time(campaign, "a night's sleep", actor="gm", at=AT)
    span, slept = done.records
    with pytest.raises(RuleError, match=f"correct event {span.seq} instead"):
        campaign.correct(slept.seq, "no", actor="gm", at=AT)
    with pytest.raises(RuleError, match="cannot be amended"):
        campaign.correct(span.seq, "no", data={"minutes": 60}, actor="gm", at=AT)
    from ledger.campaign.corrections import entry_of

    assert entry_of(campaign, slept).seq == span.seq  # `campaign undo` takes the whole span
