"""The JSON API of ``campaign serve``: bearer tokens with scopes, ``/api/v1``'s
endpoints in the players' and the GM's view, problem details, the OpenAPI document."""

from __future__ import annotations

import json

import pytest
from starlette.testclient import TestClient

from ledger.web.app import Server

from .webtools import Table, d20_table

API = "/api/v1"


@pytest.fixture
def table(tmp_path):
    t = d20_table(str(tmp_path / "vault.db"))
    # GM-only facts: a blind note and a hidden condition with canaries
    t.ok("note", "CANARY-BLIND-NOTE", "--blind")
    t.ok("record", "hidden-condition-added", "--character", "isa", "--condition",
         "CANARY-CONDITION", "--check-penalty", "3")  # fmt: skip
    return t


def token(t: Table, who: str, *args: str) -> str:
    out = json.loads(t.ok("access", "add", who, "--api", *args, "--json"))
    assert out["token"].startswith("cl_")
    return str(out["token"])


@pytest.fixture
def client(table):
    with TestClient(Server(table.db).app, base_url="http://testserver") as c:
        yield c


def get(c: TestClient, path: str, tok: str | None, **kw):
    headers = kw.pop("headers", {})
    if tok is not None:
        headers["authorization"] = f"Bearer {tok}"
    return c.get(API + path, headers=headers, **kw)


ENDPOINTS = ["/campaign", "/characters", "/sheet/isa", "/sheet/bram", "/log",
             "/log?since=0&limit=1", "/export.ndjson", "/checkpoint", "/sheet/isa?as_of=3",
             "/requests", "/proof/inclusion?seq=1", "/proof/consistency?old=1"]  # fmt: skip


def test_no_token_invalid_token_are_401_as_problems(table, client):
    for path in ENDPOINTS:
        r = get(client, path, None)
        assert r.status_code == 401, path
        assert r.headers["content-type"] == "application/problem+json"
        body = r.json()
        assert body["status"] == 401 and body["title"] == "Unauthorized"
        assert "campaign access add NAME --api" in body["detail"]
        assert r.headers["www-authenticate"].startswith("Bearer")
        assert get(client, path, "cl_not-a-token").status_code == 401
    # a web link's token is not an API token
    assert get(client, "/campaign", table.link("Dana")).status_code == 401


def test_revoked_token_stops_at_once(table, client):
    tok = token(table, "Dana")
    assert get(client, "/campaign", tok).status_code == 200
    assert "Revoked Dana's API tokens (1)" in table.ok("access", "revoke", "Dana", "--api")
    r = get(client, "/campaign", tok)
    assert r.status_code == 401
    assert "revoked" in r.json()["detail"]


def test_wrong_scope_is_403(table, client):
    tok = token(table, "Dana")  # read
    r = client.post(API + "/roll", headers={"authorization": f"Bearer {tok}"},
                    json={"character": "isa", "dice": "15", "skill": "Lockpicking"})  # fmt: skip
    assert r.status_code == 403
    assert r.json()["detail"] == "this API token's scope is read; this needs roll"
    assert table.head() == 7


def test_player_token_sees_no_gm_fact_on_any_endpoint(table, client):
    gm = token(table, "gm")
    for tok in (token(table, "Dana"), token(table, "Olu", "--scope", "roll")):
        for path in ENDPOINTS:
            r = get(client, path, tok)
            assert r.status_code in (200, 404), (path, r.text)
            assert "CANARY" not in r.text, path
            assert "CANARY" not in json.dumps(dict(r.headers)), path
    # the GM's token sees them
    assert "CANARY-BLIND-NOTE" in get(client, "/log", gm).text
    assert "CANARY-CONDITION" in get(client, "/sheet/isa", gm).text


def test_player_log_has_stubs_and_pages_with_etag(table, client):
    tok = token(table, "Dana")
    page = get(client, "/log?limit=2", tok).json()
    assert [e["seq"] for e in page["entries"]] == [1, 2]
    assert page["head"] == 7 and page["next"] == 2
    rest = get(client, "/log?since=2&limit=100", tok)
    entries = rest.json()["entries"]
    assert [e["seq"] for e in entries] == [3, 4, 5, 6, 7]
    assert entries[-1]["stub"] is True and entries[-1]["text"] == "GM-only entry"
    assert rest.json()["next"] is None
    etag = rest.headers["etag"]
    again = get(client, "/log?since=2&limit=100", tok, headers={"if-none-match": etag})
    assert again.status_code == 304
    table.ok("note", "the door opens")
    moved = get(client, "/log?since=2&limit=100", tok, headers={"if-none-match": etag})
    assert moved.status_code == 200 and moved.headers["etag"] != etag
    bad = get(client, "/log?since=-1", tok)  # a number out of range: 422
    assert (
        bad.status_code == 422
        and bad.json()["detail"] == "since must be a whole number from 0 to 999999999999999999"
    )
    assert get(client, "/log?since=x", tok).status_code == 400  # not a number


