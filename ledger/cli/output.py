"""Safe output files: what ``-o/--output``, ``--plot`` and ``backup`` write through.

Two promises ("Nothing is ever lost"):

- an output never lands on the open ledger, its ``-wal``/``-shm``/``-journal`` files, any
  other SQLite database (a file starting with the header ``SQLite format 3\\0``) or a folder:
  :func:`check_target` refuses it in one line (a usage error, exit 2) before any work;
- an output is written to a temporary file in the target's folder and renamed over the
  target (:func:`os.replace`) only when it is complete, so a command that fails leaves the
  old file (or none) behind, never half of one.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from typing import IO, Any

import click

from ledger.cli.base import App

SQLITE_HEADER = b"SQLite format 3\x00"
#: Files SQLite keeps beside a database.
SIDE_FILES = ("-wal", "-shm", "-journal")


def is_sqlite(path: str) -> bool:
    """Does the (existing, readable) file at ``path`` start with SQLite's header?"""
    try:
        with open(path, "rb") as f:
            return f.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


def _same(a: str, b: str) -> bool:
    """Are ``a`` and ``b`` one file (the same inode, or the same resolved path)?"""
    try:
        if os.path.exists(a) and os.path.exists(b) and os.path.samefile(a, b):
            return True
    except OSError:
        pass
    return os.path.realpath(a) == os.path.realpath(b)


def current_db() -> str | None:
    """The ``--db`` of the running ``campaign`` command, if there is one."""
    from ledger.cli.base import App

    ctx = click.get_current_context(silent=True)
    app = ctx.find_object(App) if ctx is not None else None
    return app.db_path if app is not None else None


def check_target(path: str, *, db_path: str | None, option: str = "-o/--output") -> None:
    """Refuse an output path that would destroy data.

    :param path: where the output is to go.
    :param db_path: the open ledger (``--db``); ``None`` or ``":memory:"`` when there is none.
    :param option: the option named in the message.
    :raises click.BadParameter: ``path`` is a folder, the ledger or one of its side files,
        a side file of another SQLite database, or an existing SQLite database (exit 2).
    """

    def refuse(what: str) -> click.BadParameter:
        return click.BadParameter(
            f"{path!r} is {what}: write to another file (nothing was written)", param_hint=option
        )

    if not path:
        raise click.BadParameter("give a file name", param_hint=option)
    if os.path.isdir(path):
        raise refuse("a folder")
    if db_path and db_path != ":memory:":
        if _same(path, db_path):
            raise refuse("the open ledger")
        for suffix in SIDE_FILES:
            if _same(path, db_path + suffix):
                raise refuse(f"the open ledger's {suffix[1:].upper()} file")
    for suffix in SIDE_FILES:
        if path.endswith(suffix) and is_sqlite(path[: -len(suffix)]):
            raise refuse(f"the {suffix[1:].upper()} file of a SQLite database")
    if os.path.exists(path) and is_sqlite(path):
        raise refuse("a SQLite database (a ledger?)")


def _mode_for(path: str, private: bool) -> int:
    """Permission bits for the finished file: the replaced file's, else the umask's
    (``0o600`` for a file holding secrets)."""
    if private:
        return 0o600
    try:
        return os.stat(path).st_mode & 0o777
    except OSError:
        umask = os.umask(0o022)
        os.umask(umask)
        return 0o666 & ~umask


