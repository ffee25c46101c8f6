"""ledger.trust.cosignature against published cosignatures (C2SP tlog-cosignature v1).

Vectors:
- transparency-dev/witness README.md (commit 54dbcdd14f829a301b24b59f7c547c7dceebafa8,
  "An example witnessed checkpoint"), the same note in transparency-dev/distributor
  README.md: the Pixel binary transparency log's checkpoint 611 cosigned by two Armored
  Witnesses on 2025-02-05. Their keys are published in transparency-dev/distributor
  config/witnesses-prod.yaml (commit c3e02e9fe42a99af5f6204260e9b7fe48bd1fa29) in the
  signed-note form (type 0x01); the cosignature key ID uses type 0x04 over the same key.
- C2SP tlog-cosignature.md: the example line (key ID, timestamp) and its signed message.
- Our own lines checked with the ``cryptography`` Ed25519 primitive over message bytes
  built by hand from the spec, not by the module.
"""

from __future__ import annotations

import base64
import hashlib

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from ledger.trust.cosignature import (
    CosignatureError,
    CosignatureVerifier,
    Cosigner,
    add_cosignatures,
    cosignature_key_id,
    cosignature_message,
    parse_signature_line,
    sign_cosignature,
    verify_cosignature,
)
from ledger.trust.notes import Checkpoint, NoteError, Signer, Verifier, open_note, sign

PIXEL_BODY = (
    "developers.google.com/android/binary_transparency/0\n"
    "611\n"
    "2GZ1zmS5VkfUZmn2ZyR4KZXwHLD+xnwBIWzql/cD50w=\n"
)
PIXEL_LOG_SIG = (
    "— pixel_transparency_log csh42zBFAiAd3Y1FwqNTt5RglY0uG7heC6Yu1gEbXXPYmZ7LdOILMAIhAIt68PnR"
    "/3TADAaC7hvrSHbpziV7TmpIwOUydLmcjyTQ\n"
)
BREEZE_LINE = (
    "— ArmoredWitness-small-breeze nRq5UQAAAABnoqrsRIofXn68vTohcAm2KG4ACGyRPNePUk02BSWD0WKV5El"
    "ejTk5Z+Tm3GmJ5j/etA+fkL9XuaQsnTyZbr437sF4AQ==\n"
)
AUTUMN_LINE = (
    "— ArmoredWitness-autumn-wood qZb5XQAAAABnoqrl57G9CblEl3lwwuqzbaJvVMqNiZCbYZseYT1YZHYmls3C"
    "mT1wxZ1fNgM4RxHuUxjAwcI2ghTx6R5aCg+L0DGPBA==\n"
)
PIXEL_NOTE = PIXEL_BODY + "\n" + PIXEL_LOG_SIG + BREEZE_LINE + AUTUMN_LINE
BREEZE_NOTE_KEY = (
    "ArmoredWitness-small-breeze+7b3ada3a+AQAWYpUjfGGPQiWOgt6sLWap0P9rVOe+Ofu2uNZbO4FD"
)
AUTUMN_NOTE_KEY = "ArmoredWitness-autumn-wood+863571a5+AesIVCbad7gbU07JnA6YfZD0qg4B1c8xF4ISdnt9vjip"
BREEZE_TIME = 1738713836  # 2025-02-05T00:03:56Z, as the distributor README shows
AUTUMN_TIME = 1738713829  # 2025-02-05T00:03:49Z

SPEC_BODY = "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n"
SPEC_LINE = (
    "— witness.example.com/w1 jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJs"
    "X3b2oyin1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==\n"
)


def _cosigner_of(note_key: str) -> CosignatureVerifier:
    """The cosignature verifier of a published signed-note key (its hash checked first)."""
    note_verifier = Verifier.parse(note_key)
    return CosignatureVerifier(note_verifier.name, note_verifier.public_key)


def test_the_published_armored_witness_cosignatures_verify():
    breeze, autumn = _cosigner_of(BREEZE_NOTE_KEY), _cosigner_of(AUTUMN_NOTE_KEY)
    assert breeze.hash == 0x9D1AB951 and autumn.hash == 0xA996F95D  # the lines' key IDs
    assert verify_cosignature(breeze, PIXEL_NOTE, BREEZE_LINE) == BREEZE_TIME
    assert verify_cosignature(autumn, PIXEL_BODY, AUTUMN_LINE) == AUTUMN_TIME
    # the 0x04 verifier key round-trips through its text form
    assert verify_cosignature(breeze.key(), PIXEL_NOTE, BREEZE_LINE) == BREEZE_TIME
    assert CosignatureVerifier.parse(breeze.key()).key() == breeze.key()
    assert breeze.key().startswith("ArmoredWitness-small-breeze+9d1ab951+BA")


