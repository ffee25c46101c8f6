"""The witness's ``add-checkpoint``, as C2SP tlog-witness says, independent of HTTP.

:meth:`Witness.add_checkpoint` takes the request body and returns an :class:`Answer` (status,
content type, body). The request body is ``old SIZE\\n``, zero to 63 consistency-proof lines
(base64 hashes), an empty line, then the checkpoint as a signed note. The checks, in the
spec's order:

====  =====================================================================================
400   a malformed body, note or checkpoint; ``old`` larger than the checkpoint's size
404   an origin the witness does not follow (``campaign witness trust VKEY``)
403   no signature by a key trusted for the origin, or one by such a key that fails
409   ``old`` is not the size the witness last cosigned: a rolled-back or stale
      submission; or ``old`` is the checkpoint's size and the root is not the one cosigned
      at that size (a fork; at size 0, a root that is not the empty tree's). The body is
      the size last cosigned and a newline, ``Content-Type: text/x.tlog.size``
422   a proof sent with ``old 0`` or between equal sizes; a consistency proof from the
      stored root that does not verify
200   the witness's cosignature line(s); the checkpoint is stored before the answer
====  =====================================================================================

The consistency proof is checked from the root the witness *stored*, never from anything the
client says, and the check and the write happen under one lock (:meth:`WitnessState.update`),
so no two submissions interleave.

Sources: C2SP tlog-witness.md ("add-checkpoint"), tlog-checkpoint.md, tlog-cosignature.md;
RFC 9162 2.1.4.2 for the proof.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from ledger.trust.cosignature import Cosigner, add_cosignatures
from ledger.trust.merkle import EMPTY_ROOT, ProofError, verify_consistency
from ledger.trust.notes import (
    BadSignature,
    Checkpoint,
    NoteError,
    UnverifiedNote,
    Verifier,
    open_note,
)
from ledger.witness.state import LogState, WitnessError, WitnessState

#: The most consistency-proof lines a request may carry (C2SP tlog-witness).
MAX_PROOF_LINES = 63
#: The largest request body read, in bytes (a checkpoint note with up to 100 signatures and
#: 63 proof lines is well under it).
MAX_BODY = 64 * 1024
SIZE_TYPE = "text/x.tlog.size"
TEXT_TYPE = "text/plain; charset=utf-8"

log = logging.getLogger("ledger.witness")


@dataclass(frozen=True)
class Answer:
    """An HTTP answer: status, body text and content type."""

    status: int
    body: str
    content_type: str = TEXT_TYPE


@dataclass(frozen=True)
class Request:
    """A parsed ``add-checkpoint`` body: the old size, the proof hashes, the note."""

    old: int
    proof: list[bytes]
    note: str


class BadRequest(ValueError):
    """A body that is not ``old N``, proof lines, an empty line and a note (answer 400)."""


def parse_request(body: bytes) -> Request:
    """The parts of an ``add-checkpoint`` body.

    :raises BadRequest: not UTF-8, no ``old N`` first line (decimal, no leading zeros), a
        proof line that is not a base64 32-byte hash, more than 63 of them, no empty line.
    """
    if len(body) > MAX_BODY:
        raise BadRequest(f"request body over {MAX_BODY} bytes")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequest("request body is not UTF-8") from None
    head, sep, note = text.partition("\n\n")
    if not sep:
        raise BadRequest("no empty line between the old size and proof and the checkpoint")
    lines = head.split("\n")
    match = re.fullmatch(r"old (0|[1-9][0-9]{0,18})", lines[0])
    if not match:
        raise BadRequest("the first line must be 'old SIZE' (a decimal size)")
    if len(lines) - 1 > MAX_PROOF_LINES:
        raise BadRequest(f"more than {MAX_PROOF_LINES} consistency proof lines")
    proof = []
    for line in lines[1:]:
        try:
            h = base64.b64decode(line, validate=True)
        except (ValueError, binascii.Error):
            raise BadRequest("a consistency proof line is not base64") from None
        if len(h) != 32:
            raise BadRequest("a consistency proof line is not a 32-byte hash")
        proof.append(h)
    return Request(int(match.group(1)), proof, note)


def origin_hash(origin: str) -> str:
    """The monitoring path's name of an origin: SHA-256 of it, lowercase hex."""
    return hashlib.sha256(origin.encode()).hexdigest()


