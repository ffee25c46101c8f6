"""The checkpoint and cosignature lines of an export, after its events.

An export (a GM's or a player's, and a GM backup) ends with one line per signed checkpoint
the ledger keeps, then one per cosignature::

    {"kind":"checkpoint","campaign":"casebook","size":26,"note":"campaign-ledger/casebook\\n26\\n...","made_at":"..."}
    {"kind":"cosignature","campaign":"casebook","size":26,"cosigner":"...","key_id":"...","vkey":"...","signature":"— ...","received_at":"..."}

A checkpoint note carries only the origin, size and root (nothing GM-only), so a player's
export carries them as they are. Older exports have no such lines and still verify and
import; an outside verifier that only checks the chain skips lines with a ``kind``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated, Any

import msgspec

if TYPE_CHECKING:
    from ledger.store.protocols import EventStore

Int64 = Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)]
Text = Annotated[str, msgspec.Meta(max_length=1000)]
Note = Annotated[str, msgspec.Meta(max_length=20_000)]


class CheckpointLine(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, tag_field="kind", tag="checkpoint"):  # fmt: skip
    """A signed checkpoint of the campaign (C2SP tlog-checkpoint note text)."""

    campaign: Text
    size: Int64
    note: Note
    made_at: Text


class CosignatureLine(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, tag_field="kind", tag="cosignature"):  # fmt: skip
    """A cosignature of the checkpoint of ``size`` (C2SP tlog-cosignature/v1 line)."""

    campaign: Text
    size: Int64
    cosigner: Text
    key_id: Text
    vkey: Text
    signature: Text
    received_at: Text


TrustLine = CheckpointLine | CosignatureLine
_decoder = msgspec.json.Decoder(TrustLine)
_encoder = msgspec.json.Encoder()


def decode(line: bytes) -> TrustLine | None:
    """The trust line ``line`` is, or ``None`` when it is not one (no ``kind``)."""
    if b'"kind"' not in line:
        return None
    try:
        return _decoder.decode(line)
    except (msgspec.DecodeError, RecursionError):
        return None


def trust_lines(store: EventStore, campaign: str, upto: int) -> Iterator[bytes]:
    """The campaign's checkpoint lines (sizes up to ``upto``, the export's last seq), then
    its cosignatures of those, each encoded with ``\\n``."""
    sizes = set()
    for cp in store.checkpoints(campaign):
        if cp["size"] <= upto:
            sizes.add(cp["size"])
            line = CheckpointLine(campaign=campaign, size=cp["size"], note=cp["note"], made_at=cp["made_at"])
            yield _encoder.encode(line) + b"\n"
    for co in store.cosignatures(campaign):
        if co["size"] in sizes:
            yield _encoder.encode(CosignatureLine(**co)) + b"\n"


def checkpoints_of(lines: list[TrustLine]) -> list[dict[str, Any]]:
    """The checkpoint lines as ``{"size", "note", "made_at"}`` (for :mod:`ledger.history.checkpoint_checks`)."""
    return [msgspec.structs.asdict(x) for x in lines if isinstance(x, CheckpointLine)]


def cosignatures_of(lines: list[TrustLine]) -> list[dict[str, Any]]:
    """The cosignature lines as dicts of their fields."""
    return [msgspec.structs.asdict(x) for x in lines if isinstance(x, CosignatureLine)]
