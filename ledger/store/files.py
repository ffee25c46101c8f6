"""Ledger files and the disk under them: a full disk, a read-only medium.

Three things every command that touches a file needs, in one place:

- **A full disk** is named as such (:class:`DiskFull`), whatever reported it: ``ENOSPC``
  (or ``EDQUOT``) from the operating system, ``SQLITE_FULL`` from SQLite, or an I/O error
  of SQLite's on a disk with under :data:`LOW_SPACE` free. SQLite reports a ``-shm`` file it
  cannot grow as ``SQLITE_IOERR_SHMSIZE`` ("disk I/O error"), which is what a read of a WAL
  ledger meets on a full disk: the error code alone cannot tell that from a failing disk,
  the free space can.
- **A read-only ledger** (a read-only mount, a folder or file the user cannot write) is
  opened read-only (:func:`readonly_reason`, :func:`connect_readonly`) so that every read
  answers, and a write is refused naming why (:class:`ReadOnlyLedger`).
- **Durable names**: :func:`sync_file` and :func:`sync_folder` (a rename or link is durable
  only once its folder is synced).
- **Private files**: a ledger file holds the open session's seed and the campaign's signing
  key, so it, its ``-wal`` and its ``-shm`` are made readable by their owner only
  (:data:`PRIVATE_MODE`, whatever the umask: :func:`create_private`, :func:`make_private`),
  and one found readable by others is named (:func:`loose_files`, :func:`loose_warning`).

Errors are told apart by their codes (``errno``, ``sqlite_errorcode``), never their text.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3

from ledger.errors import StoreError

__all__ = [
    "LOW_SPACE",
    "NO_ROOM",
    "PRIVATE_MODE",
    "DiskFull",
    "ReadOnlyLedger",
    "connect_readonly",
    "create_private",
    "default_mode",
    "disk_full",
    "disk_full_message",
    "free_kb",
    "is_readonly_error",
    "loose_files",
    "loose_warning",
    "make_private",
    "readonly_reason",
    "uri",
    "sync_file",
    "sync_folder",
]

#: SQLite's primary result codes (the low byte of an extended code).
SQLITE_READONLY, SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN = 8, 10, 13, 14
#: Below this much free space (bytes), an I/O error of SQLite's is a full disk: SQLite grows
#: its ``-shm`` file 32 kB at a time, and a page of a ledger is 4 kB.
LOW_SPACE = 1 << 20
#: The ``errno`` values that mean "no room": the disk, or the user's quota, is full.
NO_ROOM = (errno.ENOSPC, errno.EDQUOT)


def _folder(path: str) -> str:
    """The nearest existing folder holding ``path`` (``path`` itself when it is a folder)."""
    folder = os.path.abspath(path)
    if not os.path.isdir(folder):
        folder = os.path.dirname(folder)
    while folder and not os.path.isdir(folder):
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return folder or "."


def free_kb(path: str) -> int:
    """Free space, in kB (1,024 bytes), on the file system that holds ``path`` (what the
    user may use: ``f_bavail``); ``-1`` when it cannot be measured."""
    try:
        st = os.statvfs(_folder(path))
    except (OSError, AttributeError):  # no statvfs (Windows)
        return -1
    return st.f_bavail * st.f_frsize // 1024


def disk_full_message(path: str, *, incomplete: bool = False) -> str:
    """The one line a full disk gets: where, how much is free, and what to do.

    :param incomplete: the output went where this command cannot take it back (standard
        output redirected to ``path``): say that what is there is incomplete.
    """
    free = free_kb(path)
    room = f"{free} kB free" if free >= 0 else "free space unknown"
    done = "what was written there is incomplete" if incomplete else "nothing was written"
    return f"the disk is full at {path} ({room}): {done}; free space and run it again"


class DiskFull(StoreError):
    """The disk (or the user's quota) holding :attr:`path` is full.

    :ivar path: the file that could not be written or read (the ledger, an output file).
    :ivar free_kb: free space there, in kB, when the error was made (``-1``: unknown).
    :param incomplete: see :func:`disk_full_message` (else nothing was written).
    """

    def __init__(self, path: str, *, incomplete: bool = False) -> None:
        self.path = path
        self.free_kb = free_kb(path)
        super().__init__(disk_full_message(path, incomplete=incomplete))


class ReadOnlyLedger(StoreError):
    """A write to a ledger opened read-only (:attr:`reason` says why it is): nothing written."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(
            f"the ledger {path} cannot be changed: {reason}; nothing was written (to change "
            "it, copy it, with its -wal file if it has one, to a folder you can write)"
        )


