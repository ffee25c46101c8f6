"""ledger.trust.merkle against the published RFC 6962 vectors and an independent fold.

Vectors: the transparency-dev/merkle reference implementation's test leaves and roots
(testonly/constants.go) and its inclusion and consistency proof cases, happy and mangled
(testdata/, copied to tests/vectors/ with their source). The hypothesis properties check
proofs for random trees against a recursive MTH written from RFC 9162 2.1.1 alone.
"""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.trust.merkle import (
    EMPTY_ROOT,
    Frontier,
    ProofError,
    consistency_proof,
    inclusion_proof,
    leaf_hash,
    node_hash,
    root,
    verify_consistency,
    verify_inclusion,
)

VECTORS = Path(__file__).parent / "vectors"

#: testonly.LeafInputs() of transparency-dev/merkle
LEAVES = [bytes.fromhex(h) for h in (
    "", "00", "10", "2021", "3031", "40414243", "5051525354555657",
    "606162636465666768696a6b6c6d6e6f",
)]  # fmt: skip
#: testonly.RootHashes(): the root of the first n leaves, n = 0..8
ROOTS = [bytes.fromhex(h) for h in (
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
)]  # fmt: skip


def b64(values):
    return [base64.b64decode(v) for v in values or []]


def cases(kind: str) -> list[dict]:
    return json.loads((VECTORS / f"rfc6962-{kind}.json").read_text())["cases"]


def mth(leaves: list[bytes]) -> bytes:
    """RFC 9162 2.1.1, written as the RFC states it (recursive), for the properties."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return leaves[0]
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return hashlib.sha256(b"\x01" + mth(leaves[:k]) + mth(leaves[k:])).digest()


def test_roots_of_the_reference_leaves():
    hashed = [leaf_hash(x) for x in LEAVES]
    for n in range(9):
        assert root(hashed[:n]) == ROOTS[n], n
    assert EMPTY_ROOT == ROOTS[0]


def test_the_frontier_grows_one_leaf_at_a_time_to_the_same_roots():
    frontier = Frontier()
    for n, leaf in enumerate(LEAVES, start=1):
        frontier.append(leaf_hash(leaf))
        assert frontier.size == n and frontier.root() == ROOTS[n]
        assert len(frontier.hashes) == bin(n).count("1")  # O(log n) kept
    again = Frontier(frontier.size, frontier.hashes)
    assert again.root() == ROOTS[8]
    with pytest.raises(ValueError, match="subtree roots"):
        Frontier(5, frontier.hashes)


@pytest.mark.parametrize("case", cases("inclusion"), ids=lambda c: c["file"].split("testdata/")[1])
def test_inclusion_vectors(case):
    proof, root_, leaf = b64(case["proof"]), *b64([case["root"], case["leafHash"]])
    if case["wantErr"]:
        with pytest.raises(ProofError):
            verify_inclusion(case["leafIdx"], case["treeSize"], leaf, proof, root_)
    else:
        verify_inclusion(case["leafIdx"], case["treeSize"], leaf, proof, root_)
        hashed = [leaf_hash(x) for x in LEAVES]
        if case["treeSize"] <= len(hashed) and leaf in hashed:  # our proof is the same
            assert inclusion_proof(case["leafIdx"], case["treeSize"], hashed) == proof


@pytest.mark.parametrize("case", cases("consistency"), ids=lambda c: c["file"].split("testdata/")[1])
def test_consistency_vectors(case):
    proof, root1, root2 = b64(case["proof"]), *b64([case["root1"], case["root2"]])
    if case["wantErr"]:
        with pytest.raises(ProofError):
            verify_consistency(case["size1"], case["size2"], root1, root2, proof)
    else:
        verify_consistency(case["size1"], case["size2"], root1, root2, proof)
        hashed = [leaf_hash(x) for x in LEAVES]
        if case["size2"] <= len(hashed) and root2 == ROOTS[case["size2"]]:
            assert consistency_proof(case["size1"], case["size2"], hashed) == proof


def test_a_rewritten_history_fails_consistency():
    hashed = [leaf_hash(x) for x in LEAVES]
    forged = hashed[:3] + [leaf_hash(b"rewritten")] + hashed[4:]
    old_root = root(hashed[:5])
    proof = consistency_proof(5, 8, forged)
    with pytest.raises(ProofError, match="history was rewritten|old root"):
        verify_consistency(5, 8, old_root, root(forged), proof)


leaves_st = st.lists(st.binary(min_size=32, max_size=32), min_size=1, max_size=70)


@settings(max_examples=150, deadline=None)
@given(leaves=leaves_st, data=st.data())
def test_random_trees_prove_every_leaf_and_every_prefix(leaves, data):
    hashed = [leaf_hash(x) for x in leaves]
    n = len(hashed)
    assert root(hashed) == mth(hashed)
    i = data.draw(st.integers(0, n - 1))
    size = data.draw(st.integers(i + 1, n))
    proof = inclusion_proof(i, size, hashed)
    verify_inclusion(i, size, hashed[i], proof, mth(hashed[:size]))
    with pytest.raises(ProofError):
        verify_inclusion(i, size, leaf_hash(b"not there"), proof, mth(hashed[:size]))
    old = data.draw(st.integers(1, n))
    cproof = consistency_proof(old, n, hashed)
    verify_consistency(old, n, mth(hashed[:old]), mth(hashed), cproof)
    if 0 < old < n:  # a changed leaf before old breaks it
        j = data.draw(st.integers(0, old - 1))
        forged = hashed[:j] + [node_hash(hashed[j], hashed[j])] + hashed[j + 1:]
        with pytest.raises(ProofError):
            verify_consistency(old, n, mth(hashed[:old]), mth(forged), consistency_proof(old, n, forged))


@settings(max_examples=60, deadline=None)
@given(entries=st.lists(st.binary(max_size=40), min_size=1, max_size=40))
def test_roots_agree_with_an_independent_implementation(entries):
    """pymerkle (a test-only dependency, its own RFC 9162 code) gives the same root for
    every prefix of a random log."""
    from pymerkle import InmemoryTree

    theirs = InmemoryTree(algorithm="sha256")
    ours = Frontier()
    for n, entry in enumerate(entries, start=1):
        theirs.append_entry(entry)
        ours.append(leaf_hash(entry))
        assert ours.root() == theirs.get_root(n)
