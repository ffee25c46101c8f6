"""`campaign time pass DURATION`: the campaign's own clock from the command line.

Bad durations are one line and exit 2 with nothing written; `--dry-run` lists every
consequence and writes nothing; `undo` takes a span with its consequences and the log
still verifies; a GM-only consequence never reaches a player.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from freezegun import freeze_time

from ledger.rules.spans import LONGEST, parse_duration, span_words
from ledger.testing import as_json, ok, refused
from ledger.testing import run_cli as run


@pytest.fixture
def world(tmp_path: Path, bundled) -> Path:
    """The bundled d20-world campaign (Isa Marrow, Bram Holloway), with Isa sick for six
    hours and Bram under a hidden curse for 90 minutes."""
    db = bundled("the-world", tmp_path / "world.db")
    with freeze_time("2026-03-01 19:00:00", tick=True):
        ok(db, "record", "condition-added", "--character", "isa", "--condition", "sick",
           "--capacity-delta", "-1", "--lasts-minutes", "360")  # fmt: skip
        ok(db, "record", "condition-added", "--character", "bram", "--condition", "Qzcursed",
           "--check-penalty", "1", "--lasts-minutes", "90", "--blind")  # fmt: skip
    return db


def head(db: Path) -> int:
    return int(as_json(db, "log", "--json")[-1]["seq"])


@pytest.mark.parametrize(
    ("text", "minutes"),
    [("90m", 90), ("8h", 480), ("3d", 3 * 1440), ("2w", 2 * 10080), ("1d12h", 2160),
     ("1d 12h", 2160), ("3 days", 4320), ("a week", 10080), ("6 hours", 360)],
)  # fmt: skip
def test_durations(text, minutes):
    assert parse_duration(text) == (minutes, False)


@pytest.mark.parametrize("text", ["", "8", "h8", "8x", "0h", "8h then", "-3d", "8h\x1b[2J"])
def test_bad_durations_name_the_accepted_forms(text):
    from ledger import RuleError

    with pytest.raises(RuleError, match="90m, 8h, 3d, 2w"):
        parse_duration(text)


def test_a_span_longer_than_ten_years_is_refused():
    from ledger import RuleError

    with pytest.raises(RuleError, match="ten years"):
        parse_duration(f"{LONGEST // 10080 + 1}w")


def test_span_words():
    assert [span_words(m) for m in (45, 120, 90, 4320, 9 * 1440, 0)] == [
        "45 min", "2 h", "1 h 30 min", "3 days", "1 week 2 days", "no time",
    ]  # fmt: skip


@freeze_time("2026-03-01 20:00:00", tick=True)
def test_a_bad_duration_is_one_line_exit_2_nothing_written(world):
    before = head(world)
    for bad in ("8x", "soon", "a fortnight", "99999999w"):
        result = run(world, "time", "pass", bad)
        assert result.exit_code == 2, result.output
        line = result.output.strip()
        assert len(line.splitlines()) == 1 and "90m, 8h, 3d, 2w" in line or "ten years" in line
        assert "a rest" in line or "ten years" in line  # the system's named spans too
    assert head(world) == before


@freeze_time("2026-03-01 20:00:00", tick=True)
def test_dry_run_lists_every_consequence_and_writes_nothing(world):
    before = head(world)
    out = ok(world, "--as", "gm", "time", "pass", "6h", "--dry-run").output
    assert "dry run" in out and "sick" in out and "Qzcursed" in out
    data = as_json(world, "--as", "gm", "time", "pass", "6h", "--dry-run", "--json")
    assert data["minutes"] == 360 and data["seq"] is None
    assert [c["type"] for c in data["consequences"]] == [
        "d20-world.condition_ended",
        "d20-world.hidden_condition_ended",
    ]
    assert head(world) == before


@freeze_time("2026-03-01 20:00:00", tick=True)
def test_a_player_never_sees_a_hidden_conditions_expiry(world):
    out = ok(world, "--as", "player", "time", "pass", "2h").output
    assert "Qzcursed" not in out and "sick" not in out  # nothing of Isa's ran out yet
    log = ok(world, "--as", "player", "log").output
    assert "Qzcursed" not in log and "Time passes: 2h" in log
    gm_log = ok(world, "--as", "gm", "log").output
    assert "hidden condition 'Qzcursed' ends" in gm_log or "Qzcursed" in gm_log


@freeze_time("2026-03-01 20:00:00", tick=True)
def test_undo_takes_the_span_and_its_consequences_and_the_log_verifies(world):
    out = ok(world, "--as", "gm", "time", "pass", "6h").output
    assert "Isa Marrow — condition 'sick' ends" in out
    assert "sick" not in ok(world, "sheet", "isa").output
    undone = as_json(world, "undo", "--yes", "--reason", "it was only an hour", "--json")
    span = undone["target"]
    types = {e["seq"]: e["type"] for e in as_json(world, "--as", "gm", "log")}
    assert types[span] == "time.passed"
    assert "6 h left" in ok(world, "sheet", "isa").output  # sick again, the clock back
    assert "OK" in ok(world, "verify").output
    ok(world, "time", "pass", "1h")
    assert "5 h left" in ok(world, "sheet", "isa").output


@freeze_time("2026-03-01 20:00:00", tick=True)
def test_a_forged_span_is_refused_by_record(world):
    before = head(world)
    out = refused(world, "record", "time.passed", "--minutes", "360", "--words", "6h",
                  "--consequences", "0")  # fmt: skip
    assert "time.passed" in out  # core events are not recorded by hand
    assert head(world) == before


@freeze_time("2026-03-01 20:00:00", tick=True)
def test_time_pass_json_gives_the_seqs(world):
    data = as_json(world, "--as", "gm", "time", "pass", "a rest", "--json")
    assert data["rest"] is True and data["words"] == "a rest" and data["seq"]
    assert all(c["seq"] for c in data["consequences"])
    assert json.dumps(data)


@freeze_time("2026-03-01 20:00:00", tick=True)
def test_recaps_and_advance_dry_run_mention_the_time_that_passed(world):
    ok(world, "session", "start")
    ok(world, "time", "pass", "6h")
    ok(world, "time", "pass", "a rest")
    ok(world, "time", "pass", "1d")
    ok(world, "undo", "--yes", "--reason", "not a whole day")  # a retracted span counts not
    ok(world, "session", "end")
    recap = ok(world, "recap", "--session", "3").output
    assert "In-fiction time: 14 h" in recap and "Time passes: 6h" in recap
    out = ok(world, "advance", "--session", "3", "--dry-run").output
    assert "In-fiction time in session 3: 14 h." in out
    data = as_json(world, "advance", "--session", "3", "--dry-run")
    assert data["time_passed_minutes"] == 14 * 60


@freeze_time("2026-03-01 20:00:00", tick=True)
def test_sheet_as_of_an_in_fiction_day(world):
    ok(world, "time", "pass", "20h")  # day 1 not over: sick ended at 6 h
    ok(world, "record", "condition-added", "--character", "isa", "--condition", "limping",
       "--lasts-minutes", "2880")  # fmt: skip
    ok(world, "time", "pass", "2d")  # clock 68 h: limping ends at 68 h
    assert "limping" not in ok(world, "sheet", "isa").output
    day1 = ok(world, "sheet", "isa", "--as-of", "day:1").output
    assert "limping" in day1 and "2 days left" in day1  # before the span that crossed day 1
    day0 = ok(world, "sheet", "isa", "--as-of", "day:0").output
    assert "sick" in day0 and "limping" not in day0
    assert "limping" not in ok(world, "sheet", "isa", "--as-of", "day:9").output  # the head
    out = run(world, "sheet", "isa", "--as-of", "day:x")
    assert out.exit_code in (1, 2) and "whole number of days" in out.output


def test_a_named_span_is_stored_in_the_books_words(tmp_path):
    from ledger.campaign.aggregate import Campaign
    from ledger.campaign.timeline import span_of
    from ledger.store.sqlite import Store

    campaign = Campaign.create(Store(str(tmp_path / "l.db")), "c", system="spellwoven",
                               actor="gm", at="2026-03-01T19:00:00.000000Z")  # fmt: skip
    for typed in ("A Night’s  Sleep", "a night`s sleep", "a night's sleep"):
        span = span_of(campaign, typed)
        assert (span.words, span.minutes, span.rest) == ("a night's sleep", 480, True)
    assert span_of(campaign, " 1D 12H ").words == "1d 12h"
