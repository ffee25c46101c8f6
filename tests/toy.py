"""A tiny rule system for testing the core without any real plugin's rules.

"Toy": roll 2d6 + skill against a target; hp that damage lowers, once-per-scene luck, and
a healing roll per week of rest (a time consequence that rolls: ``time_passed`` draws).
"""

from __future__ import annotations

from typing import Any

import msgspec

from ledger import Event, Roll, RollParam, RollRequest, RuleError, RuleSystem, applies, hookimpl
from ledger.dice.engine import DiceSource
from ledger.events import SceneEnded, TimePassed
from ledger.rules.spans import WEEK, TimeDice


class ToyRolled(Roll, frozen=True, kw_only=True, tag="toy.rolled"):
    character: str
    skill: str
    dice: list[int]
    total: int
    target: int
    outcome: str


class Hurt(Event, frozen=True, kw_only=True, tag="toy.hurt"):
    character: str
    amount: int


class LuckUsed(Event, frozen=True, kw_only=True, tag="toy.luck_used"):
    character: str


class Secret(Event, frozen=True, kw_only=True, tag="toy.secret_noted"):
    visibility = "gm"
    character: str
    value: int


class Improved(Roll, frozen=True, kw_only=True, tag="toy.improved"):
    """End-of-session: a d6 above the skill raises it by one."""

    character: str
    skill: str
    for_session: int
    die: int
    improved: bool


class Healed(Roll, frozen=True, kw_only=True, tag="toy.healed"):
    """Rest heals: a hurt character rolls a d6 per full week of rest in a span and recovers
    that many hit points, up to the campaign's ``hp``."""

    character: str
    weeks: int
    dice: list[int]
    healed: int


class State(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    skills: dict[str, int]
    hp: int = 10
    luck_used: bool = False
    rolls: int = 0
    secret: int = 0
    advanced: list[int] = []


class Options(msgspec.Struct, forbid_unknown_fields=True):
    hp: int = 10


class Toy(RuleSystem):
    id = "toy"
    name = "Toy"
    source = "none"
    event_types = (ToyRolled, Hurt, LuckUsed, Secret, Improved, Healed)
    state_type = State
    options_type = Options
    roll_options = (RollParam("target", "Target number.", type=int),)

    def create_sheet(self, sheet: dict[str, Any]) -> dict[str, Any]:
        skills = sheet.get("skills", {})
        problems = [f"skill {k} must be 0-3" for k, v in skills.items() if not 0 <= v <= 3]
        if problems:
            raise RuleError(*problems)
        return {"skills": skills}

    def initial_state(self, character: str, name: str, sheet: dict[str, Any]) -> State:
        return State(name=name, skills=dict(sheet["skills"]), hp=self.options.hp)

    def resolve(self, state: State, request: RollRequest, dice: DiceSource) -> ToyRolled:
        skill = (request.skill or "").lower()
        if skill not in state.skills:
            raise RuleError(f"{state.name} has no skill {request.skill!r}")
        faces = dice.roll(2, 6)
        total = sum(faces) + state.skills[skill]
        target = request.params.get("target", 7)
        return ToyRolled(
            character=request.character,
            skill=skill,
            dice=faces,
            total=total,
            target=target,
            outcome="success" if total >= target else "failure",
            **dice.fields(),
        )

    def request_of(self, event: Roll) -> RollRequest:
        assert isinstance(event, ToyRolled)
        return RollRequest(event.character, "", event.skill, {"target": event.target})

    def rederive(self, state: State, event: Roll, *, name: str) -> Roll:
        if isinstance(event, Healed):  # a time consequence: not made by resolve
            faces = [value for _, value in event.draws]
            healed = min(sum(faces), max(0, self.options.hp - state.hp))
            return msgspec.structs.replace(event, dice=faces, healed=healed)
        if isinstance(event, Improved):  # an advancement roll: not made by resolve
            die = event.draws[0][1]
            return msgspec.structs.replace(event, die=die, improved=die > state.skills[event.skill])
        return super().rederive(state, event, name=name)

    @applies(ToyRolled)
    def on_roll(self, state: State, event: ToyRolled) -> State:
        return msgspec.structs.replace(state, rolls=state.rolls + 1)

    @applies(Hurt)
    def on_hurt(self, state: State, event: Hurt) -> State:
        if event.amount < 0:
            raise RuleError("damage cannot be negative")
        return msgspec.structs.replace(state, hp=state.hp - event.amount)

    @applies(Healed)
    def on_healed(self, state: State, event: Healed) -> State:
        return msgspec.structs.replace(state, hp=state.hp + event.healed)

    def time_passed(
        self, states: dict[str, Any], span: TimePassed, dice: TimeDice | None = None
    ) -> list[Event]:
        """A hurt character rolls a d6 per full week of rest and heals that much."""
        weeks = span.minutes // WEEK if span.rest else 0
        events: list[Event] = []
        for cid, state in states.items():
            if weeks and state.hp < self.options.hp and dice is not None:
                source = dice(f"heal:{cid}")
                faces = source.roll(weeks, 6)
                healed = min(sum(faces), self.options.hp - state.hp)
                events.append(
                    Healed(character=cid, weeks=weeks, dice=faces, healed=healed, **source.fields())
                )
        return events

    @applies(LuckUsed)
    def on_luck(self, state: State, event: LuckUsed) -> State:
        if state.luck_used:
            raise RuleError(f"{state.name} already used luck this scene")
        return msgspec.structs.replace(state, luck_used=True)

    @applies(Secret)
    def on_secret(self, state: State, event: Secret) -> State:
        return msgspec.structs.replace(state, secret=state.secret + event.value)

    @applies(Improved)
    def on_improved(self, state: State, event: Improved) -> State:
        skills = dict(state.skills)
        if event.improved:
            skills[event.skill] += 1
        return msgspec.structs.replace(
            state, skills=skills, advanced=[*state.advanced, event.for_session]
        )

    def advance(self, states, session, session_events, dice, choices):
        """Each character who rolled in the session rolls a d6 per skill used."""
        events = []
        for cid, state in states.items():
            if session in state.advanced:
                continue
            used = sorted(
                {
                    e.data.skill
                    for e in session_events
                    if isinstance(e.data, ToyRolled) and e.data.character == cid
                }
            )
            for skill in used:
                source = dice(f"advance:{cid}:{skill}")
                die = source.d(6)
                events.append(
                    Improved(
                        character=cid,
                        skill=skill,
                        for_session=session,
                        die=die,
                        improved=die > state.skills[skill],
                        **source.fields(),
                    )
                )
        return events

    @applies(SceneEnded)
    def on_scene_end(self, state: State, event: SceneEnded) -> State:
        return msgspec.structs.replace(state, luck_used=False)

    def sheet_view(self, state: State, *, as_gm: bool) -> dict[str, Any]:
        view = msgspec.to_builtins(state)
        if not as_gm:
            view.pop("secret")
        return view

    def odds(self, params: dict[str, Any]) -> dict[str, Any]:
        from fractions import Fraction

        target = params.get("target", 7)
        hits = sum(1 for a in range(1, 7) for b in range(1, 7) if a + b >= target)
        return {"target": target, "success": str(Fraction(hits, 36))}


class ToyPlugin:
    @hookimpl
    def register_rule_systems(self, register):
        register(Toy())
