"""A realistic d20-world campaign mix for the benchmarks (not a test).

Six characters built from the sheets of campaigns/the-world play session after session:
checks (physical d20 rolls), experience marked by hand, hidden bond favour (GM-only), harm
(damage, the owed shock roll, healing), bonds called upon and conditions, inside scenes.
Every event is valid for the d20-world rules, so the replay exercises the real appliers.

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
    CheckRolled,
    ConditionAdded,
    ConditionEnded,
    DamageTaken,
    ExperienceMarked,
    FavourChanged,
    ShockRolled,
    WoundHealed,
)

from ledger.events import Event, SceneEnded, SceneStarted, SessionEnded, SessionStarted

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
    def __init__(self, sheet: dict[str, Any]) -> None:
        self.id: str = sheet["id"]
        self.skills = [(s["name"], int(s["proficiency"])) for s in sheet.get("skills", [])]
        self.skills = [(n, p) for n, p in self.skills if n != "Mending"]  # no spells: no jinx
        self.bonds = [b["name"] for b in sheet.get("bonds", [])]
        self.wounds = 0
        self.condition = False


def _check(rng: random.Random, c: _Char) -> CheckRolled:
    skill, prof = rng.choice(c.skills)
    face = rng.randint(1, 20)
    total = face + prof
    outcome = "good" if total >= 15 else "messy" if total >= 10 else "bad"
    xp = 0 if outcome == "good" else 2 if face == 1 else 1
    return CheckRolled(
        source="physical",
        draws=[(20, face)],
        character=c.id,
        skill=skill,
        proficiency=prof,
        known=True,
        time=True,
        has_skill=True,
        gate="normal",
        dice=[face],
        kept=face,
        total=total,
        outcome=outcome,
        experience=xp,
    )


def _action(rng: random.Random, c: _Char) -> list[Event]:
    r = rng.random()
    if r < 0.45:
        return [_check(rng, c)]
    if r < 0.60:
        skill = rng.choice(c.skills)[0]
        return [ExperienceMarked(character=c.id, skill=skill, amount=1, reason="practice")]
    if r < 0.75:
        return [
            FavourChanged(
                character=c.id, bond=rng.choice(c.bonds), delta=rng.choice((-1, 1)), reason="talk"
            )
        ]
    if r < 0.88:
        c.wounds += 1
        face = rng.randint(1, 6)
        return [
            DamageTaken(character=c.id, amount=1, description="a glancing blow"),
            ShockRolled(
                source="physical", draws=[(6, face)], character=c.id, die=face,
                wound_total=1, shock=face <= 1,
            ),
            WoundHealed(character=c.id, wound=c.wounds, amount=1),
        ]  # fmt: skip
    if r < 0.94:
        return [BondCalled(character=c.id, bond=rng.choice(c.bonds), request="a favour")]
    c.condition = not c.condition
    if c.condition:
        return [ConditionAdded(character=c.id, condition="winded", check_penalty=1)]
    return [ConditionEnded(character=c.id, condition="winded")]


def sessions(
    total: int, *, characters: int = 6, seed: int = 7
) -> Iterator[tuple[int, list[Event]]]:
    """``total`` events (rounded up to whole sessions) in sessions of :data:`SESSION_EVENTS`.

    Deterministic for a ``seed``. Characters must already exist (see :func:`character_sheets`).
    """
    rng = random.Random(seed)
    chars = [_Char(s) for s in character_sheets(characters)]
    made = 0
    number = 0
    while made < total:
        number += 1
        secret = hashlib.sha256(f"{seed}:{number}".encode()).digest()
        batch: list[Event] = [
            SessionStarted(number=number, seed_commitment=hashlib.sha256(secret).hexdigest())
        ]
        in_scene, scene_len = False, 0
        while len(batch) < SESSION_EVENTS - 1:
            room = SESSION_EVENTS - 1 - len(batch)
            if not in_scene:
                batch.append(SceneStarted(title="scene"))
                in_scene, scene_len = True, 0
            elif scene_len >= SCENE_EVENTS or room == 1:
                batch.append(SceneEnded(title="scene"))
                in_scene = False
            else:
                c = rng.choice(chars)
                events = _action(rng, c) if room >= 4 else [_check(rng, c)]
                batch.extend(events)
                scene_len += len(events)
        batch.append(SessionEnded(number=number, seed_reveal=secret.hex()))
        made += len(batch)
        yield number, batch
