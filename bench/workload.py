"""A realistic d20-world campaign mix for the benchmarks (not a test).

Six characters built from the sheets of campaigns/the-world play session after session:
checks (physical d20 rolls), experience marked by hand, hidden bond favour (GM-only), harm
(damage, the owed shock roll, healing), bonds called upon and conditions, inside scenes.
Every event is valid for the d20-world rules and every roll's result is the rules' own
(``resolve`` against the state the log leaves before it), so the ledger verifies and the
replay exercises the real appliers.

:func:`sessions` yields ``(session number, [event, ...])`` with ``session.started`` first and
``session.ended`` last, :data:`SESSION_EVENTS` events a session (one append batch each).
"""

from __future__ import annotations

import hashlib
import random
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ledger_d20_world.events import (
    BondCalled,
    ConditionAdded,
    ConditionEnded,
    DamageTaken,
    ExperienceMarked,
    FavourChanged,
    WoundHealed,
)

from ledger.dice.engine import PhysicalDice
from ledger.events import Event, SceneEnded, SceneStarted, SessionEnded, SessionStarted
from ledger.rules.roll_inputs import RollRequest

ROOT = Path(__file__).resolve().parent.parent
SHEETS = ROOT / "campaigns" / "the-world" / "characters"
SESSION_EVENTS = 1000
SCENE_EVENTS = 50
CAMPAIGN = "bench"
SYSTEM = "d20-world"


def character_sheets(count: int = 6) -> list[dict[str, Any]]:
    """``count`` sheets (TOML dicts with ``id``) cycling over Isa and Bram."""
    base = [tomllib.loads((SHEETS / f"{n}.toml").read_text()) for n in ("isa", "bram")]
    out = []
    for i in range(count):
        sheet = dict(base[i % 2])
        stem = sheet["name"].split()[0].lower()
        sheet["id"] = stem if i < 2 else f"{stem}-{i // 2 + 1}"
        sheet["name"] = sheet["name"] if i < 2 else f"{sheet['name']} {i // 2 + 1}"
        out.append(sheet)
    return out


class _Char:
    """One character of the workload and its state by the d20-world rules (folded as the
    events are made, so every roll is resolved against the state it will be checked with)."""

    def __init__(self, sheet: dict[str, Any], system: Any) -> None:
        self.id: str = sheet["id"]
        self.skills = [s["name"] for s in sheet.get("skills", []) if s["name"] != "Mending"]
        self.bonds = [b["name"] for b in sheet.get("bonds", [])]  # no spells: no jinx
        rest = {k: v for k, v in sheet.items() if k not in ("id", "name", "player")}
        self.name: str = sheet["name"].strip()
        self.state: Any = system.initial_state(self.id, self.name, system.create_sheet(rest))


class _Rules:
    """The d20-world rules the workload plays by: ``resolve`` for every roll (physical dice
    with the workload's faces), the appliers for every event (a refusal raises
    :class:`ledger.RuleError` here, so the workload never holds an event the rules refuse)."""

    def __init__(self) -> None:
        from ledger.campaign.aggregate import load_system

        self.system = load_system(SYSTEM)
        self.appliers = self.system.appliers()

    def roll(self, c: _Char, skill: str | None, params: dict[str, Any], faces: list[int]) -> Any:
        """The roll the rules give for ``c``'s state and the physical ``faces``, keeping
        what it was asked (``inputs``), as ``campaign roll`` records it."""
        request = RollRequest(c.id, c.name, skill, params)
        event = self.system.resolve(c.state, request, PhysicalDice([str(f) for f in faces]))
        return self.system.with_inputs(event, request)

    def apply(self, chars: list[_Char], by_id: dict[str, _Char], event: Event) -> None:
        """Fold ``event`` into its character's state (a campaign-stream event: every state)."""
        fn = self.appliers.get(type(event))
        if fn is None:
            return
        who = getattr(event, "character", None)
        for c in [by_id[who]] if isinstance(who, str) else chars:
            c.state = fn(c.state, event)


