"""A chronicle entry: one character's session at one table, as a C2SP signed note.

The note's text (docs/league.md "Chronicle entry") is a header line and twelve ``KEY
VALUE`` lines, in this order, each value on one line (JSON values are canonical: keys
sorted, no whitespace, so a control character is always escaped)::

    campaign-ledger chronicle v1
    passport 0f1e2d3c4b5a69788796a5b4c3d2e1f0
    character isa
    name "Isa"
    table campaign-ledger/mara-marches
    checkpoint 212 q1/8Xn0Yk5bL2P4w7rZ3c8Jm9sT6hV1yE0uA5dG2fK4=
    session 4
    system d20-world
    options {"starting_favor":1}
    events 17 6a0c...e9 (sha256 of the canonical JSON [[seq, hash], ...] of its events)
    state 93b1...07 (sha256 of the character's state, canonical JSON, sorted keys)
    previous 0000...00 (the previous entry's hash; 64 zeros for a character's first)
    changed ["Experience 3 → 5","New condition 'shaken'"]

It is signed with the table's checkpoint key, whose name is the ``table`` line (the
checkpoints' origin). An entry's *hash* is SHA-256 of its note text (the signed bytes,
without signature lines), so a cosignature added later does not change it.

Pure: no I/O, no rule system. :func:`parse` refuses any other shape.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from dataclasses import dataclass
from typing import Any

import msgspec

from ledger.chain import encode_canonical

HEADER = "campaign-ledger chronicle v1"
#: The keys of an entry's lines, in their order.
KEYS = (
    "passport", "character", "name", "table", "checkpoint", "session", "system", "options",
    "events", "state", "previous", "changed",
)  # fmt: skip
#: The ``previous`` of a character's first entry.
NO_PREVIOUS = "0" * 64

_HEX64 = re.compile(r"[0-9a-f]{64}")
_PASSPORT = re.compile(r"[0-9a-f]{32}")
_NUMBER = re.compile(r"0|[1-9][0-9]{0,18}")


class EntryError(ValueError):
    """A chronicle entry's text that is not one (``str()`` says which line and why)."""


@dataclass(frozen=True)
class Entry:
    """One chronicle entry (see the module docstring for each field's line).

    :ivar events: ``(count, digest)``: how many events and the hex SHA-256 of the
        canonical JSON ``[[seq, hash], ...]`` (:func:`events_digest`).
    :ivar checkpoint: ``(size, root)``, the root 32 bytes.
    """

    passport: str
    character: str
    name: str
    table: str
    checkpoint: tuple[int, bytes]
    session: int
    system: str
    options: dict[str, Any]
    events: tuple[int, str]
    state: str
    previous: str
    changed: tuple[str, ...]

    def text(self) -> str:
        """The note text (ends in a newline)."""
        size, root = self.checkpoint
        values = {
            "passport": self.passport,
            "character": self.character,
            "name": encode_canonical(self.name).decode(),
            "table": self.table,
            "checkpoint": f"{size} {base64.b64encode(root).decode()}",
            "session": str(self.session),
            "system": self.system,
            "options": encode_canonical(self.options).decode(),
            "events": f"{self.events[0]} {self.events[1]}",
            "state": self.state,
            "previous": self.previous,
            "changed": encode_canonical(list(self.changed)).decode(),
        }
        return HEADER + "\n" + "".join(f"{k} {values[k]}\n" for k in KEYS)

    def hash(self) -> str:
        """This entry's hash: SHA-256 of :meth:`text`, hex."""
        return entry_hash(self.text())


def entry_hash(text: str) -> str:
    """SHA-256 of an entry's note text (hex): what the next entry's ``previous`` names."""
    return hashlib.sha256(text.encode()).hexdigest()


def state_hash(state: Any) -> str:
    """SHA-256 of a state's canonical JSON (sorted keys at every level; a key that is not a
    string, such as a clock's segment number, written as its JSON string), hex."""
    import msgspec

    return hashlib.sha256(encode_canonical(msgspec.to_builtins(state, str_keys=True))).hexdigest()


def events_digest(pairs: list[tuple[int, str]]) -> str:
    """SHA-256 (hex) of the canonical JSON ``[[seq, hash], ...]`` of an entry's events."""
    return hashlib.sha256(encode_canonical([[s, h] for s, h in pairs])).hexdigest()


def new_passport_id() -> str:
    """A fresh passport id: 128 random bits, 32 hex digits."""
    import secrets

    return secrets.token_hex(16)


def _json(key: str, value: str, kind: type) -> Any:
    try:
        got = msgspec.json.decode(value)
    except msgspec.DecodeError:
        raise EntryError(f"the {key} line is not JSON") from None
    if not isinstance(got, kind) or encode_canonical(got).decode() != value:
        raise EntryError(f"the {key} line is not canonical JSON of a {kind.__name__}")
    return got


