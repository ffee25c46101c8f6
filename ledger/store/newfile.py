"""A new ledger file, whole or not at all (``import`` and ``copy`` into a file that does
not exist yet): :func:`build_new_file`.

Seen before: ``campaign import`` into a new file on a nearly full disk printed "Imported …
chain and rolls verified", then failed, and left a corrupt ledger at the path. The import
sat in the temporary file's WAL, the checkpoint at close failed silently, the incomplete
file was linked to the target and its ``-wal`` deleted. Here nothing appears at the target
until the file's own bytes were read back whole.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable
from typing import TypeVar

from ledger.chain import ZERO_HASH, Head
from ledger.errors import StoreError
from ledger.store.files import (
    NO_ROOM,
    PRIVATE_MODE,
    DiskFull,
    disk_full,
    readonly_reason,
    sync_file,
    sync_folder,
    uri,
)
from ledger.store.sqlite import Store

__all__ = ["build_new_file"]

T = TypeVar("T")


def build_new_file(path: str, fill: Callable[[Store], T]) -> T:
    """Make a new ledger file at ``path`` whole, or leave nothing there (``import`` and
    ``copy`` into a file that does not exist yet).

    1. The ledger is built in a private temporary file beside ``path`` (the same file
       system, so the last step is atomic): ``fill(store)`` writes it, with the rollback
       journal in memory and no syncs, so the events go straight into the file (a crash
       leaves only that temporary file, never anything at ``path``) and a disk needs room
       for the ledger once, not twice (WAL, then the checkpoint).
    2. The file is switched to WAL mode (what every ledger runs in) and
       ``wal_checkpoint(TRUNCATE)`` is run and its result checked, so nothing of it is left
       in a ``-wal`` that would not follow it to ``path``; it is closed and ``fsync``-ed.
    3. The file is read back from its bytes alone (``immutable=1``: no ``-wal``, no ``-shm``)
       and must pass ``pragma integrity_check``, be in WAL mode and hold every campaign at
       the head it was built with.
    4. Only then is it linked to ``path`` (``os.link``, which fails if anything appeared at
       ``path`` meanwhile; ``os.rename`` where there are no hard links, if ``path`` is still
       free), readable by its owner only (it holds the seed and the signing key), and the
       folder is synced.

    The temporary file is removed whatever happens; it is never at ``path``, so whatever
    its ``-wal`` held belongs to the unfinished build alone.

    :returns: what ``fill`` returns.
    :raises DiskFull: the disk is full (the free space is measured after the cleanup).
    :raises StoreError: the folder is missing or read-only, ``path`` appeared meanwhile, or
        the new file does not read back whole. Whatever ``fill`` raises passes through.
    """
    import tempfile

    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise StoreError(f"cannot create {path}: the folder {folder} does not exist")
    reason = readonly_reason(path)
    if reason is not None:
        raise StoreError(f"cannot create a ledger at {path}: {reason}")
    try:
        fd, tmp = tempfile.mkstemp(prefix=".campaign-new-", suffix=".db", dir=folder)
    except OSError as e:
        if disk_full(e, folder):
            raise DiskFull(path) from None
        raise StoreError(f"cannot create {path}: {e.strerror}") from None
    os.close(fd)
    try:
        result, heads = _fill_and_close(tmp, fill)
        sync_file(tmp)
        _check_built(tmp, heads)
        os.chmod(tmp, PRIVATE_MODE)
        _link_new(tmp, path)
        sync_folder(folder)
    except BaseException as e:
        _remove_build(tmp)
        if disk_full(e, folder):
            raise DiskFull(path) from None
        raise
    _remove_build(tmp)  # only the temporary name: the file lives on at path
    return result


def _link_new(tmp: str, path: str) -> None:
    """Step 4 of :func:`build_new_file`: ``tmp`` appears at ``path``, which must be free.

    :raises StoreError: something appeared at ``path`` meanwhile (it is left alone).
    """
    appeared = StoreError(
        f"{path} was created by another command meanwhile: nothing was written; run it "
        "again (into that ledger or another file)"
    )
    try:
        os.link(tmp, path)  # exclusive: fails if anything appeared at path
    except FileExistsError:
        raise appeared from None
    except OSError as e:  # a file system without hard links: rename, if path is still free
        if e.errno in NO_ROOM:
            raise
        if os.path.lexists(path):
            raise appeared from None
        os.rename(tmp, path)


def _fill_and_close(tmp: str, fill: Callable[[Store], T]) -> tuple[T, dict[str, Head]]:
    """Steps 1 and 2 of :func:`build_new_file`: ``(fill's result, every campaign's head)``."""
    store = Store(tmp)
    try:
        store.conn.execute("pragma journal_mode = memory")
        store.conn.execute("pragma synchronous = off")  # the whole file is synced at the end
        result = fill(store)
        heads = {c: store.head(c) for c in store.campaign_ids()}
    finally:
        store.close()
    # a connection of its own: no statement of fill's may still be open while the journal
    # mode changes
    conn = sqlite3.connect(tmp, isolation_level=None)
    try:
        mode = conn.execute("pragma journal_mode = wal").fetchone()[0]
        if mode != "wal":
            raise StoreError(f"the new ledger could not be put in WAL mode ({mode})")
        busy, log, done = conn.execute("pragma wal_checkpoint(truncate)").fetchone()
        if busy or log != done or log not in (0, -1):
            raise StoreError(
                f"the new ledger's write-ahead log could not be emptied ({done} of {log} "
                "pages moved): nothing was written"
            )
    finally:
        conn.close()
    return result, heads


def _check_built(tmp: str, heads: dict[str, Head]) -> None:
    """Step 3 of :func:`build_new_file`: the file's own bytes hold the whole ledger.

    :raises StoreError: they do not (nothing is linked).
    """
    conn = sqlite3.connect(uri(tmp, mode="ro", immutable="1"), uri=True)
    try:
        found = [str(r[0]) for r in conn.execute("pragma integrity_check")]
        with open(tmp, "rb") as f:
            header = f.read(20)
        wal = header[18:20] == b"\x02\x02"  # file format versions: 2 is WAL
        read = {}
        for campaign in heads:
            row = conn.execute(
                "select seq, hash from events where campaign = ? order by seq desc limit 1",
                (campaign,),
            ).fetchone()
            read[campaign] = (row[0], row[1]) if row else (0, ZERO_HASH)
    finally:
        conn.close()
    expected = {c: (h.seq, h.hash) for c, h in heads.items()}  # where the chain ends
    if found != ["ok"] or not wal or read != expected:
        raise StoreError(
            "the new ledger did not read back whole from the disk "
            f"({'; '.join(found)[:200] if found != ['ok'] else 'a different head'}): nothing "
            "was written; check the disk and run it again"
        )


def _remove_build(tmp: str) -> None:
    """Remove a build's temporary file and its side files (never anything at the target)."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(tmp + suffix)
