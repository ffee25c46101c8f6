"""Opponents on the ledger: a roll against another character, recorded on both streams.

Played with the Wyrd Engine's "Example Attack" (000_60e07241544698f0.txt, "Attacking and
Defending"): "Jonathan Blackwood swings a cane at an enemy thug. He rolls 4dF +2 (Fight),
while the thug rolls 4dF +1 (Athletics) to dodge. If Jonathan's result is higher, the hit
lands." The thug is an NPC on the ledger (`campaign npc add Thug --skill Athletics=1`).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import msgspec
import pytest
from freezegun import freeze_time

from ledger.campaign.aggregate import open_campaign
from ledger.store.sqlite import Pending, Store
from ledger.testing import as_json, ok, refused
from ledger.testing import run_cli as run

CAMPAIGN = Path(__file__).resolve().parents[1] / "campaigns" / "grand-casebook"
AT = "2026-03-01T19:30:00.000000Z"


@pytest.fixture
def street(tmp_path: Path) -> Path:
    """Jonathan (Fight +2), Julian, and the Thug of the Example Attack (Athletics +1)."""
    db = tmp_path / "street.db"
    with freeze_time("2026-03-01 19:00:00", tick=True):
        ok(db, "new", "casebook", "--system", "wyrd-engine")
        for stem in ("jonathan", "julian"):
            ok(db, "character", "add", "--sheet", str(CAMPAIGN / "characters" / f"{stem}.toml"))
        ok(db, "npc", "add", "Thug", "--skill", "Athletics=1", "--skill", "Fight=1")
        ok(db, "session", "start")
    return db


def versions(db: Path) -> dict[str, int]:
    """``{stream: version}`` from the GM's log."""
    out: dict[str, int] = {}
    for item in as_json(db, "log", "--as", "gm"):
        out[item["stream"]] = out.get(item["stream"], 0) + 1
    return out


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_example_attack_against_the_thug_on_the_ledger(street: Path) -> None:
    """Jonathan 4dF+2 (Fight) against the thug's 4dF+1 (Athletics, from his sheet): with
    faces + · + · and · · · ·, 4 against 1, the hit lands for 3 (ruling C5)."""
    before = versions(street)
    out = as_json(street, "roll", "jonathan", "fight", "--vs-character", "thug", "--attack",
                  "--dice", "+0+0 0000")  # fmt: skip
    assert (out["total"], out["opposition"], out["opposition_total"]) == (4, 1, 1)
    assert (out["vs_character"], out["vs_skill"], out["vs_rating"]) == ("thug", "Athletics", 1)
    assert (out["outcome"], out["damage"], out["opponent"]) == ("hit", 3, "Thug")
    assert out["opposition_dice"] == [0, 0, 0, 0]  # the opponent's dice are in the record
    [side] = out["batch"]
    assert side == {"seq": out["seq"] + 1, "type": "contest.opposed", "stream": "thug",
                    "character": "thug", "roller": "jonathan", "roll": out["seq"]}  # fmt: skip
    after = versions(street)
    assert after["jonathan"] == before["jonathan"] + 1
    assert after["thug"] == before["thug"] + 1  # one batch touches both streams
    thug_log = as_json(street, "log", "--character", "thug")
    assert [e["type"] for e in thug_log][-1] == "contest.opposed"
    text = ok(street, "log", "--character", "thug").output
    assert "opposes Jonathan Blackwood's roll" in text
    assert "OK" in ok(street, "verify").output


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_the_opponents_state_counts_wounds_and_traits(street: Path) -> None:
    """The thug's wound on Athletics takes 1 off his dodge ("Damage: Stress and Wounds");
    a trait he invokes adds +2 ("How Traits Work")."""
    ok(street, "record", "wound-inflicted", "--character", "thug", "--severity", "mild",
       "--affected-skills", "Athletics")  # fmt: skip
    out = as_json(street, "roll", "jonathan", "fight", "--vs-character", "thug", "--attack",
                  "--dice", "0000 0000")  # fmt: skip
    assert (out["vs_rating"], out["vs_wound_penalty"], out["opposition"]) == (1, 1, 0)
    assert (out["total"], out["opposition_total"], out["damage"]) == (2, 0, 2)
    # Jonathan's own cane is a permission: no bonus, and the rules say so for him too
    out = as_json(street, "roll", "julian", "fight", "--vs-character", "jonathan",
                  "--vs-skill", "fight", "--dice", "0000 0000")  # fmt: skip
    assert (out["mode"], out["vs_skill"], out["opposition"]) == ("contest", "Fight", 2)


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_apply_records_the_hit_and_its_damage_in_one_batch(street: Path) -> None:
    out = as_json(street, "roll", "jonathan", "fight", "--vs-character", "thug", "--attack",
                  "--apply", "--dice", "+0+0 0000")  # fmt: skip
    kinds = [(e["type"], e["stream"]) for e in out["batch"]]
    assert kinds == [("contest.opposed", "thug"), ("wyrd-engine.damage_taken", "thug")]
    assert out["batch"][1]["amount"] == 3
    sheet = as_json(street, "sheet", "thug")
    assert sheet["stress"]["marked"] == 3
    log = ok(street, "log").output.splitlines()
    roll_line = next(i for i, line in enumerate(log) if "attacks Thug" in line)
    assert log[roll_line + 1].startswith("  ↳ ") and "opposes" in log[roll_line + 1]
    assert log[roll_line + 2].startswith("  ↳ ") and "3 damage" in log[roll_line + 2]
    # a miss applies nothing, and says nothing of harm
    out = as_json(street, "roll", "jonathan", "fight", "--vs-character", "thug", "--attack",
                  "--apply", "--dice", "---- ++++")  # fmt: skip
    assert out["outcome"] == "miss" and [e["type"] for e in out["batch"]] == ["contest.opposed"]


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_a_failed_defence_applies_the_harm_to_the_roller(street: Path) -> None:
    """Julian defends with Athletics against the thug's Fight +1 (his default when
    attacking); the thug's + + · · beats him, and the harm goes on Julian."""
    out = as_json(street, "roll", "julian", "athletics", "--vs-character", "thug", "--defend",
                  "--apply", "--dice", "0000 ++00")  # fmt: skip
    assert (out["vs_skill"], out["outcome"], out["damage"]) == ("Fight", "hit", 3 - out["total"])
    harm = out["batch"][1]
    assert (harm["type"], harm["character"]) == ("wyrd-engine.damage_taken", "julian")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--vs-character", "jonathan", "--attack"), "cannot oppose their own roll"),
        (("--vs-skill", "athletics", "--vs", "1"), "--vs-skill"),
        (("--attack", "--vs", "1", "--apply"), "--apply"),
        (("--vs-character", "thug", "--apply"), "applying the harm is for an attack or a defence"),
        (("--vs-character", "thug", "--vs", "1"), "not both"),
        (("--vs-character", "thug", "--dr", "good"), "not both"),
        (("--vs-character", "nobody"), "no character 'nobody'"),
        (("--vs-character", "thug", "--vs-skill", "juggling"), "no skill 'juggling'"),
        (("--vs-character", "thug", "--vs-trait", "Hidden Derringer"), "no trait"),
        (("--vs-trait", "Reinforced Cane", "--vs", "1"), "--vs-trait"),
    ],
)
@freeze_time("2026-03-01 19:10:00", tick=True)
def test_refused_contests_write_nothing(street: Path, args: tuple[str, ...], words: str) -> None:
    output = refused(street, "roll", "jonathan", "fight", *args, "--dice", "0000 0000")
    assert words in output


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_a_dead_opponent_cannot_oppose(street: Path) -> None:
    ok(street, "record", "death-recorded", "--character", "thug")
    assert "dead" in refused(street, "roll", "jonathan", "fight", "--vs-character", "thug",
                             "--dice", "0000 0000")  # fmt: skip


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_engine_dice_for_both_sides_verify_after_the_session(street: Path) -> None:
    out = as_json(street, "roll", "jonathan", "fight", "--vs-character", "thug", "--attack")
    assert out["source"] == "engine" and len(out["draws"]) == 8  # both sides' 4dF
    ok(street, "session", "end")
    text = ok(street, "verify").output
    assert "OK" in text and "1 engine roll" in text


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_audit_and_corrections_use_the_opponent_as_of_the_roll(street: Path) -> None:
    out = as_json(street, "roll", "jonathan", "fight", "--vs-character", "thug", "--attack",
                  "--dice", "0000 0000")  # fmt: skip
    seq = out["seq"]
    # later harm to the thug changes nothing of the recorded roll
    ok(street, "record", "wound-inflicted", "--character", "thug", "--severity", "mild",
       "--affected-skills", "Athletics")  # fmt: skip
    assert as_json(street, "audit", str(seq))["verdict"] == "recorded"
    # faces amended: resolved again against the thug as he was then (no wound)
    ok(street, "correct", str(seq), "--dice", "++00 0000", "--reason", "misread")
    entry = as_json(street, "log")[-1]
    assert entry["data"]["data"]["total"] == 4 and entry["data"]["data"]["opposition"] == 1
    # who opposed cannot be amended, and the opponent's side is corrected through the roll
    assert "cannot be amended" in refused(street, "correct", str(seq), "--set",
                                          "vs_character=julian", "--reason", "x")  # fmt: skip
    assert f"correct roll {seq}" in refused(street, "correct", str(seq + 1), "--reason", "x")
    assert "OK" in ok(street, "verify").output


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_blind_contest_hides_both_sides_from_players(street: Path) -> None:
    out = as_json(street, "roll", "jonathan", "fight", "--vs-character", "thug", "--blind")
    assert out["visibility"] == "gm"
    player = {e["seq"]: e for e in as_json(street, "log", "--as", "player")}
    for seq in (out["seq"], out["seq"] + 1):  # both sides are stubs: seq and hash only
        assert set(player[seq]) == {"seq", "hash", "redacted"}
    gm = as_json(street, "log", "--as", "gm")
    assert [e["visibility"] for e in gm[-2:]] == ["gm", "gm"]


