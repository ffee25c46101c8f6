"""The campaign's checkpoint key and its signed checkpoints.

A *checkpoint* is a C2SP ``tlog-checkpoint`` of the campaign's Merkle tree (RFC 6962 over
its events in seq order, kept by the store: :mod:`ledger.store.tree`): the note text
``ORIGIN\\nSIZE\\nBASE64(ROOT)\\n``, signed as a C2SP ``signed-note`` with the campaign's
Ed25519 key (:mod:`ledger.trust.notes`). One is made at every ``session end`` (in the
transaction that ends it) and by ``campaign checkpoint``; all are kept.

- **The origin** (the note's first line, and the key's name) is ``campaign-ledger/<campaign
  id>`` (:func:`origin`): stable for the campaign's life, unique in a ledger (campaign ids
  are), free of spaces and ``+`` as C2SP names must be. Two GMs who name campaigns alike
  share an origin but never a key: phones pin the key (docs/trust.md).
- **The key** is made at ``campaign new``: its 32-byte Ed25519 seed is kept with the secrets
  (kind ``"checkpoint"``, session 0: in the GM's backup, never in a player's export) and its
  verifier key ``NAME+HASH+BASE64`` is public, in the ``campaign.created`` event
  (``checkpoint_key``). A campaign made before checkpoints gets its key by a
  ``checkpoint.key`` event at its first checkpoint. The key never changes: a second
  ``checkpoint.key`` is refused (:func:`check_key_event`).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ledger.errors import RuleError
from ledger.events import CheckpointKey
from ledger.trust import merkle
from ledger.trust.notes import Checkpoint, NoteError, Signer, Verifier, open_note, sign

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign
    from ledger.store.protocols import EventStore

#: The secrets' kind and session of a campaign's checkpoint signing key.
KEY_KIND = "checkpoint"
KEY_SESSION = 0
ORIGIN_PREFIX = "campaign-ledger/"


def origin(campaign_id: str) -> str:
    """The checkpoints' origin line and the key's name: ``campaign-ledger/<campaign id>``."""
    return ORIGIN_PREFIX + campaign_id


def new_key_seed() -> bytes:
    """A fresh 32-byte Ed25519 seed from :mod:`secrets` (tests that pin bytes replace this
    function; production never does)."""
    return secrets.token_bytes(32)


def new_signer(campaign_id: str) -> Signer:
    """A new checkpoint key for ``campaign_id`` (:func:`new_key_seed`)."""
    return Signer(origin(campaign_id), new_key_seed())


def keep_key(store: EventStore, campaign_id: str, signer: Signer) -> None:
    """Keep the signing key with the campaign's secrets (inside the creating transaction)."""
    store.put_secret(campaign_id, KEY_SESSION, signer.seed, KEY_KIND)


def recorded_key(campaign: Campaign) -> str | None:
    """The verifier key the log records (``campaign.created``'s ``checkpoint_key``, else a
    ``checkpoint.key`` event), or ``None``."""
    if campaign.created.checkpoint_key:
        return campaign.created.checkpoint_key
    row = campaign.store.last_of_types(campaign.id, ["checkpoint.key"])
    if row is None:
        return None
    import msgspec

    return str(msgspec.json.decode(row.data)["vkey"])


def check_key_event(campaign: Campaign, event: CheckpointKey) -> None:
    """Refuse a ``checkpoint.key`` that would change the key, or whose key is not the
    campaign's (named by its origin).

    :raises RuleError: a key is already recorded, or the key is malformed or misnamed.
    """
    if recorded_key(campaign) is not None:
        raise RuleError(
            "this campaign's checkpoint key is already recorded: it never changes (phones "
            "pin it); checkpoints are signed with it by `campaign checkpoint`"
        )
    try:
        verifier = Verifier.parse(event.vkey)
    except NoteError as e:
        raise RuleError(f"checkpoint.key: {e}") from None
    if verifier.name != origin(campaign.id):
        raise RuleError(f"checkpoint.key must name the key {origin(campaign.id)!r}")


def can_sign(campaign: Campaign) -> bool:
    """Can this ledger sign the campaign's checkpoints (its key kept here, or none recorded
    yet so one can be made)? ``session end`` checkpoints only when it can."""
    kept = campaign.store.get_secret(campaign.id, KEY_SESSION, KEY_KIND)
    return kept is not None or recorded_key(campaign) is None


def signer_of(campaign: Campaign, *, actor: str, at: str) -> Signer:
    """The campaign's signing key, checked against the recorded verifier key; a campaign
    with none yet gets one (kept, and recorded by a ``checkpoint.key`` event). Call inside a
    transaction.

    :raises RuleError: the key is recorded but not kept in this ledger (a player's copy), or
        the kept key is not the recorded one.
    """
    store = campaign.store
    kept = store.get_secret(campaign.id, KEY_SESSION, KEY_KIND)
    recorded = recorded_key(campaign)
    if recorded is None:
        signer = Signer(origin(campaign.id), kept) if kept else new_signer(campaign.id)
        if not kept:
            keep_key(store, campaign.id, signer)
        campaign.append(
            [CheckpointKey(vkey=signer.verifier.key())], actor=actor, at=at, session=None
        )
        return signer
    if kept is None:
        raise RuleError(
            "this ledger does not keep the campaign's checkpoint key (a player's copy?): "
            "checkpoints are made on the GM's ledger, or one restored from the GM's backup"
        )
    signer = Signer(origin(campaign.id), kept)
    if signer.verifier.key() != recorded:
        raise RuleError(
            "the kept checkpoint key is not the one the log records: restore the GM's backup"
        )
    return signer


