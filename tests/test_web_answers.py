"""A player's phone answers roll requests on ``campaign serve``: the cards of
``/requests/part`` and ``POST /answer/SEQ`` (ledger/web/answers.py), through the same code as
``campaign roll --answer SEQ --entropy HEX``."""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3

import pytest

from ledger.web.sessions import SessionPolicy

from .webtools import client, csrf, d20_table

ENTROPY = hashlib.sha256(b"dana's phone").hexdigest()
JSON = {"accept": "application/json"}


@pytest.fixture
def table(tmp_path):
    return d20_table(str(tmp_path / "ledger.db"))


def ask(table, *args: str) -> int:
    return int(json.loads(table.ok("request", *args, "--json"))["seq"])


def card_nonce(c, seq: int) -> str:
    """The nonce of request ``seq``'s card on a fresh ``/requests/part``."""
    part = c.get("/requests/part").text
    found = re.search(rf'id="r{seq}".*?name="nonce" value="([^"]+)"', part, re.S)
    assert found, part
    return found.group(1)


def answer(c, seq: int, *, nonce: str | None = None, **fields: str):
    data = {"csrf": csrf(c), "nonce": nonce if nonce is not None else card_nonce(c, seq), **fields}
    return c.post(f"/answer/{seq}", data=data, headers={"origin": "http://testserver", **JSON})


def test_the_player_sees_their_open_requests_in_words_and_nobody_elses(table):
    mine = ask(table, "isa", "Lockpicking", "--time")
    theirs = ask(table, "bram", "Brawl", "--time")
    with client(table, "Dana") as dana:
        part = dana.get("/requests/part")
        assert part.status_code == 200
        assert f'id="r{mine}"' in part.text and f'id="r{theirs}"' not in part.text
        assert "Isa Marrow rolls Lockpicking (with time)" in part.text
        assert 'name="csrf"' in part.text and part.text.count('name="nonce"') == 1
        home = dana.get("/").text
        assert 'src="/static/requests.js"' in home and 'id="requests"' in home
    with client(table, "gm") as gm:
        assert gm.get("/requests/part").text.strip() == ""
        assert "requests.js" not in gm.get("/").text
        gm_nonce = re.search(r'name="nonce" value="([^"]+)"', gm.get("/roll/isa").text)
        assert gm_nonce is not None
        r = answer(gm, mine, nonce=gm_nonce.group(1), entropy=ENTROPY)  # the GM's bytes: no
        assert r.status_code == 404
    with client(table) as nobody:
        assert nobody.get("/requests/part").status_code == 403


def test_a_request_naming_another_player_is_not_shown_to_the_characters_player(table):
    seq = ask(table, "isa", "Lockpicking", "--time", "--player", "Olu")
    with client(table, "Dana") as dana:
        assert f'id="r{seq}"' not in dana.get("/requests/part").text
        assert answer(dana, seq, nonce="x", entropy=ENTROPY).status_code == 404


def test_roll_from_the_phone_is_the_same_roll_as_campaign_roll_answer(table):
    seq = ask(table, "isa", "Lockpicking", "--time")
    with client(table, "Dana") as dana:
        r = answer(dana, seq, entropy=ENTROPY)
        assert r.status_code == 200, r.text
        rolled = r.json()
        assert rolled["entropy"] == ENTROPY
        assert f'id="r{seq}"' not in dana.get("/requests/part").text  # answered: gone
    audit = json.loads(table.ok("audit", str(rolled["roll"]), "--json"))
    assert audit["predictable"]["by"] == "roller-entropy"
    exported = [json.loads(x) for x in table.ok("export").splitlines()]
    web = next(e for e in exported if e["seq"] == rolled["roll"])
    assert web["actor"] == "Dana" and web["data"]["request"] == seq
    assert web["data"]["scheme"] == "ledger-roll-v2" and web["data"]["entropy"] == ENTROPY
    table.ok("session", "end")
    verified = json.loads(table.ok("verify", "--json"))
    assert verified["ok"], verified