def parse(text: str) -> Entry:
    """The entry a note text holds.

    :raises EntryError: another header, a missing, extra or misordered line, or a value of
        the wrong shape (naming the line).
    """
    if not text.endswith("\n"):
        raise EntryError("an entry's text ends in a newline")
    lines = text[:-1].split("\n")
    if lines[0] != HEADER:
        raise EntryError(f"not a chronicle entry (its first line is not {HEADER!r})")
    if len(lines) != len(KEYS) + 1:
        raise EntryError(f"a chronicle entry has {len(KEYS)} lines after its header")
    values: dict[str, str] = {}
    for key, line in zip(KEYS, lines[1:], strict=True):
        got, _, value = line.partition(" ")
        if got != key:
            raise EntryError(f"expected the {key} line, found {got[:40]!r}")
        values[key] = value
    if not _PASSPORT.fullmatch(values["passport"]):
        raise EntryError("the passport line is not 32 hex digits")
    size_text, _, root64 = values["checkpoint"].partition(" ")
    count_text, _, digest = values["events"].partition(" ")
    for key, number in (("checkpoint", size_text), ("session", values["session"]),
                        ("events", count_text)):  # fmt: skip
        if not _NUMBER.fullmatch(number):
            raise EntryError(f"the {key} line's number is not a decimal number")
    try:
        root = base64.b64decode(root64, validate=True)
    except (ValueError, binascii.Error):
        raise EntryError("the checkpoint line's root is not base64") from None
    if len(root) != 32:
        raise EntryError("the checkpoint line's root is not 32 bytes")
    for key, value in (("events", digest), ("state", values["state"]),
                       ("previous", values["previous"])):  # fmt: skip
        if not _HEX64.fullmatch(value):
            raise EntryError(f"the {key} line's hash is not 64 lower-case hex digits")
    for key in ("character", "table", "system"):
        if not values[key] or any(c.isspace() for c in values[key]):
            raise EntryError(f"the {key} line is empty or has a space")
    changed = _json("changed", values["changed"], list)
    if not all(isinstance(s, str) for s in changed):
        raise EntryError("the changed line is not a list of sentences")
    return Entry(
        passport=values["passport"],
        character=values["character"],
        name=_json("name", values["name"], str),
        table=values["table"],
        checkpoint=(int(size_text), root),
        session=int(values["session"]),
        system=values["system"],
        options=_json("options", values["options"], dict),
        events=(int(count_text), digest),
        state=values["state"],
        previous=values["previous"],
        changed=tuple(changed),
    )


def cosignature_name(vkey: str) -> str:
    """The name of a phone's cosigner key ``NAME+KEYID+BASE64`` (what a reader is shown)."""
    return vkey.split("+", 1)[0]


def verify_cosignature(vkey: str, text: str, line: str) -> int:
    """Check a player's phone's cosignature of an entry and return its time (POSIX seconds).

    The phone cosigns an entry as it cosigns a checkpoint (:mod:`ledger.trust.cosignature`):
    one note signature line ``— NAME BASE64(KEY ID ‖ TIMESTAMP ‖ SIGNATURE)`` by its
    timestamped Ed25519 cosigner key (``NAME+KEYID+BASE64(0x04 ‖ KEY)``), over
    ``cosignature/v1\\ntime T\\n`` and the entry's note text. An entry's text never parses
    as a checkpoint (its second line is not a tree size), so a cosignature of one is never
    a cosignature of the other.

    :param vkey: the phone's cosigner key.
    :param text: the entry's note text (:meth:`Entry.text`, ending in a newline).
    :param line: the signature line (with or without its final newline).
    :raises EntryError: ``text`` is not an entry, ``vkey`` or ``line`` is malformed, the
        line is by another key, or its signature does not verify over this entry.
    """
    from ledger.trust.cosignature import (
        CosignatureError,
        CosignatureVerifier,
        cosignature_message,
        parse_signature_line,
    )
    from ledger.trust.notes import Verifier

    parse(text)
    try:
        verifier = CosignatureVerifier.parse(vkey)
        name, key_id, timestamp, signature = parse_signature_line(line)
    except CosignatureError as e:
        raise EntryError(str(e)) from None
    if (name, key_id) != (verifier.name, verifier.hash):
        raise EntryError(
            f"the cosignature is by {name}+{key_id:08x}, not by {verifier.name}+{verifier.hash:08x}"
        )
    if not Verifier.verify(verifier, cosignature_message(text, timestamp), signature):
        raise EntryError(f"the cosignature by {verifier.name} is not of this entry")
    return timestamp


def cosign(text: str, cosigner: Any, timestamp: int) -> str:
    """``cosigner``'s (a :class:`ledger.trust.cosignature.Cosigner`) cosignature line of the
    entry ``text`` at ``timestamp`` (POSIX seconds), without its final newline: what a
    phone sends (tests and tools sign as a phone does)."""
    from ledger.trust.cosignature import cosignature_message
    from ledger.trust.notes import Signer

    parse(text)
    signature = Signer(cosigner.name, cosigner.seed).sign(cosignature_message(text, timestamp))
    raw = cosigner.hash.to_bytes(4, "big") + timestamp.to_bytes(8, "big") + signature
    return f"— {cosigner.name} {base64.b64encode(raw).decode()}"
