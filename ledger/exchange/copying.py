"""Copy campaigns between stores, whatever their backends (``campaign copy``).

The rows are copied as they are stored, so every ``hash`` (and every byte it covers) is the
same on both sides; the unrevealed seeds, the checkpoint key, the signed checkpoints and
their cosignatures go with them. Snapshots are a cache and are not
copied (the destination rebuilds them on its first reads).
"""

from __future__ import annotations

from dataclasses import dataclass

from ledger.history.verify import verify_store
from ledger.store.base import EventStore, StoredEvent, StoreError

#: Rows per insert while copying (the source is read in pages, never all in memory).
CHUNK = 5000


@dataclass(frozen=True)
class Copied:
    """What one campaign's copy wrote: ``events``, ``secrets`` and the head (``seq``, ``hash``)
    both sides now share."""

    campaign: str
    events: int
    secrets: int
    head_seq: int
    head_hash: str


def copy_campaigns(src: EventStore, dst: EventStore, campaigns: list[str]) -> list[Copied]:
    """Copy ``campaigns`` from ``src`` to ``dst`` in one transaction of ``dst``: all or nothing.

    Each copy is verified in ``dst`` before the commit (:func:`ledger.history.verify.verify_store`:
    chain, seeds, engine rolls, results) and must end at the source's head hash.

    :raises StoreError: a campaign is missing in ``src``, already in ``dst``, or does not
        verify after the copy (nothing is written).
    """
    done: list[Copied] = []
    with dst.transaction():
        for campaign in campaigns:
            head = src.head(campaign)
            if head.seq == 0:
                raise StoreError(f"the source holds no campaign {campaign!r}: nothing copied")
            if dst.head(campaign).seq:
                raise StoreError(
                    f"the destination already holds a campaign {campaign!r}: nothing copied "
                    "(copy into another ledger, or choose other campaigns with --campaign)"
                )
            chunk: list[StoredEvent] = []
            for stored in src.rows(campaign, upto=head.seq):
                chunk.append(stored)
                if len(chunk) == CHUNK:
                    dst.insert_rows(chunk)
                    chunk = []
            if chunk:
                dst.insert_rows(chunk)
            secrets = src.secret_rows(campaign)
            dst.restore_secrets(secrets)
            for cp in src.checkpoints(campaign):  # signed checkpoints and cosignatures
                dst.add_checkpoint(campaign, cp["size"], cp["root"], cp["note"], cp["made_at"])
            for co in src.cosignatures(campaign):
                dst.add_cosignature(**co)
            report = verify_store(dst, campaign)
            if not report.ok or report.head_hash != head.hash:
                raise StoreError(
                    f"campaign {campaign!r} does not verify after the copy (event "
                    f"{report.bad_seq}: {report.problem or 'a different head'}): nothing "
                    "copied; run `campaign verify` on the source"
                )
            seeds = sum(1 for r in secrets if r["kind"] in ("session", "downtime"))  # not keys, hooks
            done.append(Copied(campaign, head.seq, seeds, head.seq, head.hash))
    return done
