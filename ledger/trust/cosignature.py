"""Cosignatures of checkpoints, byte-compatible with C2SP ``tlog-cosignature`` (v1, Ed25519).

A cosignature is a note signature line ``— NAME BASE64(KEY ID ‖ TIMESTAMPED SIGNATURE)``
added to a checkpoint by someone other than the log (a witness, a player's phone):

- the key ID is the first four bytes (big-endian) of ``SHA-256(NAME ‖ "\\n" ‖ 0x04 ‖
  PUBLIC KEY)`` (algorithm byte 0x04: "timestamped Ed25519 cosignature/v1"),
- the timestamped signature is an 8-byte big-endian POSIX timestamp (seconds, at most
  2^63 - 1) followed by the 64-byte Ed25519 signature of the message
  ``"cosignature/v1\\ntime " ‖ DECIMAL TIMESTAMP ‖ "\\n" ‖ CHECKPOINT NOTE BODY`` (the body
  including its final newline, without any signature line),
- a cosigner's verifier key is written ``NAME+KEYID+BASE64(0x04 ‖ PUBLIC KEY)`` (C2SP
  ``signed-note`` verifier keys with signature type 0x04); its secret key here
  ``PRIVATE+KEY+NAME+KEYID+BASE64(0x04 ‖ SEED)``, the signed-note form with the same byte.

Semantically a cosignature says: "as of TIMESTAMP, the largest consistent tree I have seen
for this origin has this root". tests/test_cosignature.py checks this module against a
published cosigned checkpoint (transparency-dev/witness README, two Armored Witness
cosignatures, with their keys from transparency-dev/distributor) and against the
``cryptography`` Ed25519 primitive applied directly to the spec's message bytes.

Sources: C2SP tlog-cosignature.md ("Format", "Ed25519 signed message"); C2SP signed-note.md
("Signatures", "Verifier keys"); C2SP tlog-checkpoint.md.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re

from ledger.trust.notes import Checkpoint, NoteError, Signer, Verifier

#: The signature type of a timestamped Ed25519 cosignature/v1 key (C2SP signed-note).
ALG_COSIGNATURE_V1 = 4
#: The largest timestamp a cosignature may carry (C2SP tlog-cosignature: 2^63 - 1).
MAX_TIMESTAMP = 2**63 - 1
_SIG_PREFIX = "— "  # an em dash and a space
_HEADER = "cosignature/v1"
_SIG_LEN = 4 + 8 + 64


class CosignatureError(NoteError):
    """A cosignature that is malformed, by another key, over another checkpoint, or whose
    signature does not verify; ``str()`` says which."""


def _valid_name(name: str) -> bool:
    return bool(name) and "+" not in name and not any(c.isspace() for c in name)


def cosignature_key_id(name: str, public_key: bytes) -> int:
    """The 32-bit key ID of a cosigner: ``SHA-256(name ‖ 0x0A ‖ 0x04 ‖ public_key)[:4]``,
    big-endian. ``public_key`` is the raw 32-byte Ed25519 key."""
    digest = hashlib.sha256(name.encode() + b"\n" + bytes([ALG_COSIGNATURE_V1]) + public_key)
    return int.from_bytes(digest.digest()[:4], "big")


def cosignature_message(body: str, timestamp: int) -> bytes:
    """The bytes a cosigner signs: ``cosignature/v1\\ntime TIMESTAMP\\n`` then ``body`` (the
    checkpoint note's text, ending in a newline).

    :raises CosignatureError: a timestamp below 0 or above 2^63 - 1.
    """
    if not 0 <= timestamp <= MAX_TIMESTAMP:
        raise CosignatureError("cosignature timestamp out of range (0 to 2^63-1 seconds)")
    return f"{_HEADER}\ntime {timestamp}\n{body}".encode()


def _body_of(note_or_checkpoint: str | bytes | Checkpoint) -> str:
    """The note body a cosignature covers: a :class:`Checkpoint`'s text, a signed note's text
    before its signatures, or a bare checkpoint body. It must parse as a checkpoint."""
    if isinstance(note_or_checkpoint, Checkpoint):
        return note_or_checkpoint.text()
    text = note_or_checkpoint
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise CosignatureError("malformed checkpoint: not UTF-8") from None
    split = text.find("\n\n")
    body = text if split < 0 else text[: split + 1]
    try:
        Checkpoint.parse(body)
    except NoteError as exc:
        raise CosignatureError(str(exc)) from None
    return body


class CosignatureVerifier(Verifier):
    """A cosigner's public key: ``CosignatureVerifier.parse("NAME+KEYID+BASE64(0x04 ‖ KEY)")``
    or ``CosignatureVerifier(name, public_key)``.

    It is a :class:`~ledger.trust.notes.Verifier`, so :func:`ledger.trust.notes.open_note`
    checks cosignature lines with it beside the log's own signature.

    :raises CosignatureError: a malformed key, a key ID that does not match, another
        signature type than 0x04.
    """

    def __init__(self, name: str, public_key: bytes) -> None:
        try:
            super().__init__(name, public_key)
        except NoteError:
            raise CosignatureError("malformed cosigner key") from None
        self.hash = cosignature_key_id(name, public_key)

    @classmethod
    def parse(cls, vkey: str) -> CosignatureVerifier:
        name, _, rest = vkey.partition("+")
        hash16, _, key64 = rest.partition("+")
        try:
            if not re.fullmatch(r"[0-9a-fA-F]{8}", hash16):
                raise ValueError
            key = base64.b64decode(key64, validate=True)
        except (ValueError, binascii.Error):
            raise CosignatureError("malformed cosigner key") from None
        if not _valid_name(name) or len(key) != 33:
            raise CosignatureError("malformed cosigner key")
        if key[0] != ALG_COSIGNATURE_V1:
            raise CosignatureError(
                "not a cosigner key: its signature type is not 0x04 (cosignature/v1)"
            )
        verifier = cls(name, key[1:])
        if int(hash16, 16) != verifier.hash:
            raise CosignatureError("cosigner key ID does not match its name and key")
        return verifier

    def key(self) -> str:
        """``NAME+KEYID+BASE64(0x04 ‖ PUBLIC KEY)``: the text to publish and pin."""
        encoded = base64.b64encode(bytes([ALG_COSIGNATURE_V1]) + self.public_key).decode()
        return f"{self.name}+{self.hash:08x}+{encoded}"

    def timestamp_of(self, message: bytes, signature: bytes) -> int | None:
        """The timestamp of ``signature`` (8-byte timestamp ‖ 64-byte Ed25519) if it is this
        key's cosignature of the checkpoint body ``message``, else ``None``."""
        if len(signature) != 8 + 64:
            return None
        timestamp = int.from_bytes(signature[:8], "big")
        if timestamp > MAX_TIMESTAMP:
            return None
        try:
            body = message.decode("utf-8")
            Checkpoint.parse(body)
        except (UnicodeDecodeError, NoteError):
            return None
        signed = cosignature_message(body, timestamp)
        return timestamp if Verifier.verify(self, signed, signature[8:]) else None

    def verify(self, message: bytes, signature: bytes) -> bool:
        """Is ``signature`` this key's cosignature of the checkpoint body ``message``?
        (The interface :func:`ledger.trust.notes.open_note` calls.)"""
        return self.timestamp_of(message, signature) is not None


class Cosigner:
    """A cosigner's private key (Ed25519): ``Cosigner.generate(name)``,
    ``Cosigner.parse("PRIVATE+KEY+NAME+KEYID+BASE64(0x04 ‖ SEED)")`` or
    ``Cosigner(name, seed)``.

    A cosigner key must not also sign notes as a log (the v1 message does not name the
    cosigner: C2SP tlog-cosignature, "Ed25519 signed message").

    :raises CosignatureError: a malformed key, a name that cannot sign (empty, a space or
        ``+``), a key ID that does not match.
    """

    def __init__(self, name: str, seed: bytes) -> None:
        try:
            self._signer = Signer(name, seed)
        except NoteError:
            raise CosignatureError("malformed cosigner key") from None
        self.name = name
        self.seed = seed
        self.verifier = CosignatureVerifier(name, self._signer.verifier.public_key)
        self.hash = self.verifier.hash

    @classmethod
    def generate(cls, name: str) -> Cosigner:
        import secrets

        return cls(name, secrets.token_bytes(32))

    @classmethod
    def parse(cls, skey: str) -> Cosigner:
        parts = skey.strip().split("+", 4)
        if len(parts) != 5 or parts[:2] != ["PRIVATE", "KEY"]:
            raise CosignatureError("malformed cosigner key")
        _, _, name, hash16, key64 = parts
        try:
            if not re.fullmatch(r"[0-9a-fA-F]{8}", hash16):
                raise ValueError
            key = base64.b64decode(key64, validate=True)
        except (ValueError, binascii.Error):
            raise CosignatureError("malformed cosigner key") from None
        if len(key) != 33 or key[0] != ALG_COSIGNATURE_V1:
            raise CosignatureError("malformed cosigner key")
        cosigner = cls(name, key[1:])
        if int(hash16, 16) != cosigner.hash:
            raise CosignatureError("cosigner key ID does not match its name and key")
        return cosigner

    def key(self) -> str:
        """``PRIVATE+KEY+NAME+KEYID+BASE64(0x04 ‖ SEED)``: keep it secret."""
        encoded = base64.b64encode(bytes([ALG_COSIGNATURE_V1]) + self.seed).decode()
        return f"PRIVATE+KEY+{self.name}+{self.hash:08x}+{encoded}"

    def cosign(self, note_or_checkpoint: str | bytes | Checkpoint, timestamp: int) -> str:
        """The cosignature line of a checkpoint at ``timestamp`` (POSIX seconds):
        ``— NAME BASE64(KEY ID ‖ TIMESTAMP ‖ SIGNATURE)\\n``.

        :raises CosignatureError: not a checkpoint, or a timestamp out of range.
        """
        body = _body_of(note_or_checkpoint)
        signature = self._signer.sign(cosignature_message(body, timestamp))
        raw = self.hash.to_bytes(4, "big") + timestamp.to_bytes(8, "big") + signature
        return f"{_SIG_PREFIX}{self.name} {base64.b64encode(raw).decode()}\n"


def sign_cosignature(signer: Cosigner, checkpoint: str | bytes | Checkpoint, timestamp: int) -> str:
    """``signer``'s cosignature line of ``checkpoint`` (a signed note, its body or a
    :class:`Checkpoint`) at ``timestamp`` (POSIX seconds). See :meth:`Cosigner.cosign`."""
    return signer.cosign(checkpoint, timestamp)


def parse_signature_line(line: str) -> tuple[str, int, int, bytes]:
    """``(name, key ID, timestamp, 64-byte signature)`` of one cosignature line (with or
    without its final newline).

    :raises CosignatureError: not ``— NAME BASE64`` with a name that can sign and a payload
        of exactly 4 + 8 + 64 bytes, or a timestamp above 2^63 - 1.
    """
    text = line[:-1] if line.endswith("\n") else line
    if not text.startswith(_SIG_PREFIX) or "\n" in text:
        raise CosignatureError("malformed cosignature line: not '— NAME BASE64'")
    name, _, b64 = text[len(_SIG_PREFIX) :].partition(" ")
    try:
        raw = base64.b64decode(b64, validate=True)
    except (ValueError, binascii.Error):
        raise CosignatureError("malformed cosignature line: the signature is not base64") from None
    if not _valid_name(name) or len(raw) != _SIG_LEN:
        raise CosignatureError(
            "malformed cosignature line: not a name and 76 bytes (key ID, time, signature)"
        )
    timestamp = int.from_bytes(raw[4:12], "big")
    if timestamp > MAX_TIMESTAMP:
        raise CosignatureError("malformed cosignature line: timestamp above 2^63-1")
    return name, int.from_bytes(raw[:4], "big"), timestamp, raw[12:]


def verify_cosignature(
    vkey: str | CosignatureVerifier,
    checkpoint: str | bytes | Checkpoint,
    signature_line: str,
    *,
    not_after: int | None = None,
) -> int:
    """Check one cosignature line of a checkpoint and return its timestamp (POSIX seconds).

    :param vkey: the cosigner's verifier key (``NAME+KEYID+BASE64(0x04 ‖ KEY)``) or
        :class:`CosignatureVerifier`.
    :param checkpoint: the checkpoint as a signed note (its signatures are ignored), its
        body, or a :class:`Checkpoint`.
    :param not_after: if given, a timestamp later than this is refused (a cosignature "from
        the future"; C2SP lets verifiers refuse them).
    :raises CosignatureError: a malformed line or key, a line by another name or key ID, a
        signature that does not verify over this checkpoint, a timestamp after
        ``not_after``.
    """
    verifier = vkey if isinstance(vkey, CosignatureVerifier) else CosignatureVerifier.parse(vkey)
    body = _body_of(checkpoint)
    name, key_id, timestamp, signature = parse_signature_line(signature_line)
    if (name, key_id) != (verifier.name, verifier.hash):
        raise CosignatureError(
            f"cosignature by {name}+{key_id:08x}, not by {verifier.name}+{verifier.hash:08x}"
        )
    if not Verifier.verify(verifier, cosignature_message(body, timestamp), signature):
        raise CosignatureError(
            f"invalid cosignature by {verifier.name}+{verifier.hash:08x} for this checkpoint"
        )
    if not_after is not None and timestamp > not_after:
        raise CosignatureError(f"cosignature timestamp {timestamp} is in the future")
    return timestamp


def add_cosignatures(note: str, *lines: str) -> str:
    """``note`` (a signed note) with the cosignature ``lines`` appended, each line once.

    Lines are appended as given (checked only for form); verify them first.

    :raises CosignatureError: ``note`` is not a signed note (no blank line before its
        signatures), or a line is malformed.
    """
    if "\n\n" not in note or not note.endswith("\n"):
        raise CosignatureError("malformed note: no signatures to add a cosignature to")
    present = set(note[note.find("\n\n") + 2 :].splitlines())
    out = note
    for line in lines:
        parse_signature_line(line)
        bare = line.rstrip("\n")
        if bare not in present:
            present.add(bare)
            out += bare + "\n"
    return out