def test_characters_and_sheet(table, client):
    tok = token(table, "Dana", "--scope", "roll")
    chars = get(client, "/characters", tok).json()
    assert {c["id"]: c["mine"] for c in chars} == {"isa": True, "bram": False}
    sheet = get(client, "/sheet/Isa", tok).json()
    assert sheet["character"] == "isa" and sheet["as_of"] == 7
    missing = get(client, "/sheet/nobody", tok)
    assert (
        missing.status_code == 404 and missing.headers["content-type"] == "application/problem+json"
    )


def test_roll_through_the_api_verifies(table, client):
    tok = token(table, "Dana", "--scope", "roll")
    h = {"authorization": f"Bearer {tok}"}
    r = client.post(API + "/roll", headers=h,
                    json={"character": "isa", "dice": "15", "skill": "Lockpicking",
                          "params": {"time": "yes"}})  # fmt: skip
    assert r.status_code == 201, r.text
    assert r.json()["seq"] == 8
    assert "Isa" in r.json()["text"]
    entries = get(client, "/log?since=7", tok).json()["entries"]
    assert entries[0]["entered"] == "Dana"
    table.ok("verify")
    # not her character: refused, nothing written
    r = client.post(API + "/roll", headers=h, json={"character": "bram", "dice": "3"})
    assert r.status_code == 403 and table.head() == 8
    # an unknown field: refused
    r = client.post(API + "/roll", headers=h, json={"character": "isa", "dice": "3", "x": 1})
    assert r.status_code == 400 and table.head() == 8


def test_player_rolls_are_rate_limited(table, tmp_path):
    from ledger.web.sessions import SessionPolicy

    tok = token(table, "Dana", "--scope", "roll")
    clock = [100.0]
    server = Server(table.db, policy=SessionPolicy(burst=2, refill_seconds=10),
                    monotonic=lambda: clock[0])  # fmt: skip
    with TestClient(server.app, base_url="http://testserver") as c:
        h = {"authorization": f"Bearer {tok}"}
        body = {"character": "isa", "dice": "15", "skill": "Lockpicking", "params": {"time": "yes"}}
        assert c.post(API + "/roll", headers=h, json=body).status_code == 201
        assert c.post(API + "/roll", headers=h, json=body).status_code == 201
        r = c.post(API + "/roll", headers=h, json=body)
        assert r.status_code == 429
        assert r.json()["detail"] == "slow down: wait 10 seconds (nothing was written)"
        assert table.head() == 9
        clock[0] += 10
        assert c.post(API + "/roll", headers=h, json=body).status_code == 201


def test_cli_refusals(table):
    r = table("access", "add", "Dana", "--api", "--scope", "gm")
    assert r.exit_code == 1 and "gm scope is for the GM's token only" in r.output
    r = table("access", "add", "Dana", "--scope", "roll")
    assert r.exit_code == 2 and "--scope is for API tokens: add --api" in r.output
    r = table("access", "revoke", "Nobody", "--api")
    assert r.exit_code == 1 and "'Nobody' has no live API token" in r.output
    token(table, "Dana")
    listed = table.ok("access", "list")
    assert "api:read" in listed and "cl_" not in listed


def test_openapi_document_is_well_formed(client):
    r = client.get(API + "/openapi.json")
    assert r.status_code == 200
    doc = r.json()
    assert doc["openapi"] == "3.1.0"
    from openapi_spec_validator import validate

    validate(doc)  # raises on a malformed OpenAPI 3.1 document
    broken = json.loads(r.text)
    del broken["paths"]["/log"]["get"]["responses"]["200"]["description"]
    with pytest.raises(Exception, match="description"):
        validate(broken)  # the validator does catch a malformed document
    refs = set()

    def walk(node):
        if isinstance(node, dict):
            if "$ref" in node:
                refs.add(node["$ref"].rsplit("/", 1)[1])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(doc["paths"])
    walk(doc["components"])
    assert refs <= set(doc["components"]["schemas"]) | set(doc["components"]["headers"])
    assert {"LogPage", "RollIn", "Problem", "Sheet"} <= refs
    for path, ops in doc["paths"].items():
        for op in ops.values():
            assert "401" in op["responses"], path