# --- forgery --------------------------------------------------------------------------------


def _forge(db: Path, events: list[Any]) -> None:
    """Append events straight into the store, past the rules (what a forger with the file
    and the code could do): chained, so only the rules can find them out."""
    store = Store(str(db))
    campaign = open_campaign(store)
    with store.transaction():
        store.append(campaign.id, [Pending(e) for e in events], actor="forger",
                     recorded_at=AT, session=1)  # fmt: skip


def _roll(db: Path, **changes: Any) -> Any:
    """The contest roll as the rules record it, then ``changes`` forged into it."""
    store = Store(str(db))
    campaign = open_campaign(store)
    rec = campaign.roll("jonathan", "fight", {"attack": True}, faces="+0+0 0000",
                        opponent="thug", actor="gm", at=AT).roll  # fmt: skip
    return rec, msgspec.structs.replace(rec.data, **changes)


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_forged_contest_result_is_caught_by_verify(street: Path) -> None:
    """The thug really dodges at +1: a roll recording him at +3 (a 'miss') re-derives to a
    hit from his sheet, and verify names the fields."""
    from ledger.events import ContestOpposed

    store = Store(str(street))
    head = store.head("casebook").seq
    _, forged = _roll(street, vs_rating=3, opposition=3, opposition_total=3, margin=1,
                      outcome="hit", damage=1)  # fmt: skip
    _forge(street, [forged, ContestOpposed(character="thug", roller="jonathan", roll=head + 3)])
    result = run(street, "verify")
    assert result.exit_code == 1
    assert f"seq {head + 3}" in result.output or str(head + 3) in result.output
    assert "does not follow" in result.output
    assert "recorded damage 1" in result.output and "the rules give damage 3" in result.output


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_forged_opponent_is_caught_by_verify(street: Path) -> None:
    """A roll made against the thug, rewritten as against the Bruiser (Athletics +3), no
    longer follows from the Bruiser's sheet; rewritten as against Jonathan himself, the
    rules refuse it. A forger who rewrites the opponent but not what the roll was asked
    (its ``inputs``) is caught too: the roll no longer follows from its own inputs."""
    from ledger.events import ContestOpposed

    ok(street, "npc", "add", "Bruiser", "--skill", "Athletics=3")
    cases = [("bruiser", True, "recorded damage 3"), ("jonathan", True, "their own roll")]
    cases += [(who, False, "for its inputs and dice") for who in ("bruiser", "jonathan")]
    for who, asked_too, words in cases:
        db = street.with_name(f"{who}-{asked_too}.db")
        with sqlite3.connect(street) as src, sqlite3.connect(db) as dst:
            src.backup(dst)
        head = Store(str(db)).head("casebook").seq
        _, forged = _roll(db, vs_character=who)
        if asked_too:  # the roll's inputs say it was asked against them too
            inputs = msgspec.structs.replace(forged.inputs, vs_character=who)
            forged = msgspec.structs.replace(forged, inputs=inputs)
        _forge(db, [forged, ContestOpposed(character=who, roller="jonathan", roll=head + 3)])
        result = run(db, "verify")
        assert result.exit_code == 1 and "does not follow" in result.output, result.output
        assert words in result.output, (who, asked_too, result.output)


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_a_contest_without_its_other_side_is_caught(street: Path) -> None:

    head = Store(str(street)).head("casebook").seq
    rec, same = _roll(street)
    _forge(street, [same])  # the roll again, with no contest.opposed after it
    result = run(street, "verify")
    assert result.exit_code == 1 and "contest.opposed" in result.output
    assert rec.seq == head + 1


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_a_stray_contest_opposed_is_refused_and_caught(street: Path) -> None:
    from ledger.errors import RuleError
    from ledger.events import ContestOpposed

    stray = ContestOpposed(character="thug", roller="jonathan", roll=3)
    campaign = open_campaign(Store(str(street)))
    with pytest.raises(RuleError, match="against a character on the ledger"):
        campaign.append([stray], actor="gm", at=AT)
    _forge(street, [stray])
    result = run(street, "verify")
    assert result.exit_code == 1 and "contest.opposed" in result.output


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_both_streams_are_checked_at_their_versions(street: Path, monkeypatch: Any) -> None:
    """The batch carries both streams' expected versions, read with the states it used."""
    store = Store(str(street))
    campaign = open_campaign(store)
    seen: list[dict[str, int] | None] = []
    real = store.append

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(kwargs.get("expected_versions"))
        return real(*args, **kwargs)

    monkeypatch.setattr(store, "append", spy)
    jon, thug = (store.stream_version("casebook", s) for s in ("jonathan", "thug"))
    campaign.roll("jonathan", "fight", {"attack": True}, faces="0000 0000", opponent="thug",
                  actor="gm", at=AT)  # fmt: skip
    assert seen == [{"jonathan": jon, "thug": thug}]


