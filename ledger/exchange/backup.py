"""GM backups: the GM's export plus the unrevealed seeds, so a restore loses nothing.

A backup is NDJSON like an export (docs/events.md "Checking an export by hand"). Its first line is one record
that names itself and holds the secrets; every line after it is byte for byte the line
``campaign --as gm export`` writes for the same event::

    {"campaign_ledger_backup":1,"campaign":"casebook","warning":"...","secrets":[
      {"session":2,"seed":"<64 hex digits>"}, ...]}
    {"seq":1,"campaign":"casebook",...}
    ...

``secrets`` holds every row of the store's secrets table for the campaign (each row's
columns but ``campaign``): the open session's seed, any unrevealed downtime seed, and the
campaign's checkpoint signing key (kind ``"checkpoint"``; checked against the verifier
key the log records before it is restored). Whoever
holds a backup can compute the open session's engine rolls before they are made: keep it as
private as the ledger file (``campaign backup`` writes it readable by its owner only).

``campaign import`` recognises the record, imports the events as it imports an export, and
restores each secret only after checking it against its commitment in the log
(:func:`check_secrets`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from typing import Annotated, Any

import msgspec

from ledger.errors import RuleError
from ledger.store.hooks import HOOK_SECRET, PREVIOUS_HOOK_SECRET

#: The secrets a backup leaves out: a webhook's signing secrets belong to the hook, and a
#: backup carries the log and its seeds, not the campaign's webhooks.
HOOK_SECRET_KINDS = (HOOK_SECRET, PREVIOUS_HOOK_SECRET)

BACKUP_KEY = "campaign_ledger_backup"
BACKUP_VERSION = 1
WARNING = (
    "This backup holds unrevealed dice seeds: anyone who reads it can foresee the open "
    "session's engine rolls. Keep it private; share `campaign export` instead."
)
Hex = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{2,128}$")]
Key = Annotated[str, msgspec.Meta(pattern="^[a-z_][a-z0-9_]{0,31}$")]


class BackupRecord(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A backup's first line: what it is, whose, and the secrets (see the module docs).

    :ivar secrets: one dict per secrets-table row: its columns but ``campaign`` (``session``
        and ``seed`` at least; ``seed`` in lower-case hex).
    """

    campaign_ledger_backup: int
    campaign: str
    warning: str = WARNING
    secrets: list[dict[Key, int | str | None]] = []


_decoder = msgspec.json.Decoder(BackupRecord)


def split_backup(lines: Iterable[bytes]) -> tuple[BackupRecord | None, Iterator[bytes]]:
    """A file's backup record (``None`` for a plain export) and the event lines after it.

    :raises RuleError: a first line that names itself a backup but is malformed, or a
        backup of a version this ledger does not read.
    """
    it = iter(lines)
    for first in it:
        if not first.strip():
            continue
        if BACKUP_KEY.encode() not in first[:64]:
            return None, _chain([first], it)
        try:
            record = _decoder.decode(first)
        except msgspec.DecodeError as e:
            raise RuleError(f"the backup's first line (its secrets) is malformed: {e}") from None
        except RecursionError:
            raise RuleError("the backup's first line nests JSON too deeply") from None
        if record.campaign_ledger_backup != BACKUP_VERSION:
            raise RuleError(
                f"this is a version {record.campaign_ledger_backup} backup; this ledger reads "
                f"version {BACKUP_VERSION}: upgrade campaign-ledger"
            )
        return record, it
    return None, iter(())


def _chain(head: list[bytes], rest: Iterator[bytes]) -> Iterator[bytes]:
    yield from head
    yield from rest


def check_secrets(record: BackupRecord, payloads: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The backup's secrets, each checked against the log it comes with.

    A secret must hash (sha256) to the ``seed_commitment`` of an event of the log with the
    same ``number`` as the secret's ``session`` (a ``session.started`` or a downtime
    commitment), and must not be revealed already (no ``seed_reveal`` equal to it).

    :param payloads: the decoded ``data`` of every event of the file, in order.
    :returns: the rows to restore (``campaign`` added).
    :raises RuleError: a secret of another campaign, without a seed, not hex, matching no
        commitment, or already revealed.
    """
    commitments: dict[str, set[tuple[str, int]]] = {}
    revealed: set[str] = set()
    vkeys: set[str] = set()  # the checkpoint verifier keys the log records
    for data in payloads:
        if not isinstance(data, dict):
            continue
        for field in ("checkpoint_key", "vkey"):
            if data.get("type") in ("campaign.created", "checkpoint.key") and isinstance(
                data.get(field), str
            ):
                vkeys.add(data[field])
        if isinstance(data.get("seed_commitment"), str):
            kind = "downtime" if data.get("type") == "downtime.committed" else "session"
            commitments.setdefault(data["seed_commitment"], set()).add(
                (kind, data.get("number", -1))
            )
        if isinstance(data.get("seed_reveal"), str):
            revealed.add(data["seed_reveal"])
    rows = []
    for i, secret in enumerate(record.secrets, start=1):
        seed = secret.get("seed")
        number = secret.get("session")
        if not isinstance(seed, str) or not isinstance(number, int):
            raise RuleError(f"secret {i} of the backup has no seed or session number")
        try:
            raw = bytes.fromhex(seed)
        except ValueError:
            raise RuleError(f"secret {i} of the backup is not a hex seed") from None
        which = secret.get("kind", "session")
        if which in HOOK_SECRET_KINDS:  # written by earlier backups; its hook is not carried
            continue
        if which == "checkpoint":
            _check_key(record.campaign, raw, vkeys, i)
            rows.append({"campaign": record.campaign, **secret})
            continue
        if (which, number) not in commitments.get(hashlib.sha256(raw).hexdigest(), set()):
            raise RuleError(
                f"secret {i} of the backup ({which} seed of session {number}) matches no "
                f"seed commitment of session {number} ({which}) in the log: the backup was "
                "changed; nothing imported"
            )
        if seed in revealed:
            raise RuleError(
                f"secret {i} of the backup (session {number}) is already revealed in the log"
            )
        rows.append({"campaign": record.campaign, **secret})
    return rows


def _check_key(campaign: str, seed: bytes, vkeys: set[str], i: int) -> None:
    """A backup's checkpoint key must be the one whose verifier key the log records.

    :raises RuleError: it is not (or is no Ed25519 seed)."""
    from ledger.campaign.checkpoints import origin
    from ledger.trust.notes import NoteError, Signer

    try:
        vkey = Signer(origin(campaign), seed).verifier.key()
    except NoteError:
        raise RuleError(f"secret {i} of the backup is not a checkpoint key") from None
    if vkey not in vkeys:
        raise RuleError(
            f"secret {i} of the backup (the checkpoint key) is not the key the log records: "
            "the backup was changed; nothing imported"
        )
