"""Snapshots never change an answer (issue 14 "Caches never change an answer", issue 13).

Each snapshot carries a fingerprint of what produced it; one that does not match what is in
force now is ignored and rebuilt, on reads and on writes.
"""

from __future__ import annotations

import json

import msgspec
import pytest

from ledger import applies
from ledger.campaign.aggregate import open_campaign
from ledger.rules.projection import Corrections
from ledger.rules.snapshots import Basis, system_fingerprint
from ledger.store.sqlite import Store
from tests.toy import State, Toy, ToyRolled


def sheet(invoke, who="ann"):
    result = invoke("--as", "gm", "sheet", who, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def replayed(db_path, who="ann"):
    return open_campaign(Store(db_path)).states()[who]


def snapshot_count(db_path):
    return Store(db_path).conn.execute("select count(*) from snapshots").fetchone()[0]


@pytest.fixture
def often(monkeypatch):
    """A snapshot every 3 events of a stream, so a short campaign has several."""
    monkeypatch.setattr("ledger.campaign.reading.SNAPSHOT_EVERY", 3)


def test_a_changed_applier_ignores_old_snapshots(toy_campaign, db_path, often, monkeypatch):
    """Seen: after a plugin's applier changed, `sheet` said rolls=103 where a replay says 601."""
    invoke = toy_campaign
    for _ in range(10):
        assert invoke("roll", "ann", "brawl", "--dice", "3,4").exit_code == 0
    assert sheet(invoke)["rolls"] == 10
    assert snapshot_count(db_path) > 0

    # the new release counts each roll twice (a changed applier, same state type)
    def on_roll(self, state, event):
        return msgspec.structs.replace(state, rolls=state.rolls + 2)

    monkeypatch.setattr(Toy, "on_roll", applies(ToyRolled)(on_roll))
    assert replayed(db_path).rolls == 20
    assert sheet(invoke)["rolls"] == 20  # old main: 10 and more, from the stale snapshot


def test_a_version_bump_ignores_old_snapshots(toy_campaign, db_path, often, monkeypatch):
    """Same code, another distribution version: the snapshots of the old one are not used."""
    invoke = toy_campaign
    for _ in range(7):
        invoke("record", "hurt", "--character", "ann", "--amount", "1")
    assert sheet(invoke)["hp"] == 3
    # stand in for what the old version computed: a snapshot with a wrong hp but a fine digest
    store = Store(db_path)
    camp = open_campaign(store)
    basis = Basis(camp.fingerprint(), Corrections())
    from ledger.rules.projection import encode_state
    from ledger.rules.snapshots import digest

    head = store.head("toybox").seq
    wrong = encode_state(State(name="Ann Vance", skills={"brawl": 2}, hp=99))
    with store.transaction():
        store.save_snapshot(
            "toybox",
            "ann",
            head,
            True,
            wrong,
            basis=basis.at(head),
            digest=digest(basis.at(head), wrong),
        )
    assert sheet(invoke)["hp"] == 99  # same fingerprint: the cache is trusted
    monkeypatch.setattr(
        "ledger.rules.plugins.system_distribution", lambda system: ("ledger-toy", "2.0.0")
    )
    assert sheet(invoke)["hp"] == 3


def test_fingerprint_covers_state_type_upcasters_and_version(toy_system, monkeypatch):
    from ledger.codec import Codec
    from ledger.rules.plugins import rule_systems

    toy = rule_systems()["toy"].configure({})
    codec = Codec(toy.event_types, toy.upcasters)
    base = system_fingerprint(toy, codec)
    assert system_fingerprint(toy, codec) == base  # stable

    class State2(State, frozen=True, kw_only=True):
        fatigue: int = 0

    monkeypatch.setattr(Toy, "state_type", State2)
    assert system_fingerprint(toy, codec)["state_type"] != base["state_type"]
    monkeypatch.undo()
    up = Codec(toy.event_types, {"toy.hurt": lambda d: d})
    assert system_fingerprint(toy, up)["upcasters"] != base["upcasters"]
    monkeypatch.setattr("ledger.rules.plugins.system_distribution", lambda s: ("x", "9"))
    assert system_fingerprint(toy, codec)["distribution"] == ["x", "9"]
    other = rule_systems()["toy"].configure({"hp": 12})
    assert system_fingerprint(other, codec)["options"] != base["options"]


def test_a_flipped_snapshot_byte_is_ignored_on_read_and_write(toy_campaign, db_path, often):
    """Seen: one msgpack byte in `snapshots` turned Wits 3 into 10; the sheet showed 10 and a
    roll was resolved with it. Now the snapshot is ignored: the sheet and the roll use 2."""
    invoke = toy_campaign
    for _ in range(6):
        invoke("record", "hurt", "--character", "ann", "--amount", "1")
    assert sheet(invoke)["skills"] == {"brawl": 2}
    store = Store(db_path)
    rows = store.conn.execute("select rowid, state from snapshots where stream = 'ann'").fetchall()
    assert rows
    for rowid, blob in rows:
        mark = msgspec.msgpack.encode("brawl") + b"\x02"
        assert mark in blob
        store.conn.execute(
            "update snapshots set state = ? where rowid = ?",
            (blob.replace(mark, msgspec.msgpack.encode("brawl") + b"\x0a"), rowid),
        )
    assert sheet(invoke)["skills"] == {"brawl": 2}
    result = invoke("roll", "ann", "brawl", "--dice", "2,2", "--target", "12", "--json")
    assert result.exit_code == 0, result.output
    rolled = open_campaign(Store(db_path)).states()["ann"]
    assert rolled.skills == {"brawl": 2}
    last = list(open_campaign(Store(db_path)).records(types=["toy.rolled"]))[-1].data
    assert last.total == 6 and last.outcome == "failure"  # 2 + 2 + brawl 2, not + 10


def test_snapshots_before_a_correction_are_kept(toy_campaign, db_path, often):
    """An early correction keeps the snapshots before it: the replay starts there."""
    invoke = toy_campaign
    for _ in range(12):
        invoke("record", "hurt", "--character", "ann", "--amount", "1")
    store = Store(db_path)
    camp = open_campaign(store)
    assert camp.state_of("ann").hp == -2
    before = set(store.conn.execute("select seq, basis from snapshots where stream = 'ann'"))
    target = 10  # the 7th hurt
    assert invoke("correct", str(target), "--reason", "double entry").exit_code == 0
    camp = open_campaign(Store(db_path))
    assert camp.state_of("ann").hp == -1 == camp.states()["ann"].hp
    after = set(camp.store.conn.execute("select seq, basis from snapshots where stream = 'ann'"))
    kept = {(seq, b) for seq, b in before if seq < target}
    assert kept and kept <= after
    # the ones at or after the target were rebuilt under the new basis; the old ones stay
    # for as-of views before the correction
    assert {seq for seq, _ in after - before if seq >= target}
    assert camp.state_of("ann", upto=12).hp == 1  # as of before the correction: 9 hurts


def test_verify_checks_every_snapshot_against_a_replay(toy_campaign, db_path, often):
    """Seen: a snapshot byte changed and verify said OK. Now verify replays and names it,
    and `--drop-snapshots` deletes them (a cache: the answers stay the same)."""
    invoke = toy_campaign
    for _ in range(7):
        invoke("record", "hurt", "--character", "ann", "--amount", "1")
    assert sheet(invoke)["hp"] == 3
    assert invoke("verify").exit_code == 0
    store = Store(db_path)
    # a forger who recomputes the digest: the fingerprint matches, the state does not
    camp = open_campaign(store)
    from ledger.rules.projection import encode_state
    from ledger.rules.snapshots import digest

    seq, basis = store.conn.execute(
        "select seq, basis from snapshots where stream = 'ann' order by seq limit 1"
    ).fetchone()
    forged = encode_state(msgspec.structs.replace(camp.states(upto=seq)["ann"], hp=42))
    store.conn.execute(
        "update snapshots set state = ?, digest = ? where stream = 'ann' and seq = ?",
        (forged, digest(basis, forged), seq),
    )
    result = invoke("verify")
    assert result.exit_code == 1
    assert f"failed at seq {seq}: snapshot of 'ann' at seq {seq} (GM view)" in result.output
    assert "differs from a replay" in result.output
    # a flipped byte (the digest no longer matches) is named too
    store.conn.execute(
        "update snapshots set state = ? where stream = 'ann' and seq = ?",
        (forged[:-1] + bytes([forged[-1] ^ 1]), seq),
    )
    result = invoke("verify", "--json")
    assert result.exit_code == 1
    assert "do not match its fingerprint" in json.loads(result.output)["problem"]
    result = invoke("verify", "--drop-snapshots")
    assert result.exit_code == 0 and "Dropped" in result.output
    assert snapshot_count(db_path) == 0
    assert sheet(invoke)["hp"] == 3 and invoke("verify").exit_code == 0