class Witness:
    """A witness: its cosigner key, its state file and a clock (POSIX seconds; ``time.time``
    unless given, so tests freeze it).

    ``add_checkpoint`` and ``checkpoint`` never raise for what a client sends: every refusal
    is an :class:`Answer`. They raise :class:`WitnessError` only when the state file itself
    cannot be read or written.
    """

    def __init__(
        self,
        cosigner: Cosigner,
        state: WitnessState,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.cosigner = cosigner
        self.state = state
        self.clock = clock or (lambda: time.time())  # looked up at each call: freezegun

    def add_checkpoint(self, body: bytes) -> Answer:
        """Answer one ``add-checkpoint`` request body (see the module's table)."""
        try:
            req = parse_request(body)
            text = req.note[: req.note.find("\n\n") + 1] if "\n\n" in req.note else ""
            checkpoint = Checkpoint.parse(text)
        except (BadRequest, NoteError) as e:
            return Answer(400, f"{e}\n")
        logs = self.state.read().logs
        if checkpoint.origin not in logs:
            return Answer(404, "unknown log origin\n")
        try:
            verifiers = [Verifier.parse(k) for k in logs[checkpoint.origin].keys]
            open_note(req.note, verifiers)
        except UnverifiedNote:
            return Answer(403, "no signature by a key trusted for this origin\n")
        except BadSignature as e:
            return Answer(403, f"{e}\n")
        except NoteError as e:
            return Answer(400, f"{e}\n")
        if req.old > checkpoint.size:
            return Answer(400, "old size is larger than the checkpoint's size\n")
        with self.state.update() as state:
            entry = state.logs.get(checkpoint.origin)
            if entry is None:  # untrusted since the read above
                return Answer(404, "unknown log origin\n")
            known = entry.size or 0
            if req.old != known:
                return Answer(409, f"{known}\n", SIZE_TYPE)
            forked = self._fork(entry, req, checkpoint)
            problem = forked or self._inconsistency(entry, req, checkpoint)
            if problem:
                log.warning(
                    "refused a checkpoint of %s at size %d (witnessed: %d): %s",
                    checkpoint.origin,
                    checkpoint.size,
                    known,
                    problem,
                )
                if forked:  # C2SP: equal sizes, other roots: 409, as for another size
                    return Answer(409, f"{known}\n", SIZE_TYPE)
                return Answer(422, f"{problem}\n")
            timestamp = max(1, int(self.clock()))
            line = self.cosigner.cosign(checkpoint, timestamp)
            entry.size = checkpoint.size
            entry.root = base64.b64encode(checkpoint.root).decode()
            entry.checkpoint = add_cosignatures(_without(req.note, self.cosigner.name), line)
        return Answer(200, line)

    def checkpoint(self, hash_hex: str) -> Answer:
        """``GET /<origin hash>/checkpoint``: the last checkpoint cosigned for the origin
        whose SHA-256 is ``hash_hex``, with its signatures and the cosignature; 404 if none."""
        for origin, entry in self.state.read().logs.items():
            if origin_hash(origin) == hash_hex.lower() and entry.checkpoint:
                return Answer(200, entry.checkpoint)
        return Answer(404, "no checkpoint cosigned for this origin\n")

    @staticmethod
    def _fork(entry: LogState, req: Request, checkpoint: Checkpoint) -> str | None:
        """Why ``checkpoint``, of the size the witness last cosigned (``old``, already
        checked), is not the checkpoint it cosigned at that size, or ``None``: another
        root (at size 0, the empty tree's root is the one "cosigned")."""
        if req.old != checkpoint.size:
            return None
        if checkpoint.size == 0:
            if checkpoint.root != EMPTY_ROOT:
                return "a checkpoint of size 0 must have the empty tree's root"
            return None
        if base64.b64decode(entry.root or "") != checkpoint.root:
            return "same size, different root: the log forked"
        return None

    @staticmethod
    def _inconsistency(entry: LogState, req: Request, checkpoint: Checkpoint) -> str | None:
        """Why ``checkpoint`` does not extend what the witness cosigned, or ``None``."""
        if req.old == 0:
            return "a consistency proof from size 0 must be empty" if req.proof else None
        stored = base64.b64decode(entry.root or "")
        if req.old == checkpoint.size:
            if req.proof:
                return "a consistency proof between equal sizes must be empty"
            return None
        try:
            verify_consistency(req.old, checkpoint.size, stored, checkpoint.root, req.proof)
        except ProofError as e:
            return f"the consistency proof does not verify: {e}"
        return None


def _without(note: str, name: str) -> str:
    """``note`` without signature lines by ``name`` (an old cosignature of this witness's
    that the client sent back is replaced by the new one)."""
    split = note.find("\n\n")
    lines = note[split + 2 :].splitlines(keepends=True)
    kept = [x for x in lines if not x.startswith(f"— {name} ")]
    if not kept:  # keep the note well formed: at least the log's signature stays
        return note
    return note[: split + 2] + "".join(kept)


def load_cosigner(path: str) -> Cosigner:
    """The witness's secret key from ``path`` (``PRIVATE+KEY+NAME+KEYID+BASE64``).

    :raises WitnessError: no such file, or not a cosigner key.
    """
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise WitnessError(
            f"no witness key at {path}: create one with `campaign witness init NAME`"
        ) from None
    except (OSError, UnicodeDecodeError) as e:
        raise WitnessError(f"cannot read the witness key {path}: {e}") from None
    try:
        return Cosigner.parse(text)
    except NoteError as e:
        raise WitnessError(f"{path} is not a witness key: {e}") from None


def save_cosigner(path: str, cosigner: Cosigner) -> None:
    """Write a new key file, readable by its owner only.

    :raises WitnessError: a file is already there (a witness key is never overwritten).
    """
    import os

    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise WitnessError(f"{path} already exists: a witness key is never overwritten") from None
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(cosigner.key() + "\n")
        f.flush()
        os.fsync(f.fileno())


def trust(
    state: WitnessState, vkey: str, origin: str | None = None, *, same_log: bool = False
) -> tuple[str, Verifier]:
    """Follow the log whose note key is ``vkey`` (``NAME+HASH+BASE64``) under ``origin`` (the
    key's name unless given): its checkpoints are cosigned from now on. A key already trusted
    for the origin is kept once.

    An origin names one log (C2SP tlog-witness keeps one checkpoint per origin): a key not yet
    trusted for an origin the witness follows is added only with ``same_log`` (the same
    log's new key); another log under that origin would share its size and be refused.

    :returns: the origin and the parsed key.
    :raises WitnessError: a malformed key or origin; an origin followed with other keys,
        without ``same_log`` (nothing changed).
    """
    try:
        verifier = Verifier.parse(vkey.strip())
    except NoteError as e:
        raise WitnessError(
            f"not a log's verifier key ({e}): give NAME+HASH+BASE64, as `campaign checkpoint` "
            "prints it"
        ) from None
    origin = verifier.name if origin is None else origin
    if not origin or any(c in origin for c in "\n\r") or origin != origin.strip():
        raise WitnessError("an origin is one line of text with no leading or trailing space")
    with state.update() as s:
        entry = s.logs.setdefault(origin, LogState(keys=[]))
        if verifier.key() not in entry.keys:
            if entry.keys and not same_log:
                at = f", cosigned up to size {entry.size}" if entry.size is not None else ""
                raise WitnessError(
                    f"the witness already follows a log under the origin {origin!r} (key "
                    f"{entry.keys[0]}{at}): nothing changed. An origin is one log; give "
                    "--same-log if this is that log's new key"
                )
            entry.keys.append(verifier.key())
    return origin, verifier
