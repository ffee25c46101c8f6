"""d20-world, Terran Engine and Wyrd Engine rolls keep their inputs by option name: a
new roll records what it was asked (``inputs``), the core's default ``request_of`` reads it
back, and a roll written before (schema version 1: no ``inputs``, read back by each system's
own ``request_of``) is upcast on read, its inputs rebuilt from its fields, while its stored
bytes, and so every hash, stay as they were. ``correct --set OPTION=VALUE`` amends an old
roll and a new one alike.

The old ledgers are the exports of tests/plugins/data (its README says how they were made),
each with the request every roll was read back as then.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from click.testing import CliRunner
from ledger_d20_world.rules import parse_invocations

from ledger.campaign.aggregate import open_campaign
from ledger.cli import cli
from ledger.events import Roll
from ledger.store.opening import open_store

DATA = Path(__file__).parent / "data"
#: system id → (fixture directory, export name, campaign id)
LEDGERS = {
    "d20-world": ("d20-world-v1", "world", "world"),
    "terran-engine": ("terran-engine-v1", "marches", "marches"),
    "wyrd-engine": ("wyrd-engine-v1", "casebook", "casebook"),
}
SYSTEMS = sorted(LEDGERS)


def run(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result.output


def export(system: str) -> Path:
    folder, name, _ = LEDGERS[system]
    return DATA / folder / f"{name}.gm.ndjson"


def events_of(text: str) -> list[str]:
    """The event lines of a GM export (its checkpoints left out)."""
    return [line for line in text.splitlines() if not line.startswith('{"kind"')]


def imported(system: str, db: str) -> str:
    """``db`` with the old export imported (every roll re-derived on the way in)."""
    out = run("--db", db, "import", str(export(system)))
    assert "chain and rolls verified" in out, out
    return db


def verified(db: str) -> dict[str, Any]:
    answer = json.loads(run("--db", db, "--as", "gm", "verify", "--json"))
    assert answer["ok"], answer
    return answer


def rolls(db: str, system: str) -> dict[int, Any]:
    """``{seq: (roll event, its request)}`` as today's code reads them (upcast), with the
    amended payload in force for a corrected one."""
    store = open_store(db)
    try:
        campaign = open_campaign(store, LEDGERS[system][2])
        out = {}
        for record in campaign.records():
            if isinstance(record.data, Roll):
                try:
                    read: Any = campaign.system.request_of(record.data)
                except Exception as e:  # an advancement roll: made by advance, not resolve
                    read = e
                out[record.seq] = (record.data, read)
        return out
    finally:
        store.close()


def amended(db: str, system: str, seq: int) -> dict[str, Any]:
    store = open_store(db)
    try:
        return open_campaign(store, LEDGERS[system][2]).corrections().amended[seq]
    finally:
        store.close()


def last_row(db: str, system: str) -> dict[str, Any]:
    store = open_store(db)
    try:
        return json.loads(list(store.rows(LEDGERS[system][2]))[-1].data)
    finally:
        store.close()


def same(system: str, params: dict[str, Any]) -> dict[str, Any]:
    """Request options as the rules act on them: a switch not given and no Dark Dice left
    out (an old ``request_of`` gave every switch), several values as a list, a d20-world
    trait as its invocations (typed as ``NAME:help`` today, read back as entries then), a
    Wyrd Engine trait as a list of the one invoked."""
    out = {}
    for key, value in params.items():
        if value is False or value is None or (key == "dark" and value == 0):
            continue
        if key == "trait" and system == "d20-world":
            value = msgspec.to_builtins(parse_invocations(value))
        elif key == "trait" and isinstance(value, str):
            value = [value]
        out[key] = list(value) if isinstance(value, tuple) else value
    return out


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_old_ledger_imports_verifies_and_exports_byte_for_byte(system, store_target):
    db = imported(system, store_target)
    answer = verified(db)
    assert answer["results_rederived"] >= 12
    again = run("--db", db, "--as", "gm", "export")
    assert events_of(again) == events_of(export(system).read_text())  # never rewritten
    assert '"inputs"' not in export(system).read_text()  # version 1 rolls, as written


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_old_roll_reads_back_the_request_it_was_read_back_as(system, tmp_path):
    folder, name, _ = LEDGERS[system]
    then = json.loads((DATA / folder / f"{name}.requests.json").read_text())
    now = rolls(imported(system, str(tmp_path / "old.db")), system)
    assert sorted(now) == sorted(map(int, then))
    for seq, (event, read) in now.items():
        was = then[str(seq)]
        if "refused" in was:  # an advancement roll: it has no request, then or now
            assert isinstance(read, Exception) and event.inputs is msgspec.UNSET
            continue
        assert event.inputs is not msgspec.UNSET, seq
        assert read.skill == was["skill"], seq
        assert same(system, read.params) == same(system, was["params"]), seq
        opponent = was["opponent"]
        assert (read.opponent and (read.opponent.character, read.opponent.skill)) == (
            opponent and (opponent["character"], opponent["skill"])
        ), seq


#: system → (old roll, ``--set``, ``--dice`` or None, {amended field: value})
OLD_AMENDMENTS = {
    # Isa's Lockpicking with time (16): help from Bram gives advantage, a second d20
    "d20-world": (6, "help_from=bram", "16,3", {"mode": "advantage", "kept": 16}),
    # Kit's axe held two-handed (1d+1: 6, 6, 2 = 15) is a plain 1d: 14
    "terran-engine": (16, "twohands=false", None, {"code": "1d", "value": 14, "twohands": False}),
    # Julian's Investigate 4 against Good (+2), margin 2; against Great (+3) margin 1
    "wyrd-engine": (6, "dr=3", None, {"dr": 3, "dr_name": "Formidable", "margin": 1}),
}


@pytest.mark.parametrize("system", SYSTEMS)
def test_an_old_roll_is_amended_by_option_name(system, tmp_path):
    db = imported(system, str(tmp_path / "old.db"))
    seq, setting, faces, fields = OLD_AMENDMENTS[system]
    option, _, value = setting.partition("=")
    args = ["--db", db, "correct", str(seq), "--set", setting, "--reason", "misheard"]
    run(*args, *(["--dice", faces] if faces else []))
    payload = amended(db, system, seq)
    assert json.dumps(payload["inputs"]["params"][option]).strip('"') == value
    assert {k: payload[k] for k in fields} == fields
    verified(db)


#: system → (a new roll, the option amended, {amended field: value})
NEW_ROLLS = {
    "d20-world": (("isa", "Forage", "--time", "--dice", "12"), "disadvantage=true",
                  {"mode": "disadvantage", "kept": 3}),
    "terran-engine": (("jen", "effect", "--weapon", "sword", "--dice", "4"), "twohands=true",
                      {"code": "1d+1", "value": 5, "twohands": True}),
    "wyrd-engine": (("julian", "notice", "--dr", "fair", "--dice", "+--0"), "dr=2",
                    {"dr": 2, "margin": -1, "outcome": "failure"}),
}  # fmt: skip


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_new_roll_keeps_its_inputs_and_is_amended_by_option_name(system, tmp_path):
    db = imported(system, str(tmp_path / "old.db"))
    run("--db", db, "session", "start")
    roll, setting, fields = NEW_ROLLS[system]
    run("--db", db, "roll", *roll)
    payload = last_row(db, system)
    assert payload["schema_version"] == 2
    assert payload["inputs"]["skill"] == roll[1] and "--" not in json.dumps(payload["inputs"])
    seq = max(rolls(db, system))
    faces = ["--dice", "12,3"] if system == "d20-world" else []  # a second d20 to keep
    run("--db", db, "correct", str(seq), "--set", setting, "--reason", "misheard", *faces)
    fixed = amended(db, system, seq)
    option, _, value = setting.partition("=")
    assert json.dumps(fixed["inputs"]["params"][option]).strip('"') == value
    assert {k: fixed[k] for k in fields} == fields
    verified(db)
