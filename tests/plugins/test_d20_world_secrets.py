"""d20-world secrets over random campaigns (hypothesis): hidden conditions and favour never
reach a player's log lines or sheet, and every public check re-derives in both views.

Seed 001_a3a02f9b7363775f.txt "Bonds" (favor is The World's), "Conditions"; rulings R24 and
R33 in docs/rulings/d20-world.md. Secrets stay secret.
"""

from __future__ import annotations

import json
import tempfile
import tomllib
from pathlib import Path
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as s
from ledger_d20_world.events import (
    ConditionAdded,
    FavourChanged,
    HiddenConditionAdded,
    HiddenConditionEnded,
)

from ledger import RuleError
from ledger.campaign.aggregate import Campaign
from ledger.rules.results import result_problem
from ledger.store.sqlite import Store

AT = "2026-03-01T19:00:00.000000Z"
SHEET = Path(__file__).resolve().parents[2] / "campaigns" / "the-world" / "characters"
SECRETS = ("Qzhexed", "Qzmarked", "Qzdoomed")  # hidden condition names, never public
REASON = "Qzsecret reason"

actions = s.lists(
    s.one_of(
        s.tuples(s.just("hide"), s.sampled_from(SECRETS), s.integers(0, 4)),
        s.tuples(s.just("unhide"), s.sampled_from(SECRETS)),
        s.tuples(s.just("condition"), s.sampled_from(["panicked", "sick"]), s.integers(0, 2)),
        s.tuples(s.just("favour"), s.integers(-3, 3)),
        s.tuples(s.just("roll"), s.integers(1, 20)),
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=25, deadline=None)
@given(actions)
def test_hidden_conditions_and_favour_never_reach_a_player(steps: list[Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(str(Path(tmp) / "ledger.db"))
        campaign = Campaign.create(store, "vault", system="d20-world", actor="gm", at=AT)
        sheet = tomllib.loads((SHEET / "isa.toml").read_text())
        campaign.add_character(sheet, actor="gm", at=AT)
        campaign.start_session(actor="gm", at=AT)
        for step in steps:
            try:
                record(campaign, step)
            except RuleError:
                pass  # refused (a duplicate name, nothing to end): nothing written
        player_lines = [campaign.system.describe(r.data) or "" for r in
                        campaign.records(as_gm=False)]
        sheet_view = campaign.system.sheet_view(campaign.state_of("isa", as_gm=False),
                                                as_gm=False)
        seen = "\n".join(player_lines) + json.dumps(sheet_view)
        for secret in (*SECRETS, REASON, "favor"):
            assert secret not in seen
        gm_state = campaign.state_of("isa")
        hidden = sum(c.check_penalty for c in gm_state.conditions if c.hidden)
        public = sum(c.check_penalty for c in gm_state.conditions if not c.hidden)
        assert sheet_view["derived"]["check_penalty"] == public
        for rec in campaign.records(as_gm=False, types=["d20-world.check_rolled"]):
            for as_gm in (True, False):
                before = campaign.state_of("isa", upto=rec.seq - 1, as_gm=as_gm)
                assert result_problem(campaign.system, before, rec.data, name="Isa") is None
        if steps[-1][0] == "roll":  # the last check counted the hidden conditions as one
            last = list(campaign.records(types=["d20-world.check_rolled"]))[-1].data
            assert last.condition_penalty == public
            assert last.hidden_modifier == (hidden or msgspec.UNSET)
            assert (f"−{hidden} hidden modifier" in (campaign.system.describe(last) or "")) \
                == bool(hidden)


def record(campaign: Campaign, step: tuple[Any, ...]) -> None:
    """One random step, as the GM would record it."""
    kind = step[0]
    if kind == "hide":
        event: Any = HiddenConditionAdded(character="isa", condition=step[1],
                                          check_penalty=step[2], ends_when=REASON)
    elif kind == "unhide":
        event = HiddenConditionEnded(character="isa", condition=step[1])
    elif kind == "condition":
        event = ConditionAdded(character="isa", condition=step[1], check_penalty=step[2])
    elif kind == "favour":
        event = FavourChanged(character="isa", bond="the Guild", delta=step[1], reason=REASON)
    else:
        campaign.roll("isa", "Lockpicking", {"time": True}, faces=str(step[1]), actor="gm",
                      at=AT)
        return
    campaign.append([event], actor="gm", at=AT)
