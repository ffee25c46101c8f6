"""Every file a release ever wrote still works: the ledgers of tests/data/releases/.

Each release left a small ledger made by its own code (and the exports and backup its own
CLI wrote from it; README.md there says how and when). For each, on SQLite and on
PostgreSQL (``store_target``): it opens and verifies; its backup and its GM export, taken
today, import and verify; its players' export verifies; it copies to the other backend and
back; the files the release itself wrote import and verify; and every row, hash and secret
stays byte for byte what the release stored.

Then a forger's case: in a GM backup taken during an open session (it holds the session's
seed), one engine roll of that session is changed (draws, total, outcome) and the chain
re-hashed. ``import`` recomputes the roll from the seed the file holds and refuses the file,
naming the roll's seq in the words ``verify`` uses once the session has ended; nothing is
written. ``verify FILE`` of the backup says the same.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

import msgspec
import pytest
from click.testing import CliRunner

from ledger.cli import cli

from .test_copy import campaign_ids, run
from .test_copy import everything as copied_everything

HERE = Path(__file__).resolve().parent / "data" / "releases"
NAMES = sorted(p.stem for p in HERE.glob("*.db"))
# a clone without the fixtures (a .gitignore that drops *.db) would skip every case silently
assert len(NAMES) >= 3, f"the release fixtures are missing from {HERE}"
CAMPAIGN = "fixture"  # what make-fixture.sh names it


def everything(db: str) -> tuple[list[tuple[Any, ...]], list[dict[str, Any]]]:
    """Every stored row of the campaign (all envelope fields, ``data`` as stored) and every
    secret, as ``db`` holds them."""
    return copied_everything(db, CAMPAIGN)


def verified(db: str) -> dict[str, Any]:
    answer = json.loads(run("--db", db, "--as", "gm", "verify", "--json"))
    assert answer["ok"], answer
    return answer


@pytest.fixture(params=NAMES)
def release(request, tmp_path) -> tuple[str, str]:
    """``(name, a copy of its ledger)``: today's code may migrate the file it opens."""
    copy = tmp_path / f"{request.param}-copy.db"
    shutil.copyfile(HERE / f"{request.param}.db", copy)
    copy.chmod(0o600)  # a ledger is the GM's alone (a clone checks the fixture out 644)
    return request.param, str(copy)


def test_there_are_releases_and_each_has_its_provenance():
    assert {"release-1", "release-2", "release-3"} <= set(NAMES)
    readme = (HERE / "README.md").read_text()
    for name in NAMES:
        row = re.search(rf"^\| {re.escape(name)} \|.*\| ([0-9a-f]{{40}}) \|", readme, re.M)
        assert row, f"tests/data/releases/README.md has no provenance row for {name}"


def test_the_ledger_opens_and_verifies(release):
    name, db = release
    before = everything(db)
    answer = verified(db)
    assert answer["events"] == len(before[0]) and answer["engine_rolls_verified"] >= 3
    assert answer["results_rederived"] >= 4 and answer["results_unchecked"] is None
    assert "Julian" in run("--db", db, "sheet", "julian")
    assert everything(db) == before  # reading never rewrote a row


def test_its_backup_imports_byte_for_byte(release, store_target, tmp_path):
    # Seen: a backup of a campaign made before checkpoints was refused, "event 1's data is
    # not in canonical form", while verify and copy took the same rows
    _, db = release
    backup = tmp_path / "w.backup"
    run("--db", db, "backup", str(backup))
    out = run("--db", store_target, "import", str(backup))
    assert "chain and rolls verified" in out, out
    assert everything(store_target) == everything(db)
    assert verified(store_target)["receipt"] == verified(db)["receipt"]
    again = tmp_path / "again.backup"
    run("--db", store_target, "backup", str(again))
    events = [line for line in backup.read_bytes().splitlines()[1:]]
    assert again.read_bytes().splitlines()[1:] == events  # every line the same, hashes too


