"""The JSON API says what it does and does what it says: every status, header and media type
it sends is in its OpenAPI document (recorded answers of good and bad requests checked
against it), the HTTP details clients and proxies rely on (413 and 415 as problems, 405
``Allow``, 429 ``Retry-After``, weak ``If-None-Match``), true limits, chain hashes on log
entries, links only to what answers, and a generated client that works unedited."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from ledger.web.app import SECURITY_HEADERS, Server
from ledger.web.sessions import SessionPolicy

from .webtools import d20_table

API = "/api/v1"
ENTROPY = "c3" * 32


@pytest.fixture
def table(tmp_path):
    t = d20_table(str(tmp_path / "vault.db"))
    t.ok("note", "CANARY-BLIND-NOTE", "--blind")  # a GM-only event: a stub for players
    return t


def token(t, who: str, scope: str) -> str:
    return str(json.loads(t.ok("access", "add", who, "--api", "--scope", scope, "--json"))["token"])


@pytest.fixture
def server(table, request):
    # two writes at once, then none (the monotonic clock stands still): a 429 comes third;
    # the recording of every answer spends six before its 429
    burst = 6 if request.function.__name__ == "test_every_answer_is_declared_in_the_document" else 2
    return Server(table.db, policy=SessionPolicy(burst=burst), monotonic=lambda: 1000.0)


@pytest.fixture
def client(server):
    with TestClient(server.app, base_url="http://testserver") as c:
        yield c


def bearer(tok: str, **more: str) -> dict[str, str]:
    return {"authorization": f"Bearer {tok}", **more}


# --- the defects, one by one --------------------------------------------------------------


def test_a_huge_body_is_a_problem_document_with_or_without_a_length(table, client):
    tok = token(table, "Dana", "roll")
    huge = b"{" + b" " * 20_000 + b"}"
    declared = client.post(API + "/roll", headers=bearer(tok), content=huge)

    def chunks():
        yield huge[:10_000]
        yield huge[10_000:]

    streamed = client.post(API + "/roll", headers=bearer(tok, **{"content-type": "application/json"}),
                           content=chunks())  # fmt: skip
    for r in (declared, streamed):
        assert r.status_code == 413
        assert r.headers["content-type"] == "application/problem+json"
        assert r.json()["status"] == 413 and r.json()["detail"]
        assert r.headers["x-content-type-options"] == "nosniff"  # the security headers too
    assert "chunked" in streamed.request.headers.get("transfer-encoding", "")
    assert table.head() == 6
    page = client.post("/logout", content=huge)  # the web view: its error page, not bare text
    assert page.status_code == 413 and page.headers["content-type"].startswith("text/html")


def test_a_body_not_sent_as_json_is_415_and_not_read(table, client):
    tok = token(table, "gm", "gm")
    body = json.dumps({"character": "isa", "skill": "Lockpicking", "dice": "15",
                       "params": {"time": "yes"}})  # fmt: skip
    for kind in ("text/plain", "application/x-www-form-urlencoded", None):
        headers = bearer(tok) if kind is None else bearer(tok, **{"content-type": kind})
        r = client.post(API + "/roll", headers=headers, content=body)
        assert r.status_code == 415, (kind, r.text)
        assert r.headers["content-type"] == "application/problem+json"
        assert "application/json" in r.json()["detail"]
    assert table.head() == 6
    ok = client.post(API + "/roll", content=body,
                     headers=bearer(tok, **{"content-type": "application/json; charset=utf-8"}))  # fmt: skip
    assert ok.status_code == 201, ok.text


def test_a_wrong_method_is_405_with_allow(table, client):
    tok = token(table, "gm", "gm")
    r = client.post(API + "/log", headers=bearer(tok, **{"content-type": "application/json"}))
    assert r.status_code == 405 and r.headers["content-type"] == "application/problem+json"
    assert {m.strip() for m in r.headers["allow"].split(",")} == {"GET", "HEAD"}
    r = client.get(API + "/roll", headers=bearer(tok))
    assert r.status_code == 405 and r.headers["allow"] == "POST"


def test_too_many_rolls_is_429_with_retry_after(table, client):
    tok = token(table, "Dana", "roll")
    body = {"character": "isa", "skill": "Lockpicking", "dice": "15", "params": {"time": "yes"}}
    codes = [client.post(API + "/roll", headers=bearer(tok), json=body) for _ in range(3)]
    assert [r.status_code for r in codes] == [201, 201, 429]
    slow = codes[-1]
    assert slow.headers["content-type"] == "application/problem+json"
    seconds = int(slow.headers["retry-after"])
    assert seconds >= 1 and f"wait {seconds} seconds" in slow.json()["detail"]
    assert table.head() == 8


def test_if_none_match_compares_weakly_and_star_matches(table, client):
    tok = token(table, "Dana", "read")
    first = client.get(API + "/log", headers=bearer(tok))
    etag = first.headers["etag"]
    assert etag.startswith('"') and etag.endswith('"')
    for sent in (etag, f"W/{etag}", f'"other", W/{etag}', "*"):
        r = client.get(API + "/log", headers=bearer(tok, **{"if-none-match": sent}))
        assert r.status_code == 304, sent
        assert r.headers["etag"] == etag and r.content == b""
    r = client.get(API + "/log", headers=bearer(tok, **{"if-none-match": 'W/"other"'}))
    assert r.status_code == 200
    table.ok("note", "the door opens")
    moved = client.get(API + "/log", headers=bearer(tok, **{"if-none-match": f"W/{etag}"}))
    assert moved.status_code == 200 and moved.headers["etag"] != etag


@pytest.mark.parametrize(
    ("query", "name", "words"),
    [
        ("limit=0", "limit", "from 1 to 500"),
        ("limit=501", "limit", "from 1 to 500"),
        ("limit=1000000000000000000", "limit", "from 1 to 500"),
        ("since=-1", "since", "from 0 to 999999999999999999"),
    ],
)
def test_a_limit_out_of_range_is_422_naming_it(table, client, query, name, words):
    tok = token(table, "Dana", "read")
    r = client.get(f"{API}/log?{query}", headers=bearer(tok))
    assert r.status_code == 422, r.text
    assert r.headers["content-type"] == "application/problem+json"
    assert r.json()["detail"] == f"{name} must be a whole number {words}"


def test_the_declared_limits_are_the_true_ones(table, client):
    doc = client.get(API + "/openapi.json").json()
    params = {p["name"]: p for p in doc["paths"]["/log"]["get"]["parameters"]}
    assert params["limit"]["schema"]["minimum"] == 1 and params["limit"]["schema"]["maximum"] == 500
    for _ in range(3):
        table.ok("note", "another")
    tok = token(table, "gm", "gm")
    assert len(client.get(f"{API}/log?limit=500", headers=bearer(tok)).json()["entries"]) == 9
    assert len(client.get(f"{API}/log?limit=1", headers=bearer(tok)).json()["entries"]) == 1
    r = client.get(f"{API}/log?limit=ten", headers=bearer(tok))
    assert r.status_code == 400 and r.json()["detail"] == "limit must be a whole number from 1 to 500"


def test_log_entries_carry_the_chain_hashes_of_the_export(table, client):
    """A webhook receiver checks a delivery's ``hash`` against ``GET /log``: every entry
    has the export's ``hash`` and ``prev_hash``; a player's stub of a GM-only event the
    stub line's, and nothing of the event."""
    for who, scope in (("gm", "gm"), ("Dana", "read")):
        tok = token(table, who, scope)
        entries = client.get(API + "/log", headers=bearer(tok)).json()["entries"]
        lines = client.get(API + "/export.ndjson", headers=bearer(tok)).text.splitlines()
        exported = {e["seq"]: e for e in map(json.loads, lines) if "seq" in e}
        assert [e["seq"] for e in entries] == sorted(exported)
        for e in entries:
            assert (e["hash"], e["prev_hash"]) == (
                exported[e["seq"]]["hash"], exported[e["seq"]]["prev_hash"]
            )  # fmt: skip
            assert len(e["hash"]) == 64
        for a, b in zip(entries, entries[1:], strict=False):
            assert b["prev_hash"] == a["hash"]
        stub = entries[-1]
        assert stub["stub"] is (who == "Dana")
        if who == "Dana":
            assert exported[stub["seq"]].get("redacted") is True
            assert "CANARY" not in json.dumps(stub)


