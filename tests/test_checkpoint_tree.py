"""The stored Merkle tree: migration m010 fills it for an existing ledger, on both
backends, and proofs read it (O(log n)) and agree with a rebuild from every leaf."""

from __future__ import annotations

import random

import pytest

from ledger.events import NoteAdded
from ledger.history import tree_proofs
from ledger.store.base import Pending, is_url
from ledger.store.opening import open_store
from ledger.trust import merkle
from tests.test_conformance import raw

AT = "2026-03-01T19:00:00.000000Z"


def _append(store, campaign, count):
    store.append(campaign, [Pending(NoteAdded(text=f"n{i}")) for i in range(count)],
                 actor="gm", recorded_at=AT, session=None)  # fmt: skip


def _unmigrate(target):
    """Take the file back to before m010: its tables gone, its record gone, the old kinds."""
    for table in ("merkle_frontier", "merkle_tiles", "checkpoints", "cosignatures"):
        raw(target, f"drop table {table}")
    if is_url(target):
        raw(target, "delete from ledger_migrations where name = 'm010_merkle_checkpoints'")
        raw(target, "alter table secrets drop constraint secrets_kind_check")
        raw(target, "alter table secrets add constraint secrets_kind_check "
                    "check (kind in ('session', 'downtime'))")  # fmt: skip
    else:
        raw(target, "delete from _sqlite_migrations where name = 'm010_merkle_checkpoints'")


def test_m010_builds_the_trees_of_an_existing_ledger(store_target):
    store = open_store(store_target)
    _append(store, "c", 600)
    _append(store, "d", 3)
    store.put_secret("c", 1, b"\x01" * 32)
    store.close()
    _unmigrate(store_target)
    again = open_store(store_target)
    try:
        assert "m010_merkle_checkpoints" in again.migrations()
        for campaign in ("c", "d"):
            leaves = tree_proofs.leaves(again, campaign, again.head(campaign).seq)
            size, hashes = again.tree_frontier(campaign)
            assert size == len(leaves)
            assert merkle.Frontier(size, hashes).root() == merkle.root(leaves)
        assert len(again.tree_tiles("c", 8, 0, 5)) == 2
        assert again.get_secret("c", 1) == b"\x01" * 32  # secrets kept through the rebuild
        with again.transaction():
            again.put_secret("c", 0, b"\x02" * 32, kind="checkpoint")  # the wider kinds
        assert again.get_secret("c", 0, kind="checkpoint") == b"\x02" * 32
        _append(again, "c", 1)  # appends go on from the filled tree
        leaves = tree_proofs.leaves(again, "c", 601)
        assert merkle.Frontier(*again.tree_frontier("c")).root() == merkle.root(leaves)
    finally:
        again.close()


@pytest.mark.parametrize("size", [1, 2, 255, 256, 257, 511, 512, 700])
def test_stored_proofs_agree_with_a_rebuild(store_target, size):
    store = open_store(store_target)
    try:
        _append(store, "c", size)
        leaves = tree_proofs.leaves(store, "c", size)
        root = merkle.root(leaves)
        rng = random.Random(size)
        for seq in {1, size, rng.randint(1, size)}:
            got = tree_proofs.inclusion(store, "c", seq)
            assert got.root == root
            assert got.proof == merkle.inclusion_proof(seq - 1, size, leaves)
            merkle.verify_inclusion(seq - 1, size, got.leaf, got.proof, root)
        for old in {1, size, rng.randint(1, size)}:
            got = tree_proofs.consistency(store, "c", old)
            assert got.old_root == merkle.root(leaves[:old])
            assert got.proof == merkle.consistency_proof(old, size, leaves)
            merkle.verify_consistency(old, size, got.old_root, root, got.proof)
    finally:
        store.close()


