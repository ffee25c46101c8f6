"""A payload's salt and schema version are written in the same pass as the payload
(:func:`ledger.codec.encode_data`, #28): the bytes are exactly those of the old way (encode,
decode, add the key, encode again), for every payload of every bundled campaign and of the
bench workload, public or GM-only, schema version 1 or above."""

from __future__ import annotations

import sys
from pathlib import Path

import msgspec
import pytest
from freezegun import freeze_time

from ledger.campaign.aggregate import open_campaign
from ledger.cli.demo import build, bundled_campaigns
from ledger.codec import SALT, SCHEMA, _encoder, encode_data, salted
from ledger.events import Event
from ledger.store.sqlite import Store

CAMPAIGNS = sorted(p.name for p in bundled_campaigns().iterdir() if (p / "campaign.toml").exists())
SALT_VALUE = "0123456789abcdef" * 2


def the_old_way(event: Event, salt: str | None) -> bytes:
    """What ``encode_data`` and ``salted`` wrote before #28: decode and encode again."""
    data = _encoder.encode(event)
    payload = msgspec.json.decode(data)
    if type(event).schema_version > 1:
        payload[SCHEMA] = type(event).schema_version
    if salt is not None:
        payload[SALT] = salt
    return _encoder.encode(payload) if payload != msgspec.json.decode(data) else data


def check(event: Event) -> None:
    assert encode_data(event) == the_old_way(event, None)
    assert encode_data(event, salt=SALT_VALUE) == the_old_way(event, SALT_VALUE)


@pytest.mark.parametrize("name", CAMPAIGNS)
def test_every_bundled_payload_encodes_as_before(name, tmp_path):
    with freeze_time("2026-03-01 19:00:00"):
        build(bundled_campaigns() / name, tmp_path / "c.db", quiet=True)
    store = Store(str(tmp_path / "c.db"))
    camp = open_campaign(store)
    seen = 0
    versions = set()
    for stored in store.rows(camp.id):
        event = camp.codec.decode(stored.data, stored.type)
        check(event)
        versions.add(type(event).schema_version)
        if stored.visibility == "gm":  # the stored bytes themselves come back from the event
            salt = msgspec.json.decode(stored.data)[SALT]
            assert encode_data(event, salt=salt).decode() == stored.data
        elif type(event).schema_version == 1 or SCHEMA in stored.data:
            assert encode_data(event).decode() == stored.data
        seen += 1
    store.close()
    assert seen > 10


def test_schema_version_two_and_a_salt_together():
    from ledger_spellwoven.events import EffortSpent

    event = EffortSpent(character="ana", attribute="Wits", roll=3)
    assert EffortSpent.schema_version == 2
    check(event)
    data = msgspec.json.decode(encode_data(event, salt=SALT_VALUE))
    assert data[SCHEMA] == 2 and data[SALT] == SALT_VALUE
    assert list(data) == sorted(data)
    # the classes made for it leave the event's own class alone
    assert EffortSpent.schema_version == 2
    from ledger.codec import Codec

    back = Codec([EffortSpent]).decode(encode_data(event, salt=SALT_VALUE))
    assert type(back) is EffortSpent and back == event


def test_salted_still_adds_a_salt_to_encoded_bytes():
    data = salted(b'{"a":1,"z":2}')
    assert list(msgspec.json.decode(data)) == ["a", SALT, "z"]


def test_every_bench_workload_payload_encodes_as_before():
    sys.path.insert(0, str(Path(__file__).parent.parent / "bench"))
    import workload

    for _number, events in workload.sessions(3_000, seed=3):
        for event in events:
            check(event)


def the_old_decode(codec, data: str):
    raw = msgspec.json.decode(data)
    del raw[SALT]
    return msgspec.convert(raw, codec.types[raw["type"]])


@pytest.mark.parametrize("name", CAMPAIGNS)
def test_salted_payloads_decode_in_one_pass_as_before(name, tmp_path):
    """A GM-only payload decodes through the union of salted types (#28) to the event the
    old way gave (decode to a dict, drop the salt, convert)."""
    with freeze_time("2026-03-01 19:00:00"):
        build(bundled_campaigns() / name, tmp_path / "c.db", quiet=True)
    store = Store(str(tmp_path / "c.db"))
    camp = open_campaign(store)
    seen = 0
    for stored in store.rows(camp.id):
        if stored.visibility == "gm" and SCHEMA not in stored.data:
            event = camp.codec.decode(stored.data, stored.type)
            assert type(event) is camp.codec.types[stored.type]
            assert event == the_old_decode(camp.codec, stored.data)
            seen += 1
    store.close()
    assert seen > 0 or name != "the-world"  # the one bundled campaign with GM-only events


def test_a_salt_key_below_the_top_level_is_not_a_salt():
    from ledger.codec import Codec
    from ledger.events import NoteAdded

    codec = Codec()
    data = encode_data(NoteAdded(text='x "salt":"y"'))
    assert codec.decode(data) == NoteAdded(text='x "salt":"y"')
    salted_note = encode_data(NoteAdded(text="hidden"), salt=SALT_VALUE)
    assert codec.decode(salted_note) == NoteAdded(text="hidden")
    with pytest.raises(msgspec.ValidationError):
        codec.decode(b'{"salt":"' + SALT_VALUE.encode() + b'","text":5,"type":"note.added"}')


def test_the_bench_workloads_gm_payloads_decode_in_one_pass_as_before():
    sys.path.insert(0, str(Path(__file__).parent.parent / "bench"))
    import cases

    codec = cases.floor_codec()
    seen = 0
    for _number, events in cases.workload.sessions(3_000, seed=5):
        for event in events:
            if event.visibility == "gm":
                data = encode_data(event, salt=SALT_VALUE).decode()
                assert codec.decode(data) == event == the_old_decode(codec, data)
                seen += 1
    assert seen > 100