def test_every_link_answers_when_it_is_given(table, client):
    """A link in the document leads to an operation that answers for the linked value at
    once: a new entry's inclusion proof cannot (no checkpoint holds it yet), so none is
    linked; the request's answer can."""
    doc = client.get(API + "/openapi.json").json()
    links = {
        (op["operationId"], code): answer.get("links", {})
        for ops in doc["paths"].values()
        for op in ops.values()
        for code, answer in op["responses"].items()
    }
    linked = {(k, name, link["operationId"]) for k, v in links.items() for name, link in v.items()}
    assert linked == {(("request", "201"), "answer", "answer")}
    gm = token(table, "gm", "gm")
    asked = client.post(API + "/request", headers=bearer(gm),
                        json={"character": "isa", "skill": "Lockpicking", "params": {"time": "yes"}})  # fmt: skip
    assert asked.status_code == 201, asked.text
    dana = token(table, "Dana", "roll")
    r = client.post(f"{API}/answer/{asked.json()['seq']}", headers=bearer(dana),
                    json={"entropy": ENTROPY})  # fmt: skip
    assert r.status_code == 201, r.text
    # what the old link promised does not answer: no checkpoint holds the roll yet
    assert client.get(f"{API}/proof/inclusion?seq={r.json()['seq']}",
                      headers=bearer(dana)).status_code == 404  # fmt: skip


