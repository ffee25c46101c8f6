"""A Merkle tree over a campaign's events (RFC 6962 / RFC 9162 section 2.1 hashing).

The leaves are the events in seq order; leaf ``i`` (0-based, seq ``i + 1``) hashes the
event's 32-byte chain hash: ``SHA-256(0x00 ‖ hash)``; an interior node is
``SHA-256(0x01 ‖ left ‖ right)``, where the left subtree holds the largest power of two of
leaves smaller than the node's count (RFC 9162 2.1.1). The empty tree's root is
``SHA-256("")``.

- :class:`Frontier`: the tree kept incrementally, one hash per set bit of its size (a
  compact range), so an append costs O(log n) hashes and nothing is rebuilt.
- :func:`inclusion_proof` / :func:`verify_inclusion`: that a leaf is in a tree of a size
  (RFC 9162 2.1.3).
- :func:`consistency_proof` / :func:`verify_consistency`: that a tree of one size is a
  prefix of a tree of a larger size (RFC 9162 2.1.4): nothing was rewritten in between.

Proofs are built from the leaf hashes (:func:`inclusion_proof` reads only the O(log n)
subtree roots it needs through ``subtree``); verification needs only the proof. Checked
against the RFC 6962 test vectors of the transparency-dev/merkle reference implementation
(tests/test_merkle.py).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

#: The root of the empty tree: SHA-256 of nothing.
EMPTY_ROOT = hashlib.sha256(b"").digest()


class ProofError(ValueError):
    """A proof that does not prove what it claims (wrong length, sizes out of order, or hashes
    that do not lead to the root). ``str()`` says which."""


def leaf_hash(data: bytes) -> bytes:
    """RFC 6962 leaf hash: ``SHA-256(0x00 ‖ data)``; for an event, ``data`` is its 32-byte
    chain hash (``bytes.fromhex(event.hash)``)."""
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """RFC 6962 interior node: ``SHA-256(0x01 ‖ left ‖ right)``."""
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two smaller than ``n`` (``n`` ≥ 2): the left subtree's size."""
    return 1 << ((n - 1).bit_length() - 1)


def root(leaves: Sequence[bytes]) -> bytes:
    """The root of the tree whose leaf hashes are ``leaves`` (MTH, RFC 9162 2.1.1)."""
    frontier = Frontier()
    for leaf in leaves:
        frontier.append(leaf)
    return frontier.root()


class Frontier:
    """A Merkle tree kept as its compact range: the roots of its perfect subtrees, largest
    first (one per set bit of :attr:`size`). :meth:`append` costs O(log n) hashes and
    :meth:`root` O(log n); the full tree is never held.

    :param size: the number of leaves already in the tree.
    :param hashes: its perfect subtrees' roots, largest first (``bin(size).count("1")``).
    :raises ValueError: ``hashes`` that do not fit ``size``.
    """

    def __init__(self, size: int = 0, hashes: Sequence[bytes] = ()) -> None:
        if size < 0 or len(hashes) != bin(size).count("1"):
            raise ValueError(f"a tree of {size} leaves has {bin(size).count('1')} subtree roots, not {len(hashes)}")
        self.size = size
        self.hashes = list(hashes)

    def append(self, leaf: bytes) -> None:
        """Add one leaf hash (:func:`leaf_hash`) as the next leaf."""
        node = leaf
        size = self.size
        while size & 1:  # merge with each equal-sized subtree on the right edge
            node = node_hash(self.hashes.pop(), node)
            size >>= 1
        self.hashes.append(node)
        self.size += 1

    def root(self) -> bytes:
        """The tree's root hash (:data:`EMPTY_ROOT` when empty)."""
        if not self.hashes:
            return EMPTY_ROOT
        node = self.hashes[-1]
        for left in reversed(self.hashes[:-1]):
            node = node_hash(left, node)
        return node

    def copy(self) -> Frontier:
        """An independent copy (appending to one leaves the other as it was)."""
        return Frontier(self.size, self.hashes)


def _subtree_from(leaves: Sequence[bytes]) -> Callable[[int, int], bytes]:
    def subtree(start: int, end: int) -> bytes:
        return root(leaves[start:end])

    return subtree