def test_a_huge_body_is_refused_unread(table, client):
    tok = token(table, "Dana", "--scope", "roll")
    r = client.post(API + "/roll", headers={"authorization": f"Bearer {tok}"},
                    content=b"{" + b" " * 20_000 + b"}")  # fmt: skip
    assert r.status_code == 413  # the app's cap on every body (ledger.web.common.MAX_BODY)
    assert table.head() == 7


def test_tokens_on_both_backends(store_target):
    """Issued, found by secret only, revoked, on SQLite and PostgreSQL (m011)."""
    from ledger.campaign.aggregate import open_campaign
    from ledger.store.opening import open_store
    from ledger.web.api import tokens

    t = d20_table(store_target)
    store = open_store(store_target)
    try:
        campaign = open_campaign(store)
        issued, secret = tokens.grant(
            store, campaign, "Dana", "roll", ("bram",), at="2026-03-01T19:00:00Z"
        )
        assert tokens.find(store, campaign.id, secret) == issued
        assert issued.access.granted == ("bram",) and not issued.access.is_gm
        assert tokens.find(store, campaign.id, secret[:-1]) is None
        row = store.api_token_rows(campaign.id)[0]
        assert secret not in str(row) and row["token_hash"] == tokens.token_hash(secret)
        assert store.revoke_api_token(campaign.id, "DANA", "2026-03-01T20:00:00Z") == 1
        assert tokens.find(store, campaign.id, secret) is None
        assert t.head() == 5  # nothing in the log
    finally:
        store.close()


ENTROPY = "a1" * 32


def test_answer_a_request_with_entropy_verifies_and_proofs(table, client):
    gm = token(table, "gm")
    body = {"character": "isa", "skill": "Lockpicking", "params": {"time": "yes"}}
    dana_read = token(table, "Dana", "--scope", "roll")
    r = client.post(f"{API}/request", headers={"authorization": f"Bearer {dana_read}"}, json=body)
    assert r.status_code == 403 and r.json()["detail"].endswith("this needs gm")
    r = client.post(f"{API}/request", headers={"authorization": f"Bearer {gm}"}, json=body)
    assert r.status_code == 201, r.text
    seq = r.json()["seq"]
    assert seq == 8
    dana = token(table, "Dana", "--scope", "roll")
    olu = token(table, "Olu", "--scope", "roll")
    h = {"authorization": f"Bearer {dana}"}
    listed = get(client, "/requests", dana).json()
    assert [r["seq"] for r in listed] == [seq] and listed[0]["character"] == "isa"
    assert get(client, "/requests", olu).json() == []
    # not Olu's: the same 404 as no request at all
    r = client.post(f"{API}/answer/{seq}", headers={"authorization": f"Bearer {olu}"},
                    json={"entropy": ENTROPY})  # fmt: skip
    assert r.status_code == 404
    assert r.json()["detail"] == "There is no such roll request for you."
    bad = client.post(f"{API}/answer/{seq}", headers=h, json={"entropy": "zz"})
    assert bad.status_code == 422
    both = client.post(f"{API}/answer/{seq}", headers=h, json={"entropy": ENTROPY, "dice": "3"})
    assert both.status_code == 422
    r = client.post(f"{API}/answer/{seq}", headers=h, json={"entropy": ENTROPY})
    assert r.status_code == 201, r.text
    rolled = r.json()["seq"]
    exported = [json.loads(x) for x in table.ok("export").splitlines()]
    ev = next(e for e in exported if e["seq"] == rolled)
    assert ev["actor"] == "Dana" and ev["data"]["request"] == seq
    assert ev["data"]["scheme"] == "ledger-roll-v2" and ev["data"]["entropy"] == ENTROPY
    again = client.post(f"{API}/answer/{seq}", headers=h, json={"entropy": ENTROPY})
    assert again.status_code == 409 and "answered once" in again.json()["detail"]
    table.ok("session", "end")
    assert json.loads(table.ok("verify", "--json"))["ok"]
    cp = get(client, "/checkpoint", dana).json()
    size = cp["size"]
    inc = get(client, f"/proof/inclusion?seq={rolled}", dana).json()
    assert inc["index"] == rolled - 1 and inc["size"] == size and inc["proof"]
    con = get(client, "/proof/consistency?old=3", dana).json()
    assert con["old"] == 3 and con["new"] == size and con["proof"]
    assert get(client, f"/proof/inclusion?seq={size + 1}", dana).status_code == 422