def test_its_gm_export_imports_and_its_players_export_verifies(release, store_target, tmp_path):
    _, db = release
    rows, _ = everything(db)
    gm, player = tmp_path / "gm.ndjson", tmp_path / "player.ndjson"
    run("--db", db, "--as", "gm", "export", "-o", str(gm))
    run("--db", db, "--as", "player", "export", "-o", str(player))
    # a GM export holds no seed: an open session is closed as abandoned at import
    run("--db", store_target, "import", "--abandon-open-session", str(gm))
    assert everything(store_target)[0][: len(rows)] == rows
    verified(store_target)
    answer = json.loads(run("--as", "gm", "verify", "--json", str(player)))
    assert answer["ok"] and answer["redacted"] == 2 and answer["receipt"] == verified(db)["receipt"]
    refused = CliRunner().invoke(cli, ["--db", str(tmp_path / "p.db"), "import", str(player)])
    assert refused.exit_code == 1 and "player's export" in refused.output


def test_it_copies_to_the_other_backend_and_back(release, store_target, tmp_path):
    _, db = release
    run("copy", db, store_target)
    back = str(tmp_path / "back.db")
    run("copy", store_target, back)
    assert everything(db) == everything(store_target) == everything(back)
    receipts = {verified(x)["receipt"] for x in (db, store_target, back)}
    assert len(receipts) == 1


def test_the_files_the_release_wrote_import(release, store_target, tmp_path):
    name, db = release
    rows, secrets = everything(db)
    backup = HERE / f"{name}.backup.ndjson"
    if backup.exists():  # taken by the release with session 2 open: its seed is restored
        out = run("--db", store_target, "import", str(backup))
        assert "and 1 unrevealed seed" in out, out
        assert everything(store_target) == (rows, secrets)
        run("--db", store_target, "session", "end")  # the restored seed reveals and verifies
        verified(store_target)
        target = str(tmp_path / "from-gm-export.db")
    else:
        target = store_target
    run("--db", target, "import", "--abandon-open-session", str(HERE / f"{name}.gm.ndjson"))
    assert everything(target)[0][: len(rows)] == rows
    verified(target)
    answer = json.loads(run("verify", "--json", str(HERE / f"{name}.player.ndjson")))
    assert answer["ok"] and answer["events"] == len(rows), answer


# --- a forger with a GM backup ------------------------------------------------------------

BACKUPS = [name for name in NAMES if (HERE / f"{name}.backup.ndjson").exists()]


def rechain(lines: list[dict[str, Any]]) -> list[bytes]:
    """Re-hash every event line (``data`` re-encoded canonically), as a forger would."""
    prev, out = "0" * 64, []
    for line in lines:
        body = {k: v for k, v in line.items() if k != "hash"}
        body["prev_hash"] = prev
        body["data"] = msgspec.Raw(msgspec.json.encode(body["data"], order="sorted"))
        canonical = msgspec.json.encode(body, order="sorted")
        prev = hashlib.sha256(bytes.fromhex(prev) + canonical).hexdigest()
        out.append(msgspec.json.encode({**body, "hash": prev}))
    return out


def forge(backup: Path) -> tuple[bytes, list[bytes], list[bytes], int, str]:
    """The backup with the open session's first engine roll turned into four +1s (its dice,
    roll, total, margin and outcome changed to match, so its result re-derives).

    :returns: the backup record line, the forged event lines, its other lines (checkpoints),
        the roll's seq and the open session's seed (hex).
    """
    from ledger_wyrd_engine.rules.mechanics import passive_band

    record, *rest = backup.read_bytes().splitlines()
    seed = next(s for s in json.loads(record)["secrets"] if s["kind"] == "session")
    events = [json.loads(line) for line in rest if b'"kind"' not in line[:10]]
    others = [line for line in rest if b'"kind"' in line[:10]]
    roll = next(
        e for e in events if e["session"] == seed["session"] and e["data"].get("source") == "engine"
    )
    data = roll["data"]
    lucky = [[3, 3]] * len(data["draws"])
    assert data["draws"] != lucky
    gain = len(lucky) - sum(data["dice"])
    data["roll"] += gain
    data["total"] += gain
    data["draws"], data["dice"] = lucky, [1] * len(lucky)
    data["margin"], data["outcome"] = passive_band(data["total"], data["dr"])
    return record, rechain(events), others, roll["seq"], seed["seed"]


