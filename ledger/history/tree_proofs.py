"""Merkle proofs over a campaign's log (RFC 9162): its tree of event hashes, in seq order.

Leaf ``i`` (seq ``i + 1``) is ``SHA-256(0x00 ‖ the event's 32-byte hash)``. Proofs are
read from the tree the store keeps as it appends (:class:`StoredTree`,
:mod:`ledger.store.tree`): O(log n) reads and at most a few hundred hashes, never a rebuild.
:func:`inclusion` and :func:`consistency` give proofs anyone can check with
:mod:`ledger.trust.merkle` alone.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ledger.errors import RuleError
from ledger.store.tree import TILE_HEIGHTS, fold
from ledger.trust import merkle

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign
    from ledger.store.protocols import EventStore


@dataclass(frozen=True)
class Inclusion:
    """That event ``seq`` is in the tree of the first ``size`` events, whose root is
    ``root``: its leaf hash and audit path (32-byte hashes)."""

    seq: int
    size: int
    leaf: bytes
    root: bytes
    proof: list[bytes]

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready, hashes in base64 (as C2SP checkpoints write a root)."""
        return {
            "seq": self.seq,
            "index": self.seq - 1,
            "tree_size": self.size,
            "leaf_hash": _b64(self.leaf),
            "root": _b64(self.root),
            "proof": [_b64(h) for h in self.proof],
        }