def test_a_request_is_answered_once_a_second_post_gets_409_in_words(table):
    seq = ask(table, "isa", "Lockpicking", "--time")
    with client(table, "Dana") as dana:
        nonce = card_nonce(dana, seq)
        first = answer(dana, seq, entropy=ENTROPY)
        assert first.status_code == 200
        head = table.head()
        again = answer(dana, seq, nonce=nonce, entropy=ENTROPY)  # any nonce: closed first
        assert again.status_code == 409
        assert again.json()["error"] == (
            f"This request was already answered (event {first.json()['roll']}): a request is "
            "answered once."
        )
        other = hashlib.sha256(b"grinding").hexdigest()
        assert answer(dana, seq, nonce="made-up", entropy=other).status_code == 409
        assert answer(dana, seq, nonce="made-up", dice="20").status_code == 409
        assert table.head() == head  # nothing more written


def test_a_withdrawn_request_says_so(table):
    seq = ask(table, "isa", "Lockpicking", "--time")
    with client(table, "Dana") as dana:
        nonce = card_nonce(dana, seq)
        table.ok("withdraw", str(seq), "--reason", "the door was open after all")
        r = answer(dana, seq, nonce=nonce, entropy=ENTROPY)
        assert r.status_code == 409
        assert r.json()["error"] == (
            "The GM withdrew this request (the door was open after all): there is nothing to answer."
        )
        assert f'id="r{seq}"' not in dana.get("/requests/part").text


def test_enter_dice_answers_with_physical_faces_and_a_bad_face_writes_nothing(table):
    seq = ask(table, "isa", "Lockpicking", "--time")
    with client(table, "Dana") as dana:
        head = table.head()
        bad = answer(dana, seq, dice="27")
        assert bad.status_code == 422 and "27" in bad.json()["error"]
        both = answer(dana, seq, dice="12", entropy=ENTROPY)
        assert both.status_code == 422 and "not both" in both.json()["error"]
        neither = answer(dana, seq)
        assert neither.status_code == 422
        short = answer(dana, seq, entropy="ab" * 31)
        assert short.status_code == 422 and "64 hex digits" in short.json()["error"]
        assert table.head() == head
        ok = answer(dana, seq, dice="15")
        assert ok.status_code == 200
    log = table.ok("log")
    assert f"[{ok.json()['roll']}]" in log and "d20 15" in log


def test_forgeries_csrf_other_origin_and_other_players_requests_write_nothing(table):
    seq = ask(table, "isa", "Lockpicking", "--time")
    theirs = ask(table, "bram", "Brawl", "--time")
    with client(table, "Dana") as dana:
        head = table.head()
        nonce = card_nonce(dana, seq)
        no_csrf = dana.post(
            f"/answer/{seq}",
            data={"nonce": nonce, "entropy": ENTROPY},
            headers={"origin": "http://testserver", **JSON},
        )
        assert no_csrf.status_code == 403
        elsewhere = dana.post(
            f"/answer/{seq}",
            data={"csrf": csrf(dana), "nonce": nonce, "entropy": ENTROPY},
            headers={"origin": "http://evil.example", **JSON},
        )
        assert elsewhere.status_code == 403
        assert answer(dana, theirs, nonce=nonce, entropy=ENTROPY).status_code == 404
        not_a_request = answer(dana, 1, nonce=nonce, entropy=ENTROPY)
        assert not_a_request.status_code == 404
        assert (
            not_a_request.json()["error"]
            == answer(dana, 10**9, nonce=nonce, entropy=ENTROPY).json()["error"]
        )
        stale = answer(dana, seq, nonce="not-issued", entropy=ENTROPY)
        assert stale.status_code == 409 and "expired" in stale.json()["error"]
        assert table.head() == head
        hostile = dana.post(
            f"/answer/{seq}",
            content=b"\x00" * 20000,
            headers={
                "origin": "http://testserver",
                "content-type": "application/x-www-form-urlencoded",
                **JSON,
            },
        )
        assert hostile.status_code in (400, 413)
        assert table.head() == head
    with client(table) as nobody:
        assert nobody.post(f"/answer/{seq}", data={"entropy": ENTROPY}).status_code == 403


