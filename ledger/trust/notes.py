"""Signed notes and checkpoints, byte-compatible with the C2SP specs.

- A *signed note* (C2SP ``signed-note``, the format of Go's ``golang.org/x/mod/sumdb/note``):
  UTF-8 text ending in a newline, a blank line, then signature lines
  ``— NAME BASE64(KEYHASH ‖ SIGNATURE)``. The key hash is the first four bytes (big-endian)
  of ``SHA-256(NAME ‖ "\\n" ‖ 0x01 ‖ PUBLIC KEY)`` for an Ed25519 key (algorithm 0x01); the
  signature is Ed25519 over the text. A verifier key is written ``NAME+HASH+BASE64(0x01 ‖
  PUBLIC KEY)`` (HASH as 8 hex digits), a signer key ``PRIVATE+KEY+NAME+HASH+BASE64(0x01 ‖
  SEED)``.
- A *checkpoint* (C2SP ``tlog-checkpoint``): the note text ``ORIGIN\\nSIZE\\nBASE64(ROOT)\\n``
  with optional extension lines after it, signed as a note by the log.

:func:`open_note` refuses every malformed form the Go reference refuses (tests/test_notes.py
runs its published example key, note and mangled forms).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from dataclasses import dataclass, field

#: Ed25519, the one signature algorithm of a note key here (C2SP signed-note).
ALG_ED25519 = 1
#: More signatures than this make a note malformed (as the reference refuses them).
MAX_SIGNATURES = 100
_SIG_PREFIX = "— "  # an em dash and a space


class NoteError(ValueError):
    """A note, key or checkpoint that is malformed, or a signature that does not verify.
    ``str()`` names which ("malformed note", "invalid signature for key NAME+HASH", ...)."""


class BadSignature(NoteError):
    """A signature line whose name and key hash match a known key but whose signature does
    not verify, or two known keys with one name and hash: the note is forged or mangled."""


class UnverifiedNote(NoteError):
    """A well-formed note none of whose signatures is by a known key; :attr:`note` holds it,
    its signatures all in :attr:`Note.unverified`."""

    def __init__(self, note: Note) -> None:
        super().__init__("note has no verifiable signatures")
        self.note = note


#: A control character other than newline: a note holds none (one scan, not one per character).
_CONTROL = re.compile("[\x00-\x09\x0b-\x1f]")


def _valid_name(name: str) -> bool:
    return bool(name) and "+" not in name and not any(c.isspace() for c in name)


def key_hash(name: str, key: bytes) -> int:
    """The 32-bit key hash of ``name`` and ``key`` (algorithm byte and public key)."""
    return int.from_bytes(hashlib.sha256(name.encode() + b"\n" + key).digest()[:4], "big")


@dataclass(frozen=True)
class Signature:
    """One signature line of a note: the signer's name, key hash and base64 text."""

    name: str
    hash: int
    base64: str


@dataclass(frozen=True)
class Note:
    """An opened note: its text, the signatures verified by known keys (in order), and the
    signatures by unknown keys."""

    text: str
    sigs: list[Signature] = field(default_factory=list)
    unverified: list[Signature] = field(default_factory=list)


class Verifier:
    """A public note key: ``Verifier.parse("NAME+HASH+BASE64")``.

    :raises NoteError: a malformed key, a hash that does not match, an unknown algorithm.
    """

    def __init__(self, name: str, public_key: bytes) -> None:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

        if not _valid_name(name) or len(public_key) != 32:
            raise NoteError("malformed verifier key")
        self.name = name
        self.public_key = public_key
        self.hash = key_hash(name, bytes([ALG_ED25519]) + public_key)
        self._key = Ed25519PublicKey.from_public_bytes(public_key)

    @classmethod
    def parse(cls, vkey: str) -> Verifier:
        name, _, rest = vkey.partition("+")
        hash16, _, key64 = rest.partition("+")
        try:
            if len(hash16) != 8 or not re.fullmatch(r"[0-9a-fA-F]{8}", hash16):
                raise ValueError
            key = base64.b64decode(key64, validate=True)
        except (ValueError, binascii.Error):
            raise NoteError("malformed verifier key") from None
        if not _valid_name(name) or not key:
            raise NoteError("malformed verifier key")
        if int(hash16, 16) != key_hash(name, key):
            raise NoteError("verifier key hash does not match its name and key")
        if key[0] != ALG_ED25519:
            raise NoteError("unknown verifier algorithm")
        if len(key) != 33:
            raise NoteError("malformed verifier key")
        return cls(name, key[1:])

    def key(self) -> str:
        """``NAME+HASH+BASE64(0x01 ‖ PUBLIC KEY)``: the text to publish and pin."""
        encoded = base64.b64encode(bytes([ALG_ED25519]) + self.public_key).decode()
        return f"{self.name}+{self.hash:08x}+{encoded}"

    def verify(self, message: bytes, signature: bytes) -> bool:
        """Is ``signature`` this key's Ed25519 signature of ``message``?"""
        from cryptography.exceptions import InvalidSignature

        try:
            self._key.verify(signature, message)
        except InvalidSignature:
            return False
        return True