def test_open_note_checks_the_published_cosignatures_beside_an_unknown_log_signature():
    breeze, autumn = _cosigner_of(BREEZE_NOTE_KEY), _cosigner_of(AUTUMN_NOTE_KEY)
    note = open_note(PIXEL_NOTE, [breeze, autumn])
    assert [s.name for s in note.sigs] == [
        "ArmoredWitness-small-breeze",
        "ArmoredWitness-autumn-wood",
    ]
    assert [s.name for s in note.unverified] == ["pixel_transparency_log"]  # ECDSA: not ours
    forged = PIXEL_NOTE.replace("\n611\n", "\n612\n")
    with pytest.raises(NoteError, match="invalid signature"):
        open_note(forged, [breeze])


def test_each_change_to_the_published_note_breaks_its_cosignature():
    breeze = _cosigner_of(BREEZE_NOTE_KEY)
    raw = bytearray(base64.b64decode(BREEZE_LINE.split()[2]))
    raw[11] ^= 1  # the timestamp's last byte: the signed "time" line changes
    retimed = f"— ArmoredWitness-small-breeze {base64.b64encode(bytes(raw)).decode()}\n"
    for body, line in (
        (PIXEL_BODY.replace("611", "610"), BREEZE_LINE),
        (PIXEL_BODY.replace("2GZ1", "2GZ2"), BREEZE_LINE),
        (PIXEL_BODY.replace("/0\n", "/1\n"), BREEZE_LINE),
        (PIXEL_BODY + "an extension line\n", BREEZE_LINE),  # extension lines are signed too
        (PIXEL_BODY, retimed),
    ):
        with pytest.raises(CosignatureError, match="invalid cosignature"):
            verify_cosignature(breeze, body, line)
    with pytest.raises(CosignatureError, match="not by ArmoredWitness-autumn-wood"):
        verify_cosignature(_cosigner_of(AUTUMN_NOTE_KEY), PIXEL_BODY, BREEZE_LINE)


def test_the_spec_example_line_and_message():
    name, key_id, timestamp, signature = parse_signature_line(SPEC_LINE)
    assert (name, key_id, timestamp, len(signature)) == (
        "witness.example.com/w1",
        0x8D66CF3F,
        1679315147,
        64,
    )
    assert cosignature_message(SPEC_BODY, timestamp) == (
        b"cosignature/v1\ntime 1679315147\n"
        b"example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n"
    )


def test_our_cosignature_checks_with_the_bare_ed25519_primitive():
    cosigner = Cosigner(name="club.example/witness", seed=bytes(range(32)))
    public = cosigner.verifier.public_key
    line = sign_cosignature(cosigner, SPEC_BODY, 1700000000)
    assert line.startswith("— club.example/witness ") and line.endswith("\n")
    raw = base64.b64decode(line.split()[2], validate=True)
    assert len(raw) == 76
    key_id = hashlib.sha256(b"club.example/witness\n\x04" + public).digest()[:4]
    assert raw[:4] == key_id and raw[4:12] == (1700000000).to_bytes(8, "big")
    message = b"cosignature/v1\ntime 1700000000\n" + SPEC_BODY.encode()
    Ed25519PublicKey.from_public_bytes(public).verify(raw[12:], message)  # raises if wrong
    # Ed25519 is deterministic: the same key, time and body give the same line
    assert sign_cosignature(cosigner, SPEC_BODY, 1700000000) == line
    assert verify_cosignature(cosigner.verifier.key(), SPEC_BODY, line) == 1700000000


def test_a_cosigned_checkpoint_of_ours_opens_with_the_log_key_and_the_cosigner_key():
    log = Signer.generate("ledger.example/campaign/alpha")
    checkpoint = Checkpoint("ledger.example/campaign/alpha", 42, bytes(range(32)))
    note = sign(checkpoint.text(), log)
    phone = Cosigner.generate("phone.example/ana")
    line = phone.cosign(note, 1_800_000_000)
    cosigned = add_cosignatures(note, line, line)  # a repeat is added once
    assert cosigned == note + line
    opened = open_note(cosigned, [log.verifier, phone.verifier])
    assert [s.name for s in opened.sigs] == [log.name, phone.name]
    assert verify_cosignature(phone.verifier, checkpoint, line) == 1_800_000_000


