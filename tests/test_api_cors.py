"""CORS on /api/v1 (`campaign serve --api-origin ORIGIN`): a page of a listed origin (a
Foundry module, an Owlbear Rodeo extension) calls the API with a bearer token; any other
origin gets no CORS header at all; the pages never answer another origin; none by default.

In process: Starlette's test client (httpx) over the app `campaign serve` runs.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from ledger.web.app import Server
from ledger.web.cors import check_origin

from .webtools import Table, d20_table

API = "/api/v1"
FOUNDRY = "https://foundry.example.org"
OWLBEAR = "https://www.owlbear.rodeo"
EVIL = "https://evil.example"


@pytest.fixture
def table(tmp_path):
    return d20_table(str(tmp_path / "vault.db"))


def token(t: Table, who: str, *args: str) -> str:
    return str(json.loads(t.ok("access", "add", who, "--api", *args, "--json"))["token"])


def cors_headers(response) -> dict[str, str]:
    return {k: v for k, v in response.headers.items() if k.lower().startswith("access-control-")}


def preflight(c: TestClient, path: str, origin: str, method: str = "POST",
              headers: str = "authorization, content-type"):  # fmt: skip
    return c.options(API + path, headers={
        "Origin": origin, "Access-Control-Request-Method": method,
        "Access-Control-Request-Headers": headers})  # fmt: skip


@pytest.fixture
def client(table):
    server = Server(table.db, api_origins=(FOUNDRY, OWLBEAR))
    with TestClient(server.app, base_url="http://testserver") as c:
        yield c


def test_a_listed_origin_is_answered_its_preflight_and_its_calls(table, client):
    dana = token(table, "Dana", "--scope", "roll")
    answer = preflight(client, "/roll", FOUNDRY)
    assert answer.status_code == 200
    got = cors_headers(answer)
    assert got["access-control-allow-origin"] == FOUNDRY  # echoed, never "*"
    assert set(got["access-control-allow-methods"].split(", ")) == {"GET", "HEAD", "POST"}
    allowed = {h.lower() for h in got["access-control-allow-headers"].split(", ")}
    assert {"authorization", "content-type"} <= allowed
    assert "access-control-allow-credentials" not in got  # bearer tokens, no cookies
    assert "Origin" in answer.headers["vary"]

    auth = {"Authorization": f"Bearer {dana}", "Content-Type": "application/json"}
    body = {"character": "isa", "skill": "Lockpicking", "dice": "15", "params": {"time": "yes"}}
    rolled = client.post(API + "/roll", headers={**auth, "Origin": OWLBEAR},
                         content=json.dumps(body))  # fmt: skip
    assert rolled.status_code == 201, rolled.text
    assert rolled.headers["access-control-allow-origin"] == OWLBEAR
    assert "Origin" in rolled.headers["vary"]
    assert "access-control-allow-credentials" not in rolled.headers
    log = client.get(API + "/log", headers={**auth, "Origin": FOUNDRY})
    assert log.status_code == 200 and log.headers["access-control-allow-origin"] == FOUNDRY
    assert "etag" in log.headers["access-control-expose-headers"].lower()
    # an error is readable by the page too: the problem document, with its CORS header
    refused = client.get(API + "/log", headers={"Origin": FOUNDRY})
    assert refused.status_code == 401
    assert refused.headers["access-control-allow-origin"] == FOUNDRY


def test_another_origin_gets_no_cors_header(client):
    for origin in (EVIL, FOUNDRY + ":8443", "http://foundry.example.org", "null",
                   FOUNDRY.upper()):  # fmt: skip
        answer = preflight(client, "/roll", origin)
        assert answer.status_code == 405  # the API takes no OPTIONS: the browser stops here
        assert cors_headers(answer) == {}
        call = client.get(API + "/log", headers={"Origin": origin})
        assert cors_headers(call) == {}
        assert "Origin" in call.headers["vary"]  # a cache keeps the origins apart
    assert "Origin" in client.get(API + "/campaign").headers["vary"]  # no Origin at all


def test_a_listed_origin_asking_for_more_is_refused(client):
    wrong = preflight(client, "/roll", FOUNDRY, method="DELETE")
    assert wrong.status_code == 400
    assert wrong.headers["content-type"] == "application/problem+json"
    assert "methods GET, HEAD, POST" in wrong.json()["detail"]
    odd = preflight(client, "/roll", FOUNDRY, headers="authorization, x-secret")
    assert odd.status_code == 400 and "headers Authorization, Content-Type" in odd.json()["detail"]


def test_the_pages_never_answer_another_origin(client):
    for path in ("/", "/log", "/export.ndjson", "/checkpoint", "/verify", "/api", "/api/v10"):
        answer = client.options(path, headers={"Origin": FOUNDRY,
                                               "Access-Control-Request-Method": "GET"})  # fmt: skip
        assert cors_headers(answer) == {}, path
        assert cors_headers(client.get(path, headers={"Origin": FOUNDRY})) == {}, path


def test_none_by_default(table):
    with TestClient(Server(table.db).app, base_url="http://testserver") as c:
        answer = preflight(c, "/roll", FOUNDRY)
        assert answer.status_code == 405 and cors_headers(answer) == {}
        call = c.get(API + "/campaign", headers={"Origin": FOUNDRY})
        assert cors_headers(call) == {} and "Origin" not in call.headers.get("vary", "")


@pytest.mark.parametrize(
    ("given", "origin"),
    [
        ("https://Foundry.Example.org", "https://foundry.example.org"),
        ("https://foundry.example.org/", "https://foundry.example.org"),
        ("https://foundry.example.org:443", "https://foundry.example.org"),
        ("http://localhost:30000", "http://localhost:30000"),
        ("http://[::1]:30000", "http://[::1]:30000"),
    ],
)
def test_an_origin_is_read_as_browsers_send_it(given, origin):
    assert check_origin(given) == origin


@pytest.mark.parametrize(
    ("given", "words"),
    [
        ("*", "'*' would let every web page call the API"),
        ("https://foundry.example.org/game", "is not an origin"),
        ("foundry.example.org", "is not an origin"),
        ("null", "is not an origin"),
        ("ftp://foundry.example.org", "is not an origin"),
        ("https://me@foundry.example.org", "is not an origin"),
        ("https://foundry.example.org:99999", "is not an origin"),
        ("https://foundry.example.org?x=1", "is not an origin"),
    ],
)
def test_serve_refuses_a_bad_origin_in_one_line(table, given, words):
    from ledger.cli import cli

    result = CliRunner().invoke(cli, ["--db", table.db, "serve", "--port", "0",
                                      "--api-origin", given])  # fmt: skip
    assert result.exit_code == 2
    assert words in result.stderr and "--api-origin" in result.stderr
    assert "Traceback" not in result.output and "Serving" not in result.output


def test_serve_hands_its_origins_to_the_app(table, monkeypatch):
    """`campaign serve --api-origin` (twice, one given twice in another spelling): the app it
    runs answers those origins' preflights, and says so when it starts."""
    from ledger.cli import cli
    from ledger.web import server as webserver

    served = []

    def run(app, sockets, **kw) -> None:  # instead of serving: keep the app, free the port
        served.append(app)
        for sock in sockets:
            sock.close()

    monkeypatch.setattr(webserver, "run", run)
    result = CliRunner().invoke(cli, ["--db", table.db, "serve", "--port", "0", "--no-qr",
                                      "--api-origin", FOUNDRY, "--api-origin", OWLBEAR,
                                      "--api-origin", FOUNDRY.upper() + "/"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert f"The JSON API answers pages of: {FOUNDRY}, {OWLBEAR} (CORS)." in result.output
    with TestClient(served[0], base_url="http://testserver") as c:
        for origin in (FOUNDRY, OWLBEAR):
            assert preflight(c, "/roll", origin).headers["access-control-allow-origin"] == origin
        assert cors_headers(preflight(c, "/roll", EVIL)) == {}
