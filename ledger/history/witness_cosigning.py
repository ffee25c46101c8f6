"""Having a club witness cosign the campaign's checkpoint (``campaign checkpoint --witness URL
--witness-key VKEY``).

C2SP tlog-witness (https://github.com/C2SP/C2SP/blob/main/tlog-witness.md, "add-checkpoint"):
the log sends ``old SIZE`` (the size the witness last cosigned for it, 0 the first time), a
consistency proof from that size to the checkpoint's (RFC 9162 2.1.4, from the stored tree:
:func:`ledger.history.tree_proofs.consistency`) and the signed checkpoint. A witness that holds
another size answers 409 with it; the log retries once from that size (it was behind, or
lost track of a cosignature). The cosignature returned is verified by the client against
the witness's key and kept like a phone's (:func:`ledger.campaign.checkpoints.add_cosignature`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ledger.campaign.checkpoints import Made, add_cosignature
from ledger.errors import RuleError
from ledger.history.tree_proofs import consistency
from ledger.trust.cosignature import CosignatureVerifier
from ledger.trust.notes import NoteError
from ledger.witness.client import WitnessConflict, add_checkpoint
from ledger.witness.state import WitnessError

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign


@dataclass(frozen=True)
class Cosigned:
    """A witness's cosignature of the checkpoint of ``size``: the witness's ``name``, its
    cosignature line (``— NAME BASE64``, no newline), the old size the request that got it
    sent, and whether it was new to this ledger (``False``: already kept)."""

    size: int
    name: str
    signature: str
    old_size: int
    new: bool


def parse_witness_key(vkey: str) -> CosignatureVerifier:
    """The witness's cosigner key ``NAME+KEYID+BASE64(0x04 ‖ KEY)`` (C2SP tlog-cosignature).

    :raises WitnessError: a malformed key, or one of another type (a log's Ed25519 key).
    """
    try:
        return CosignatureVerifier.parse(vkey.strip())
    except NoteError as e:
        raise WitnessError(
            f"--witness-key: not a witness's cosigner key ({e}): give the NAME+KEYID+BASE64 "
            "that `campaign witness init` printed"
        ) from None


def last_cosigned(campaign: Campaign, vkey: str) -> int:
    """The largest checkpoint size this ledger keeps a cosignature of by the witness key
    ``vkey``, or 0 if it never got one (the ``old`` size of the next request)."""
    sizes = [int(c["size"]) for c in campaign.store.cosignatures(campaign.id) if c["vkey"] == vkey]
    return max(sizes, default=0)


def _proof(campaign: Campaign, old: int, size: int) -> list[bytes]:
    if old == 0 or old == size:
        return []
    return consistency(campaign.store, campaign.id, old, size).proof


def cosign(
    campaign: Campaign, made: Made, url: str, witness_key: str, *, at: str, timeout: float = 10.0
) -> Cosigned:
    """Ask the witness at ``url`` to cosign ``made`` (the newest checkpoint) and keep its
    cosignature, verified against ``witness_key``.

    The first request sends the size last cosigned by that key (:func:`last_cosigned`) and
    the proof from it; on a 409 it retries once from the size the witness reports.

    :raises WitnessError: a bad key or URL, the witness unreachable, refusing, conflicting
        twice, ahead of this log (a rolled-back log, or another log under this origin), or
        answering without a valid cosignature by ``witness_key``. Nothing is stored then.
    """
    verifier = parse_witness_key(witness_key)
    vkey = verifier.key()
    old = last_cosigned(campaign, vkey)
    if old > made.size:
        old = 0  # a cosignature of a larger size than the log: let the witness say its size
    try:
        line = add_checkpoint(
            url, made.note, old, _proof(campaign, old, made.size), witness_key=verifier,
            timeout=timeout,
        )  # fmt: skip
    except WitnessConflict as e:
        if e.size > made.size:
            raise WitnessError(
                f"the witness at {url.rstrip('/')} already cosigned this log at size {e.size}, "
                f"larger than this checkpoint's {made.size}: this ledger was rolled back, or "
                "is not the one the witness follows (restore the GM's newest backup)"
            ) from None
        old = e.size
        line = add_checkpoint(
            url, made.note, old, _proof(campaign, old, made.size), witness_key=verifier,
            timeout=timeout,
        )  # fmt: skip
    signature = line.rstrip("\n")
    try:
        new = add_cosignature(campaign, made.size, vkey, signature, at=at)
    except RuleError as e:  # the client verified it already: only a race could get here
        raise WitnessError(f"the witness's cosignature was not kept: {e}") from None
    return Cosigned(made.size, verifier.name, signature, old, new)