def disk_full(exc: BaseException, path: str) -> bool:
    """Does ``exc`` mean the disk holding ``path`` is full?

    True for an ``OSError`` with ``errno`` ``ENOSPC``/``EDQUOT``, a SQLite ``SQLITE_FULL``,
    and a SQLite I/O error (``SQLITE_IOERR_*``, e.g. the ``-shm`` file that cannot grow) when
    under :data:`LOW_SPACE` bytes are free there.
    """
    if isinstance(exc, DiskFull):
        return True
    if isinstance(exc, OSError):
        return exc.errno in NO_ROOM
    if isinstance(exc, sqlite3.Error):
        code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
        if code == SQLITE_FULL:
            return True
        if code == SQLITE_IOERR:
            free = free_kb(path)
            return 0 <= free * 1024 < LOW_SPACE
    return False


def is_readonly_error(exc: BaseException) -> bool:
    """Is ``exc`` SQLite refusing to write a read-only database (``SQLITE_READONLY_*``)?"""
    code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
    return isinstance(exc, sqlite3.Error) and code == SQLITE_READONLY


def _writable(path: str) -> bool:
    """May this process write ``path`` (``os.access``: permissions, and a read-only mount,
    which refuses even root)?"""
    return os.access(path, os.W_OK)


def readonly_reason(path: str) -> str | None:
    """Why the SQLite ledger at ``path`` must be opened read-only, or ``None`` when it can be
    written (or does not exist and its folder can be written).

    A WAL-mode ledger is written through two files beside it, ``PATH-wal`` and ``PATH-shm``,
    so the folder must be writable too, unless both already exist and are writable.
    """
    folder = os.path.dirname(os.path.abspath(path))
    try:
        mounted_ro = bool(os.statvfs(_folder(path)).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):  # no statvfs (Windows): os.access below still tells
        mounted_ro = False
    if mounted_ro:
        return f"the file system holding {folder} is mounted read-only"
    if os.path.exists(path) and not _writable(path):
        return "the file is read-only for you"
    if os.path.isdir(folder) and not _writable(folder):
        sides = [path + "-wal", path + "-shm"]
        if os.path.exists(path) and all(os.path.exists(s) and _writable(s) for s in sides):
            return None
        name = os.path.basename(path)
        return (
            f"you cannot write its folder {folder} (SQLite keeps {name}-wal and {name}-shm there)"
        )
    return None


def uri(path: str, **params: str) -> str:
    """A ``file:`` URI for ``path`` (special characters quoted) with query ``params``."""
    from urllib.parse import quote, urlencode

    return f"file:{quote(os.path.abspath(path))}?{urlencode(params)}"


def connect_readonly(path: str) -> tuple[sqlite3.Connection, str | None]:
    """Open the ledger at ``path`` for reading only, without writing a byte beside it.

    Which way depends on what SQLite needs to read a WAL-mode file correctly:

    1. ``?mode=ro``: a read-only connection with SQLite's usual locks and WAL handling. It
       sees every committed event, those still in ``PATH-wal`` included, and stays correct
       while another process writes the file. It needs ``PATH-shm`` (the WAL's index) to
       exist or to be creatable: on a read-only medium or in a folder the user cannot write,
       it works only when the writer left ``-shm`` beside the file.
    2. ``?immutable=1`` when (1) cannot open and there is no ``PATH-wal`` holding data: no
       locks, no ``-shm``, the file's bytes alone. SQLite then assumes nobody changes the
       file while it reads (true of a read-only medium) and ignores any ``-wal``, which is
       why it is used only when no ``-wal`` holds data: otherwise it would silently answer
       from an older log.
    3. A ``-wal`` with data and no way to index it in place: the file and its ``-wal`` are
       copied into a private temporary folder and read there with ``mode=ro`` (the caller
       removes that folder when it closes the connection).

    :returns: ``(connection, temporary folder or None)``.
    :raises sqlite3.Error: SQLite cannot read the file even so.
    """
    try:
        conn = sqlite3.connect(uri(path, mode="ro"), uri=True)
        try:
            conn.execute("select count(*) from sqlite_master").fetchone()
            return conn, None
        except BaseException:
            conn.close()
            raise
    except sqlite3.Error as e:
        code = (getattr(e, "sqlite_errorcode", None) or 0) & 0xFF
        if code not in (SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_IOERR):
            raise
    wal = path + "-wal"
    if not (os.path.exists(wal) and os.path.getsize(wal) > 0):
        conn = sqlite3.connect(uri(path, mode="ro", immutable="1"), uri=True)
        return conn, None
    import shutil
    import tempfile

    scratch = tempfile.mkdtemp(prefix="campaign-readonly-")
    try:
        copy = os.path.join(scratch, "ledger.db")
        shutil.copyfile(path, copy)
        shutil.copyfile(wal, copy + "-wal")
        conn = sqlite3.connect(uri(copy, mode="ro"), uri=True)
        conn.execute("select count(*) from sqlite_master").fetchone()
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    return conn, scratch


