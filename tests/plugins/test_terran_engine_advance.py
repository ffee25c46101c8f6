"""Terran Engine end-of-session advancement through the ``advance`` hook (pure, no store).

Seed 003_2aeb47bc6ca82a40.txt, characters.html "1.4 Advancements"; rulings R8, R11 and R12 of
docs/rulings/terran-engine.md. Advancement dice come from ``dice(client_seed)``; here
PhysicalDice with the book's faces stand in for the engine.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from ledger_terran_engine import TerranEngine
from ledger_terran_engine import state as st
from ledger_terran_engine.events import (
    AdvancementRolled,
    EgoPooled,
    ExperienceGained,
    RiskyActionRolled,
    SkillDevelopmentRolled,
)
from ledger_terran_engine.rules.advancement import ego_lost_in, parse_choices

from ledger import Event, Recorded, RollRequest, RuleError, StoredEvent
from ledger.dice.engine import PhysicalDice
from ledger.events import event_tag

SYS = TerranEngine().configure({})


def make(cid: str, attrs: tuple[int, ...], skills: dict[str, int]) -> st.Character:
    sheet = SYS.create_sheet({
        "archetype": "Hero",
        "attributes": dict(zip(("Strength", "Agility", "Insight", "Charisma"), attrs, strict=True)),
        "skills": skills,
    })
    return SYS.initial_state(cid, cid.title(), sheet)


def recorded(seq: int, event: Event, session: int = 1) -> Recorded:
    stored = StoredEvent(
        seq=seq, campaign="c", stream=getattr(event, "character", "campaign"), version=1,
        type=event_tag(type(event)), data=msgspec.json.encode(event).decode(),
        recorded_at="2026-03-01T19:00:00Z", actor="gm", session=session, visibility="public",
        prev_hash="0" * 64, hash="0" * 64,
    )
    return Recorded(stored, event)


def risky(state: st.Character, faces: list[int], **params: Any) -> RiskyActionRolled:
    request = RollRequest(character=state.id, name=state.name, skill="Strength", params=params)
    event = SYS.resolve(state, request, PhysicalDice([str(f) for f in faces]))
    assert isinstance(event, RiskyActionRolled)
    return event


class Dice:
    """``dice(client_seed)`` handing out PhysicalDice with prepared faces, in order."""

    def __init__(self, *rolls: list[int]) -> None:
        self.rolls = list(rolls)
        self.seeds: list[str] = []

    def __call__(self, client_seed: str = "") -> PhysicalDice:
        self.seeds.append(client_seed)
        return PhysicalDice([str(f) for f in self.rolls.pop(0)])


def fold(state: st.Character, events: list[Event]) -> st.Character:
    table = SYS.appliers()
    for e in events:
        if getattr(e, "character", None) == state.id:
            state = table[type(e)](state, e)
    return state


def test_d14_experience_is_ego_lost_in_the_session() -> None:
    # Ego 4 (INS 1 + CHA 1 + 2): dark [1, 2] cost 2, then (Ego 2) dark [2] costs 1 more → 3 lost
    kit = make("kit", (1, 1, 1, 1), {"Violence": 4})
    first = risky(kit, [5, 1, 2], dark=2)
    kit2 = fold(kit, [first])
    second = risky(kit2, [4, 2], dark=1)
    log = [recorded(1, first), recorded(2, second)]
    assert ego_lost_in(log, "kit") == 3
    events = SYS.advance({"kit": fold(kit2, [second])}, 1, log, Dice(), {})
    assert events == [ExperienceGained(character="kit", session=1, amount=3)]
    after = fold(fold(kit2, [second]), events)
    assert (after.experience, after.ego) == (3, 1)


def test_experience_counts_ego_pooled_and_not_other_sessions_or_characters() -> None:
    log = [
        recorded(1, EgoPooled(character="kit", helped="ann", amount=2)),
        recorded(2, EgoPooled(character="ann", helped="kit", amount=1)),
    ]
    assert ego_lost_in(log, "kit") == 2
    assert ego_lost_in(log, "bob") == 0


def test_d15_advancement_roll_through_advance_and_idempotence() -> None:
    kit = make("kit", (1, 1, 1, 1), {"Violence": 4})  # HP_max 4 + Ego_max 4 = 8
    kit = st.Character(**{**{f: getattr(kit, f) for f in kit.__struct_fields__}, "experience": 3,
                          "credited": [1]})
    dice = Dice([2, 3, 4])
    choices = {"kit.advance": "3", "kit.advancement": "tough"}
    events = SYS.advance({"kit": kit}, 2, [], dice, choices)
    rolled = events[1]
    assert isinstance(events[0], ExperienceGained) and events[0].amount == 0
    assert isinstance(rolled, AdvancementRolled)
    assert (rolled.faces, rolled.total, rolled.threshold, rolled.success) == ([2, 3, 4], 9, 8, True)
    assert (rolled.advancement, dice.seeds) == ("Tough", ["advance:2:kit"])  # fixed
    after = fold(kit, events)
    assert (after.advancements, after.experience, st.hp_max(after)) == (["Tough"], 0, 6)
    # run again: the replayed state already holds session 2's credit and spending
    assert SYS.advance({"kit": after}, 2, [], Dice(), choices) == []


def test_d16_failed_advancement_roll_spends_experience() -> None:
    kit = make("kit", (1, 1, 1, 1), {"Violence": 4})
    kit = st.Character(**{**{f: getattr(kit, f) for f in kit.__struct_fields__}, "experience": 3})
    events = SYS.advance({"kit": kit}, 1, [], Dice([1, 2, 4]), {"kit.advance": "3"})
    rolled = events[1]
    assert isinstance(rolled, AdvancementRolled)
    assert (rolled.total, rolled.success, rolled.advancement) == (7, False, None)
    after = fold(kit, events)
    assert (after.experience, after.advancements, st.hp_max(after)) == (0, [], 4)


@pytest.mark.parametrize(("face", "rating"), [(2, 1), (3, 2)])
def test_d17_skill_development_through_advance(face: int, rating: int) -> None:
    kit = make("kit", (1, 1, 1, 1), {"Violence": 1, "Social": 3})
    kit = st.Character(**{**{f: getattr(kit, f) for f in kit.__struct_fields__}, "experience": 1})
    events = SYS.advance({"kit": kit}, 1, [], Dice([face]), {"kit.develop.violence": "1"})
    dev = events[1]
    assert isinstance(dev, SkillDevelopmentRolled)
    assert (dev.skill, dev.threshold, dev.success) == ("Violence", 3, face >= 3)
    assert fold(kit, events).skills["Violence"] == rating


def test_d18_skill_zero_develops_with_any_die_but_needs_one_experience() -> None:
    kit = make("kit", (1, 1, 1, 1), {"Violence": 4})
    kit = st.Character(**{**{f: getattr(kit, f) for f in kit.__struct_fields__}, "experience": 1})
    events = SYS.advance({"kit": kit}, 1, [], Dice([1]), {"kit.develop.Survival": "1"})
    assert fold(kit, events).skills["Survival"] == 1
    with pytest.raises(RuleError, match="1 or more"):
        SYS.advance({"kit": kit}, 1, [], Dice([1]), {"kit.develop.Survival": "0"})


def test_spending_more_than_banked_is_refused() -> None:
    kit = make("kit", (1, 1, 1, 1), {"Violence": 4})
    first = risky(kit, [5, 1], dark=1)  # 1 Ego lost → 1 Experience
    with pytest.raises(RuleError, match="spends 2 Experience but has 1"):
        SYS.advance({"kit": fold(kit, [first])}, 1, [recorded(1, first)], Dice([6, 6]),
                    {"kit.advance": "2"})


def test_won_advancement_without_a_choice_waits_for_advancement_chosen() -> None:
    kit = make("kit", (1, 1, 1, 1), {"Violence": 4})
    kit = st.Character(**{**{f: getattr(kit, f) for f in kit.__struct_fields__}, "experience": 2})
    events = SYS.advance({"kit": kit}, 1, [], Dice([6, 6]), {"kit.advance": "2"})
    after = fold(kit, events)
    assert (after.unchosen, st.hp_max(after), after.hp) == (1, 5, 5)
    from ledger_terran_engine.events import AdvancementChosen

    chosen = fold(after, [AdvancementChosen(character="kit", advancement="Extra Attribute: agility")])
    assert (chosen.advancements, st.attribute(chosen, "Agility"), st.hp_max(chosen)) == (
        ["Extra Attribute: Agility"], 2, 6,
    )


def test_choices_errors_name_every_problem() -> None:
    states = {"kit": make("kit", (1, 1, 1, 1), {"Violence": 4})}
    with pytest.raises(RuleError) as err:
        parse_choices({"zed.advance": "2", "kit.levelup": "1", "kit.advance": "x"}, states)
    text = str(err.value)
    assert "no character 'zed'" in text and "unknown key" in text and "whole number" in text


def test_a_player_cannot_choose_the_client_seed_of_advancement_dice() -> None:
    # Seen: Terran took its client seed from --choice, so a player tried seeds until the
    # known dice passed
    kit = make("kit", (1, 1, 1, 1), {"Violence": 4})
    kit = st.Character(**{**{f: getattr(kit, f) for f in kit.__struct_fields__}, "experience": 3})
    with pytest.raises(RuleError, match="fixed before the roll"):
        SYS.advance({"kit": kit}, 1, [], Dice([1, 2, 4]),
                    {"kit.advance": "3", "kit.client_seed": "lucky"})


def test_advance_odds_are_exact() -> None:
    from fractions import Fraction

    from ledger_terran_engine.odds import sum_at_least as at_least

    assert at_least(2, 9) == Fraction(10, 36)
    assert at_least(1, 0) == 1 and at_least(3, 19) == 0
    rolled = AdvancementRolled(character="kit", session=1, spent=2, faces=[1, 1], total=2,
                               threshold=9, success=False, source="engine", draws=[(6, 1), (6, 1)])
    assert SYS.advance_odds(rolled) == {"success": "5/18"}
