"""docs/api.md's recipes (#29) make the calls they show, and get what they expect.

The Foundry VTT dice-fulfillment handler: `GET /requests`, `POST /answer/{seq}` with the
browser's entropy, then the answered roll's `data.draws` from `GET /export.ndjson` (each
line parsed as JSON, found by `seq`). The Owlbear Rodeo extension: `GET /characters`
(`mine`), `POST /roll` with the faces, `201 {seq, text}`; a refusal as problem details.
"""

from __future__ import annotations

import json

import pytest
from starlette.testclient import TestClient

from ledger.web.app import Server

from .webtools import d20_table

API = "/api/v1"
ENTROPY = "ab" * 32


@pytest.fixture
def table(tmp_path):
    return d20_table(str(tmp_path / "vault.db"))


def token(t, who: str, *args: str) -> str:
    return str(json.loads(t.ok("access", "add", who, "--api", *args, "--json"))["token"])


def test_foundry_fulfillment_recipe(table):
    table.ok("request", "isa", "Lockpicking", "--time")
    dana = {"Authorization": f"Bearer {token(table, 'Dana', '--scope', 'roll')}",
            "Content-Type": "application/json"}  # fmt: skip
    with TestClient(Server(table.db).app, base_url="http://testserver") as c:
        waiting = c.get(API + "/requests", headers=dana).json()
        assert len(waiting) == 1
        r = c.post(f"{API}/answer/{waiting[0]['seq']}", headers=dana,
                   content=json.dumps({"entropy": ENTROPY}))  # fmt: skip
        assert r.status_code == 201, r.text
        answer = r.json()
        assert set(answer) == {"seq", "text"}
        lines = c.get(API + "/export.ndjson", headers=dana).text.strip().split("\n")
    event = next(e for e in map(json.loads, lines) if e.get("seq") == answer["seq"])
    draws = event["data"]["draws"]
    assert draws and all(len(d) == 2 and 1 <= d[1] <= d[0] for d in draws)
    assert [d[0] for d in draws] == [20] * len(draws)  # d20-world rolls d20s


def test_owlbear_extension_recipe(table):
    dana = {"Authorization": f"Bearer {token(table, 'Dana', '--scope', 'roll')}",
            "Content-Type": "application/json"}  # fmt: skip
    with TestClient(Server(table.db).app, base_url="http://testserver") as c:
        mine = [ch for ch in c.get(API + "/characters", headers=dana).json() if ch["mine"]]
        assert [ch["id"] for ch in mine] == ["isa"]
        body = {"character": "isa", "skill": "Lockpicking", "dice": "15", "params": {"time": "yes"}}
        r = c.post(API + "/roll", headers=dana, content=json.dumps(body))
        assert r.status_code == 201, r.text
        assert set(r.json()) == {"seq", "text"} and "15" in r.json()["text"]
        bad = c.post(API + "/roll", headers=dana, content=json.dumps({**body, "dice": "25"}))
        assert bad.status_code == 422 and bad.json()["detail"]
