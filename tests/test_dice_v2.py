"""The requested-roll scheme ``ledger-roll-v2``: the roller's entropy joins the draw."""

from __future__ import annotations

import hashlib
import hmac
import json
import struct

import pytest

from ledger.dice.engine import (
    REQUESTED_SCHEME,
    DiceError,
    EngineDice,
    ReplayDice,
    predictability,
    verify_draws,
)

SEED = hashlib.sha256(b"session seed").digest()
ENTROPY = hashlib.sha256(b"dana's phone").hexdigest()


def words_by_hand(seed: bytes, message: list) -> list[int]:
    """The scheme as docs/trust.md "Engine dice nobody can predict" states it, written out
    here independently of the engine."""
    digest = hmac.new(seed, json.dumps(message, separators=(",", ":")).encode(), hashlib.sha256)
    return list(struct.unpack(">8I", digest.digest()))


def test_a_requested_roll_draws_from_the_seed_the_request_and_the_entropy():
    dice = EngineDice(SEED, "casebook", 3, 5, "", REQUESTED_SCHEME, request=41, entropy=ENTROPY)
    faces = dice.roll(4, 20)
    words = words_by_hand(SEED, [REQUESTED_SCHEME, "casebook", 3, 5, "", 41, ENTROPY, 0])
    expected = [w % 20 + 1 for w in words if w < 2**32 - 2**32 % 20][:4]
    assert faces == expected
    assert dice.fields()["scheme"] == REQUESTED_SCHEME
    assert (dice.fields()["request"], dice.fields()["entropy"]) == (41, ENTROPY)
    draws = [list(d) for d in dice.draws]
    assert verify_draws(SEED, "casebook", 3, 5, "", draws, scheme=REQUESTED_SCHEME,
                        request=41, entropy=ENTROPY) is None  # fmt: skip


def test_other_entropy_or_another_request_gives_other_dice_and_fails_verification():
    dice = EngineDice(SEED, "casebook", 3, 5, "", REQUESTED_SCHEME, request=41, entropy=ENTROPY)
    draws = [list(d) for d in (dice.roll(8, 6) and dice.draws)]
    other = hashlib.sha256(b"a ground entropy").hexdigest()
    assert verify_draws(SEED, "casebook", 3, 5, "", draws, scheme=REQUESTED_SCHEME,
                        request=41, entropy=other)  # fmt: skip
    assert verify_draws(SEED, "casebook", 3, 5, "", draws, scheme=REQUESTED_SCHEME,
                        request=42, entropy=ENTROPY)  # fmt: skip
    v1 = EngineDice(SEED, "casebook", 3, 5, "")
    assert [v1.d(6) for _ in range(8)] != [v for _, v in draws]  # not the v1 draw


@pytest.mark.parametrize("entropy", [None, "", "ab" * 31, "AB" * 32, "zz" * 32, 7])
def test_entropy_must_be_32_bytes_in_lower_case_hex(entropy):
    with pytest.raises(DiceError, match="64 lower-case hex digits"):
        EngineDice(SEED, "c", 1, 0, "", REQUESTED_SCHEME, request=1, entropy=entropy).d(6)
    assert "64 lower-case hex digits" in (
        verify_draws(SEED, "c", 1, 0, "", [[6, 1]], scheme=REQUESTED_SCHEME, request=1,
                     entropy=entropy) or ""  # fmt: skip
    )


def test_replay_gives_back_the_request_and_entropy_fields():
    class Rolled:
        source, draws, nonce, client_seed = "engine", [(6, 3)], 5, ""
        scheme, request, entropy = REQUESTED_SCHEME, 41, ENTROPY

    replay = ReplayDice(Rolled())
    replay.d(6)
    assert replay.fields()["request"] == 41 and replay.fields()["entropy"] == ENTROPY


