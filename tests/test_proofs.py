"""`campaign proof inclusion|consistency`: Merkle proofs over the log."""

from __future__ import annotations

import base64
import hashlib
import json

import pytest

from ledger.testing import refused
from ledger.trust.merkle import ProofError, verify_consistency, verify_inclusion


def b(x: str) -> bytes:
    return base64.b64decode(x)


def mth(leaves: list[bytes]) -> bytes:
    """RFC 9162 2.1.1 as the RFC writes it, independent of ledger.trust.merkle."""
    if len(leaves) == 1:
        return leaves[0]
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return hashlib.sha256(b"\x01" + mth(leaves[:k]) + mth(leaves[k:])).digest()


def test_proofs_of_the_log_check_with_the_rfc_alone(toy_campaign, db_path):
    invoke = toy_campaign
    for i in range(7):
        assert invoke("note", f"note {i}").exit_code == 0
    export = [json.loads(x) for x in invoke("--as", "gm", "export").output.splitlines()]
    hashed = [hashlib.sha256(b"\x00" + bytes.fromhex(e["hash"])).digest() for e in export]
    n = len(export)
    one = json.loads(invoke("proof", "inclusion", "4", "--json").output)
    assert (one["tree_size"], one["index"]) == (n, 3) and b(one["root"]) == mth(hashed)
    verify_inclusion(3, n, b(one["leaf_hash"]), [b(h) for h in one["proof"]], mth(hashed))
    prefix = json.loads(invoke("proof", "consistency", "5", "--json").output)
    assert b(prefix["old_root"]) == mth(hashed[:5])
    verify_consistency(5, n, mth(hashed[:5]), mth(hashed), [b(h) for h in prefix["proof"]])
    # the proof of today's log does not prove a rewritten one
    forged = list(hashed)
    forged[2] = hashlib.sha256(b"\x00" + b"\x07" * 32).digest()
    with pytest.raises(ProofError):
        verify_consistency(5, n, mth(forged[:5]), mth(hashed), [b(h) for h in prefix["proof"]])
    text = invoke("proof", "inclusion", "4").output
    assert "Event 4 is leaf 3 of the tree of" in text


def test_proofs_refuse_sizes_outside_the_log(toy_campaign, db_path):
    assert "no tree of 99" in refused(db_path, "proof", "inclusion", "1", "--size", "99")
    assert "is not in the tree" in refused(db_path, "proof", "inclusion", "5", "--size", "3")
    assert "cannot be a prefix" in refused(db_path, "proof", "consistency", "9", "2")