@dataclass(frozen=True)
class Consistency:
    """That the tree of ``old`` events (root ``old_root``) is a prefix of the tree of
    ``new`` events (root ``new_root``)."""

    old: int
    new: int
    old_root: bytes
    new_root: bytes
    proof: list[bytes]

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready, hashes in base64."""
        return {
            "old_size": self.old,
            "new_size": self.new,
            "old_root": _b64(self.old_root),
            "new_root": _b64(self.new_root),
            "proof": [_b64(h) for h in self.proof],
        }


def _b64(h: bytes) -> str:
    return base64.b64encode(h).decode()


class StoredTree:
    """A campaign's Merkle tree as the store keeps it (:mod:`ledger.store.tree`): the
    frontier, the roots of complete height-8 and height-16 subtrees, and the events' hashes.

    :meth:`subtree` gives the root of any range a proof asks for by folding at most 255
    stored hashes per perfect subtree (leaves below height 8, height-8 roots below 16,
    height-16 roots above), so a proof costs O(log n) reads, never a rebuild; a tile the
    store lacks is folded from the level below.
    """

    def __init__(self, store: EventStore, campaign: str) -> None:
        self.store = store
        self.campaign = campaign
        self.size, self.frontier = store.tree_frontier(campaign)

    def root(self, size: int | None = None) -> bytes:
        """The root of the tree of the first ``size`` leaves (default: all)."""
        n = self.size if size is None else size
        if n == self.size:
            return merkle.Frontier(self.size, self.frontier).root()
        if n == 0:
            return merkle.EMPTY_ROOT
        return self.subtree(0, n)

    def _perfect(self, start: int, height: int) -> bytes:
        """The root of the perfect subtree of ``2**height`` leaves from leaf ``start``
        (a multiple of ``2**height``)."""
        for tile in sorted(TILE_HEIGHTS, reverse=True):
            if height >= tile:
                count = 1 << (height - tile)
                got = self.store.tree_tiles(self.campaign, tile, start >> tile, count)
                if len(got) == count:
                    return fold(got)
        return fold(self.store.tree_leaves(self.campaign, start, 1 << height))

    def subtree(self, start: int, end: int) -> bytes:
        """MTH of leaves ``start`` to ``end - 1`` (RFC 9162 2.1.1), as a proof's
        ``subtree`` callback asks for it (``start`` a multiple of the left part's size)."""
        n = end - start
        if n & (n - 1) == 0 and start % n == 0:
            return self._perfect(start, n.bit_length() - 1)
        k = 1 << ((n - 1).bit_length() - 1)
        return merkle.node_hash(self.subtree(start, start + k), self.subtree(start + k, end))

    def leaf(self, index: int) -> bytes:
        """Leaf hash ``index`` (event ``index + 1``)."""
        return self.store.tree_leaves(self.campaign, index, 1)[0]


def leaves(store: EventStore, campaign: str, upto: int) -> list[bytes]:
    """The leaf hashes of events 1 to ``upto``, in seq order (O(n): for tests and checks
    that read the whole log anyway)."""
    return [
        merkle.leaf_hash(bytes.fromhex(h))
        for (h,) in store.rows(campaign, upto=upto, columns=["hash"])
    ]


def _size(tree: StoredTree, campaign: str, size: int | None) -> int:
    head = tree.size
    if size is None:
        return head
    if not 1 <= size <= head:
        raise RuleError(f"the log of {campaign} holds events 1 to {head}: no tree of {size}")
    return size


def inclusion(store: EventStore, campaign: str, seq: int, size: int | None = None) -> Inclusion:
    """The inclusion proof of event ``seq`` in the tree of the first ``size`` events
    (default: the whole log), from the stored tree (O(log n) reads).

    :raises RuleError: ``seq`` or ``size`` outside the log, or ``seq`` after ``size``.
    """
    tree = StoredTree(store, campaign)
    n = _size(tree, campaign, size)
    if not 1 <= seq <= n:
        raise RuleError(f"event {seq} is not in the tree of {n} events (1 to {n})")
    proof = merkle.inclusion_proof(seq - 1, n, subtree=tree.subtree)
    return Inclusion(seq, n, tree.leaf(seq - 1), tree.root(n), proof)


def consistency(store: EventStore, campaign: str, old: int, new: int | None = None) -> Consistency:
    """The consistency proof from the tree of the first ``old`` events to that of ``new``
    (default: the whole log), from the stored tree (O(log n) reads).

    :raises RuleError: sizes outside the log, or ``old`` larger than ``new``.
    """
    tree = StoredTree(store, campaign)
    n = _size(tree, campaign, new)
    if not 1 <= old <= n:
        raise RuleError(f"a tree of {old} events cannot be a prefix of one of {n}")
    proof = merkle.consistency_proof(old, n, subtree=tree.subtree)
    return Consistency(old, n, tree.root(old), tree.root(n), proof)


def against_checkpoint(campaign: Campaign, seq: int, event_hash: str) -> dict[str, Any]:
    """Event ``seq``'s inclusion proof against the newest signed checkpoint that holds it
    (``audit SEQ``), checked: the note's signature by the campaign's key, and the audit path
    from the event's own hash to the note's root (RFC 9162 2.1.3.2).

    :returns: ``{"checkpoint": size or None, "index", "proof": [base64], "root": base64,
        "verified": bool, "problem": str or None}``; ``checkpoint`` is ``None`` (with the
        reason in ``problem``) when no checkpoint holds the event yet.
    """
    from ledger.campaign.checkpoints import open_checkpoint, recorded_key
    from ledger.trust.notes import NoteError

    store = campaign.store
    latest = store.latest_checkpoint(campaign.id)
    if latest is None or latest["size"] < seq:
        why = (
            "no checkpoint is signed yet"
            if latest is None
            else (f"the newest checkpoint covers events 1 to {latest['size']}")
        )
        return {"checkpoint": None, "verified": False,
                "problem": f"{why}: `campaign checkpoint` signs one"}  # fmt: skip
    size = int(latest["size"])
    out: dict[str, Any] = {"checkpoint": size, "index": seq - 1, "proof": [],
                           "root": _b64(latest["root"]), "verified": False, "problem": None}  # fmt: skip
    held = store.head(campaign.id).seq
    if held < size:  # the events the checkpoint signed are gone: no proof can be built
        out["problem"] = (
            f"the checkpoint of size {size} covers {size} events but the log holds only "
            f"{held}: the log was truncated"
        )
        return out
    try:
        root = open_checkpoint(str(latest["note"]), recorded_key(campaign) or "").root
        found = inclusion(store, campaign.id, seq, size)
        out["proof"] = [_b64(h) for h in found.proof]
        leaf = merkle.leaf_hash(bytes.fromhex(event_hash))
        merkle.verify_inclusion(seq - 1, size, leaf, found.proof, root)
    except (NoteError, merkle.ProofError, RuleError) as e:
        out["problem"] = f"the proof against the checkpoint of size {size} fails: {e}"
        return out
    out["verified"] = True
    return out
