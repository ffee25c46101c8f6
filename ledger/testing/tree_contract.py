"""The store contract's checks of the Merkle tree, checkpoints and cosignatures each backend
keeps (:mod:`ledger.store.tree`): part of :class:`ledger.testing.EventStoreContract`."""

from __future__ import annotations

import random

import msgspec

from ledger.events import NoteAdded
from ledger.store.base import EventStore, Pending
from ledger.trust import merkle

AT = "2026-03-01T19:00:00.000000Z"


def _leaves(store: EventStore, campaign: str) -> list[bytes]:
    return [merkle.leaf_hash(bytes.fromhex(h)) for (h,) in store.rows(campaign, columns=["hash"])]


def _append(store: EventStore, campaign: str, count: int) -> None:
    store.append(
        campaign,
        [Pending(NoteAdded(text=f"n{i}")) for i in range(count)],
        actor="gm",
        recorded_at=AT,
        session=None,
    )


class TreeContract:
    """The tree every append keeps: its frontier's root is RFC 6962's root of every leaf
    (checked against :func:`ledger.trust.merkle.root`), after random batches, in the same
    transaction as the append (a rolled-back batch leaves the tree as it was), tiles are the
    roots of their 256 leaves, and checkpoints and cosignatures are kept once each."""

    def test_the_frontier_is_the_root_of_every_leaf_after_random_batches(
        self, store: EventStore
    ) -> None:
        rng = random.Random(26)
        assert store.tree_frontier("c") == (0, [])
        for _ in range(14):
            _append(store, "c", rng.choice([1, 1, 2, 3, 7, 31, 64, 100, 129]))
            size, hashes = store.tree_frontier("c")
            leaves = _leaves(store, "c")
            assert size == len(leaves) == store.head("c").seq
            assert merkle.Frontier(size, hashes).root() == merkle.root(leaves)
        _append(store, "d", 3)  # campaigns keep their own trees
        assert store.tree_frontier("d")[0] == 3
        assert merkle.Frontier(*store.tree_frontier("c")).root() == merkle.root(_leaves(store, "c"))

    def test_tiles_are_the_roots_of_their_leaves(self, store: EventStore) -> None:
        _append(store, "c", 300)
        _append(store, "c", 300)
        leaves = _leaves(store, "c")
        tiles = store.tree_tiles("c", 8, 0, 10)
        assert tiles == [merkle.root(leaves[i * 256 : (i + 1) * 256]) for i in range(2)]
        assert store.tree_tiles("c", 16, 0, 1) == []  # not complete yet
        assert store.tree_leaves("c", 5, 3) == leaves[5:8]

    def test_a_rolled_back_batch_leaves_the_tree_as_it_was(self, store: EventStore) -> None:
        _append(store, "c", 5)
        before = store.tree_frontier("c")
        try:
            with store.transaction():
                _append(store, "c", 300)
                raise RuntimeError("the caller fails after the append")
        except RuntimeError:
            pass
        assert store.tree_frontier("c") == before
        assert store.tree_tiles("c", 8, 0, 1) == []

    def test_imported_rows_grow_the_tree(self, store: EventStore) -> None:
        _append(store, "c", 40)
        copied = [msgspec.structs.replace(stored, campaign="e") for stored in store.rows("c")]
        with store.transaction():  # an import's chunks, as `campaign import` and `copy` write
            store.insert_rows(copied[:17])  # type: ignore[attr-defined]
        with store.transaction():
            store.insert_rows(copied[17:])  # type: ignore[attr-defined]
        assert store.tree_frontier("e") == store.tree_frontier("c")
        assert store.tree_tiles("e", 8, 0, 1) == []

    def test_checkpoints_and_cosignatures_are_kept_once(self, store: EventStore) -> None:
        root = bytes(range(32))
        with store.transaction():
            assert store.add_checkpoint("c", 3, root, "note 3\n", AT)
            assert not store.add_checkpoint("c", 3, bytes(32), "another\n", AT)
            assert store.add_checkpoint("c", 9, root, "note 9\n", AT)
        assert [c["size"] for c in store.checkpoints("c")] == [3, 9]
        assert store.checkpoints("c", size=3)[0]["root"] == root
        assert store.checkpoints("c", size=3)[0]["note"] == "note 3\n"
        latest = store.latest_checkpoint("c")
        assert latest is not None and latest["size"] == 9
        assert store.latest_checkpoint("d") is None
        with store.transaction():
            assert store.add_cosignature(
                "c", 3, "phone", "abcd0123", "phone+abcd0123+AAA", "— phone x", AT
            )
            assert not store.add_cosignature(
                "c", 3, "phone", "abcd0123", "phone+abcd0123+AAA", "— phone y", AT
            )
        (cosig,) = store.cosignatures("c")
        assert cosig["signature"] == "— phone x" and cosig["size"] == 3
        assert store.cosignatures("c", size=9) == []
