"""Property: random corrections (amend, retract) on random small campaigns never leave
replayed state different from snapshot-backed state, and a refused correction leaves the
ledger byte-identical."""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ledger.campaign.reading as campaign_module
from ledger.campaign.aggregate import Campaign
from ledger.errors import RuleError
from ledger.store.sqlite import Store

AT = "2026-03-01T19:00:00.000000Z"
CHARACTERS = ("ann", "bob")
#: The field an "amend" step sets, by event type (others get "amount": refused, unknown).
AMENDABLE = {"toy.rolled": "target", "toy.hurt": "amount", "toy.secret_noted": "value"}

op = st.one_of(
    st.tuples(st.just("hurt"), st.sampled_from(CHARACTERS), st.integers(0, 3)),
    st.tuples(st.just("luck"), st.sampled_from(CHARACTERS)),
    st.tuples(st.just("secret"), st.sampled_from(CHARACTERS), st.integers(1, 9)),
    st.tuples(st.just("scene")),
    st.tuples(st.just("roll"), st.sampled_from(CHARACTERS), st.integers(1, 6), st.integers(1, 6)),
    # corrections pick their target among the events so far (index modulo the log's length)
    st.tuples(st.just("retract"), st.integers(0, 99)),
    st.tuples(st.just("amend"), st.integers(0, 99), st.integers(-1, 12)),
    st.tuples(st.just("faces"), st.integers(0, 99), st.integers(1, 6), st.integers(1, 6)),
)


def ledger_bytes(path: Path) -> list[str]:
    """The whole database as SQL text (events, snapshots, secrets, ...): "byte-identical"."""
    conn = sqlite3.connect(path)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def apply(campaign: Campaign, step: tuple[Any, ...]) -> None:
    kind = step[0]
    if kind == "hurt":
        event = campaign.codec.convert(
            "toy.hurt", {"type": "toy.hurt", "character": step[1], "amount": step[2]}
        )
        campaign.append([event], actor="gm", at=AT)
    elif kind == "luck":
        event = campaign.codec.convert(
            "toy.luck_used", {"type": "toy.luck_used", "character": step[1]}
        )
        campaign.append([event], actor="gm", at=AT)
    elif kind == "secret":
        event = campaign.codec.convert(
            "toy.secret_noted",
            {"type": "toy.secret_noted", "character": step[1], "value": step[2]},
        )
        campaign.append([event], actor="gm", at=AT, visibility="gm")
    elif kind == "scene":
        campaign.scene("end", "", actor="gm", at=AT)
    elif kind == "roll":
        campaign.roll(step[1], "brawl" if step[1] == "ann" else "sneak", {},
                      faces=f"{step[2]},{step[3]}", actor="gm", at=AT)  # fmt: skip
    else:
        seq = 2 + step[1] % (campaign.store.head("toybox").seq - 1)  # never campaign.created
        if kind == "retract":
            campaign.correct(seq, "retract", actor="gm", at=AT)
        elif kind == "amend":
            field = AMENDABLE.get(campaign.record(seq).type, "amount")
            campaign.correct(seq, "amend", data={field: step[2]}, actor="gm", at=AT)
        elif kind == "faces":
            rolls = [r.seq for r in campaign.records(types=["toy.rolled"])] or [seq]
            seq = rolls[step[1] % len(rolls)]
            campaign.correct(seq, "faces", faces=f"{step[2]},{step[3]}", actor="gm", at=AT)


@pytest.fixture
def every_two(monkeypatch):
    """Snapshots every 2 events, so small campaigns have many."""
    monkeypatch.setattr(campaign_module, "SNAPSHOT_EVERY", 2)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(op, min_size=1, max_size=25), probes=st.lists(st.integers(1, 45), max_size=4))
def test_random_corrections_keep_snapshots_and_replay_equal(toy_system, every_two, steps, probes):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ledger.db"
        store = Store(str(path))
        campaign = Campaign.create(store, "toybox", system="toy", actor="gm", at=AT)
        campaign.add_character({"name": "Ann Vance", "skills": {"brawl": 2}}, actor="gm", at=AT)
        campaign.add_character({"name": "Bob Marsh", "skills": {"sneak": 1}}, actor="gm", at=AT)
        for i, step in enumerate(steps):
            before = ledger_bytes(path)
            try:
                apply(campaign, step)
            except RuleError:
                assert ledger_bytes(path) == before, f"step {i} {step} was refused but wrote"
            # after every step: snapshot-backed state == full replay, now and in the past
            head = store.head("toybox").seq
            for upto in {head, *(p for p in probes if p <= head)}:
                for as_gm in (True, False):
                    replayed = campaign.states(upto=upto, as_gm=as_gm)
                    for cid in CHARACTERS:
                        if cid not in replayed:
                            continue
                        fresh = Campaign(store, campaign.created)  # no head cache
                        for _ in range(2):  # the second read starts from saved snapshots
                            assert fresh.state_of(cid, upto=upto, as_gm=as_gm) == replayed[cid], (
                                f"after step {i} {step}: {cid} at {upto} (gm={as_gm})"
                            )