@contextlib.contextmanager
def atomic_path(
    path: str, *, db_path: str | None, option: str = "-o/--output", private: bool = False
) -> Iterator[str]:
    """Yield a temporary path beside ``path`` (same suffix); on success rename it to ``path``.

    The target is checked (:func:`check_target`) before and again just before the rename.
    The finished file is synced to the disk before the rename, and its folder after it, so
    the success a command prints afterwards holds even through a power loss. On any error
    the temporary file is removed and ``path`` is untouched.

    :param private: the file holds a secret: readable by its owner only.
    :raises click.BadParameter: see :func:`check_target`.
    :raises click.ClickException: the disk is full (one line: where, how much is free).
    """
    from ledger.store.files import disk_full, disk_full_message, sync_file, sync_folder

    check_target(path, db_path=db_path, option=option)
    folder = os.path.dirname(os.path.abspath(path))
    suffix = os.path.splitext(path)[1]
    try:
        fd, tmp = tempfile.mkstemp(prefix=".campaign-", suffix=".tmp" + suffix, dir=folder)
    except OSError as e:
        if disk_full(e, folder):
            raise click.ClickException(disk_full_message(path)) from None
        raise click.ClickException(f"cannot write {path}: {e.strerror}") from None
    os.close(fd)
    try:
        yield tmp
        check_target(path, db_path=db_path, option=option)
        os.chmod(tmp, _mode_for(path, private))
        sync_file(tmp)
        os.replace(tmp, path)
        sync_folder(folder)
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if _is_full(e):
            raise click.ClickException(disk_full_message(path)) from None
        raise


def _is_full(e: BaseException) -> bool:
    """Is ``e`` (or what it was raised from: a chart library may wrap its errors) the
    operating system saying the disk is full? (A full disk under the ledger is the store's
    own :class:`~ledger.files.DiskFull`, naming the ledger: it passes through.)"""
    from ledger.store.files import NO_ROOM

    seen: BaseException | None = e
    for _ in range(5):
        if seen is None:
            return False
        if isinstance(seen, OSError) and seen.errno in NO_ROOM:
            return True
        seen = seen.__cause__ or seen.__context__
    return False


@contextlib.contextmanager
def atomic_file(
    path: str,
    *,
    db_path: str | None,
    option: str = "-o/--output",
    private: bool = False,
    text: bool = False,
) -> Iterator[IO[Any]]:
    """:func:`atomic_path` opened for writing (bytes, or UTF-8 text when ``text``); the data
    is flushed to disk before the rename."""
    with atomic_path(path, db_path=db_path, option=option, private=private) as tmp:
        f: IO[Any]
        with open(tmp, "w", encoding="utf-8") if text else open(tmp, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())


def states(app: App, characters: Any = None) -> dict[str, Any]:
    """Characters' states now, in the command's view (``{id: state}``; every character
    unless ``characters`` names some ids)."""
    campaign = app.campaign
    as_gm = app.as_gm()
    ids = campaign.characters() if characters is None else characters
    return {cid: campaign.state_of(cid, as_gm=as_gm) for cid in ids}


def changes(app: App, before: dict[str, Any], after: dict[str, Any]) -> dict[str, list[str]]:
    """``{id: sentences}`` of what changed on each character between two :func:`states`
    (the rule system's words, :meth:`ledger.rules.system.RuleSystem.describe_changes`); a
    character whose state did not change is left out."""
    system, as_gm = app.campaign.system, app.as_gm()
    out = {}
    for cid, state in after.items():
        if cid in before and before[cid] == state:
            continue
        said = system.describe_changes(before.get(cid), state, as_gm=as_gm)
        if said:
            out[cid] = said
    return out


def echo_changes(
    app: App, before: dict[str, Any], after: dict[str, Any], *, names: bool = True,
    mark: str = "",
) -> None:
    """Print what changed on each character between two :func:`states`, in the rule
    system's words: one block per character that changed (``names=False``: the sentences
    alone, indented), nothing when nothing did. ``mark`` ends every sentence (a GM-only
    write's ``" [GM only]"``)."""
    known = app.campaign.characters()
    for cid, said in changes(app, before, after).items():
        if names:
            click.echo(f"{known.get(cid, cid)}:")
        for sentence in said:
            click.echo(f"  {sentence}{mark}")


def made_mark(rec: Any) -> str:
    """What the answer to a write adds to a GM-only event's line: ``" [GM only]"`` (a blind
    roll, ``record --blind``, an event type that is always the GM's), else nothing."""
    return " [GM only]" if rec.visibility == "gm" else ""
