"""Terran Engine invariants over random pools and faces (hypothesis).

Seed 003_2aeb47bc6ca82a40.txt "2.1" (Light 0-4, highest decides, Ego per Dark die) and
"2.2.1" (exploding Effects).
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as s
from ledger_terran_engine import TerranEngine
from ledger_terran_engine import state as st
from ledger_terran_engine.events import ChallengeOpened
from ledger_terran_engine.odds import risky_bands
from ledger_terran_engine.rules import mechanics as m

from ledger import RollRequest
from ledger.dice.engine import PhysicalDice

SYS = TerranEngine().configure({})
d6 = s.integers(min_value=1, max_value=6)


def character(strength: int, violence: int, ego: int) -> st.Character:
    sheet = SYS.create_sheet({
        "archetype": "Hero",
        "attributes": {"Strength": strength, "Agility": 0, "Insight": 2, "Charisma": 2},
        "skills": {"Violence": violence, "Social": 4 - violence} if violence < 4
        else {"Violence": 4},
    })
    state = SYS.initial_state("kit", "Kit", sheet)
    return st.Character(**{**{f: getattr(state, f) for f in state.__struct_fields__},
                           "ego": ego})


@given(
    strength=s.integers(0, 2), violence=s.integers(0, 4), position=s.integers(-1, 1),
    extra=s.integers(-6, 6), ego=s.integers(1, 6), dark=s.integers(0, 4),
    faces=s.lists(d6, min_size=8, max_size=8), montage=s.booleans(),
)
def test_risky_action_invariants(
    strength: int, violence: int, position: int, extra: int, ego: int, dark: int,
    faces: list[int], montage: bool,
) -> None:
    kit = character(strength, violence, ego)
    light = max(0, min(4, strength + violence + position + extra))
    params = {"attribute": "Strength", "position": position, "extra": extra, "dark": dark}
    if montage:
        opened = ChallengeOpened(character="kit", challenge="c", level="Trivial")
        kit = SYS.appliers()[ChallengeOpened](kit, opened)
        # "2.2.2": the Challenge Effect first; Trivial d/2 showing 1 is no complication
        first = SYS.resolve(kit, RollRequest("kit", "Kit", "consequence", {
            "challenge": "c", "consequence": "complication"}), PhysicalDice(["1"]))
        kit = SYS.appliers()[type(first)](kit, first)
        params |= {"montage": True, "challenge": "c"}
    used = faces[: light + dark]
    event = SYS.resolve(kit, RollRequest("kit", "Kit", "Violence", params),
                        PhysicalDice([str(f) for f in used]))
    assert len(event.light) == light and len(event.dark) == dark
    assert event.highest == max(used, default=0)
    assert event.outcome == m.outcome_of(event.highest)
    per_die = 2 if montage else 1
    assert event.ego_cost == per_die * sum(1 for f in event.dark if f <= ego)
    assert event.ego_lost == min(ego, event.ego_cost)
    after = SYS.appliers()[type(event)](kit, event)
    assert after.ego == ego - event.ego_lost >= 0
    assert after.lost == (after.ego == 0)


@given(n=s.integers(1, 4), first=s.lists(d6, min_size=4, max_size=4),
       chain=s.lists(s.just(6), max_size=3), last=s.integers(1, 5))
def test_effect_value_is_highest_plus_explosion_chain(
    n: int, first: list[int], chain: list[int], last: int
) -> None:
    faces = first[:n]
    explosions = chain + [last] if max(faces) == 6 else []
    value = m.effect_value(faces, explosions, m.EffectCode(n=n))
    assert value == max(faces) + sum(explosions)
    assert value not in (6, 12)  # a six always explodes (R5)
    assert m.complication_of(value) in (0, 1, 2, 3)


@given(n=s.integers(0, 12))
def test_risky_bands_sum_to_one(n: int) -> None:
    assert sum(risky_bands(n).values(), Fraction(0)) == 1