def test_a_refusal_speaks_the_apis_words_not_the_clis(table, client):
    tok = token(table, "gm", "gm")  # not limited: every refusal is the rules'
    cases = [
        {"character": "isa", "dice": "15"},  # no skill
        {"character": "isa", "dice": "12,13", "skill": "Lockpicking", "params": {"time": "yes"}},
        {"character": "isa", "dice": "12", "skill": "Juggling", "params": {"time": "yes"}},
    ]
    for body in cases:
        r = client.post(API + "/roll", headers=bearer(tok), json=body)
        assert r.status_code == 422, r.text
        detail = r.json()["detail"]
        assert "`" not in detail and "--" not in detail and "campaign " not in detail, detail
    assert "name the skill the check uses" in client.post(
        API + "/roll", headers=bearer(tok), json=cases[0]
    ).json()["detail"]  # fmt: skip
    # the sentence names the option by its label; the problem points at the body member
    dice = client.post(API + "/roll", headers=bearer(tok), json=cases[1]).json()
    assert "the dice gave 2 faces" in dice["detail"] and dice["field"] == "/dice"
    practice = client.post(API + "/roll", headers=bearer(tok), json=cases[2]).json()
    assert "Practise a skill you lack" in practice["detail"]
    assert practice["field"] == "/params/practice"


def test_every_operation_has_a_summary_tags_and_a_description(client):
    doc = client.get(API + "/openapi.json").json()
    defined = {t["name"] for t in doc["tags"]}
    assert all(t["description"] for t in doc["tags"])
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            assert op["summary"] and op["description"], (method, path)
            assert op["tags"] and set(op["tags"]) <= defined, (method, path)


# --- every answer against the document ---------------------------------------------------

#: Headers every answer carries, told in the document's ``info.description``.
EVERYWHERE = {"content-type", "content-length", "content-security-policy", *SECURITY_HEADERS}