@pytest.mark.parametrize("name", BACKUPS)
def test_a_forged_roll_in_a_backup_is_refused_as_verify_refuses_it_after_session_end(
    name, store_target, tmp_path
):
    # Seen: import said "chain and rolls verified", and only at `session end` did verify
    # fail, for good, at the forged roll
    record, events, others, seq, seed = forge(HERE / f"{name}.backup.ndjson")
    forged = tmp_path / "forged.backup"
    forged.write_bytes(b"\n".join([record, *events, *others]) + b"\n")

    # what verify says of the roll once the session has ended (its seed revealed)
    last = json.loads(events[-1])
    ended = {
        **{k: last[k] for k in ("campaign", "recorded_at", "actor", "session", "visibility")},
        "seq": last["seq"] + 1,
        "stream": "campaign",
        "version": max(json.loads(e)["version"] for e in events if b'"stream":"campaign"' in e)
        + 1,
        "type": "session.ended",
        "data": {"number": last["session"], "seed_reveal": seed, "type": "session.ended"},
    }
    after_end = tmp_path / "after-end.ndjson"
    after_end.write_bytes(b"\n".join(rechain([*map(json.loads, events), ended])) + b"\n")
    answer = json.loads(run("verify", "--json", str(after_end), code=1))
    assert answer["bad_seq"] == seq, answer
    assert "(seed revealed at seq " in answer["problem"], answer
    words = answer["problem"].split("): ", 1)[1]  # after "(seed revealed at seq N)"
    assert words.startswith("die ") and "the seed gives" in words

    result = CliRunner().invoke(cli, ["--db", store_target, "import", str(forged)])
    assert result.exit_code == 1, result.output
    line = result.output.strip()
    assert line == (
        f"Error: the file does not verify: seq {seq}: engine roll of session "
        f"{last['session']} (seed held by the backup, not yet revealed): {words}"
    )
    if "://" in store_target:  # nothing written
        assert campaign_ids(store_target) == []
    else:
        assert not Path(store_target).exists()

    answer = json.loads(run("verify", "--json", str(forged), code=1))
    assert answer["bad_seq"] == seq and answer["problem"].endswith(words), answer


@pytest.mark.parametrize("name", BACKUPS)
def test_the_untouched_backup_verifies_its_open_rolls_from_the_seed(name):
    answer = json.loads(run("verify", "--json", str(HERE / f"{name}.backup.ndjson")))
    assert answer["ok"] and answer["engine_rolls_unverifiable"] == 0, answer
    plain = json.loads(run("verify", "--json", str(HERE / f"{name}.gm.ndjson")))
    assert plain["engine_rolls_unverifiable"] == 1  # the export holds no seed
    assert answer["engine_rolls_verified"] == plain["engine_rolls_verified"] + 1


# --- a forger's payload bytes: canonical form is judged on the bytes the hash covers ------


def rechain_raw(lines: list[dict[str, Any]], seq: int, raw: bytes) -> bytes:
    """The export with event ``seq``'s data replaced by ``raw`` exactly, re-hashed."""
    prev, out = "0" * 64, []
    for line in lines:
        body = {k: v for k, v in line.items() if k != "hash"}
        body["prev_hash"] = prev
        data = raw if line["seq"] == seq else msgspec.json.encode(line["data"], order="sorted")
        body["data"] = msgspec.Raw(data)
        canonical = msgspec.json.encode(body, order="sorted")
        prev = hashlib.sha256(bytes.fromhex(prev) + canonical).hexdigest()
        out.append(msgspec.json.encode({**body, "hash": prev}))
    return b"\n".join(out) + b"\n"


def old_export() -> list[dict[str, Any]]:
    """The first release's GM export (a campaign.created with no ``checkpoint_key``)."""
    text = (HERE / "release-1.gm.ndjson").read_text()
    return [json.loads(line) for line in text.splitlines() if not line.startswith('{"kind"')]


def canonical(data: dict[str, Any]) -> bytes:
    return msgspec.json.encode(data, order="sorted")