# --- a hit's harm (--apply) is part of its roll: corrected with it --------------------


def _apply_hit(db: Path) -> tuple[int, int]:
    """Jonathan's cane hits the thug for 3 (+ · + · against · · · ·), applied: (roll, harm)."""
    out = as_json(db, "roll", "jonathan", "fight", "--vs-character", "thug", "--attack",
                  "--apply", "--dice", "+0+0 0000")  # fmt: skip
    link, harm = out["batch"]
    assert link["harm"] == harm["seq"] == out["seq"] + 2 and harm["amount"] == 3
    return out["seq"], harm["seq"]


def _stress(db: Path, who: str = "thug") -> int:
    return int(as_json(db, "sheet", who)["stress"]["marked"])


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_retracting_an_applied_hit_retracts_its_harm(street: Path) -> None:
    roll, harm = _apply_hit(street)
    assert _stress(street) == 3
    out = ok(street, "correct", str(roll), "--reason", "the thug was never there").output
    assert _stress(street) == 0  # the harm went with the roll
    marks = {e["seq"]: e for e in as_json(street, "log")}
    correction = marks[max(marks)]["data"]
    assert correction["target"] == roll and correction["companions"] == {str(harm): None}
    lines = ok(street, "log").output.splitlines()
    assert any(f"[{harm}] Thug — takes 3 damage  (retracted)" in line for line in lines)
    assert f"its harm (event {harm}) no longer counts" in out
    assert "OK" in ok(street, "verify").output
    # undoing the retraction brings both back
    ok(street, "correct", str(max(marks)), "--reason", "he was")
    assert _stress(street) == 3
    assert "OK" in ok(street, "verify").output


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_amending_an_applied_hit_amends_or_retracts_its_harm(street: Path) -> None:
    roll, harm = _apply_hit(street)
    # the thug's dice were misread: + · · · gives him 2 against 4, a hit for 2
    out = ok(street, "correct", str(roll), "--dice", "+0+0 +000", "--reason", "misread").output
    assert f"its harm (event {harm}) now: Thug — takes 2 damage" in out
    assert _stress(street) == 2
    # and again: + + + + gives him 5, a miss, so no harm at all
    ok(street, "correct", str(roll), "--dice", "+0+0 ++++", "--reason", "misread again")
    assert _stress(street) == 0
    # back to a hit: the harm counts again, at the amended amount
    ok(street, "correct", str(roll), "--dice", "++++ 0000", "--reason", "third look")
    assert _stress(street) == 5
    assert "OK" in ok(street, "verify").output
    # the same faces again change nothing of the harm
    before = as_json(street, "log")[-1]["seq"]
    ok(street, "correct", str(roll), "--dice", "++++ 0000", "--reason", "same")
    assert "companions" not in as_json(street, "log")[-1]["data"]
    assert as_json(street, "log")[-1]["seq"] == before + 1 and _stress(street) == 5


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_the_harm_of_a_hit_is_corrected_only_through_its_roll(street: Path) -> None:
    roll, harm = _apply_hit(street)
    for args in (("--reason", "x"), ("--set", "amount=1", "--reason", "x")):
        words = refused(street, "correct", str(harm), *args)
        assert f"event {harm} is the harm roll {roll} applied" in words
        assert f"correct roll {roll} instead" in words
    assert _stress(street) == 3


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_forged_harm_of_a_hit_is_caught_by_verify(street: Path) -> None:
    """A forger who writes 6 harm for a hit of 3 (re-chained, past the rules) is named."""
    from ledger.events import ContestOpposed

    head = Store(str(street)).head("casebook").seq
    campaign = open_campaign(Store(str(street)))
    _, real = _roll(street)
    thug = campaign.state_of("thug")
    forged_harm = campaign.harm_event(thug, "thug", 6)
    # the rules' own batch is head + 1, head + 2; the forger's roll, link and harm follow
    _forge(street, [real, ContestOpposed(character="thug", roller="jonathan", roll=head + 3,
                                         harm=head + 5), forged_harm])  # fmt: skip
    result = run(street, "verify")
    assert result.exit_code == 1
    assert f"event {head + 5} records harm" in result.output and "'amount': 3" in result.output


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_a_correction_cannot_retract_other_events_as_companions(street: Path) -> None:
    """companions name only the harm the target roll applied: a forged correction that
    retracts an unrelated wound along with a roll is caught."""
    from ledger.events import Corrected

    roll, harm = _apply_hit(street)
    ok(street, "record", "wound-inflicted", "--character", "julian", "--severity", "mild",
       "--affected-skills", "Athletics")  # fmt: skip
    wound = as_json(street, "log")[-1]["seq"]
    _forge(street, [Corrected(target=roll, action="retract", reason="x",
                              companions={str(harm): None, str(wound): None})])  # fmt: skip
    result = run(street, "verify")
    assert result.exit_code == 1 and "not the harm or follow-ups" in result.output
    assert str(wound) in result.output


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_undo_of_an_applied_hit_retracts_the_roll_and_its_harm(street: Path) -> None:
    """`campaign undo` takes the whole entry: the last event written is the harm, but the
    roll it is part of is what goes, and its harm with it."""
    roll, harm = _apply_hit(street)
    out = ok(street, "undo", "--yes", "--reason", "wrong thug").output
    assert f"event {roll} retracted" in out and f"its harm (event {harm}) no longer counts" in out
    assert _stress(street) == 0
    # a contest without harm: its last event is the thug's side, and the roll goes
    out = as_json(street, "roll", "jonathan", "fight", "--vs-character", "thug", "--attack",
                  "--dice", "---- ++++")  # fmt: skip
    undone = as_json(street, "undo", "--yes", "--reason", "again")
    assert undone["target"] == out["seq"]
    assert "OK" in ok(street, "verify").output


def test_a_roll_the_rules_resolve_against_no_one_is_refused_in_one_line(bundled):
    """decision-dice resolves `--vs-character` rolls against no one: this once crashed
    with "unexpected TypeError ... resolve was given an opponent"; now one line, exit 1,
    nothing written, for every system whose rules do so."""
    from ledger.testing import refused

    db = bundled("the-salt-road")
    with freeze_time("2026-03-01 19:00:00"):
        out = refused(db, "roll", "jen", "climbing kit", "--vs-character", "oskar", "--dice", "4")
    assert "does not resolve this roll against a character" in out
    assert "--vs-character" in out and len(out.strip().splitlines()) == 1
