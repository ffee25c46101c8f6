"""docs/api.md's recipes make the calls they show, and get what they expect.

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


def receiver_recipe(secret: str, monkeypatch) -> dict:
    """docs/api.md's webhook receiver (the Python block that imports standardwebhooks),
    run as written with ``LEDGER_WEBHOOK_SECRET`` set to ``secret``."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "api.md").read_text()
    [code] = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "standardwebhooks" in b]
    monkeypatch.setenv("LEDGER_WEBHOOK_SECRET", secret)
    space: dict = {}
    exec(compile(code, "docs/api.md", "exec"), space)  # noqa: S102
    return space


def test_webhook_receiver_recipe(table, monkeypatch):
    """The recipe takes each delivery the ledger signs once, answers a retry 200 without
    handling it again, refuses a forged or altered one 401; during a rotation a receiver
    holding either secret takes the deliveries."""
    from ledger.exchange import webhooks as wh
    from ledger.store.opening import open_store

    made = json.loads(table.ok("webhook", "add", "https://bot.example/ledger", "--channel",
                               "public", "--json"))  # fmt: skip
    posted: list[tuple[dict[str, str], bytes]] = []

    def capture(url: str, payload: bytes, head: dict[str, str]) -> wh.Posted:
        posted.append((head, payload))
        return 204, ""

    def deliver() -> None:
        store = open_store(table.db)
        try:
            wh.Deliverer(post=capture).run_once(store, "vault")
        finally:
            store.close()

    table.ok("note", "The lamp gutters")
    deliver()
    recipe = receiver_recipe(made["secret"], monkeypatch)
    [(head, body)] = posted
    status, entry = recipe["receive"](head, body)
    assert status == 200 and entry["text"].endswith("Note: The lamp gutters")
    assert recipe["receive"](head, body) == (200, None)  # the retry: handled once
    altered = body.replace(b"gutters", b"goes out")
    assert recipe["receive"](head, altered) == (401, None)
    forged = dict(head, **{"webhook-id": "vault:99"})
    assert receiver_recipe(made["secret"], monkeypatch)["receive"](forged, body) == (401, None)

    new = json.loads(table.ok("webhook", "rotate", str(made["id"]), "--json"))["secret"]
    table.ok("note", "The door swings shut")
    deliver()
    head, body = posted[-1]
    for secret in (made["secret"], new):  # the receiver may hold either during the overlap
        status, entry = receiver_recipe(secret, monkeypatch)["receive"](head, body)
        assert status == 200 and entry["text"].endswith("Note: The door swings shut")
    table.ok("webhook", "rotate", str(made["id"]), "--finish")
    table.ok("note", "Silence")
    deliver()
    head, body = posted[-1]
    assert receiver_recipe(made["secret"], monkeypatch)["receive"](head, body) == (401, None)
    assert receiver_recipe(new, monkeypatch)["receive"](head, body)[0] == 200
