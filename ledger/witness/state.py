"""The witness's state file: the log keys it trusts and, per origin, the checkpoint it last
cosigned. Written atomically, read and changed under a lock.

The file is JSON::

    {"format": "campaign-ledger-witness/1",
     "logs": {"ORIGIN": {"keys": ["NAME+HASH+BASE64", ...],
                         "size": 42, "root": "BASE64", "checkpoint": "NOTE"}}}

``size``/``root``/``checkpoint`` are absent (``null``) until the first checkpoint of that
origin is cosigned; ``checkpoint`` is that note with the log's signatures and the witness's
cosignature (what the spec's monitoring endpoint serves).

Why it is safe:

- **Atomic.** :meth:`WitnessState.write` writes a temporary file in the same directory,
  flushes and ``fsync``\\ s it, renames it over the state (``os.replace``: atomic on POSIX) and
  ``fsync``\\ s the directory. A crash at any moment leaves either the old state or the new one,
  whole; a temporary file left behind is never read.
- **One change at a time.** :meth:`WitnessState.update` holds a thread lock and an exclusive
  ``flock`` on ``FILE.lock`` from reading to writing, so two requests (or a running server and
  ``campaign witness trust``) never interleave: the race C2SP tlog-witness describes (a
  smaller checkpoint's write landing after a larger one's, rolling the witness back) cannot
  happen.
- **Never silently fresh.** A missing or unreadable state file is an error, not an empty
  witness: a witness that forgot its sizes would cosign a rolled-back log.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import msgspec

from ledger.errors import LedgerError

FORMAT = "campaign-ledger-witness/1"


class WitnessError(LedgerError):
    """A witness that cannot work as asked (no state file, an unreadable one, a bad key file,
    a refused or failed request). ``str()`` is one line saying what to do."""


class LogState(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """One log the witness follows: the verifier keys it trusts for the origin, and the
    size, base64 root and note of the checkpoint it last cosigned (``None`` before any)."""

    keys: list[str]
    size: int | None = None
    root: str | None = None
    checkpoint: str | None = None


class StateFile(msgspec.Struct, forbid_unknown_fields=True):
    """The whole state file: its format tag and the logs by origin."""

    format: str
    logs: dict[str, LogState] = msgspec.field(default_factory=dict)


_decoder = msgspec.json.Decoder(StateFile)
_encoder = msgspec.json.Encoder()


class WitnessState:
    """The state file at ``path`` (``FILE.lock`` beside it serialises changes).

    :raises WitnessError: from :meth:`read`/:meth:`update`: no file (run ``campaign witness
        init``), or a file that is not a witness state.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()

    def exists(self) -> bool:
        return self.path.exists()

    def read(self) -> StateFile:
        """The state as stored now.

        :raises WitnessError: no such file, or not a witness state (the message names it).
        """
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            raise WitnessError(
                f"no witness state at {self.path}: create it with `campaign witness init NAME`"
            ) from None
        try:
            state = _decoder.decode(raw)
        except (msgspec.DecodeError, msgspec.ValidationError) as e:
            raise WitnessError(f"{self.path} is not a witness state file: {e}") from None
        if state.format != FORMAT:
            raise WitnessError(f"{self.path} is not a witness state file of {FORMAT}")
        return state

    def create(self) -> None:
        """Write an empty state (no logs) if there is no file yet; an existing one is kept."""
        with self._locked():
            if not self.path.exists():
                self.write(StateFile(FORMAT))

    def write(self, state: StateFile) -> None:
        """Replace the file with ``state`` atomically (temporary file, fsync, rename, fsync of
        the directory). Call it inside :meth:`update` (or :meth:`create`), which hold the
        lock."""
        directory = self.path.parent
        data = _encoder.encode(state) + b"\n"
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=directory)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        _fsync_dir(directory)

    @contextlib.contextmanager
    def update(self) -> Iterator[StateFile]:
        """Read the state under the lock, let the caller change it, and write it back
        atomically when the block ends without an error (an error writes nothing)::

            with state.update() as s:
                s.logs[origin].size = 43
        """
        with self._locked():
            state = self.read()
            before = _encoder.encode(state)
            yield state
            if _encoder.encode(state) != before:
                self.write(state)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        import fcntl

        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(f"{self.path}.lock", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                yield
            finally:
                os.close(fd)  # closing drops the flock


def _fsync_dir(directory: Path) -> None:
    """Make a rename in ``directory`` durable (POSIX: fsync the directory itself)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - a platform that cannot open directories
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - some file systems refuse fsync on a directory
        pass
    finally:
        os.close(fd)