def default_mode() -> int:
    """Permission bits a new file gets from the umask (``0o666 & ~umask``)."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


#: The permission bits of a ledger file, its ``-wal`` and ``-shm`` (and a backup): read and
#: write for the owner, nothing for anyone else.
PRIVATE_MODE = 0o600
#: What SQLite keeps beside a ledger file in WAL mode (both hold the file's pages).
COMPANIONS = ("-wal", "-shm")


def create_private(path: str) -> bool:
    """Create an empty file at ``path`` with :data:`PRIVATE_MODE` exactly (the umask cannot
    widen or narrow it), unless something is there already.

    SQLite then opens the empty file as a new database and gives the ``-wal`` and ``-shm``
    it creates beside it the main file's permission bits.

    :returns: whether this call created the file.
    :raises OSError: the folder cannot be written.
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_MODE)
    except FileExistsError:
        return False
    try:
        os.fchmod(fd, PRIVATE_MODE)
    finally:
        os.close(fd)
    return True


def make_private(path: str) -> None:
    """Set :data:`PRIVATE_MODE` on ``path`` and on the ``-wal`` and ``-shm`` beside it that
    exist (for a ledger file this process has just created)."""
    for name in (path, *(path + suffix for suffix in COMPANIONS)):
        with contextlib.suppress(FileNotFoundError):
            if os.stat(name).st_mode & 0o777 != PRIVATE_MODE:
                os.chmod(name, PRIVATE_MODE)


def loose_files(path: str) -> list[tuple[str, int]]:
    """The ledger file ``path``, its ``-wal`` and its ``-shm`` that exist and that someone
    other than their owner may read or write, each with its permission bits (``0o644``)."""
    found = []
    for name in (path, *(path + suffix for suffix in COMPANIONS)):
        with contextlib.suppress(FileNotFoundError):
            mode = os.stat(name).st_mode & 0o777
            if mode & 0o077:
                found.append((name, mode))
    return found


def loose_warning(loose: list[tuple[str, int]]) -> str:
    """One line naming the ledger files other users may open (:func:`loose_files`) and the
    fix: ``"x.db is open to other users (mode 644), and a ledger holds the open session's
    seed and the signing key: run `chmod 600 x.db`"``."""
    names = " ".join(_quoted(name) for name, _ in loose)
    what = ", ".join(f"{name} (mode {mode:03o})" for name, mode in loose)
    verb = "is" if len(loose) == 1 else "are"
    return (
        f"{what} {verb} open to other users, and a ledger holds the open session's seed "
        f"and the signing key: run `chmod 600 {names}`"
    )


def _quoted(name: str) -> str:
    import shlex

    return shlex.quote(name)


def sync_file(path: str) -> None:
    """``fsync`` the file at ``path`` (its data reaches the disk)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sync_folder(folder: str) -> None:
    """``fsync`` a folder, so a rename or link in it survives a power loss (a no-op where
    folders cannot be opened, as on Windows)."""
    try:
        fd = os.open(folder or ".", os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as e:
        if e.errno not in (errno.EINVAL, errno.EBADF):  # folders that cannot be synced
            raise
    finally:
        os.close(fd)