def inclusion_proof(
    index: int, size: int, leaves: Sequence[bytes] | None = None, *,
    subtree: Callable[[int, int], bytes] | None = None,
) -> list[bytes]:  # fmt: skip
    """The audit path of leaf ``index`` in the tree of the first ``size`` leaves (RFC 9162
    2.1.3.1 PATH), nearest sibling first.

    :param leaves: the leaf hashes (at least ``size``), or give ``subtree(start, end)``: the
        root of leaves ``start`` to ``end - 1`` (a perfect subtree or the tree's right edge).
    :raises ValueError: ``index`` not below ``size``.
    """
    if not 0 <= index < size:
        raise ValueError(f"leaf {index} is not in a tree of {size} leaves")
    get = subtree or _subtree_from(leaves or [])
    path: list[bytes] = []
    start, end = 0, size
    while end - start > 1:
        k = _split(end - start)
        if index < start + k:
            path.append(get(start + k, end))
            end = start + k
        else:
            path.append(get(start, start + k))
            start += k
    return path[::-1]


def consistency_proof(
    old: int, new: int, leaves: Sequence[bytes] | None = None, *,
    subtree: Callable[[int, int], bytes] | None = None,
) -> list[bytes]:  # fmt: skip
    """The proof that the tree of the first ``old`` leaves is a prefix of the tree of the
    first ``new`` (RFC 9162 2.1.4.1 PROOF); empty when ``old`` is 0 or equals ``new``.

    :raises ValueError: ``old`` is 0 (nothing to prove) or larger than ``new``.
    """
    if not 0 < old <= new:
        raise ValueError(
            f"a tree of {old} leaves cannot be a prefix of one of {new}"
            if old else "a consistency proof from the empty tree proves nothing"
        )
    if old == new:
        return []
    get = subtree or _subtree_from(leaves or [])
    outer: list[bytes] = []  # what each level appends after its subproof, outermost first
    start, end, m, complete = 0, new, old, True
    while m != end - start:  # SUBPROOF(m, D[start:end], complete)
        k = _split(end - start)
        if m <= k:
            outer.append(get(start + k, end))
            end = start + k
        else:
            outer.append(get(start, start + k))
            start, m, complete = start + k, m - k, False
    inner = [] if complete else [get(start, end)]
    return inner + outer[::-1]


def verify_inclusion(index: int, size: int, leaf: bytes, proof: Sequence[bytes], root_: bytes) -> None:
    """Check that ``leaf`` (a leaf hash) is leaf ``index`` of the tree of ``size`` leaves
    whose root is ``root_`` (RFC 9162 2.1.3.2).

    :raises ProofError: it is not (or the proof is malformed); the message says why.
    """
    if not 0 <= index < size:
        raise ProofError(f"leaf {index} is not in a tree of {size} leaves")
    if len(leaf) != 32 or len(root_) != 32:
        raise ProofError("a leaf hash and a root are 32 bytes each")
    fn, sn = index, size - 1
    r = leaf
    for p in proof:
        if len(p) != 32:
            raise ProofError("a proof hash is not 32 bytes")
        if sn == 0:
            raise ProofError("the proof is longer than the tree is deep")
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise ProofError("the proof is shorter than the tree is deep")
    if r != root_:
        raise ProofError("the proof does not lead to the tree's root: the leaf is not there")


def verify_consistency(
    old: int, new: int, old_root: bytes, new_root: bytes, proof: Sequence[bytes]
) -> None:
    """Check that the tree of ``old`` leaves with root ``old_root`` is a prefix of the tree
    of ``new`` leaves with root ``new_root`` (RFC 9162 2.1.4.2).

    :raises ProofError: it is not (history was rewritten), the proof is malformed, or
        ``old`` is 0 (a proof from the empty tree proves nothing, as the reference says).
    """
    if not 0 < old <= new:
        raise ProofError(
            f"a tree of {old} leaves cannot be a prefix of one of {new}"
            if old else "a consistency proof from the empty tree proves nothing"
        )
    if old == new:
        if proof:
            raise ProofError("trees of one size need an empty proof")
        if old_root != new_root:
            raise ProofError(f"two different trees of {old} leaves: history was rewritten")
        return
    if any(len(p) != 32 for p in proof) or len(old_root) != 32 or len(new_root) != 32:
        raise ProofError("a proof hash or a root is not 32 bytes")
    if not proof:
        raise ProofError("the proof is empty")
    path = list(proof)
    if old & (old - 1) == 0:  # a power of two: the old root is the first node
        path.insert(0, old_root)
    fn, sn = old - 1, new - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            raise ProofError("the proof is longer than the trees are deep")
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise ProofError("the proof is shorter than the trees are deep")
    if fr != old_root:
        raise ProofError(f"the proof does not lead to the old root of {old} leaves")
    if sr != new_root:
        raise ProofError(
            f"the proof does not lead to the new root of {new} leaves: the tree of {old} "
            "is not a prefix of it (history was rewritten)"
        )