def check_against(doc: dict, method: str, template: str, r) -> str:
    """Is answer ``r`` to ``method template`` one the document declares? Its status for
    that operation, its media type, every declared header present, every header sent
    declared (or one every answer carries). A 405 has no operation: its ``Allow`` must
    name the methods the document gives the path. Returns the status as ``"METHOD PATH
    CODE"``."""
    ops = doc["paths"].get(template)
    kind = r.headers.get("content-type", "").split(";")[0].strip()
    sent = {k.lower() for k in r.headers} - EVERYWHERE
    if r.status_code == 405:
        assert ops is not None and method.lower() not in ops
        allowed = {m.strip().lower() for m in r.headers["allow"].split(",")}
        assert allowed - {"head"} == set(ops), (template, allowed)
        assert kind == "application/problem+json" and sent == {"allow"}
        return f"{method} {template} 405"
    if ops is None:  # no such path
        assert r.status_code == 404 and kind == "application/problem+json"
        return f"{method} (none) 404"
    declared = ops[method.lower()]["responses"].get(str(r.status_code))
    assert declared is not None, (method, template, r.status_code, r.text)
    content = declared.get("content", {})
    if content:
        assert kind in content, (method, template, r.status_code, kind)
    else:
        assert r.content == b"" and not kind, (method, template, r.status_code)
    headers = {}
    for name, h in declared.get("headers", {}).items():
        if "$ref" in h:
            h = doc["components"]["headers"][h["$ref"].rsplit("/", 1)[1]]
        headers[name.lower()] = h
    assert set(headers) <= {k.lower() for k in r.headers}, (method, template, r.status_code)
    assert sent <= set(headers), (method, template, r.status_code, sent - set(headers))
    if "retry-after" in headers:
        assert int(r.headers["retry-after"]) >= 1
    return f"{method} {template} {r.status_code}"


