"""Merkle proofs over a campaign's log (RFC 9162, #26): its tree of event hashes, in seq order.

Leaf ``i`` (seq ``i + 1``) is ``SHA-256(0x00 ‖ the event's 32-byte hash)``. The tree is built
here from the stored hashes on each call (O(n) reads; the stored frontier that makes a
checkpoint O(log n) comes with signed checkpoints). :func:`inclusion` and
:func:`consistency` give proofs anyone can check with :mod:`ledger.trust.merkle` alone.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

from ledger.errors import RuleError
from ledger.trust import merkle


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


def leaves(store: Any, campaign: str, upto: int) -> list[bytes]:
    """The leaf hashes of events 1 to ``upto``, in seq order."""
    return [
        merkle.leaf_hash(bytes.fromhex(h))
        for (h,) in store.rows(campaign, upto=upto, columns=["hash"])
    ]


def _size(store: Any, campaign: str, size: int | None) -> int:
    head = int(store.head(campaign).seq)
    if size is None:
        return head
    if not 1 <= size <= head:
        raise RuleError(f"the log of {campaign} holds events 1 to {head}: no tree of {size}")
    return size


def inclusion(store: Any, campaign: str, seq: int, size: int | None = None) -> Inclusion:
    """The inclusion proof of event ``seq`` in the tree of the first ``size`` events
    (default: the whole log).

    :raises RuleError: ``seq`` or ``size`` outside the log, or ``seq`` after ``size``.
    """
    n = _size(store, campaign, size)
    if not 1 <= seq <= n:
        raise RuleError(f"event {seq} is not in the tree of {n} events (1 to {n})")
    hashed = leaves(store, campaign, n)
    return Inclusion(seq, n, hashed[seq - 1], merkle.root(hashed),
                     merkle.inclusion_proof(seq - 1, n, hashed))  # fmt: skip


def consistency(store: Any, campaign: str, old: int, new: int | None = None) -> Consistency:
    """The consistency proof from the tree of the first ``old`` events to that of ``new``
    (default: the whole log).

    :raises RuleError: sizes outside the log, or ``old`` larger than ``new``.
    """
    n = _size(store, campaign, new)
    if not 1 <= old <= n:
        raise RuleError(f"a tree of {old} events cannot be a prefix of one of {n}")
    hashed = leaves(store, campaign, n)
    return Consistency(old, n, merkle.root(hashed[:old]), merkle.root(hashed),
                       merkle.consistency_proof(old, n, hashed))  # fmt: skip