class _Counting:
    """A store wrapper that counts the hashes a proof reads."""

    def __init__(self, store):
        self.store, self.hashes = store, 0

    def tree_frontier(self, campaign):
        size, hashes = self.store.tree_frontier(campaign)
        self.hashes += len(hashes)
        return size, hashes

    def tree_tiles(self, *args):
        got = self.store.tree_tiles(*args)
        self.hashes += len(got)
        return got

    def tree_leaves(self, *args):
        got = self.store.tree_leaves(*args)
        self.hashes += len(got)
        return got


def test_a_proof_reads_a_few_hundred_hashes_not_the_log(tmp_path):
    store = open_store(str(tmp_path / "big.db"))
    try:
        for _ in range(14):
            _append(store, "c", 5000)  # 70,000 events: one height-16 tile
        counting = _Counting(store)
        got = tree_proofs.inclusion(counting, "c", 12_345)
        assert counting.hashes < 1200, counting.hashes
        counting.hashes = 0
        tree_proofs.consistency(counting, "c", 66_000)
        assert counting.hashes < 1200, counting.hashes
        leaves = tree_proofs.leaves(store, "c", 70_000)
        assert got.proof == merkle.inclusion_proof(12_344, 70_000, leaves)
    finally:
        store.close()


def test_stored_roots_and_proofs_agree_with_an_independent_implementation(tmp_path):
    """pymerkle (test-only, its own RFC 9162 code) over the events' 32-byte hashes gives the
    stored tree's roots at random sizes, and the old and new roots of its consistency proofs."""
    from pymerkle import InmemoryTree

    store = open_store(str(tmp_path / "ind.db"))
    try:
        theirs = InmemoryTree(algorithm="sha256")
        rng = random.Random(9162)
        for _ in range(8):
            _append(store, "c", rng.randint(1, 120))
            size = store.head("c").seq
            for (h,) in store.rows("c", after=theirs.get_size(), columns=["hash"]):
                theirs.append_entry(bytes.fromhex(h))
            assert tree_proofs.StoredTree(store, "c").root() == theirs.get_root(size)
            old = rng.randint(1, size)
            ours = tree_proofs.consistency(store, "c", old)
            assert ours.old_root == theirs.get_root(old) and ours.new_root == theirs.get_root(size)
    finally:
        store.close()


def _tree_agrees(store, campaign):
    leaves = tree_proofs.leaves(store, campaign, store.head(campaign).seq)
    size, hashes = store.tree_frontier(campaign)
    assert size == len(leaves)
    assert merkle.Frontier(size, hashes).root() == merkle.root(leaves)


def test_the_frontier_kept_per_connection_follows_other_writers_and_rollbacks(store_target):
    """Each store keeps the frontier it wrote last (no read of it on its next append);
    it is used only when the campaign's head is still the event it ended at and nothing
    rolled back since, so another connection's appends and a rolled-back append are read."""
    one, two = open_store(store_target), open_store(store_target)
    try:
        for count in (3, 300, 1):  # the two writers take turns on one campaign
            _append(one, "c", count)
            _append(two, "c", count)
            _tree_agrees(one, "c")
        _append(one, "d", 5)  # a second campaign has its own
        with pytest.raises(RuntimeError), one.transaction():
            _append(one, "c", 7)  # written, then rolled back
            raise RuntimeError("no")
        _append(one, "c", 2)
        _append(one, "d", 254)
        for store, campaign in ((one, "c"), (two, "c"), (one, "d")):
            _tree_agrees(store, campaign)
        assert one.head("c").seq == 610
    finally:
        one.close()
        two.close()


def test_an_append_after_its_own_reads_no_frontier(tmp_path):
    from ledger.store.sqlite import Store

    store = Store(str(tmp_path / "l.db"))
    _append(store, "c", 3)
    seen: list[str] = []
    store.conn.set_trace_callback(seen.append)
    _append(store, "c", 2)
    store.conn.set_trace_callback(None)
    assert not [s for s in seen if "from merkle_frontier" in s]
    assert [s for s in seen if "insert into merkle_frontier" in s]
    _tree_agrees(store, "c")
    store.close()