@pytest.mark.parametrize(
    "roll,code",
    [
        ({"source": "physical"}, "physical"),
        ({"source": "engine", "client_seed": ""}, "gm-seed"),
        ({"source": "engine", "client_seed": None, "scheme": "ledger-downtime-v1"}, "gm-seed"),
        ({"source": "engine", "client_seed": "catherine"}, "client-seed"),
        ({"source": "engine", "client_seed": "blind:ab12"}, "gm-secret"),
        ({"source": "engine", "client_seed": "", "scheme": REQUESTED_SCHEME}, "roller-entropy"),
    ],
)
def test_who_could_have_predicted_a_roll(roll, code):
    assert predictability(roll) == code


def test_a_log_with_requested_rolls_verifies_and_a_swapped_entropy_is_caught(toy_campaign, db_path):
    import msgspec

    from ledger.campaign import sessions
    from ledger.campaign.aggregate import open_campaign
    from ledger.history.verify import verify_store
    from ledger.rules.roll_inputs import RollRequest
    from ledger.store.sqlite import Store

    invoke = toy_campaign
    assert invoke("session", "start").exit_code == 0
    store = Store(db_path)
    campaign = open_campaign(store)

    def requested_roll(entropy: str, recorded: str | None = None) -> int:
        """A roll drawn with ``entropy`` and stored as drawn with ``recorded``; ``None``: the
        first entropy the GM might wish for whose dice differ from those drawn (the toy's few
        faces may come up again under another entropy, and then nothing is forged)."""
        with store.transaction():
            number = campaign.current_session()
            assert number is not None
            seed = sessions.session_seed(campaign, number)
            nonce = store.engine_rolls(campaign.id, number)
            request = campaign.request_roll(
                "ann", "brawl", {}, actor="gm", at="2026-03-01T19:04:00.000000Z"
            ).seq
            dice = EngineDice(seed, campaign.id, number, nonce, "", REQUESTED_SCHEME,
                              request=request, entropy=entropy)  # fmt: skip
            state = campaign.state_of("ann")
            event = campaign.system.resolve(state, RollRequest("ann", "Ann Vance", "brawl", {}), dice)
            if recorded is None:
                draws = [list(d) for d in dice.draws]
                wishes = (hashlib.sha256(b"wish %d" % n).hexdigest() for n in range(100))
                recorded = next(
                    wish
                    for wish in wishes
                    if verify_draws(seed, campaign.id, number, nonce, "", draws,
                                    scheme=REQUESTED_SCHEME, request=request, entropy=wish)  # fmt: skip
                )
            event = msgspec.structs.replace(event, entropy=recorded)
            return campaign.append([event], actor="dana", at="2026-03-01T19:05:00.000000Z")[0].seq

    requested_roll(ENTROPY, ENTROPY)
    assert invoke("session", "end").exit_code == 0
    report = verify_store(store, campaign.id)
    assert report.ok and report.engine_rolls == 1, report.problem
    assert invoke("session", "start").exit_code == 0
    forged = requested_roll(ENTROPY)
    assert invoke("session", "end").exit_code == 0
    report = verify_store(store, campaign.id)
    assert not report.ok and report.bad_seq == forged
    assert "the seed gives" in report.problem


def test_audit_says_who_could_have_known_each_roll(toy_campaign, db_path):
    import json

    invoke = toy_campaign
    assert invoke("session", "start").exit_code == 0
    engine = json.loads(invoke("roll", "ann", "brawl", "--json").output)
    typed = json.loads(invoke("roll", "ann", "brawl", "--client-seed", "dana", "--json").output)
    physical = json.loads(invoke("roll", "ann", "brawl", "--dice", "3,4", "--json").output)
    said = {}
    for roll in (engine, typed, physical):
        out = json.loads(invoke("audit", str(roll["seq"]), "--json").output)
        said[roll["seq"]] = out["predictable"]["by"]
    assert said == {engine["seq"]: "gm-seed", typed["seq"]: "client-seed", physical["seq"]: "physical"}
    text = invoke("audit", str(engine["seq"])).output
    assert "the GM could have known it in advance" in text
