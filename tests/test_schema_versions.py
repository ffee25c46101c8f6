"""Payloads store their schema version; upcasters use it, amended payloads included."""

from __future__ import annotations

import msgspec
import pytest

from ledger.campaign.aggregate import open_campaign
from ledger.codec import SCHEMA, Codec, UnknownEventType
from ledger.store.sqlite import Store
from tests.toy import Hurt, Toy

AT = "2026-03-01T19:00:00.000000Z"


def double(payload):
    """v1 -> v2: version 2 counts damage in half-points."""
    return {**payload, "amount": payload["amount"] * 2}


@pytest.fixture
def hurt_v2(monkeypatch):
    """Release 2 of the toy system: ``toy.hurt`` is at schema version 2 with a v1 step."""

    def upgrade():
        monkeypatch.setattr(Hurt, "schema_version", 2)
        monkeypatch.setattr(Toy, "upcasters", {"toy.hurt": {1: double}})

    return upgrade


def test_payloads_store_their_version_and_upcasters_use_it(toy_campaign, db_path, hurt_v2):
    camp = open_campaign(Store(db_path))
    old = camp.append([Hurt(character="ann", amount=1)], actor="gm", at=AT)[0]
    fixed = camp.append([Hurt(character="ann", amount=2)], actor="gm", at=AT)[0]
    camp.correct(fixed.seq, "it was 1", data={"amount": 1}, actor="gm", at=AT)  # a v1 amendment
    hurt_v2()
    camp = open_campaign(Store(db_path))
    new = camp.append([Hurt(character="ann", amount=3)], actor="gm", at=AT)[0]
    rows = {e.seq: e.data for e in camp.rows(types=["toy.hurt"])}
    assert f'"{SCHEMA}"' not in rows[old.seq]  # written by release 1: version 1 (absent)
    assert f'"{SCHEMA}":2' in rows[new.seq]
    # v1 payloads are doubled (1 -> 2, the amended 1 -> 2), the v2 one is read as written
    assert camp.record(old.seq).data.amount == 2
    assert camp.record(new.seq).data.amount == 3
    assert camp.states()["ann"].hp == 10 - 2 - 2 - 3
    assert camp.state_of("ann").hp == 3
    # an amendment recorded under version 2 carries its version and is not doubled
    camp.correct(new.seq, "it was 4", data={"amount": 4}, actor="gm", at=AT)
    corr = list(camp.records(types=["correction.recorded"]))[-1].data
    assert corr.data[SCHEMA] == 2
    assert camp.states()["ann"].hp == 10 - 2 - 2 - 4 == camp.state_of("ann").hp


def test_a_payload_newer_than_the_plugin_is_named(toy_system):
    from ledger.rules.plugins import rule_systems

    toy = rule_systems()["toy"]
    codec = Codec(toy.event_types, toy.upcasters)
    data = b'{"amount":1,"character":"ann","schema_version":3,"type":"toy.hurt"}'
    with pytest.raises(UnknownEventType, match="schema version 3, newer than"):
        codec.decode(data, "toy.hurt")
    with pytest.raises(msgspec.ValidationError, match="schema_version"):
        codec.decode(data.replace(b":3", b':"x"'), "toy.hurt")


def test_a_missing_upcaster_step_is_named(toy_system, monkeypatch):
    from ledger.rules.plugins import rule_systems

    monkeypatch.setattr(Hurt, "schema_version", 3)
    toy = rule_systems()["toy"]
    codec = Codec(toy.event_types, {"toy.hurt": {2: double}})
    with pytest.raises(UnknownEventType, match="from schema version 1 to 2"):
        codec.decode(b'{"amount":1,"character":"ann","type":"toy.hurt"}', "toy.hurt")
    codec = Codec(toy.event_types, {"toy.hurt": {1: double, 2: double}})
    assert codec.decode(b'{"amount":1,"character":"ann","type":"toy.hurt"}', "toy.hurt").amount == 4
    raw = b'{"amount":1,"character":"ann","schema_version":2,"type":"toy.hurt"}'
    assert codec.decode(raw, "toy.hurt").amount == 2
    # the fast decode of a replay falls back to the codec for a versioned payload
    assert codec.decode(raw.decode()).amount == 2


def test_an_export_with_payloads_of_both_versions_imports(toy_campaign, db_path, hurt_v2,
                                                          tmp_path):
    # seen: import checked that each payload is exactly its event's fields, which an upcast
    # (older) payload never is, and a current one is only with its schema_version
    from click.testing import CliRunner

    from ledger.cli import cli

    camp = open_campaign(Store(db_path))
    camp.append([Hurt(character="ann", amount=1)], actor="gm", at=AT)
    hurt_v2()
    camp = open_campaign(Store(db_path))
    camp.append([Hurt(character="ann", amount=3)], actor="gm", at=AT)
    runner = CliRunner()
    export = runner.invoke(cli, ["--db", str(db_path), "--as", "gm", "export"]).stdout_bytes
    path = tmp_path / "both.ndjson"
    path.write_bytes(export)
    result = runner.invoke(cli, ["--db", str(tmp_path / "copy.db"), "import", str(path)])
    assert result.exit_code == 0, result.output
    copy = open_campaign(Store(str(tmp_path / "copy.db")))
    assert copy.state_of("ann").hp == 10 - 2 - 3
