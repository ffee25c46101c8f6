"""Time: within a campaign ``recorded_at`` never decreases, on both backends.

A clock behind the ledger's head (a laptop whose clock went back, a second machine whose
clock is late) gets the head's time and a warning, once per command or shell; ``--as-of
TIME`` then never shows what was recorded later. A log written before appends kept times in
order still verifies and imports; ``verify`` and ``import`` name where its times go back.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from freezegun import freeze_time

from ledger.campaign.aggregate import Campaign, clock_warning, open_campaign
from ledger.chain import Head, chain_rows, not_before
from ledger.cli import cli
from ledger.codec import encode_data
from ledger.events import NoteAdded
from ledger.history.report import ClockBack
from ledger.history.verify import verify_store
from ledger.store.base import Pending
from ledger.store.opening import open_store

SHEETS = Path(__file__).resolve().parent.parent / "campaigns" / "grand-casebook" / "characters"
LATE = "2026-03-01T21:00:00.000000Z"
EARLY = "2026-03-01T20:00:00.000000Z"


def note(text: str) -> Pending:
    return Pending(NoteAdded(text=text))


def test_not_before_keeps_times_in_order():
    assert not_before(EARLY, LATE) == LATE
    assert not_before(LATE, EARLY) == LATE
    assert not_before(EARLY, "") == EARLY  # the first event
    assert not_before("2026-03-01T21:00:00Z", LATE) == "2026-03-01T21:00:00Z"  # the same moment


def test_an_append_behind_the_head_gets_the_heads_time(store_target):
    store = open_store(store_target)
    try:
        store.append("c", [note("late")], actor="gm", recorded_at=LATE, session=None)
        behind = store.append(
            "c", [note("a"), note("b")], actor="gm", recorded_at=EARLY, session=None
        )
        assert [e.recorded_at for e in behind] == [LATE, LATE]
        assert store.head("c") == Head(3, behind[-1].hash, LATE)
        later = "2026-03-01T21:05:00.000000Z"
        ahead = store.append("c", [note("c")], actor="gm", recorded_at=later, session=None)
        assert ahead[0].recorded_at == later  # a clock ahead of the head keeps its own time
        times = [r[0] for r in store.rows("c", columns=["recorded_at"])]
        assert times == sorted(times) == [LATE, LATE, LATE, later]
        assert store.last_seq_at("c", EARLY) == 0  # nothing was recorded before 21:00
        assert verify_store(store, "c").ok
        assert not verify_store(store, "c").clock.seq
    finally:
        store.close()


def test_the_campaign_notes_how_far_behind_its_clock_was(store_target):
    store = open_store(store_target)
    try:
        campaign = Campaign.create(store, "c", system="decision-dice", actor="gm", at=LATE)
        assert campaign.clock_behind is None
        campaign.append([NoteAdded(text="fine")], actor="gm", at=LATE)
        assert campaign.clock_behind is None
        rec = campaign.start_session(actor="gm", at=EARLY)  # writes through the store too
        assert rec.recorded_at == LATE
        assert campaign.clock_behind is not None and campaign.clock_behind.total_seconds() == 3600
        assert clock_warning(campaign.clock_behind).startswith(
            "the clock is 60 minutes behind the ledger"
        )
    finally:
        store.close()


@pytest.fixture
def casebook(invoke, db_path):
    with freeze_time("2026-03-01T19:00:00Z"):
        assert invoke("new", "casebook", "--system", "wyrd-engine").exit_code == 0
        for who in ("julian", "felix"):
            assert invoke("character", "add", "--sheet", str(SHEETS / f"{who}.toml")).exit_code == 0
    return db_path


def run(db_path, *args, input=None):
    return CliRunner().invoke(cli, ["--db", db_path, *args], input=input)


def test_a_clock_gone_back_warns_once_and_as_of_shows_nothing_recorded_later(casebook):
    with freeze_time("2026-03-01T21:30:00Z"):
        assert run(casebook, "damage", "felix", "1").exit_code == 0
    with freeze_time("2026-03-01T20:00:00Z"):  # the laptop's clock goes back 90 minutes
        result = run(casebook, "damage", "felix", "1")
        assert result.exit_code == 0, result.output
        assert result.stderr.count("Warning: the clock is 90 minutes behind the ledger") == 1
        # one command, several appends: one warning
        shell = run(casebook, "play", input="damage julian 1\nnote 'again'\nscene end\n")
        assert shell.exit_code == 0, shell.output
        assert shell.stderr.count("behind the ledger") == 1
    with freeze_time("2026-03-01T22:00:00Z"):  # right again: no warning
        result = run(casebook, "note", "on time")
        assert result.exit_code == 0 and "behind" not in result.stderr
    store = open_store(casebook)
    try:
        rows = list(store.rows("casebook", columns=["seq", "type", "recorded_at"]))
    finally:
        store.close()
    times = [r[2] for r in rows]
    assert times == sorted(times)
    assert times[-1] == "2026-03-01T22:00:00.000000Z"
    assert [t for t in times if t.startswith("2026-03-01T20")] == []
    # as of 20:30, Felix had taken no damage: everything after 21:00 was recorded later
    sheet = json.loads(
        run(casebook, "sheet", "felix", "--as-of", "2026-03-01T20:30", "--json").output
    )
    now = json.loads(run(casebook, "sheet", "felix", "--json").output)
    assert sheet != now
    before = json.loads(run(casebook, "sheet", "felix", "--as-of", "3", "--json").output)
    assert sheet == before  # seq 3: Felix created, nothing since


def _legacy_log(target: str) -> None:
    """A campaign whose clock ran backwards before appends kept times in order: chained and
    inserted as such a ledger holds it (as `import` would)."""
    store = open_store(target)
    try:
        campaign = Campaign.create(store, "old", system="decision-dice", actor="gm", at=LATE)
        head = store.head("old")
        batch = [("campaign", "note.added", "public", encode_data(NoteAdded(text=t))) for t in "ab"]
        rows = chain_rows("old", batch[:1], head, actor="gm", recorded_at=EARLY, session=None,
                          version_of=lambda s: 1)  # fmt: skip
        head = Head(rows[-1][0], rows[-1][11])
        rows += chain_rows("old", batch[1:], head, actor="gm", recorded_at=EARLY, session=None,
                           version_of=lambda s: 2)  # fmt: skip
        with store.transaction():
            store.insert_rows(rows)
        assert campaign.id == "old"
    finally:
        store.close()


def test_verify_names_where_a_legacy_logs_times_go_back(store_target):
    _legacy_log(store_target)
    store = open_store(store_target)
    try:
        report = verify_store(store, "old")
        assert report.ok  # the chain holds the times as written: a note, not a failure
        assert report.clock.json() == {
            "seq": 2, "recorded_at": EARLY, "latest_before": LATE, "events": 2,
        }  # fmt: skip
    finally:
        store.close()
    result = run(store_target, "verify")
    assert result.exit_code == 0, result.output
    assert "Note: recorded_at goes back at seq 2 (2026-03-01T20:00:00.000000Z, after" in (
        result.output
    )
    assert "give a seq or session:N instead" in result.output
    document = json.loads(run(store_target, "verify", "--json").output)
    assert document["ok"] and document["clock_back"]["seq"] == 2


def test_import_keeps_a_legacy_log_and_names_where_its_times_go_back(tmp_path, store_target):
    old = str(tmp_path / "old.db")
    _legacy_log(old)
    export = tmp_path / "old.ndjson"
    result = run(old, "--as", "gm", "export", "-o", str(export))
    assert result.exit_code == 0, result.output
    result = run(store_target, "import", str(export))
    assert result.exit_code == 0, result.output
    assert "Note: recorded_at goes back at seq 2" in result.stderr
    store = open_store(store_target)
    try:
        assert [r[0] for r in store.rows("old", columns=["recorded_at"])] == [LATE, EARLY, EARLY]
        assert open_campaign(store).clock_behind is None
        assert verify_store(store, "old").clock.seq == 2
    finally:
        store.close()


def test_a_clock_less_than_a_second_behind_is_not_warned_about(casebook):
    with freeze_time("2026-03-01T21:30:00.900Z"):
        assert run(casebook, "damage", "felix", "1").exit_code == 0
    with freeze_time("2026-03-01T21:30:00.200Z"):
        result = run(casebook, "damage", "felix", "1")
        assert result.exit_code == 0 and "behind" not in result.stderr
    times = [r[0] for r in _times(casebook)]
    assert times[-2:] == ["2026-03-01T21:30:00.900000Z"] * 2  # still in order


def _times(db_path):
    store = open_store(db_path)
    try:
        return list(store.rows("casebook", columns=["recorded_at"]))
    finally:
        store.close()


def test_clock_back_skips_what_is_not_a_time():
    clock = ClockBack()
    for seq, stamp in enumerate([LATE, "not a time", None, LATE, EARLY], 1):
        clock.feed(seq, stamp)
    assert (clock.seq, clock.latest, clock.events) == (5, LATE, 1)
