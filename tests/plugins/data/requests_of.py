"""Print ``{seq: request}`` of every roll of campaign CAMPAIGN in ledger DB as the code of
the checkout running it reads the roll back (``RuleSystem.request_of``), as JSON.

Run by the ``make-fixture.sh`` scripts beside it: ``uv run python requests_of.py DB CAMPAIGN``.
"""

from __future__ import annotations

import json
import sys

import msgspec

from ledger.campaign.aggregate import open_campaign
from ledger.events import Roll
from ledger.store.opening import open_store

db, campaign_id = sys.argv[1:]
store = open_store(db)
campaign = open_campaign(store, campaign_id)
found = {}
for record in campaign.records():
    if isinstance(record.data, Roll):
        try:
            request = campaign.system.request_of(record.data)
        except Exception as e:  # an advancement roll: made by advance, not by resolve
            found[record.seq] = {"refused": str(e)}
            continue
        opponent = request.opponent
        found[record.seq] = {
            "skill": request.skill,
            "params": msgspec.to_builtins(request.params),
            "opponent": None
            if opponent is None
            else {"character": opponent.character, "skill": opponent.skill},
        }
store.close()
print(json.dumps(found, indent=1, sort_keys=True))
