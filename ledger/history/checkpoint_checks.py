"""Checking signed checkpoints and their cosignatures against a log: what ``campaign
verify``, ``verify FILE`` and ``verify FILE --receipt NOTE_FILE`` report.

A checkpoint holds (C2SP tlog-checkpoint, signed as a C2SP signed-note): it is signed by the
campaign's key as the log records it (``campaign.created``'s ``checkpoint_key``, or a
``checkpoint.key`` event), its origin is the campaign's (``campaign-ledger/<id>``), the log
holds at least its size of events, and the RFC 6962 root of the first ``size`` event hashes
is its root: a log rewritten (or truncated) after a checkpoint was signed fails, naming the
size. Each cosignature must be a valid C2SP tlog-cosignature/v1 of that very checkpoint
(:mod:`ledger.trust.cosignature`).

The roots are recomputed here from the events' own hashes (which the chain check covers),
never read from the store's kept tree, so a forger who rewrote the tree's tables too is
still caught.
"""

from __future__ import annotations

import base64
import contextlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ledger.campaign.checkpoints import open_checkpoint, origin
from ledger.trust import merkle
from ledger.trust.notes import Checkpoint, NoteError

if TYPE_CHECKING:
    from ledger.store.protocols import EventStore


@dataclass
class CheckpointsChecked:
    """What the checkpoints of a log showed.

    :ivar checked: one dict per checkpoint that holds: ``{"size", "root" (base64),
        "cosigners": [names]}``, oldest first.
    :ivar problem: the first problem (``None`` when every checkpoint holds).
    :ivar bad_size: the size of the checkpoint that failed.
    """

    checked: list[dict[str, Any]] = field(default_factory=list)
    problem: str | None = None
    bad_size: int | None = None

    @property
    def ok(self) -> bool:
        """Did every checkpoint and cosignature hold?"""
        return self.problem is None

    def fail(self, size: int | None, problem: str) -> CheckpointsChecked:
        if self.problem is None:
            self.problem, self.bad_size = problem, size
        return self


def recorded_key(payloads: Iterable[dict[str, Any]]) -> str | None:
    """The campaign's checkpoint verifier key as a log's payloads record it, or ``None``."""
    for data in payloads:
        if not isinstance(data, dict):
            continue
        if data.get("type") == "campaign.created" and data.get("checkpoint_key"):
            return str(data["checkpoint_key"])
        if data.get("type") == "checkpoint.key" and isinstance(data.get("vkey"), str):
            return str(data["vkey"])
    return None


def roots_at(hashes: Iterable[str], sizes: Iterable[int]) -> tuple[int, dict[int, bytes]]:
    """``(events read, {size: RFC 6962 root of the first size events})`` for each of
    ``sizes`` the log reaches, from its events' hex hashes in seq order (one pass)."""
    wanted = sorted(set(sizes))
    roots: dict[int, bytes] = {}
    frontier = merkle.Frontier()
    i = 0
    for h in hashes:
        frontier.append(merkle.leaf_hash(bytes.fromhex(h)))
        while i < len(wanted) and wanted[i] == frontier.size:
            roots[wanted[i]] = frontier.root()
            i += 1
    return frontier.size, roots


def _holds(
    result: CheckpointsChecked, campaign: str, vkey: str | None, note: str, size: int | None,
    count: int, roots: dict[int, bytes], what: str,
) -> Checkpoint | None:  # fmt: skip
    """Check one note; record a problem in ``result`` and return ``None`` if it fails."""
    if vkey is None:
        result.fail(size, f"{what}: the log records no checkpoint key to check it with")
        return None
    try:
        checkpoint = open_checkpoint(note, vkey)
    except NoteError as e:
        result.fail(size, f"{what} is not signed by this campaign's key ({e})")
        return None
    if size is not None and checkpoint.size != size:
        result.fail(size, f"{what} claims size {size} but its note says {checkpoint.size}")
        return None
    n = checkpoint.size
    if checkpoint.origin != origin(campaign):
        result.fail(n, f"{what} is for {checkpoint.origin!r}, not this campaign")
        return None
    if n > count:
        result.fail(
            n, f"{what} covers {n} events but the log holds only {count}: the log was truncated"
        )
        return None
    if n == 0 or roots.get(n) != checkpoint.root:
        result.fail(
            n,
            f"{what} does not match the log's first {n} events: the log was rewritten after "
            f"the checkpoint of size {n} was signed",
        )
        return None
    return checkpoint


