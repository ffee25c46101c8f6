"""Sessions, seeds and engine dice that cannot lie.

Sessions start once each, in order, close once and never nest; every check reads decoded
values, never byte patterns; events of another rule system are refused and flagged; every
draw and reveal checks the seed against its commitment first.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import msgspec
import pytest

from ledger.campaign.aggregate import open_campaign
from ledger.errors import RuleError
from ledger.events import SessionEnded, SessionStarted
from ledger.history.verify import verify_rows
from ledger.store.sqlite import Store

from .test_outputs import refused, run
from .test_reliability_fuzz import fingerprint

CAMPAIGN = "toybox"


# --- helpers: an attacker's tools ---------------------------------------------------------


def export(db: str, path: Path) -> list[dict[str, Any]]:
    """The GM's export of ``db``: its event lines as dicts (``data`` as a dict), without the
    checkpoint and cosignature lines that end it."""
    assert run(db, "--as", "gm", "export", "-o", str(path)).exit_code == 0
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return [line for line in lines if "kind" not in line]


def rechain(lines: list[dict[str, Any]], raw: dict[int, bytes] | None = None) -> list[bytes]:
    """Renumber, re-version and re-hash lines as docs/events.md describes; ``raw`` gives
    the exact data bytes of some lines (by index), for payloads no encoder writes."""
    prev, out, versions = "0" * 64, [], {}
    for i, line in enumerate(lines):
        body = {k: v for k, v in line.items() if k not in ("hash", "redacted")}
        body["seq"] = i + 1
        versions[body["stream"]] = versions.get(body["stream"], 0) + 1
        body["version"] = versions[body["stream"]]
        body["prev_hash"] = prev
        data = (raw or {}).get(i) or msgspec.json.encode(body["data"], order="sorted")
        body["data"] = msgspec.Raw(data)
        canonical = msgspec.json.encode(body, order="sorted")
        prev = hashlib.sha256(bytes.fromhex(prev) + canonical).hexdigest()
        out.append(msgspec.json.encode({**body, "hash": prev}))
    return out


def rows_of(encoded: list[bytes]) -> list[dict[str, Any]]:
    """Lines as :func:`ledger.verify.verify_rows` reads them (``data`` as raw bytes)."""
    rows = []
    for line in encoded:
        row = msgspec.json.decode(line)
        row["data"] = bytes(msgspec.json.decode(line, type=dict[str, msgspec.Raw])["data"])
        rows.append(row)
    return rows


def write(path: Path, encoded: list[bytes]) -> str:
    path.write_bytes(b"".join(line + b"\n" for line in encoded))
    return str(path)


def engine_roll_index(lines: list[dict[str, Any]], session: int) -> int:
    return next(
        i
        for i, line in enumerate(lines)
        if line["session"] == session and (line["data"] or {}).get("source") == "engine"
    )


@pytest.fixture
def fixed_seeds(monkeypatch):
    """Session and downtime seeds from a counter: the same dice every run."""
    counter = iter(range(1000))
    monkeypatch.setattr(
        "ledger.dice.engine.new_seed", lambda: hashlib.sha256(b"seeds %d" % next(counter)).digest()
    )


@pytest.fixture
def ended(toy_campaign, db_path, fixed_seeds):
    """The toy campaign with session 1 played (two engine rolls) and ended; ann's engine
    roll did not show [6, 6] (so a forged [6, 6] differs)."""
    invoke = toy_campaign
    for args in (
        ["session", "start"],
        ["roll", "ann", "brawl"],
        ["roll", "bob", "sneak", "--client-seed", "bob's dice"],
        ["session", "end"],
    ):
        assert invoke(*args).exit_code == 0, args
    return db_path


# --- 1. sessions and decoded checks --------------------------------------------------------


def test_a_second_start_of_a_session_cannot_hide_its_rolls(ended, tmp_path):
    # Seen: a second `session.started` with the same number hid the first session's rolls
    # from verify, and import accepted it
    lines = export(ended, tmp_path / "gm.ndjson")
    i = engine_roll_index(lines, 1)
    assert lines[i]["data"]["draws"] != [[6, 6], [6, 6]]
    lines[i]["data"]["draws"] = [[6, 6], [6, 6]]  # forged faces
    lines[i]["data"].update(dice=[6, 6], total=14, outcome="success")  # ann: brawl 2
    end = next(j for j, line in enumerate(lines) if line["type"] == "session.ended")
    seed = b"\x07" * 32  # the forger's own seed, committed and revealed
    restart = {
        **lines[end],
        "type": "session.started",
        "data": {"type": "session.started", "number": 1,
                 "seed_commitment": hashlib.sha256(seed).hexdigest()},
    }
    lines[end]["data"]["seed_reveal"] = seed.hex()
    forged = rechain([*lines[:end], restart, lines[end]])
    report = verify_rows(rows_of(forged))
    assert not report.ok and report.bad_seq == end + 1
    assert "session 1 starts a second time" in report.problem
    target = str(tmp_path / "imported.db")
    refused(run(target, "import", write(tmp_path / "forged.ndjson", forged)), "seq", "second time")
    assert not Path(target).exists()


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda ls, e: ls.insert(e + 1, {**ls[e], "type": "session.started", "data": {
            "type": "session.started", "number": 3, "seed_commitment": "0" * 64},
            "session": 3}),
         "session 3 starts after session 1: expected 2"),
        (lambda ls, e: ls.insert(e + 1, dict(ls[e])), "session 1 closes a second time"),
        (lambda ls, e: ls.insert(e, {**ls[e], "type": "session.started", "data": {
            "type": "session.started", "number": 2, "seed_commitment": "0" * 64},
            "session": 2}), "session 2 starts while session 1 is still open"),
    ],
    ids=["skipped-number", "ended-twice", "nested"],
)
def test_sessions_start_in_order_close_once_and_never_nest(ended, tmp_path, change, words):
    lines = export(ended, tmp_path / "gm.ndjson")
    end = next(j for j, line in enumerate(lines) if line["type"] == "session.ended")
    change(lines, end)
    report = verify_rows(rows_of(rechain(lines)))
    assert not report.ok and words in report.problem, report.problem


def test_an_escaped_source_does_not_skip_the_engine_roll_check(ended, tmp_path):
    # Seen: `"source":"\u0065ngine"` skipped the engine-roll check (the check looked for
    # the literal bytes `"source":"engine"`)
    lines = export(ended, tmp_path / "gm.ndjson")
    i = engine_roll_index(lines, 1)
    assert lines[i]["data"]["draws"] != [[6, 6], [6, 6]]
    lines[i]["data"]["draws"] = [[6, 6], [6, 6]]
    lines[i]["data"].update(dice=[6, 6], total=14, outcome="success")  # ann: brawl 2
    data = msgspec.json.encode(lines[i]["data"], order="sorted")
    escaped = data.replace(b'"source":"engine"', b'"source":"\\u0065ngine"')
    assert escaped != data and msgspec.json.decode(escaped)["source"] == "engine"
    forged = rechain(lines, raw={i: escaped})
    report = verify_rows(rows_of(forged))
    assert not report.ok and report.bad_seq == i + 1
    assert "(d6) shows 6 but the seed gives" in report.problem
    # the same bytes written into the ledger by an attacker who drops the triggers
    conn = sqlite3.connect(ended)
    conn.execute("drop trigger events_no_update")
    conn.execute("drop trigger events_no_delete")
    conn.execute("delete from events where campaign = ?", (CAMPAIGN,))
    for row in rows_of(forged):
        conn.execute(
            "insert into events (campaign, seq, stream, version, type, data, recorded_at, actor, "
            "session, visibility, prev_hash, hash) values (?,?,?,?,?,?,?,?,?,?,?,?)",
            (row["campaign"], row["seq"], row["stream"], row["version"], row["type"],
             row["data"].decode(), row["recorded_at"], row["actor"], row["session"],
             row["visibility"], row["prev_hash"], row["hash"]),
        )
    conn.commit()
    conn.close()
    result = run(ended, "verify")
    assert result.exit_code == 1
    assert f"verification failed at seq {i + 1}: " in result.output and "shows 6 but the seed gives" in result.output


def test_events_of_another_rule_system_are_refused_and_flagged(ended, tmp_path):
    from ledger_wyrd_engine.events import StressCleared

    store = Store(ended)
    campaign = open_campaign(store)
    before = store.head(CAMPAIGN)
    with pytest.raises(RuleError, match="rule system 'wyrd-engine'; campaign 'toybox' plays 'toy'"):
        campaign.append([StressCleared(character="ann")], actor="gm", at="2026-03-01T20:00:00Z")
    assert store.head(CAMPAIGN) == before
    lines = export(ended, tmp_path / "gm.ndjson")
    lines.insert(3, {**lines[2], "type": "wyrd-engine.stress_cleared",
                     "data": {"type": "wyrd-engine.stress_cleared", "character": "ann"}})
    report = verify_rows(rows_of(rechain(lines)))
    assert not report.ok and report.bad_seq == 4
    assert "rule system 'wyrd-engine', but this campaign plays 'toy'" in report.problem
    lines[3]["type"] = lines[3]["data"]["type"] = "session.hijacked"
    report = verify_rows(rows_of(rechain(lines)))
    assert report.bad_seq == 4 and "not an event type of the core" in report.problem


def test_session_events_out_of_order_are_refused_at_append(ended):
    store = Store(ended)
    campaign = open_campaign(store)
    at = "2026-03-01T20:00:00Z"
    before = store.head(CAMPAIGN)
    cases = [
        ([SessionStarted(number=1, seed_commitment="0" * 64)], "the next session is 2, not 1"),
        ([SessionStarted(number=3, seed_commitment="0" * 64)], "the next session is 2, not 3"),
        ([SessionEnded(number=1, seed_reveal="00")], "session 1 is not open"),
        (
            [SessionStarted(number=2, seed_commitment="0" * 64)] * 2,
            "session 2 is still open",
        ),
    ]
    for events, words in cases:
        with pytest.raises(RuleError, match=words):
            campaign.append(events, actor="gm", at=at)
    assert store.head(CAMPAIGN) == before


def test_an_imported_open_sessions_rolls_verify_once_it_ends(toy_campaign, db_path, tmp_path):
    # Seen: an engine roll in an imported open session stayed "pending" for ever
    invoke = toy_campaign
    for args in (["session", "start"], ["roll", "ann", "brawl"], ["roll", "bob", "sneak"]):
        assert invoke(*args).exit_code == 0
    backup = tmp_path / "b.ndjson"
    assert invoke("backup", str(backup)).exit_code == 0
    restored = str(tmp_path / "restored.db")
    assert run(restored, "import", str(backup)).exit_code == 0
    result = run(restored, "verify")
    assert result.exit_code == 0, result.output
    assert "0 engine rolls verified" in result.output
    assert (
        "2 engine rolls of open session 1 are verifiable once it ends "
        "(`campaign session end` reveals its seed)" in result.output
    )
    assert run(restored, "session", "end").exit_code == 0
    result = run(restored, "verify", "--json")
    out = json.loads(result.output)
    assert out["ok"] and out["engine_rolls_verified"] == 2
    assert out["engine_rolls_unverifiable"] == 0
    assert "verifiable" not in run(restored, "verify").output


def test_abandoned_sessions_rolls_are_reported_as_such(toy_campaign, db_path):
    invoke = toy_campaign
    for args in (["session", "start"], ["roll", "ann", "brawl"]):
        assert invoke(*args).exit_code == 0
    store = Store(db_path)
    store.drop_secret(CAMPAIGN, 1)
    store.conn.close()
    assert invoke("session", "abandon", "--reason", "lost").exit_code == 0
    result = invoke("verify")
    assert result.exit_code == 0, result.output
    assert "1 engine rolls are unverifiable (session abandoned" in result.output
    assert "verifiable once" not in result.output


def test_nothing_written_when_a_session_event_is_refused(ended):
    before = fingerprint(ended)
    refused(run(ended, "session", "end"), "no session is open")
    assert fingerprint(ended) == before


# --- 2. seeds are checked ------------------------------------------------------------------


@pytest.fixture
def open_session(toy_campaign, db_path, fixed_seeds):
    """Session 1 open with one engine roll."""
    invoke = toy_campaign
    for args in (["session", "start"], ["roll", "ann", "brawl"]):
        assert invoke(*args).exit_code == 0, args
    return db_path


def test_a_replaced_seed_is_refused_before_any_draw_or_reveal(open_session):
    # Seen: the secrets table's seed replaced, then `roll` and `session end` succeeded and
    # the log failed verify for ever
    conn = sqlite3.connect(open_session)
    conn.execute("update secrets set seed = ?", ((b"\x01" * 32).hex(),))
    conn.commit()
    conn.close()
    before = fingerprint(open_session)
    refused(run(open_session, "roll", "ann", "brawl"), "does not match its commitment", "abandon")
    refused(run(open_session, "session", "end"), "does not match its commitment", "abandon")
    assert fingerprint(open_session) == before
    result = run(open_session, "verify")
    assert result.exit_code == 1
    assert "the seed of open session 1 in the secrets table does not match its commitment" in (
        result.output
    )
    assert "campaign session abandon" in result.output
    # a seed that does not match is no seed: the session can be abandoned
    assert run(open_session, "session", "abandon", "--reason", "seed overwritten").exit_code == 0
    assert Store(open_session).get_secret(CAMPAIGN, 1) is None
    assert run(open_session, "verify").exit_code == 0


def test_a_deleted_seed_of_an_open_session_is_a_problem(open_session):
    # Seen: a deleted seed row left a session that could never end while verify promised
    # its rolls were "verifiable later"
    store = Store(open_session)
    store.drop_secret(CAMPAIGN, 1)
    store.conn.close()
    result = run(open_session, "verify")
    assert result.exit_code == 1
    assert "verification failed at seq 4: the seed of open session 1 is missing" in result.output
    assert "campaign session abandon" in result.output and "verifiable" not in result.output
    out = json.loads(run(open_session, "verify", "--json").output)
    assert not out["ok"] and out["bad_seq"] == 4
    refused(run(open_session, "session", "end"), "missing", "campaign session abandon")
    assert run(open_session, "session", "abandon", "--reason", "lost").exit_code == 0
    assert run(open_session, "verify").exit_code == 0


# --- 3. downtime seeds and fair advancement ------------------------------------------------


@pytest.fixture
def advanced(toy_campaign, db_path, fixed_seeds):
    """Session 1 (ann rolls brawl), ended, advanced: one downtime roll, then the reveal."""
    invoke = toy_campaign
    for args in (["session", "start"], ["roll", "ann", "brawl"], ["session", "end"]):
        assert invoke(*args).exit_code == 0, args
    assert invoke("advance", "--session", "1").exit_code == 0
    return db_path


def test_session_end_commits_a_downtime_seed_that_advance_draws_from_and_reveals(advanced):
    from ledger.dice.engine import DOWNTIME_SCHEME, commitment, verify_draws

    campaign = open_campaign(Store(advanced))
    types = [r.type for r in campaign.records()]
    assert types[-5:] == [  # ann played: her chronicle entry follows the session's end
        "session.ended", "downtime.committed", "chronicle.signed", "toy.improved",
        "downtime.revealed",
    ]
    committed = next(r for r in campaign.records() if r.type == "downtime.committed").data
    revealed = next(r for r in campaign.records() if r.type == "downtime.revealed").data
    seed = bytes.fromhex(revealed.seed_reveal)
    assert commitment(seed) == committed.seed_commitment
    roll = next(r for r in campaign.records() if r.type == "toy.improved")
    assert (roll.data.scheme, roll.data.nonce, roll.session) == (DOWNTIME_SCHEME, 1, 1)
    assert verify_draws(seed, CAMPAIGN, 1, 1, roll.data.client_seed, roll.data.draws,
                        scheme=DOWNTIME_SCHEME) is None
    assert Store(advanced).get_secret(CAMPAIGN, 1, "downtime") is None  # revealed, dropped
    out = json.loads(run(advanced, "verify", "--json").output)
    assert out["ok"] and out["engine_rolls_verified"] == 2
    audit = json.loads(run(advanced, "audit", str(roll.seq), "--json").output)
    assert audit["verdict"] == "verified" and "downtime seed" in audit["detail"]


def test_an_advancement_roll_from_a_revealed_seed_is_refused(advanced, tmp_path):
    # Seen: advancement drew from the session seed after `session end` revealed it, and
    # verify accepted rolls drawn after the reveal
    from ledger.dice.engine import EngineDice

    lines = export(advanced, tmp_path / "gm.ndjson")
    i = next(j for j, line in enumerate(lines) if line["type"] == "toy.improved")
    ended = next(line for line in lines if line["type"] == "session.ended")
    seed = bytes.fromhex(ended["data"]["seed_reveal"])
    dice = EngineDice(seed, CAMPAIGN, 1, 1, lines[i]["data"]["client_seed"])  # the old way
    die = dice.d(6)
    lines[i]["data"].update(scheme="ledger-roll-v1", nonce=1, draws=[[6, die]], die=die,
                            improved=die > 2)
    del lines[i + 1]  # no downtime reveal
    forged = rechain(lines)
    report = verify_rows(rows_of(forged))
    assert not report.ok and report.bad_seq == i + 1
    assert "engine roll drawn after session 1's seed was revealed" in report.problem
    refused(run(str(tmp_path / "n.db"), "import", write(tmp_path / "f.ndjson", forged)),
            "revealed")
    # and one from the downtime seed after its reveal
    lines = export(advanced, tmp_path / "gm2.ndjson")
    lines.append({**lines[i], "data": {**lines[i]["data"], "nonce": 2}})
    report = verify_rows(rows_of(rechain(lines)))
    assert not report.ok and report.bad_seq == len(lines)
    assert "after the downtime seed of session 1 was revealed" in report.problem


def test_advance_after_the_reveal_needs_no_dice_or_is_refused(toy_campaign, db_path, fixed_seeds):
    invoke = toy_campaign
    for args in (["session", "start"], ["roll", "ann", "brawl"], ["session", "end"],
                 ["session", "start"]):
        assert invoke(*args).exit_code == 0, args
    log = [e["type"] for e in json.loads(invoke("--as", "gm", "log", "--json").output)]
    assert log[-2:] == ["downtime.revealed", "session.started"]  # revealed before the start
    before = fingerprint(db_path)
    refused(invoke("advance", "--session", "1"), "revealed at seq", "no engine roll")
    refused(invoke("advance", "--session", "1", "--dry-run"), "revealed at seq")
    assert fingerprint(db_path) == before


def test_dry_run_shows_choices_targets_and_odds_never_the_dice(toy_campaign, db_path,
                                                               fixed_seeds):
    # Seen: `advance --dry-run` printed the exact dice
    invoke = toy_campaign
    for args in (["session", "start"], ["roll", "ann", "brawl"], ["session", "end"]):
        assert invoke(*args).exit_code == 0, args
    before = fingerprint(db_path)
    dry = json.loads(invoke("advance", "--session", "1", "--dry-run", "--json").output)
    text = invoke("advance", "--session", "1", "--dry-run").output
    assert fingerprint(db_path) == before
    (planned,) = dry["events"]
    assert planned["data"]["die"] == planned["data"]["improved"] == "?"
    assert planned["data"]["draws"] == "?"
    assert (planned["data"]["skill"], planned["data"]["nonce"]) == ("brawl", 1)
    assert "die=?" in text and "improved=?" in text
    done = json.loads(invoke("advance", "--session", "1", "--json").output)["events"][0]
    assert str(done["data"]["die"]) not in text.split("die=")[1][:1]


def test_a_replaced_downtime_seed_is_refused(toy_campaign, db_path, fixed_seeds):
    invoke = toy_campaign
    for args in (["session", "start"], ["roll", "ann", "brawl"], ["session", "end"]):
        assert invoke(*args).exit_code == 0, args
    conn = sqlite3.connect(db_path)
    conn.execute("update secrets set seed = ? where kind = 'downtime'", ((b"\x02" * 32).hex(),))
    conn.commit()
    conn.close()
    before = fingerprint(db_path)
    refused(invoke("advance", "--session", "1"), "does not match its commitment")
    refused(invoke("session", "start"), "does not match its commitment")
    assert fingerprint(db_path) == before
    result = invoke("verify")
    assert result.exit_code == 1 and "downtime seed of session 1" in result.output
    assert invoke("session", "abandon", "--reason", "table changed").exit_code == 0
    assert invoke("session", "start").exit_code == 0
    assert invoke("verify").exit_code == 0


def test_an_imported_export_closes_its_unkept_downtime_seed(toy_campaign, db_path, tmp_path,
                                                            fixed_seeds):
    invoke = toy_campaign
    for args in (["session", "start"], ["roll", "ann", "brawl"], ["session", "end"]):
        assert invoke(*args).exit_code == 0, args
    gm = tmp_path / "gm.ndjson"
    assert invoke("--as", "gm", "export", "-o", str(gm)).exit_code == 0
    other = str(tmp_path / "other.db")
    assert run(other, "import", str(gm)).exit_code == 0
    assert run(other, "verify").exit_code == 0
    refused(run(other, "advance", "--session", "1"), "downtime seed of session 1 is missing")
    assert run(other, "session", "start").exit_code == 0
    log = json.loads(run(other, "--as", "gm", "log", "--json").output)
    assert [e["type"] for e in log[-2:]] == ["downtime.abandoned", "session.started"]
    assert run(other, "verify").exit_code == 0


def test_an_old_ledger_keeps_its_seeds_through_the_migration(tmp_path):
    path = str(tmp_path / "old.db")
    conn = sqlite3.connect(path)
    conn.execute(
        "create table _sqlite_migrations (id integer primary key, migration_set text, "
        "name text, applied_at text)"
    )
    import sqlite_utils

    from ledger.store.sqlite_migrations import get_migrations, m001_events, m002_secrets_snapshots

    db = sqlite_utils.Database(conn)
    m001_events(db)
    m002_secrets_snapshots(db)
    for name in ("m001_events", "m002_secrets_snapshots"):
        conn.execute(
            "insert into _sqlite_migrations (migration_set, name, applied_at) "
            "values ('ledger', ?, '2026-01-01')", (name,))
    conn.execute("insert into secrets values ('c', 3, ?)", ((b"\x05" * 32).hex(),))
    conn.commit()
    conn.close()
    assert get_migrations() is not None
    store = Store(path)
    assert store.get_secret("c", 3) == b"\x05" * 32
    assert store.get_secret("c", 3, "downtime") is None


# --- 4. blind engine rolls -----------------------------------------------------------------


def test_a_blind_roll_cannot_be_recomputed_from_the_players_copy(
    toy_campaign, db_path, tmp_path, fixed_seeds, monkeypatch
):
    # Seen: blind engine rolls took nonces from the same sequence as public ones, so after
    # the reveal any player recomputed a blind d20 with HMAC(seed, [..., nonce, ""])
    from ledger.dice.engine import SCHEME, engine_words, face_from_words

    hexes = iter(range(10**6))
    monkeypatch.setattr("secrets.token_hex", lambda n: hashlib.sha256(
        b"blind %d" % next(hexes)).hexdigest()[: 2 * n])
    invoke = toy_campaign
    assert invoke("session", "start").exit_code == 0
    for i in range(8):
        assert invoke("roll", "ann", "brawl", "--client-seed", f"ann{i}").exit_code == 0
        assert invoke("roll", "bob", "sneak", "--blind").exit_code == 0
    refused(invoke("roll", "bob", "sneak", "--blind", "--client-seed", "x"), "secret client seed")
    assert invoke("session", "end").exit_code == 0
    gm = export(db_path, tmp_path / "gm.ndjson")
    blind = [line for line in gm if line["visibility"] == "gm"]
    assert len(blind) == 8
    assert all(b["data"]["client_seed"].startswith("blind:") for b in blind)
    assert [b["data"]["nonce"] for b in blind] == list(range(1, 17, 2))  # one nonce sequence
    report = verify_rows(rows_of([msgspec.json.encode(line) for line in gm]))
    assert report.ok and report.engine_rolls == 16  # the GM's export verifies blind rolls
    player_file = tmp_path / "player.ndjson"
    assert run(db_path, "export", "-o", str(player_file)).exit_code == 0
    player = [json.loads(line) for line in player_file.read_text().splitlines()]
    assert all(line.get("data") is None for line in player if line.get("redacted"))
    text = player_file.read_text()
    assert not any(b["data"]["client_seed"] in text for b in blind)
    # everything the player holds: the revealed seed, the nonces, the public client seeds
    seed = bytes.fromhex(next(line for line in player if line.get("type") == "session.ended")[
        "data"]["seed_reveal"])
    public = {line["data"]["client_seed"] for line in player
              if (line.get("data") or {}).get("source") == "engine"}
    candidates = {"", "blind:", *public}

    def block0(nonce: int, client_seed: str) -> list[int]:
        words = engine_words(seed, CAMPAIGN, 1, nonce, client_seed, SCHEME)
        return [next(words) for _ in range(8)]

    leaked = 0
    for b in blind:
        draws, nonce = b["data"]["draws"], b["data"]["nonce"]
        real = block0(nonce, b["data"]["client_seed"])  # the GM recomputes it
        words = iter(real)
        assert [[s, face_from_words(words, s)] for s, _ in draws] == draws
        for guess_nonce in range(17):  # no guess reproduces the blind roll's random words
            for client_seed in candidates:
                assert block0(guess_nonce, client_seed) != real, (guess_nonce, client_seed)
        # the Seen attack (its own nonce, client seed ""): faces right only by chance now
        words = engine_words(seed, CAMPAIGN, 1, nonce, "", SCHEME)
        leaked += [[s, face_from_words(words, s)] for s, _ in draws] == draws
    assert leaked <= 2, f"{leaked} of 8 blind rolls recomputed (chance: 8/36)"