def test_every_answer_is_declared_in_the_document(table, server, client, monkeypatch):
    doc = client.get(API + "/openapi.json").json()
    gm, dana, olu = token(table, "gm", "gm"), token(table, "Dana", "roll"), token(table, "Olu", "read")
    seen: set[str] = set()
    js = {"content-type": "application/json"}

    def call(method: str, template: str, url: str, tok: str | None, **kw):
        headers = {**kw.pop("headers", {})}
        if tok is not None:
            headers["authorization"] = f"Bearer {tok}"
        r = client.request(method, API + url, headers=headers, **kw)
        seen.add(check_against(doc, method, template, r))
        return r

    gets = {"/campaign": "/campaign", "/characters": "/characters",
            "/sheet/{character}": "/sheet/isa", "/log": "/log", "/export.ndjson": "/export.ndjson",
            "/checkpoint": "/checkpoint", "/requests": "/requests",
            "/proof/consistency": "/proof/consistency?old=1",
            "/proof/inclusion": "/proof/inclusion?seq=1"}  # fmt: skip
    roll = {"character": "isa", "skill": "Lockpicking", "dice": "15", "params": {"time": "yes"}}
    posts = {"/roll": ("/roll", roll), "/request": ("/request", {"character": "isa",
             "skill": "Lockpicking", "params": {"time": "yes"}}),
             "/answer/{seq}": ("/answer/1", {"entropy": ENTROPY})}  # fmt: skip
    for template, url in gets.items():
        for tok in (None, "cl_wrong", olu, gm):
            call("GET", template, url, tok)
        call("POST", template, url, gm, headers=js, content=b"{}")  # 405
    for template, (url, body) in posts.items():
        for tok in (None, "cl_wrong", olu):  # 401, 401, 403 (read scope)
            call("POST", template, url, tok, json=body)
        call("POST", template, url, gm, headers={"content-type": "text/plain"},
             content=json.dumps(body))  # 415  # fmt: skip
        call("POST", template, url, gm, headers=js, content=b"{" + b" " * 20_000 + b"}")  # 413
        call("POST", template, url, gm, headers=js, content=b"[1,")  # 400
        call("GET", template, url, gm)  # 405
    # 404s, 400s and 422s of the reads
    call("GET", "/sheet/{character}", "/sheet/nobody", gm)
    call("GET", "/sheet/{character}", "/sheet/isa?as_of=99", gm)
    call("GET", "/sheet/{character}", "/sheet/isa?as_of=x", gm)
    call("GET", "/log", "/log?limit=0", gm)
    call("GET", "/log", "/log?since=x", gm)
    call("GET", "/nothing-here", "/nothing-here", gm)
    # 304 and its ETag
    etag = call("GET", "/log", "/log", dana).headers["etag"]
    call("GET", "/log", "/log", dana, headers={"if-none-match": f"W/{etag}"})
    # writes: 201, 403 (not Dana's character), 404, 422, 429 (burst 2)
    call("POST", "/roll", "/roll", dana, json={**roll, "character": "bram"})
    call("POST", "/roll", "/roll", dana, json={**roll, "character": "nobody"})
    call("POST", "/roll", "/roll", dana, json={**roll, "dice": "25"})
    asked = call("POST", "/request", "/request", gm, json=posts["/request"][1]).json()["seq"]
    call("POST", "/request", "/request", gm, json={"character": "nobody"})
    call("POST", "/request", "/request", gm, json={"character": "isa"})
    call("POST", "/answer/{seq}", f"/answer/{asked}", dana, json={"entropy": "zz"})
    call("POST", "/answer/{seq}", f"/answer/{asked}", dana, json={"entropy": ENTROPY})
    call("POST", "/answer/{seq}", f"/answer/{asked}", dana, json={"entropy": ENTROPY})  # 409
    call("POST", "/answer/{seq}", "/answer/1", dana, json={"entropy": ENTROPY})  # 404
    for _ in range(6):  # until the burst is spent: 429
        if call("POST", "/roll", "/roll", dana, json=roll).status_code == 429:
            break
    # with a checkpoint: the proofs answer, and refuse what is out of range
    table.ok("session", "end")
    call("GET", "/checkpoint", "/checkpoint", dana)
    call("GET", "/proof/inclusion", "/proof/inclusion?seq=1", dana)
    call("GET", "/proof/inclusion", "/proof/inclusion?seq=999", dana)
    call("GET", "/proof/inclusion", "/proof/inclusion", dana)
    call("GET", "/proof/consistency", "/proof/consistency?old=1", dana)
    call("GET", "/proof/consistency", "/proof/consistency?old=0", dana)
    # the database out of reach: 503 with Retry-After
    from ledger.errors import StoreUnavailable

    def away(*args):
        raise StoreUnavailable("the test took the database away")

    monkeypatch.setattr(server, "attempt", away)
    call("GET", "/log", "/log", dana)

    wanted = {
        "GET /campaign 200", "GET /campaign 401", "GET /characters 200", "GET /sheet/{character} 200",
        "GET /sheet/{character} 404", "GET /sheet/{character} 422", "GET /sheet/{character} 400",
        "GET /log 200", "GET /log 304", "GET /log 422", "GET /log 400", "GET /log 503",
        "GET /export.ndjson 200", "GET /checkpoint 404", "GET /checkpoint 200",
        "GET /requests 200", "GET /proof/inclusion 200", "GET /proof/inclusion 422",
        "GET /proof/inclusion 400", "GET /proof/consistency 200", "GET /proof/consistency 422",
        "POST /roll 201", "POST /roll 401", "POST /roll 403", "POST /roll 404", "POST /roll 413",
        "POST /roll 415", "POST /roll 422", "POST /roll 429", "POST /roll 400",
        "POST /request 201", "POST /request 403", "POST /request 404", "POST /request 422",
        "POST /request 413", "POST /request 415", "POST /answer/{seq} 201",
        "POST /answer/{seq} 404", "POST /answer/{seq} 409", "POST /answer/{seq} 422",
        "POST /answer/{seq} 413", "POST /answer/{seq} 415", "GET (none) 404", "POST /log 405",
        "GET /roll 405", "GET /answer/{seq} 405",
    }  # fmt: skip
    assert wanted <= seen, sorted(wanted - seen)


