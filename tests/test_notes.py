"""ledger.trust.notes against the Go reference's published note vectors.

From golang.org/x/mod/sumdb/note's tests (note_test.go): the "PeterNeumann" and "EnochRoot"
keys, the note they sign, and the mangled keys and messages the reference refuses.
Ed25519 signatures are deterministic, so signing the same text with the same key must give
the reference's signature line byte for byte.
"""

from __future__ import annotations

import base64

import pytest

from ledger.trust.merkle import leaf_hash, root
from ledger.trust.notes import (
    Checkpoint,
    NoteError,
    Signature,
    Signer,
    UnverifiedNote,
    Verifier,
    open_note,
    sign,
)

PETER_VKEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
PETER_SKEY = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
ENOCH_VKEY = "EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop"
TEXT = (
    "If you think cryptography is the answer to your problem,\n"
    "then you don't know what your problem is.\n"
)
PETER_SIG = (
    "— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdng"
    "otpRZb6KE6RyyBwJnAM=\n"
)
ENOCH_SIG = (
    "— EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox"
    "33WWd1RvMc+QQ=\n"
)


def test_the_reference_keys_parse_and_round_trip():
    peter = Verifier.parse(PETER_VKEY)
    assert (peter.name, peter.hash) == ("PeterNeumann", 0xC74F20A3)
    assert peter.key() == PETER_VKEY
    signer = Signer.parse(PETER_SKEY)
    assert signer.key() == PETER_SKEY and signer.verifier.key() == PETER_VKEY


def test_every_mangled_form_of_the_reference_key_is_refused():
    """As the reference's TestNewVerifier: every proper substring, and every byte + 1."""
    b = PETER_VKEY.encode()
    bad = {b[i:j] for i in range(len(b) + 1) for j in range(i + 1, len(b) + 1)} - {b}
    bad |= {b[:i] + bytes([b[i] + 1]) + b[i + 1:] for i in range(len(b))}
    for key in bad:
        with pytest.raises(NoteError):
            Verifier.parse(key.decode("latin-1"))
    for key in (  # wrong key length / unknown algorithm, each with an adjusted key hash
        "PeterNeumann+cc469956+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY==",
        "PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
    ):
        with pytest.raises(NoteError):
            Verifier.parse(key)


def test_every_mangled_form_of_the_reference_signer_key_is_refused():
    b = PETER_SKEY.encode()
    bad = {b[i:j] for i in range(len(b) + 1) for j in range(i + 1, len(b) + 1)} - {b}
    bad |= {b[:i] + bytes([b[i] + 1]) + b[i + 1:] for i in range(len(b))}
    for key in bad:
        with pytest.raises(NoteError):
            Signer.parse(key.decode("latin-1"))


def test_signing_gives_the_reference_signature_byte_for_byte():
    signer = Signer.parse(PETER_SKEY)
    assert sign(TEXT, signer) == TEXT + "\n" + PETER_SIG
    # an existing signature by the same key is replaced, not repeated
    old = Signature("PeterNeumann", 0xC74F20A3, "BADSIGN=")
    assert sign(TEXT, signer, sigs=[old]) == TEXT + "\n" + PETER_SIG
    with pytest.raises(NoteError, match="malformed note"):
        sign("abc", signer)
    with pytest.raises(NoteError, match="malformed note"):
        sign(TEXT, sigs=[Signature("a+b", 0, "ABCD")])
    with pytest.raises(NoteError, match="malformed note"):
        sign(TEXT, sigs=[Signature("PeterNeumann", 0xC74F20A3, "BADHASH=")])


def test_opening_the_reference_note():
    peter, enoch = Verifier.parse(PETER_VKEY), Verifier.parse(ENOCH_VKEY)
    note = open_note(TEXT + "\n" + PETER_SIG + ENOCH_SIG, [peter])
    assert note.text == TEXT
    assert [s.name for s in note.sigs] == ["PeterNeumann"]
    assert [s.name for s in note.unverified] == ["EnochRoot"]
    both = open_note(TEXT + "\n" + PETER_SIG + ENOCH_SIG, [peter, enoch])
    assert [s.name for s in both.sigs] == ["PeterNeumann", "EnochRoot"] and not both.unverified
    with pytest.raises(UnverifiedNote) as caught:
        open_note(TEXT + "\n" + PETER_SIG + ENOCH_SIG, [])
    assert str(caught.value) == "note has no verifiable signatures"
    assert len(caught.value.note.unverified) == 2
    open_note(TEXT + "\n" + PETER_SIG, [enoch, peter, enoch])  # an unused repeated key is fine


def test_the_reference_refusals():
    peter = Verifier.parse(PETER_VKEY)
    with pytest.raises(NoteError, match="malformed note"):
        open_note(TEXT + "\n" + PETER_SIG * 101, [peter])
    with pytest.raises(NoteError, match="invalid signature for key PeterNeumann\\+c74f20a3"):
        open_note(TEXT + "\n" + PETER_SIG[:60] + "ABCD" + PETER_SIG[60:], [peter])
    bad_messages = [
        TEXT,
        TEXT + "\n",
        TEXT + "\n" + PETER_SIG[:-1],
        "\x01" + TEXT + "\n" + PETER_SIG,
        b"\xff" + (TEXT + "\n" + PETER_SIG).encode(),
        TEXT + "\n" + "— Bad Name " + PETER_SIG.split(" ")[2],
        TEXT + "\n" + PETER_SIG + "Unexpected line.\n",
    ]
    for message in bad_messages:
        with pytest.raises(NoteError, match="malformed note"):
            open_note(message, [peter])


def test_a_generated_key_signs_and_a_changed_byte_fails():
    signer = Signer.generate("campaign.example/casebook")
    note = sign("hello\n", signer)
    assert open_note(note, [Verifier.parse(signer.verifier.key())]).text == "hello\n"
    forged = note.replace("hello", "hellp")
    with pytest.raises(NoteError, match="invalid signature"):
        open_note(forged, [signer.verifier])


def test_a_checkpoint_note_round_trips():
    leaves = [leaf_hash(bytes([i]) * 32) for i in range(5)]
    cp = Checkpoint("ledger.example/casebook", 5, root(leaves))
    text = cp.text()
    assert text == f"ledger.example/casebook\n5\n{base64.b64encode(root(leaves)).decode()}\n"
    assert Checkpoint.parse(text) == cp
    signer = Signer.generate("ledger.example/casebook")
    opened = open_note(sign(text, signer), [signer.verifier])
    assert Checkpoint.parse(opened.text) == cp
    for bad in ("a\n05\n" + text.split("\n")[2] + "\n", "a\n-1\nAAAA\n", "a\n1\nAAAA\n", "a\n1\n", "\n1\n" + text.split("\n")[2] + "\n"):
        with pytest.raises(NoteError):
            Checkpoint.parse(bad)
