"""Campaign.append validates through the rules, with a cache that never goes stale."""

import pytest

from ledger import RuleError
from ledger.campaign.aggregate import open_campaign
from ledger.store.sqlite import Store
from tests.toy import Hurt, LuckUsed

AT = "2026-03-01T19:00:00.000000Z"


def writer(db_path):
    return open_campaign(Store(db_path))


def test_a_second_writer_invalidates_the_cache(toy_campaign, db_path):
    a, b = writer(db_path), writer(db_path)
    a.append([Hurt(character="ann", amount=1)], actor="a", at=AT)  # a's cache: ann at head
    b.append([LuckUsed(character="ann")], actor="b", at=AT)  # the head moves under a
    with pytest.raises(RuleError, match="already used luck"):
        a.append([LuckUsed(character="ann")], actor="a", at=AT)
    assert a.state_of("ann").hp == 9


def test_cached_states_match_a_replay(toy_campaign, db_path):
    a = writer(db_path)
    for amount in (1, 2, 3):
        a.append([Hurt(character="bob", amount=amount)], actor="a", at=AT)
    assert a.reader._cache["bob"] == a.state_of("bob", save_snapshots=False)
    assert a.reader._cache_head == (a.store.head("toybox").hash, a.store.rollbacks)


def test_a_refused_batch_leaves_the_cache_alone(toy_campaign, db_path):
    a = writer(db_path)
    a.append([Hurt(character="bob", amount=2)], actor="a", at=AT)
    before = dict(a.reader._cache)
    with pytest.raises(RuleError):
        a.append(
            [Hurt(character="bob", amount=1), Hurt(character="bob", amount=-1)], actor="a", at=AT
        )
    assert a.reader._cache == before
    assert a.state_of("bob").hp == 8


def test_a_correction_drops_the_cache(toy_campaign, db_path):
    a = writer(db_path)
    rec = a.append([Hurt(character="bob", amount=4)], actor="a", at=AT)[0]
    a.correct(rec.seq, "no hit", actor="a", at=AT)
    assert a.reader._cache == {}
    a.append([Hurt(character="bob", amount=1)], actor="a", at=AT)
    assert a.reader._cache["bob"].hp == 9


def test_a_rolled_back_append_then_another_writers_append_at_that_seq(toy_campaign, db_path):
    """Seen: a rolled-back append followed by another writer's append to the same seq let
    a second once-per-scene use through. The cache is keyed by the head's hash, not its seq,
    and dropped on rollback."""
    a, b = writer(db_path), writer(db_path)
    a.append([Hurt(character="ann", amount=1)], actor="a", at=AT)  # a's cache: ann at the head
    with pytest.raises(RuntimeError), a.store.transaction():
        a.append([Hurt(character="ann", amount=1)], actor="a", at=AT)
        raise RuntimeError("the command fails after its append: everything rolls back")
    seq = a.store.head("toybox").seq + 1
    (used,) = b.append([LuckUsed(character="ann")], actor="b", at=AT)  # the same seq
    assert used.seq == seq
    with pytest.raises(RuleError, match="already used luck"):
        a.append([LuckUsed(character="ann")], actor="a", at=AT)
    assert a.state_of("ann").hp == 9 and a.state_of("ann").luck_used


def test_a_rollback_drops_the_cache(toy_campaign, db_path):
    a = writer(db_path)
    a.append([Hurt(character="ann", amount=1)], actor="a", at=AT)
    with pytest.raises(RuntimeError), a.store.transaction():
        a.append([Hurt(character="ann", amount=5)], actor="a", at=AT)
        raise RuntimeError("rolled back")
    a.append([Hurt(character="ann", amount=1)], actor="a", at=AT)
    assert a.reader._cache["ann"].hp == 8 == a.state_of("ann", save_snapshots=False).hp