def check(
    campaign: str,
    vkey: str | None,
    hashes: Iterable[str],
    checkpoints: Sequence[dict[str, Any]],
    cosignatures: Sequence[dict[str, Any]] = (),
    *,
    receipt: str | None = None,
) -> CheckpointsChecked:
    """Check every checkpoint (``{"size", "note"}``) and cosignature (``{"size",
    "signature", "vkey", "cosigner"}``) of ``campaign`` against its events' hashes (hex, in
    seq order), and a checkpoint note a player kept (``receipt``).

    :returns: the :class:`CheckpointsChecked` report (never raises for a bad log or note).
    """
    sizes = [int(c["size"]) for c in checkpoints]
    note_size: int | None = None
    if receipt is not None:
        try:
            note_size = Checkpoint.parse(receipt[: receipt.rfind("\n\n") + 1]).size
        except NoteError:
            note_size = None
    count, roots = roots_at(hashes, [*sizes, *([note_size] if note_size else [])])
    result = CheckpointsChecked()
    if receipt is not None:
        got = _holds(result, campaign, vkey, receipt, None, count, roots, "your checkpoint note")
        if got is None:
            return result
    by_size: dict[int, list[dict[str, Any]]] = {}
    for co in cosignatures:
        by_size.setdefault(int(co["size"]), []).append(co)
    for cp in checkpoints:
        size = int(cp["size"])
        what = f"the checkpoint of size {size}"
        got = _holds(result, campaign, vkey, str(cp["note"]), size, count, roots, what)
        if got is None:
            return result
        names = []
        for co in by_size.pop(size, []):
            problem = cosignature_problem(str(cp["note"]), co)
            if problem:
                return result.fail(size, f"a cosignature of {what}: {problem}")
            names.append(str(co.get("cosigner", "")))
        result.checked.append(
            {"size": size, "root": base64.b64encode(got.root).decode(), "cosigners": names}
        )
    for size in by_size:
        return result.fail(size, f"a cosignature of a checkpoint of size {size} that is not kept")
    return result


def cosignature_problem(note: str, co: dict[str, Any]) -> str | None:
    """Why a cosignature (``{"vkey", "signature"}``) is not a valid C2SP tlog-cosignature/v1
    of ``note``'s checkpoint, or ``None``."""
    try:
        from ledger.trust.cosignature import verify_cosignature
    except ImportError:  # pragma: no cover - until ledger.trust.cosignature is on main
        return "cosignatures cannot be checked by this build"
    try:
        verify_cosignature(str(co["vkey"]), note, str(co["signature"]))
    except (NoteError, ValueError, KeyError) as e:
        return str(e) or type(e).__name__
    return None


def check_store(
    store: EventStore, campaign: str, *, receipt: str | None = None
) -> CheckpointsChecked:
    """:func:`check` of a stored campaign: its kept checkpoints and cosignatures against
    the roots of its stored events' hashes (one pass over the ``hash`` column)."""
    import msgspec

    first = [
        msgspec.json.decode(data) for (data,) in store.rows(campaign, upto=1, columns=["data"])
    ]
    vkey = recorded_key(first)
    if vkey is None:
        row = store.last_of_types(campaign, ["checkpoint.key"])
        vkey = recorded_key([msgspec.json.decode(row.data)]) if row else None
    hashes = (str(h) for (h,) in store.rows(campaign, columns=["hash"]))
    with getattr(store, "unmapped", contextlib.nullcontext)():  # a whole scan: flat memory
        return check(
            campaign, vkey, hashes, store.checkpoints(campaign), store.cosignatures(campaign),
            receipt=receipt,
        )  # fmt: skip


def check_file(
    lines: Sequence[Any], trust: Sequence[Any], *, receipt: str | None = None
) -> CheckpointsChecked:
    """:func:`check` of an export's parsed lines (:func:`ledger.exchange.ndjson.parse_lines`)
    and its checkpoint and cosignature lines (``trust``); a player's stubs count by their
    hashes (the chain check covers them)."""
    import msgspec

    if not lines:
        return (
            CheckpointsChecked().fail(None, "the file holds no events")
            if receipt or trust
            else CheckpointsChecked()
        )
    campaign = str(lines[0].campaign)
    payloads = []
    for line in lines:
        data = getattr(line, "data", None)
        if data is not None and getattr(line, "type", None) in (
            "campaign.created",
            "checkpoint.key",
        ):
            payloads.append(msgspec.json.decode(bytes(data)))
    checkpoints = [msgspec.structs.asdict(t) for t in trust if type(t).__name__ == "CheckpointLine"]
    cosigs = [msgspec.structs.asdict(t) for t in trust if type(t).__name__ == "CosignatureLine"]
    for extra in (*checkpoints, *cosigs):
        if extra["campaign"] != campaign:
            return CheckpointsChecked().fail(
                int(extra["size"]),
                f"a checkpoint line of another campaign ({extra['campaign'][:80]!r})",
            )
    return check(
        campaign, recorded_key(payloads), (str(x.hash) for x in lines), checkpoints, cosigs,
        receipt=receipt,
    )  # fmt: skip