def spellings(data: dict[str, Any]) -> dict[str, bytes]:
    """A payload written other ways than canonical JSON, each decoding to the same values."""
    good = canonical(data)
    first, rest = good[1:-1].split(b",", 1)
    letter = data["type"][0]
    return {
        "spaces": json.dumps(data, sort_keys=True).encode(),
        "keys unsorted": b"{" + rest + b"," + first + b"}",
        "a key twice": b"{" + first + b"," + good[1:],
        "escaped letter": good.replace(
            b'"type":"' + letter.encode(), b'"type":"\\u%04x' % ord(letter), 1
        ),
        "number spelled 1e0": good.replace(b'"damage_ratio":1,', b'"damage_ratio":1e0,'),
    }


@pytest.mark.parametrize(
    ("seq", "how"),
    [
        *((seq, how) for seq in (1, 9) for how in ("spaces", "keys unsorted", "a key twice")),
        (1, "escaped letter"),
        (9, "escaped letter"),
        (1, "number spelled 1e0"),
    ],
)  # seq 1: campaign.created; seq 9: a salted GM-only note
def test_a_payload_not_stored_canonically_is_refused(seq, how, tmp_path):
    # the old payload is judged by its own bytes now: spelled otherwise, it is still refused
    lines = old_export()
    line = next(x for x in lines if x["seq"] == seq)
    if seq == 1:
        assert "checkpoint_key" not in line["data"]  # unlike what this release encodes
    else:
        assert line["visibility"] == "gm" and "salt" in line["data"]
    raw = spellings(line["data"])[how]
    assert raw != canonical(line["data"]) and json.loads(raw) == line["data"]
    forged = tmp_path / "forged.ndjson"
    forged.write_bytes(rechain_raw(lines, seq, raw))
    target = tmp_path / "into.db"
    result = CliRunner().invoke(cli, ["--db", str(target), "import", str(forged)])
    assert result.exit_code == 1 and result.output.strip() == (
        f"Error: event {seq}'s data is not in canonical form (keys sorted, no spaces)"
    ), result.output
    assert not target.exists()


def test_a_payload_that_reads_back_otherwise_is_named():
    # canonical bytes whose value the event's shape turns into another (a whole number read
    # into a float field) must not slip in as what the bytes say
    from ledger.codec import Codec
    from ledger.events import Event
    from ledger.exchange.ndjson import _misread

    class Measured(Event, frozen=True, kw_only=True, tag="test.measured"):
        length: float
        unit: str = "m"

    codec = Codec([Measured])
    data = b'{"length":2,"type":"test.measured"}'
    assert _misread(codec.decode(data), msgspec.json.decode(data)) == (
        "its 'length' reads back as 2.0"
    )
    kept = b'{"length":2.5,"type":"test.measured"}'  # "unit" absent: read as its default
    assert _misread(codec.decode(kept), msgspec.json.decode(kept)) is None


@pytest.mark.parametrize("name", BACKUPS)
def test_a_backup_whose_seed_is_not_its_commitments_does_not_verify(name, tmp_path):
    record, *rest = (HERE / f"{name}.backup.ndjson").read_bytes().splitlines()
    secrets = json.loads(record)
    seed = next(s for s in secrets["secrets"] if s["kind"] == "session")
    seed["seed"] = "00" * 32
    changed = tmp_path / "changed.backup"
    changed.write_bytes(b"\n".join([json.dumps(secrets).encode(), *rest]) + b"\n")
    started = next(
        json.loads(line)["seq"]
        for line in rest
        if b'"type":"session.started"' in line and json.loads(line)["session"] == seed["session"]
    )
    answer = json.loads(run("verify", "--json", str(changed), code=1))
    assert answer["bad_seq"] == started and answer["problem"] == (
        f"the seed of session {seed['session']} that the backup holds does not match its "
        "commitment"
    ), answer
    target = tmp_path / "into.db"
    result = CliRunner().invoke(cli, ["--db", str(target), "import", str(changed)])
    assert result.exit_code == 1 and "matches no seed commitment" in result.output
    assert not target.exists()