class Signer:
    """A private note key (Ed25519): ``Signer.generate(name)`` or
    ``Signer.parse("PRIVATE+KEY+NAME+HASH+BASE64(0x01 ‖ SEED)")``.

    :raises NoteError: a malformed key or a name that cannot sign (empty, a space or ``+``).
    """

    def __init__(self, name: str, seed: bytes) -> None:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        if not _valid_name(name) or len(seed) != 32:
            raise NoteError("malformed signer key")
        self.name = name
        self.seed = seed
        self._key = Ed25519PrivateKey.from_private_bytes(seed)
        public = self._key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        self.verifier = Verifier(name, public)
        self.hash = self.verifier.hash

    @classmethod
    def generate(cls, name: str) -> Signer:
        import secrets

        return cls(name, secrets.token_bytes(32))

    @classmethod
    def parse(cls, skey: str) -> Signer:
        parts = skey.split("+", 4)
        if len(parts) != 5 or parts[0] != "PRIVATE" or parts[1] != "KEY":
            raise NoteError("malformed signer key")
        _, _, name, hash16, key64 = parts
        try:
            if not re.fullmatch(r"[0-9a-fA-F]{8}", hash16):
                raise ValueError
            key = base64.b64decode(key64, validate=True)
        except (ValueError, binascii.Error):
            raise NoteError("malformed signer key") from None
        if not key or key[0] != ALG_ED25519 or len(key) != 33 or not _valid_name(name):
            raise NoteError("malformed signer key")
        signer = cls(name, key[1:])
        if int(hash16, 16) != signer.hash:
            raise NoteError("signer key hash does not match its name and key")
        return signer

    def key(self) -> str:
        """``PRIVATE+KEY+NAME+HASH+BASE64(0x01 ‖ SEED)``: keep it secret."""
        encoded = base64.b64encode(bytes([ALG_ED25519]) + self.seed).decode()
        return f"PRIVATE+KEY+{self.name}+{self.hash:08x}+{encoded}"

    def sign(self, message: bytes) -> bytes:
        """The Ed25519 signature of ``message`` (64 bytes)."""
        return self._key.sign(message)


def _well_formed_text(text: str) -> bool:
    return text.endswith("\n") and not _CONTROL.search(text)


def sign(text: str, *signers: Signer, sigs: list[Signature] | None = None) -> str:
    """The signed note of ``text`` (which must end in a newline): ``text``, a blank line,
    the signatures of ``sigs`` kept (those of a signer given now are replaced), then one
    new signature line per signer.

    :raises NoteError: ``text`` not ending in a newline or holding a control character, or
        a kept signature whose base64 does not start with its key hash.
    """
    if not _well_formed_text(text):
        raise NoteError("malformed note")
    new = {(s.name, s.hash) for s in signers}
    lines = []
    for old in sigs or []:
        if not _valid_name(old.name):
            raise NoteError("malformed note")
        if (old.name, old.hash) in new:
            continue
        try:
            raw = base64.b64decode(old.base64, validate=True)
        except (ValueError, binascii.Error):
            raise NoteError("malformed note") from None
        if len(raw) < 4 or int.from_bytes(raw[:4], "big") != old.hash:
            raise NoteError("malformed note")
        lines.append(f"{_SIG_PREFIX}{old.name} {old.base64}\n")
    for s in signers:
        encoded = base64.b64encode(s.hash.to_bytes(4, "big") + s.sign(text.encode())).decode()
        lines.append(f"{_SIG_PREFIX}{s.name} {encoded}\n")
    return text + "\n" + "".join(lines)