def test_the_write_limit_of_the_roll_form_holds_for_answers(table):
    seqs = [ask(table, "isa", "Lockpicking", "--time") for _ in range(3)]
    from ledger.web.app import Server

    server = Server(table.db, policy=SessionPolicy(burst=2, refill_seconds=60))
    with client(table, "Dana", server=server) as dana:
        assert answer(dana, seqs[0], entropy=ENTROPY).status_code == 200
        assert answer(dana, seqs[1], dice="9").status_code == 200
        head = table.head()
        slow = answer(dana, seqs[2], entropy=ENTROPY)
        assert slow.status_code == 429 and int(slow.headers["retry-after"]) >= 1
        assert table.head() == head


def test_without_javascript_the_dice_form_posts_and_lands_on_the_log(table):
    seq = ask(table, "isa", "Lockpicking", "--time")
    with client(table, "Dana") as dana:
        r = dana.post(
            f"/answer/{seq}",
            data={"csrf": csrf(dana), "nonce": card_nonce(dana, seq), "dice": "11"},
            headers={"origin": "http://testserver"},
        )
        assert r.status_code == 303 and r.headers["location"].startswith("/log#e")
        again = dana.post(
            f"/answer/{seq}",
            data={"csrf": csrf(dana), "nonce": "x", "dice": "11"},
            headers={"origin": "http://testserver"},
        )
        assert again.status_code == 409 and "already answered" in again.text


def test_the_fairness_report_counts_what_became_of_the_requests(table):
    by_entropy, by_dice, withdrawn, still_open = (
        ask(table, "isa", "Lockpicking", "--time") for _ in range(4)
    )
    with client(table, "Dana") as dana:
        assert answer(dana, by_entropy, entropy=ENTROPY).status_code == 200
        assert answer(dana, by_dice, dice="8").status_code == 200
    table.ok("withdraw", str(withdrawn), "--reason", "the guard came back")
    counts = json.loads(table.ok("fairness", "--json"))["requests"]
    assert counts == {
        "asked": 4,
        "answered_with_entropy": 1,
        "answered_with_dice": 1,
        "withdrawn": 1,
        "open": 1,
        "withdrawn_after_answer": 0,
        "answered_twice": 0,
    }
    text = table.ok("fairness")
    assert (
        "Roll requests: 4 asked; 1 answered with the roller's entropy, 1 with physical dice, "
        "1 withdrawn before an answer, 1 open. An answered request stands" in text
    )
    assert (
        json.loads(table.ok("fairness", "--character", "bram", "--json"))["requests"]["asked"] == 0
    )
    # a GM who edits the file so the withdrawal names the answered request: the report says so
    conn = sqlite3.connect(table.db, isolation_level=None)
    for (name,) in conn.execute(
        "select name from sqlite_master where type = 'trigger' and tbl_name = 'events'"
    ).fetchall():
        conn.execute(f"drop trigger {name}")
    (data,) = conn.execute("select data from events where type = 'roll.withdrawn'").fetchone()
    forged = json.loads(data) | {"request": by_entropy}
    conn.execute(
        "update events set data = ? where type = 'roll.withdrawn'",
        (json.dumps(forged, separators=(",", ":")),),
    )
    conn.close()
    counts = json.loads(table.ok("fairness", "--json"))["requests"]
    assert counts["withdrawn_after_answer"] == 1 and counts["open"] == 2
    assert "FLAGGED: 1 withdrawn after their answer" in table.ok("fairness")
