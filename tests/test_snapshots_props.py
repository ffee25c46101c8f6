"""Property (issue 14, "Done when"): whatever the events, corrections, snapshot interval and
order of reads, a state read from snapshots equals the state a full replay gives."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.campaign.aggregate import Campaign
from ledger.events import SceneEnded
from ledger.store.sqlite import Store
from tests.toy import Hurt, LuckUsed, Secret

AT = "2026-03-01T19:00:00.000000Z"
CHARS = ("ann", "bob")

step = st.one_of(
    st.tuples(st.just("hurt"), st.sampled_from(CHARS), st.integers(0, 3)),
    st.tuples(st.just("secret"), st.sampled_from(CHARS), st.integers(-2, 2)),
    st.tuples(st.just("luck"), st.sampled_from(CHARS), st.just(0)),
    st.tuples(st.just("scene"), st.just(""), st.just(0)),
    st.tuples(st.just("roll"), st.sampled_from(CHARS), st.integers(1, 6)),
    # corrections of a hurt or a secret never make a later event impossible
    st.tuples(st.just("retract"), st.just(""), st.integers(0, 10**6)),
    st.tuples(st.just("amend"), st.just(""), st.integers(0, 10**6)),
    # a read: builds snapshots under the view and seq it asks for
    st.tuples(st.just("read"), st.sampled_from(CHARS), st.integers(0, 10**6)),
)


def new_campaign(path: str) -> Campaign:
    camp = Campaign.create(Store(path), "props", system="toy", actor="gm", at=AT)
    for cid, skills in (("ann", {"brawl": 2}), ("bob", {"sneak": 1})):
        camp.add_character({"name": cid.title(), "id": cid, "skills": skills}, actor="gm", at=AT)
    return camp


@pytest.mark.usefixtures("toy_system")
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(step, max_size=60), every=st.integers(1, 6))
def test_snapshot_backed_state_equals_a_full_replay(steps, every, monkeypatch):
    from ledger import RuleError

    monkeypatch.setattr("ledger.campaign.reading.SNAPSHOT_EVERY", every)
    with tempfile.TemporaryDirectory() as tmp:
        camp = new_campaign(str(Path(tmp) / "p.db"))
        correctable: list[tuple[int, str]] = []
        for kind, who, value in steps:
            head = camp.store.head(camp.id).seq
            try:
                if kind == "hurt":
                    rec = camp.append([Hurt(character=who, amount=value)], actor="gm", at=AT)[0]
                    correctable.append((rec.seq, "amount"))
                elif kind == "secret":
                    rec = camp.append(
                        [Secret(character=who, value=value)], actor="gm", at=AT, visibility="gm"
                    )[0]
                    correctable.append((rec.seq, "value"))
                elif kind == "luck":
                    camp.append([LuckUsed(character=who)], actor="gm", at=AT)
                elif kind == "scene":
                    camp.append([SceneEnded(title="")], actor="gm", at=AT)
                elif kind == "roll":
                    skill = "brawl" if who == "ann" else "sneak"
                    camp.roll(who, skill, {}, faces=f"{value},{7 - value}", actor="gm", at=AT)
                elif kind in ("retract", "amend") and correctable:
                    seq, field = correctable.pop(value % len(correctable))
                    data = {field: value % 4} if kind == "amend" else None
                    camp.correct(seq, "props", data=data, actor="gm", at=AT)
                elif kind == "read":
                    for as_gm in (True, False):
                        try:
                            camp.state_of(who, upto=value % (head + 1), as_gm=as_gm)
                        except RuleError:  # not created yet at that seq
                            pass
            except RuleError:
                pass  # e.g. a second luck in a scene: refused, nothing written
        head = camp.store.head(camp.id).seq
        for upto in sorted({head, head // 2, head // 3, max(head - 1, 0), 4}):
            for as_gm in (True, False):
                replayed = camp.states(upto=upto, as_gm=as_gm)
                for cid in CHARS:
                    if cid in replayed:
                        assert camp.state_of(cid, upto=upto, as_gm=as_gm) == replayed[cid], (
                            cid,
                            upto,
                            as_gm,
                        )
        # and verify finds every snapshot in use equal to a replay
        from ledger.rules.snapshots import snapshot_problems

        assert snapshot_problems(camp) == []