@dataclass(frozen=True)
class Made:
    """A checkpoint: its size, root (32 bytes), signed note, when it was made, and whether
    this call made it (``False``: one of that size was kept already)."""

    size: int
    root: bytes
    note: str
    made_at: str
    new: bool

    def as_dict(self, vkey: str) -> dict[str, Any]:
        """JSON-ready (the HTTP ``GET /checkpoint`` shape, plus ``made_at``)."""
        import base64

        return {
            "note": self.note,
            "vkey": vkey,
            "size": self.size,
            "root": base64.b64encode(self.root).decode(),
            "made_at": self.made_at,
        }


def make_checkpoint(campaign: Campaign, *, actor: str, at: str) -> Made:
    """Sign and keep a checkpoint of the log as it is now (in one transaction: a campaign
    without a key gets one first, and its ``checkpoint.key`` is in the tree signed). A
    checkpoint of the same size already kept is returned as it is.

    Costs one frontier read, one signature and one write (O(log n), no rebuild).

    :raises RuleError: an empty log, or the key is not kept here (:func:`signer_of`).
    """
    store = campaign.store
    with store.transaction():
        signer = signer_of(campaign, actor=actor, at=at)
        size, hashes = store.tree_frontier(campaign.id)
        if size == 0:
            raise RuleError("the log is empty: there is nothing to checkpoint")
        kept = store.checkpoints(campaign.id, size=size)
        if kept:
            row = kept[0]
            return Made(size, row["root"], row["note"], row["made_at"], False)
        root = merkle.Frontier(size, hashes).root()
        note = sign(Checkpoint(origin(campaign.id), size, root).text(), signer)
        store.add_checkpoint(campaign.id, size, root, note, at)
    return Made(size, root, note, at, True)


def latest(campaign: Campaign) -> Made | None:
    """The newest kept checkpoint, or ``None``."""
    row = campaign.store.latest_checkpoint(campaign.id)
    if row is None:
        return None
    return Made(row["size"], row["root"], row["note"], row["made_at"], False)


def open_checkpoint(note: str, vkey: str) -> Checkpoint:
    """The checkpoint a signed note holds, its signature checked against ``vkey``.

    :raises NoteError: a malformed note or key, no signature by the key, a bad signature, or
        a note whose origin is not the key's name.
    """
    verifier = Verifier.parse(vkey)
    open_note(note, [verifier])
    checkpoint = Checkpoint.parse(note[: note.rfind("\n\n") + 1])
    if checkpoint.origin != verifier.name:
        raise NoteError(f"the checkpoint's origin {checkpoint.origin!r} is not the key's name")
    return checkpoint


#: The longest cosignature line or verifier key accepted (a C2SP one is under 200 bytes).
MAX_COSIGNATURE_TEXT = 1000


def add_cosignature(campaign: Campaign, size: int, vkey: str, signature: str, *, at: str) -> bool:
    """Keep a cosignature of the kept checkpoint of ``size`` after verifying it as a C2SP
    tlog-cosignature/v1 by ``vkey`` over that checkpoint (:mod:`ledger.trust.cosignature`).

    :param signature: the note signature line ``— NAME BASE64``.
    :returns: whether it was new (the same key cosigning the same checkpoint again is kept
        once: a replay changes nothing).
    :raises RuleError: no checkpoint of that size, or a cosignature that does not verify
        (over another checkpoint, by another key, malformed); nothing is stored.
    """
    if len(vkey) > MAX_COSIGNATURE_TEXT or len(signature) > MAX_COSIGNATURE_TEXT:
        raise RuleError("a cosignature or key that long is not one")
    store = campaign.store
    kept = store.checkpoints(campaign.id, size=size)
    if not kept:
        raise RuleError(f"no checkpoint of size {size} is kept: cosign one `GET /checkpoint` gave")
    note = str(kept[0]["note"])
    try:
        from ledger.trust.cosignature import verify_cosignature
    except ImportError:  # pragma: no cover - until ledger.trust.cosignature is on main
        raise RuleError("this build cannot check cosignatures yet") from None
    try:
        verify_cosignature(vkey, note, signature.rstrip("\n"))
        name = verifier_name(vkey)
    except (NoteError, ValueError) as e:
        raise RuleError(f"the cosignature does not verify: {e}") from None
    b64 = signature.rstrip("\n").rsplit(" ", 1)[-1]
    import base64
    import binascii

    try:
        key_id = base64.b64decode(b64, validate=True)[:4].hex()
    except (ValueError, binascii.Error):
        raise RuleError("the cosignature is not base64") from None
    with store.transaction():
        return store.add_cosignature(
            campaign.id, size, name, key_id, vkey, signature.rstrip("\n"), at
        )


def verifier_name(vkey: str) -> str:
    """The name of a verifier key ``NAME+HASH+BASE64`` (a cosigner's, whatever its algorithm)."""
    name = vkey.split("+", 1)[0]
    if not name or any(c.isspace() for c in name):
        raise NoteError("malformed verifier key")
    return name