def open_note(message: str | bytes, verifiers: list[Verifier]) -> Note:
    """Parse a signed note and check its signatures against ``verifiers``.

    :returns: the note, with the signatures by known keys verified (repeats dropped).
    :raises UnverifiedNote: no signature is by a known key (the note is in the error).
    :raises BadSignature: a signature by a known key that does not verify ("invalid
        signature for key NAME+HASH"), or two known keys with one name and hash ("ambiguous
        key NAME+HASH").
    :raises NoteError: a malformed note ("malformed note").
    """
    raw = message.encode() if isinstance(message, str) else message
    try:
        msg = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise NoteError("malformed note") from None
    if _CONTROL.search(msg):
        raise NoteError("malformed note")
    split = msg.rfind("\n\n")
    if split < 0:
        raise NoteError("malformed note")
    text, block = msg[: split + 1], msg[split + 2 :]
    if not block or not block.endswith("\n"):
        raise NoteError("malformed note")
    known: dict[tuple[str, int], list[Verifier]] = {}
    for v in verifiers:
        known.setdefault((v.name, v.hash), []).append(v)
    note = Note(text)
    seen: set[tuple[str, int]] = set()
    seen_unverified: set[str] = set()
    count = 0
    for line in block[:-1].split("\n"):
        if not line.startswith(_SIG_PREFIX):
            raise NoteError("malformed note")
        body = line[len(_SIG_PREFIX) :]
        name, _, b64 = body.partition(" ")
        try:
            sig = base64.b64decode(b64, validate=True)
        except (ValueError, binascii.Error):
            raise NoteError("malformed note") from None
        if not _valid_name(name) or not b64 or len(sig) < 5:
            raise NoteError("malformed note")
        count += 1
        if count > MAX_SIGNATURES:
            raise NoteError("malformed note")
        hash_ = int.from_bytes(sig[:4], "big")
        found = known.get((name, hash_), [])
        if not found:
            if body not in seen_unverified:
                seen_unverified.add(body)
                note.unverified.append(Signature(name, hash_, b64))
            continue
        if len({v.public_key for v in found}) > 1:
            raise BadSignature(f"ambiguous key {name}+{hash_:08x}")
        if (name, hash_) in seen:
            continue
        seen.add((name, hash_))
        if not found[0].verify(text.encode(), sig[4:]):
            raise BadSignature(f"invalid signature for key {name}+{hash_:08x}")
        note.sigs.append(Signature(name, hash_, b64))
    if not note.sigs:
        raise UnverifiedNote(note)
    return note


@dataclass(frozen=True)
class Checkpoint:
    """A log's checkpoint (C2SP tlog-checkpoint): its origin (the log's name), tree size and
    root hash (32 bytes), and any extension lines."""

    origin: str
    size: int
    root: bytes
    extensions: tuple[str, ...] = ()

    def text(self) -> str:
        """The note text: ``ORIGIN\\nSIZE\\nBASE64(ROOT)\\n`` then the extension lines."""
        lines = [self.origin, str(self.size), base64.b64encode(self.root).decode(), *self.extensions]
        return "\n".join(lines) + "\n"

    @classmethod
    def parse(cls, text: str) -> Checkpoint:
        """The checkpoint a note's text holds.

        :raises NoteError: not three lines of origin, decimal size (no leading zeros, no
            sign) and a base64 32-byte root, or an empty extension line.
        """
        if not text.endswith("\n"):
            raise NoteError("malformed checkpoint")
        lines = text[:-1].split("\n")
        if len(lines) < 3 or not lines[0] or any(not x for x in lines[3:]):
            raise NoteError("malformed checkpoint")
        origin, size_text, root64 = lines[:3]
        if not re.fullmatch(r"0|[1-9][0-9]{0,19}", size_text):
            raise NoteError("malformed checkpoint: the size is not a decimal number")
        try:
            root = base64.b64decode(root64, validate=True)
        except (ValueError, binascii.Error):
            raise NoteError("malformed checkpoint: the root is not base64") from None
        if len(root) != 32:
            raise NoteError("malformed checkpoint: the root is not 32 bytes")
        return cls(origin, int(size_text), root, tuple(lines[3:]))