def test_key_ids_keep_the_two_signature_types_apart():
    cosigner = Cosigner.generate("same-name")
    note_key = Verifier("same-name", cosigner.verifier.public_key)
    assert cosigner.hash == cosignature_key_id("same-name", note_key.public_key) != note_key.hash
    with pytest.raises(NoteError, match="unknown verifier algorithm"):
        Verifier.parse(cosigner.verifier.key())  # a 0x04 key is no note key
    with pytest.raises(CosignatureError, match="signature type is not 0x04"):
        CosignatureVerifier.parse(note_key.key())  # a 0x01 key is no cosigner key
    # a log's own note signature is not a cosignature (no timestamp; other key ID)
    note = sign(SPEC_BODY, Signer("same-name", cosigner.seed))
    log_line = note.split("\n\n", 1)[1]
    with pytest.raises(CosignatureError):
        verify_cosignature(cosigner.verifier, note, log_line)


def test_secret_keys_round_trip_and_mangled_keys_are_refused():
    cosigner = Cosigner.generate("club.example/witness")
    assert Cosigner.parse(cosigner.key()).verifier.key() == cosigner.verifier.key()
    vkey = cosigner.verifier.key()
    b = vkey.encode()
    for i in range(len(b)):
        mangled = b[:i] + bytes([b[i] + 1]) + b[i + 1 :]
        with pytest.raises(NoteError):
            CosignatureVerifier.parse(mangled.decode("latin-1"))
    for bad in ("", "name", "name+0000000+BA==", vkey + "A", vkey.replace("+", " ", 1)):
        with pytest.raises(CosignatureError):
            CosignatureVerifier.parse(bad)
    skey = cosigner.key()
    for bad in (skey.replace("PRIVATE", "PUBLIC"), skey[:-4] + "AAA=", skey.replace("+", "-", 2)):
        with pytest.raises(CosignatureError):
            Cosigner.parse(bad)
    for name in ("", "a b", "a+b"):
        with pytest.raises(CosignatureError):
            Cosigner(name, bytes(32))


@pytest.mark.parametrize(
    "line",
    [
        "",
        "— \n",
        "- witness AAAA\n",  # a hyphen, not an em dash
        "— witness\n",
        "— witness not-base64!\n",
        "— witness " + base64.b64encode(bytes(75)).decode() + "\n",  # one byte short
        "— witness " + base64.b64encode(bytes(77)).decode() + "\n",
        "— wit ness " + base64.b64encode(bytes(76)).decode() + "\n",
        "— witness " + base64.b64encode(bytes(76)).decode() + "\n— witness AAAA\n",
        "— witness " + base64.b64encode(bytes(4) + b"\xff" * 8 + bytes(64)).decode(),  # > 2^63-1
    ],
)
def test_malformed_cosignature_lines_are_refused(line):
    with pytest.raises(CosignatureError, match="malformed"):
        parse_signature_line(line)


def test_what_is_cosigned_must_be_a_checkpoint_and_times_in_range():
    cosigner = Cosigner.generate("w")
    for body in (
        "not a checkpoint\n",
        "origin\n01\n" + base64.b64encode(bytes(32)).decode() + "\n",
        b"\xff\n",
    ):
        with pytest.raises(CosignatureError, match="malformed checkpoint"):
            cosigner.cosign(body, 1)
    for timestamp in (-1, 2**63):
        with pytest.raises(CosignatureError, match="out of range"):
            cosigner.cosign(SPEC_BODY, timestamp)
    line = cosigner.cosign(SPEC_BODY, 2**63 - 1)  # the largest time the spec allows
    assert verify_cosignature(cosigner.verifier, SPEC_BODY, line) == 2**63 - 1
    with pytest.raises(CosignatureError, match="in the future"):
        verify_cosignature(cosigner.verifier, SPEC_BODY, line, not_after=1_800_000_000)
    with pytest.raises(CosignatureError, match="no signatures"):
        add_cosignatures(SPEC_BODY, line)
