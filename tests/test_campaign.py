"""Campaign.append validates through the rules, with a cache that never goes stale."""

import pytest

from ledger import RuleError
from ledger.campaign import open_campaign
from ledger.store import Store
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
    assert a._cache["bob"] == a.state_of("bob", save_snapshots=False)
    assert a._cache_head == a.store.head("toybox").seq


def test_a_refused_batch_leaves_the_cache_alone(toy_campaign, db_path):
    a = writer(db_path)
    a.append([Hurt(character="bob", amount=2)], actor="a", at=AT)
    before = dict(a._cache)
    with pytest.raises(RuleError):
        a.append(
            [Hurt(character="bob", amount=1), Hurt(character="bob", amount=-1)], actor="a", at=AT
        )
    assert a._cache == before
    assert a.state_of("bob").hp == 8


def test_a_correction_drops_the_cache(toy_campaign, db_path):
    a = writer(db_path)
    rec = a.append([Hurt(character="bob", amount=4)], actor="a", at=AT)[0]
    a.correct(rec.seq, "no hit", actor="a", at=AT)
    assert a._cache == {}
    a.append([Hurt(character="bob", amount=1)], actor="a", at=AT)
    assert a._cache["bob"].hp == 9
