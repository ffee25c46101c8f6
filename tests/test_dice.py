import hashlib
import hmac
import json
import struct

import pytest

from ledger.dice.engine import (
    DiceError,
    EngineDice,
    PhysicalDice,
    commitment,
    engine_words,
    face_from_words,
    parse_faces,
    verify_draws,
)

SEED = bytes(range(32))


def spec_words(seed, campaign, session, nonce, client_seed, blocks=2):
    """The scheme ``ledger-roll-v1`` as docs/events.md "Engine dice schemes" states it, written
    out independently of ledger.dice."""
    words = []
    for block in range(blocks):
        msg = json.dumps(
            ["ledger-roll-v1", campaign, session, nonce, client_seed, block], separators=(",", ":")
        ).encode()
        words += struct.unpack(">8I", hmac.new(seed, msg, hashlib.sha256).digest())
    return words


def test_engine_words_follow_the_design_spec():
    words = engine_words(SEED, "casebook", 3, 7, "lucky")
    assert [next(words) for _ in range(16)] == spec_words(SEED, "casebook", 3, 7, "lucky")


def test_known_seed_gives_known_faces():
    expected = [w % 6 + 1 for w in spec_words(SEED, "c", 1, 0, "")[:4] if w < 2**32 - (2**32 % 6)]
    dice = EngineDice(SEED, "c", 1, 0)
    assert dice.roll(len(expected), 6) == expected
    assert dice.fields() == {
        "source": "engine",
        "draws": [(6, v) for v in expected],
        "nonce": 0,
        "client_seed": "",
    }


def test_client_seed_and_nonce_change_the_dice():
    a = EngineDice(SEED, "c", 1, 0).roll(8, 20)
    assert EngineDice(SEED, "c", 1, 0).roll(8, 20) == a
    assert EngineDice(SEED, "c", 1, 1).roll(8, 20) != a
    assert EngineDice(SEED, "c", 1, 0, "x").roll(8, 20) != a


def test_rejection_sampling_drops_biased_words():
    limit = 2**32 - (2**32 % 6)
    assert face_from_words(iter([limit, 2**32 - 1, 5]), 6) == 6
    assert face_from_words(iter([limit - 1]), 6) == (limit - 1) % 6 + 1


def test_fudge_maps_three_faces():
    dice = PhysicalDice(["-", "0", "+", "+"])
    assert dice.fudge(4) == [-1, 0, 1, 1]
    assert dice.draws == [(3, 1), (3, 2), (3, 3), (3, 3)]


@pytest.mark.parametrize(
    "text,tokens",
    [
        ("++-0", ["+", "+", "-", "0"]),
        ("+,+,-,0", ["+", "+", "-", "0"]),
        ("++-0 0000", ["+", "+", "-", "0", "0", "0", "0", "0"]),
        ("-1,+1", ["-1", "+1"]),
        ("3 5", ["3", "5"]),
        ("12", ["12"]),
        ("3,5, 6", ["3", "5", "6"]),
    ],
)
def test_parse_faces(text, tokens):
    assert parse_faces(text) == tokens


@pytest.mark.parametrize(
    "faces,sides,message",
    [
        (["7"], 6, "cannot show 7"),
        (["0"], 6, "cannot show 0"),
        (["x"], 6, "enter a number"),
        ([], 6, "the dice gave 0 faces, too few"),
    ],
)
def test_physical_entry_refuses_impossible_faces(faces, sides, message):
    with pytest.raises(DiceError, match=message):
        PhysicalDice(faces).d(sides)


def test_physical_entry_refuses_leftover_faces():
    dice = PhysicalDice(["1", "2", "3"])
    dice.roll(2, 6)
    with pytest.raises(DiceError, match="gave 3 faces but the roll uses 2"):
        dice.finish()


def test_physical_fudge_refuses_numbers():
    with pytest.raises(DiceError, match="Fudge die"):
        PhysicalDice(["5"]).fudge(1)


def test_verify_draws_names_the_first_wrong_die():
    dice = EngineDice(SEED, "c", 2, 4, "p")
    faces = dice.roll(3, 10)
    draws = [[10, f] for f in faces]
    assert verify_draws(SEED, "c", 2, 4, "p", draws) is None
    draws[1] = [10, faces[1] % 10 + 1]
    assert "die 2 (d10)" in verify_draws(SEED, "c", 2, 4, "p", draws)


def test_commitment_is_sha256_of_seed():
    assert commitment(SEED) == hashlib.sha256(SEED).hexdigest()


def test_dice_needed_counts_every_die_a_roll_asks_for():
    from ledger.dice.engine import dice_needed

    def roll(dice):
        dice.fudge(4)
        dice.roll(1, 6)
        return None

    assert dice_needed(roll, ["+", "-"]) == "4 dF then 1 d6"
    assert dice_needed(roll, ["+", "-", "0", "0", "3"]) is None  # nothing was missing

    def refuses(dice):
        dice.roll(2, 20)
        raise ValueError("the rules refuse the padded faces")

    assert dice_needed(refuses, ["3"]) is None

    def forever(dice):
        while True:
            dice.d(6)

    assert dice_needed(forever, []) is None  # stops at 1,000 dice
