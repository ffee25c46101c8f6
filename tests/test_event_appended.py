"""The ``event_appended`` listener hook: after commit, once per write, never for a rollback."""

from __future__ import annotations

import logging

import pytest

from ledger import hookimpl
from ledger.campaign.aggregate import open_campaign
from ledger.rules.plugins import pm
from ledger.store.sqlite import Store

AT = "2026-03-01T19:00:00.000000Z"


class Listener:
    """Records every call as ``(campaign id, [(seq, type, visibility), ...])``."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[tuple[int, str, str]]]] = []
        self.committed: list[int] = []

    @hookimpl
    def event_appended(self, campaign, events):
        self.calls.append((campaign.id, [(e.seq, e.type, e.visibility) for e in events]))
        # after commit: another connection already sees the events
        other = Store(campaign.store.conn.execute("pragma database_list").fetchone()[2])
        try:
            self.committed.append(other.head(campaign.id).seq)
        finally:
            other.conn.close()


@pytest.fixture
def listener():
    plugin = Listener()
    pm.register(plugin, name="listener-test")
    try:
        yield plugin
    finally:
        pm.unregister(name="listener-test")


def types(call):
    return [t for _, t, _ in call[1]]


def test_every_write_path_calls_once_per_batch_after_commit(toy_campaign, listener):
    invoke = toy_campaign
    assert listener.calls == []  # registered after the fixture's writes
    invoke("session", "start")
    invoke("record", "hurt", "--character", "ann", "--amount", "2")
    invoke("roll", "ann", "brawl", "--dice", "3,4")
    invoke("scene", "end")
    invoke("correct", "5", "--reason", "never happened")
    invoke("undo", "--yes", "--reason", "oops")
    invoke("session", "end")
    invoke("advance", "--session", "1")
    invoke("session", "start")
    assert [types(c) for c in listener.calls] == [
        ["session.started"],
        ["toy.hurt"],
        ["toy.rolled"],
        ["scene.ended"],
        ["correction.recorded"],
        ["correction.recorded"],
        ["session.ended", "downtime.committed"],
        ["chronicle.signed"],  # Ann's entry, written after the session's checkpoint
        ["toy.improved", "downtime.revealed"],
        ["session.started"],
    ]
    seqs = [seq for call in listener.calls for seq, _, _ in call[1]]
    assert seqs == list(range(4, 4 + len(seqs)))  # every event once, in order
    assert all(c[0] == "toybox" for c in listener.calls)
    # each call after its commit; session end commits its batch and Ann's chronicle entry
    # (seq 12) in one transaction, so both calls come after that one commit
    heads = [call[1][-1][0] for call in listener.calls]
    assert listener.committed == heads[:6] + [12, 12] + heads[8:]


def test_session_batches_are_reported_whole(toy_campaign, db_path, listener):
    invoke = toy_campaign
    invoke("session", "start")
    invoke("session", "end")
    invoke("session", "start")  # reveals the unused downtime seed first, in one batch
    Store(db_path).drop_secret("toybox", 2)  # the session seed is lost
    assert invoke("session", "abandon", "--reason", "seed lost").exit_code == 0
    assert [types(c) for c in listener.calls] == [
        ["session.started"],
        ["session.ended", "downtime.committed"],
        ["downtime.revealed", "session.started"],
        ["session.abandoned", "downtime.committed"],
    ]


def test_create_and_character_add_call_it(toy_system, invoke, tmp_path, listener):
    invoke("new", "toybox", "--system", "toy")
    sheet = tmp_path / "ann.toml"
    sheet.write_text('name = "Ann Vance"\n[skills]\nbrawl = 2\n')
    invoke("character", "add", "--sheet", str(sheet))
    assert listener.calls == [
        ("toybox", [(1, "campaign.created", "public")]),
        ("toybox", [(2, "character.created", "public")]),
    ]


def test_a_gm_only_event_comes_with_its_visibility(toy_campaign, listener):
    invoke = toy_campaign
    invoke("record", "secret-noted", "--character", "bob", "--value", "8675309")
    invoke("note", "the butler did it", "--blind")
    invoke("note", "a public note")
    assert [c[1][0][1:] for c in listener.calls] == [
        ("toy.secret_noted", "gm"),
        ("note.added", "gm"),
        ("note.added", "public"),
    ]


def test_a_refused_write_calls_nothing(toy_campaign, listener):
    invoke = toy_campaign
    assert invoke("record", "hurt", "--character", "ann", "--amount", "-1").exit_code == 1
    assert invoke("session", "end").exit_code == 1  # none open
    assert invoke("correct", "99", "--reason", "x").exit_code == 1
    assert listener.calls == []


def test_a_rolled_back_batch_calls_nothing(toy_campaign, db_path, listener):
    from tests.toy import Hurt

    store = Store(db_path)
    campaign = open_campaign(store)
    with pytest.raises(RuntimeError), store.transaction():
        campaign.append([Hurt(character="ann", amount=1)], actor="gm", at=AT)
        raise RuntimeError("something later in the transaction failed")
    assert listener.calls == []
    assert store.head("toybox").seq == 3  # nothing written
    # the next write is reported alone, not with the rolled-back one
    campaign.append([Hurt(character="ann", amount=2)], actor="gm", at=AT)
    assert listener.calls == [("toybox", [(4, "toy.hurt", "public")])]


def test_nested_writes_are_reported_when_the_outer_transaction_commits(
    toy_campaign, db_path, listener
):
    from tests.toy import Hurt

    store = Store(db_path)
    campaign = open_campaign(store)
    with store.transaction():
        campaign.append([Hurt(character="ann", amount=1)], actor="gm", at=AT)
        campaign.append([Hurt(character="bob", amount=1)], actor="gm", at=AT)
        assert listener.calls == []  # not yet committed
    assert [c[1][0][0] for c in listener.calls] == [4, 5]


def test_a_failing_listener_neither_undoes_nor_hides_the_write(
    toy_campaign, listener, caplog, db_path
):
    class Broken:
        @hookimpl
        def event_appended(self, events):
            raise ValueError("webhook unreachable")

    invoke = toy_campaign
    pm.register(Broken(), name="broken-test")
    try:
        with caplog.at_level(logging.WARNING, logger="ledger.rules.plugins"):
            result = invoke("record", "hurt", "--character", "ann", "--amount", "2", "--json")
    finally:
        pm.unregister(name="broken-test")
    assert result.exit_code == 0, result.output
    assert '"seq": 4' in result.output or '"seq":4' in result.output
    assert listener.calls == [("toybox", [(4, "toy.hurt", "public")])]  # the other still ran
    (message,) = [r.getMessage() for r in caplog.records if r.name == "ledger.rules.plugins"]
    assert "'broken-test'" in message and "ValueError: webhook unreachable" in message
    assert "seq 4 to 4" in message and "\n" not in message
    assert Store(db_path).head("toybox").seq == 4  # the write stands