def _action(rng: random.Random, rules: _Rules, c: _Char) -> Iterator[Event]:
    """One thing ``c`` does: the events it writes, in order. The caller folds each event
    before asking for the next, so a roll sees the state the events before it left."""
    r = rng.random()
    if r < 0.45:
        yield _check(rng, rules, c)
    elif r < 0.60:
        skill = rng.choice(c.skills)
        yield ExperienceMarked(character=c.id, skill=skill, amount=1, reason="practice")
    elif r < 0.75:
        bond, delta = rng.choice(c.bonds), rng.choice((-1, 1))
        yield FavourChanged(character=c.id, bond=bond, delta=delta, reason="talk")
    elif r < 0.88:
        face = rng.randint(1, 6)
        yield DamageTaken(character=c.id, amount=1, description="a glancing blow")
        yield rules.roll(c, None, {"shock": True}, [face])  # the shock roll the wound owes
        yield WoundHealed(character=c.id, wound=c.state.wounds[-1].number, amount=1)
    elif r < 0.94:
        yield BondCalled(character=c.id, bond=rng.choice(c.bonds), request="a favour")
    elif any(k.name == "winded" for k in c.state.conditions):
        yield ConditionEnded(character=c.id, condition="winded")
    else:
        yield ConditionAdded(character=c.id, condition="winded", check_penalty=1)


def _check(rng: random.Random, rules: _Rules, c: _Char) -> Event:
    """A check of one of ``c``'s skills with time (a physical d20), resolved by the rules
    ("Checks": penalties, band and experience as the state gives them)."""
    return rules.roll(c, rng.choice(c.skills), {"time": True}, [rng.randint(1, 20)])


def session_secret(number: int, *, seed: int = 7) -> bytes:
    """The 32-byte seed session ``number`` of the workload commits to (``session.started``)
    and reveals (``session.ended``): what ``campaign session start`` keeps in the secrets
    table while the session is open."""
    return hashlib.sha256(f"{seed}:{number}".encode()).digest()


def sessions(
    total: int, *, characters: int = 6, seed: int = 7
) -> Iterator[tuple[int, list[Event]]]:
    """``total`` events (rounded up to whole sessions) in sessions of :data:`SESSION_EVENTS`.

    Deterministic for a ``seed``. Characters must already exist (see :func:`character_sheets`)
    as :func:`character_sheets` gives them. Every roll's result is what d20-world's
    ``resolve`` gives for the state the campaign's log leaves just before it, so the ledger
    verifies (``campaign verify``: tests/test_bench_workloads.py).

    :raises ledger.RuleError: the rules refuse an event the workload made (a bug here).
    """
    rng = random.Random(seed)
    rules = _Rules()
    chars = [_Char(s, rules.system) for s in character_sheets(characters)]
    by_id = {c.id: c for c in chars}
    made = 0
    number = 0

    def add(batch: list[Event], event: Event) -> None:
        rules.apply(chars, by_id, event)
        batch.append(event)

    while made < total:
        number += 1
        secret = session_secret(number, seed=seed)
        batch: list[Event] = []
        commitment = hashlib.sha256(secret).hexdigest()
        add(batch, SessionStarted(number=number, seed_commitment=commitment))
        in_scene, scene_len = False, 0
        while len(batch) < SESSION_EVENTS - 1:
            room = SESSION_EVENTS - 1 - len(batch)
            if not in_scene:
                add(batch, SceneStarted(title="scene"))
                in_scene, scene_len = True, 0
            elif scene_len >= SCENE_EVENTS or room == 1:
                add(batch, SceneEnded(title="scene"))
                in_scene = False
            else:
                c = rng.choice(chars)
                for event in _action(rng, rules, c) if room >= 4 else [_check(rng, rules, c)]:
                    add(batch, event)
                    scene_len += 1
        add(batch, SessionEnded(number=number, seed_reveal=secret.hex()))
        made += len(batch)
        yield number, batch
