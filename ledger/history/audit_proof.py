"""Audit by proof: what ``audit SEQ`` checks of one event, in O(log n + k), not O(seq).

``verify`` proves the whole file (SQLite's integrity check, the chain from the first event,
every roll's result, the sessions' seeds). ``audit SEQ`` asks about one event, so it proves
that event only, from the nearest thing already proven:

1. **inclusion**: the event's hash is a leaf of the newest signed checkpoint (the note's
   signature by the campaign's key, then the audit path from the leaf to the note's root,
   RFC 9162 2.1.3.2; :func:`ledger.history.tree_proofs.against_checkpoint`);
2. **the chain from an anchor**: every event from the anchor ``K`` to ``SEQ`` links to the
   one before it (``prev_hash``) and hashes to its stored ``hash`` (its contents unchanged).
   The anchor is the largest of: the newest checkpoint at or before ``SEQ`` (event ``K``'s
   hash proven by its own inclusion in the newest signed checkpoint), and the head ``verify``
   last proved (:func:`record_verified`, used only while the stored chain still ends there
   in the hash it proved); else the first event (``K = 0``);
3. **the rules**: the roll's result re-derived from its character's state just before it,
   folded from the newest snapshot (``ledger.history.audit.result_of``).

A roll after the newest checkpoint has no inclusion proof: the chain from that checkpoint
(or from what ``verify`` proved) is what holds it. An attacker who edits a roll's payload
and rebuilds every hash after it still fails step 1 (the signed root does not hold the new
hash) or step 2 (an anchor's hash is not the one signed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ledger.chain import ZERO_HASH, hash_of
from ledger.trust import merkle

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign
    from ledger.store.protocols import EventStore


@dataclass
class ChainProof:
    """What step 2 found: ``ok``, else the first ``bad_seq`` and its ``problem``.

    ``anchor_seq`` is the anchor's seq (0: the first event), ``anchor`` how it was proven
    (``"checkpoint"``, ``"verify"`` or ``"genesis"``), ``start`` the first seq hashed less
    one (the anchor, or earlier when :func:`prove_back` went back from it to cover a
    snapshot's fold), ``events`` how many were hashed."""

    ok: bool = True
    bad_seq: int | None = None
    problem: str | None = None
    start: int = 0
    anchor_seq: int = 0
    anchor: str = "genesis"
    events: int = 0
    checkpoint: dict[str, Any] = field(default_factory=dict)

    def fail(self, seq: int, problem: str) -> ChainProof:
        """Record the first problem (at ``seq``) and return self."""
        self.ok, self.bad_seq, self.problem = False, seq, problem
        return self


def _signed(
    campaign: Campaign,
) -> tuple[dict[str, Any] | None, bytes | None, str | None, str | None]:
    """The newest kept checkpoint, its root as its signed note gives it, the signer's name,
    and the problem when the note does not open with the campaign's recorded key (then no
    root and no name)."""
    from ledger.campaign.checkpoints import open_checkpoint, recorded_key
    from ledger.trust.notes import NoteError, Verifier

    latest = campaign.store.latest_checkpoint(campaign.id)
    if latest is None:
        return None, None, None, None
    vkey = recorded_key(campaign) or ""
    try:
        checkpoint = open_checkpoint(str(latest["note"]), vkey)
        return latest, checkpoint.root, Verifier.parse(vkey).name, None
    except NoteError as e:
        return latest, None, None, f"the checkpoint of size {latest['size']} does not open: {e}"


def _anchor_problem(campaign: Campaign, k: int, k_hash: str, size: int, root: bytes) -> str | None:
    """Does event ``k``'s stored hash sit at leaf ``k - 1`` of the signed tree of ``size``?"""
    from ledger.errors import RuleError
    from ledger.history.tree_proofs import inclusion

    try:
        found = inclusion(campaign.store, campaign.id, k, size)
        leaf = merkle.leaf_hash(bytes.fromhex(k_hash))
        merkle.verify_inclusion(k - 1, size, leaf, found.proof, root)
    except (merkle.ProofError, RuleError, ValueError) as e:
        return f"event {k}'s hash is not the one signed in the checkpoint of size {size}: {e}"
    return None


def prove_chain(campaign: Campaign, seq: int) -> ChainProof:
    """Step 2 for event ``seq``: the chain from the nearest proven anchor to ``seq``.

    :returns: the :class:`ChainProof` (it stops at the first problem); its ``checkpoint``
        names the newest signed checkpoint (``number`` among the kept ones, ``size``,
        ``signed_by``) when there is one.
    """
    store = campaign.store
    out = ChainProof()
    latest, root, signer, bad_note = _signed(campaign)
    signed_size = 0
    if latest is not None:
        sizes = [c["size"] for c in store.checkpoints(campaign.id)]
        signed_size = int(latest["size"])
        out.checkpoint = {"number": len(sizes), "size": signed_size, "signed_by": signer}
        below = [s for s in sizes if s <= seq]
        if below and not bad_note:  # a note that does not open anchors nothing (the
            # inclusion proof reports it)
            out.start, out.anchor = int(max(below)), "checkpoint"
    proved = store.verified(campaign.id)
    if proved is not None and out.start < proved[0] <= seq:
        out.start, out.anchor = int(proved[0]), "verify"
    prev = ZERO_HASH
    expected = out.start + 1
    rows = store.rows(campaign.id, after=max(out.start - 1, 0), upto=seq)
    for row in rows:
        if row.seq == out.start:  # the anchor itself: its hash is where the chain starts
            prev = row.hash
            problem = None
            if out.anchor == "checkpoint" and root is not None:
                problem = _anchor_problem(campaign, row.seq, row.hash, signed_size, root)
            elif out.anchor == "verify" and proved is not None and row.hash != proved[1]:
                problem = "the event verify last proved has another hash now: the log was changed"
            if problem is None and hash_of(row) != row.hash:
                problem = "hash does not match the event's contents (changed after it was written)"
            if problem:
                return out.fail(row.seq, problem)
            out.events += 1
            continue
        if row.seq != expected:
            return out.fail(expected, f"seq {expected} is missing (found {row.seq} next)")
        if row.prev_hash != prev:
            return out.fail(row.seq, "prev_hash does not match the previous event's hash")
        if hash_of(row) != row.hash:
            return out.fail(
                row.seq,
                "hash does not match the event's contents (changed after it was written)",
            )
        prev = row.hash
        expected += 1
        out.events += 1
    if expected <= seq:
        return out.fail(expected, f"seq {expected} is missing")
    out.anchor_seq = out.start
    return out


def prove_back(campaign: Campaign, chain: ChainProof, first: int) -> ChainProof:
    """Extend a proven ``chain`` back from its anchor to cover events ``first + 1`` on (the
    events a re-derivation folds after a snapshot at ``first``): each hashes to its stored
    hash and is the ``prev_hash`` of the next, ending in the anchor's proven hash (so an
    event edited before the anchor, rehashed or not, is found). Updates ``chain``.
    """
    if not chain.ok or first >= chain.start:
        return chain
    expected = first + 1
    prev = ZERO_HASH if first == 0 else None  # the link into event ``first`` is not checked
    for row in campaign.store.rows(campaign.id, after=first, upto=chain.start):  # streamed
        if row.seq != expected:
            return chain.fail(expected, f"seq {expected} is missing (found {row.seq} next)")
        if prev is not None and row.prev_hash != prev:
            return chain.fail(row.seq, "prev_hash does not match the previous event's hash")
        if row.seq < chain.start and hash_of(row) != row.hash:
            return chain.fail(
                row.seq,
                "hash does not match the event's contents (changed after it was written)",
            )
        prev = row.hash
        expected += 1
    if expected <= chain.start:
        return chain.fail(expected, f"seq {expected} is missing")
    chain.events += chain.start - first - 1
    chain.start = first
    return chain


def checked_text(chain: ChainProof, proof: dict[str, Any], snapshot: int | None) -> str:
    """What ``audit`` checked, in one line: ``"inclusion in checkpoint N of size M signed by
    NAME; chain from #K (…); rules re-derived from snapshot at #J"`` (parts as they apply)."""
    parts = []
    cp = chain.checkpoint
    if proof.get("checkpoint") is not None:
        parts.append(
            f"inclusion in checkpoint {cp.get('number')} of size {proof['checkpoint']} "
            f"signed by {cp.get('signed_by')}"
        )
    elif cp:
        parts.append(f"no inclusion (after checkpoint {cp['number']} of size {cp['size']})")
    else:
        parts.append("no inclusion (no signed checkpoint)")
    how = {
        "checkpoint": "a signed checkpoint's last event",
        "verify": "the head `verify` proved",
        "genesis": "the first event",
    }[chain.anchor]
    through = f" through #{chain.anchor_seq}" if chain.start != chain.anchor_seq else ""
    parts.append(f"chain from #{chain.start}{through} ({how}, {chain.events} events hashed)")
    if snapshot is not None:
        parts.append(
            f"rules re-derived from snapshot at #{snapshot}"
            if snapshot
            else "rules re-derived from the first event (no snapshot before it)"
        )
    return "; ".join(parts)


def record_verified(store: EventStore, campaign: str, seq: int, head_hash: str, at: str) -> None:
    """Keep that ``verify`` proved the log of ``campaign`` up to ``seq``, ending in
    ``head_hash`` (:meth:`ledger.store.base.SqlEventStore.set_verified`), so an audit chains
    from there and never proves it twice. A read-only file keeps nothing (no error)."""
    from ledger.errors import StoreError

    try:
        store.set_verified(campaign, seq, head_hash, at)
    except StoreError:
        return