# --- a generated client ---------------------------------------------------------------------


def test_a_generated_client_reads_everything_and_rolls_unedited(table, client, tmp_path, monkeypatch):
    """openapi-python-client generates a package from the served document; imported
    unedited, it reads every resource (the export as bytes: the generator's option for a
    media type it does not parse) and records a roll, through the app itself."""
    (tmp_path / "spec.json").write_bytes(client.get(API + "/openapi.json").content)
    (tmp_path / "config.json").write_text(
        json.dumps({"content_type_overrides": {"application/x-ndjson": "application/octet-stream"}})
    )
    bindir = Path(sys.executable).parent
    out = subprocess.run(
        [str(bindir / "openapi-python-client"), "generate", "--path", str(tmp_path / "spec.json"),
         "--config", str(tmp_path / "config.json"), "--output-path",
         str(tmp_path / "ledger_api_client"), "--meta", "none"],
        capture_output=True, text=True, timeout=300, env={"PATH": str(bindir)},
    )  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Warning" not in out.stdout, out.stdout  # nothing of the document left out
    monkeypatch.syspath_prepend(str(tmp_path))  # the package's models import lazily
    import ledger_api_client as generated
    from ledger_api_client.api.campaign import campaign, characters, sheet
    from ledger_api_client.api.log import export, log
    from ledger_api_client.api.proofs import checkpoint, consistency, inclusion
    from ledger_api_client.api.rolls import answer, request, requests, roll
    from ledger_api_client.models import AnswerIn, RequestIn, RollIn

    for name in [m for m in sys.modules if m.startswith("ledger_api_client")]:
        monkeypatch.delitem(sys.modules, name)  # gone again after the test

    def api(tok: str):
        c = generated.AuthenticatedClient(base_url="http://testserver/api/v1", token=tok)
        inner = TestClient(client.app, base_url="http://testserver/api/v1",
                           headers={"Authorization": f"Bearer {tok}"})  # fmt: skip
        return c.set_httpx_client(inner)

    gm, dana = api(token(table, "gm", "gm")), api(token(table, "Dana", "roll"))
    info = campaign.sync(client=dana)
    assert info.head == 6 and info.scope == "roll" and info.who == "Dana"
    assert {c.id: c.mine for c in characters.sync(client=dana)} == {"isa": True, "bram": False}
    assert sheet.sync("isa", client=dana).character == "isa"
    page = log.sync(client=dana, limit=3)
    assert [e.seq for e in page.entries] == [1, 2, 3] and page.next_ == 3
    assert len(page.entries[0].hash_) == 64
    problem = log.sync(client=dana, limit=0)
    assert problem.status == 422 and "limit" in problem.detail
    exported = export.sync(client=dana)
    assert isinstance(exported, bytes) and b'"redacted":true' in exported
    rolled = roll.sync(client=dana, body=RollIn.from_dict(
        {"character": "isa", "skill": "Lockpicking", "dice": "15", "params": {"time": "yes"}}))  # fmt: skip
    assert rolled.seq == 7 and "15" in rolled.text
    asked = request.sync(client=gm, body=RequestIn.from_dict(
        {"character": "isa", "skill": "Lockpicking", "params": {"time": "yes"}}))  # fmt: skip
    assert [r.seq for r in requests.sync(client=dana)] == [asked.seq]
    answered = answer.sync(asked.seq, client=dana, body=AnswerIn(entropy=ENTROPY))
    assert answered.seq == asked.seq + 1
    table.ok("session", "end")
    cp = checkpoint.sync(client=dana)
    assert inclusion.sync(client=dana, seq=rolled.seq).size == cp.size
    assert consistency.sync(client=dana, old=1).new == cp.size
