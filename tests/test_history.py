"""Replayed from history: advance, recap and audit (issue 7) on the toy system."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.store.sqlite import Store


def data(result):
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


@pytest.fixture
def played(toy_campaign):
    """A session with physical and engine rolls, a GM secret and a correction, then ended."""
    invoke = toy_campaign
    invoke("session", "start")
    invoke("roll", "ann", "brawl", "--dice", "6,5")  # 5
    invoke("roll", "ann", "brawl")  # 6, engine nonce 0
    invoke("roll", "bob", "sneak")  # 7, engine nonce 1
    invoke("record", "secret-noted", "--character", "bob", "--value", "8675309")  # 8
    invoke("record", "hurt", "--character", "bob", "--amount", "4")  # 9
    invoke("correct", "9", "--set", "amount=2", "--reason", "armour took some")  # 10
    invoke("session", "end")  # 11, downtime.committed 12, chronicles 13-14
    return invoke


def test_one_receipt_per_session_end_printed_the_same_everywhere(toy_campaign, tmp_path):
    """Session end and the recaps (Markdown, HTML, JSON, players' and GM's) give the same
    receipt: the last event of the session-end batch. The chronicle entries signed
    after it move the head on; session end names that head, and a verify run right after
    it gives it, and the session's receipt holds."""
    invoke = toy_campaign
    invoke("session", "start")
    invoke("roll", "ann", "brawl", "--dice", "6,5")
    ended = invoke("session", "end")
    said = [line.removeprefix("Receipt: ") for line in ended.output.splitlines()]
    receipt = next(line for line in said if line[:1].isdigit() and ":" in line)
    verified = data(invoke("verify", "--json"))["receipt"]
    seq, digest = receipt.split(":")
    assert len(digest) == 64
    log = data(invoke("log", "--json"))
    assert log[int(seq) - 1]["type"] == "downtime.committed"
    assert [e["type"] for e in log[int(seq):]] == ["chronicle.signed"]  # Ann's, the head
    assert verified == f"{log[-1]['seq']}:{log[-1]['hash']}" != receipt
    assert f"the log's head is now {verified}" in ended.output
    assert invoke("verify", "--receipt", receipt).exit_code == 0
    for view in ("player", "gm"):
        md = invoke("--as", view, "recap", "--session", "1").output
        assert f"Receipt: `{receipt}`" in md and md.count(digest) == 2  # shown, and checked
        html = tmp_path / f"{view}.html"
        invoke("--as", view, "recap", "--session", "1", "--format", "html", "-o", str(html))
        assert receipt in html.read_text()
        assert data(invoke("--as", view, "recap", "--session", "1", "--json"))["receipt"] == receipt
    invoke("note", "after the session")  # a later receipt is the head's; session 1's holds
    assert data(invoke("verify", "--json"))["receipt"] != receipt
    assert invoke("verify", "--receipt", receipt).exit_code == 0


def test_advance_dry_run_writes_nothing_then_appends_once(played, db_path):
    invoke = played
    head = Store(db_path).head("toybox")
    dry = data(invoke("advance", "--session", "1", "--dry-run", "--json"))
    assert [e["data"]["character"] for e in dry["events"]] == ["ann", "bob"]
    assert Store(db_path).head("toybox") == head
    # the dry run never shows dice not yet rolled; its skill and nonce are fixed
    assert [(e["data"]["die"], e["data"]["improved"]) for e in dry["events"]] == [("?", "?")] * 2
    assert [e["data"]["nonce"] for e in dry["events"]] == [1, 2]
    done = data(invoke("advance", "--session", "1", "--json"))
    assert [e["type"] for e in done["events"]] == ["toy.improved"] * 2 + ["downtime.revealed"]
    assert [e["data"]["scheme"] for e in done["events"][:2]] == ["ledger-downtime-v1"] * 2
    assert data(invoke("advance", "--session", "1", "--json"))["events"] == []
    assert "nothing to advance" in invoke("advance", "--session", "1").output
    # advancement dice are engine dice of session 1, verifiable like any roll
    report = data(invoke("verify", "--json"))
    assert report["ok"] and report["engine_rolls_verified"] == 4
    audit = data(invoke("audit", str(done["events"][0]["seq"]), "--json"))
    assert audit["verdict"] == "verified"


def test_advance_refuses_open_or_unplayed_session(toy_campaign):
    invoke = toy_campaign
    assert "has not been played" in invoke("advance", "--session", "1").output
    invoke("session", "start")
    result = invoke("advance", "--session", "1")
    assert result.exit_code == 1 and "still open" in result.output


def test_recap_markdown_tells_the_session(played):
    invoke = played
    text = invoke("recap", "--session", "1").output
    assert "# toybox — Session 1" in text
    assert "`6 5`" in text and "physical dice, entered by gm" in text
    assert "engine roll, nonce 1" in text
    assert "amended by event 10: armour took some" in text
    assert "Hp 10 → 8" in text  # the amended hurt of 2, not the original 4
    assert "Seed revealed:" in text and "Receipt: `12:" in text  # session end's


def test_player_recap_never_shows_gm_facts(played):
    invoke = played
    gm = invoke("--as", "gm", "recap", "--session", "1", "--format", "html").output
    assert "8675309" in gm
    for fmt in ("md", "html"):
        text = invoke("--as", "player", "recap", "--session", "1", "--format", fmt).output
        assert "8675309" not in text and "secret" not in text


def test_html_recap_is_self_contained(played):
    html = played("recap", "--session", "1", "--format", "html").output
    assert html.startswith("<!doctype html>") and 'name="viewport"' in html
    assert "http://" not in html and "https://" not in html and "<script" not in html


def test_recap_of_unplayed_session(toy_campaign):
    result = toy_campaign("recap", "--session", "3")
    assert result.exit_code == 1 and "no session has been played" in result.output


def test_audit_engine_roll_verified_after_session_end(played):
    out = data(played("audit", "6", "--json"))
    assert out["verdict"] == "verified" and out["chain"]["ok"]
    assert out["session"] == 1 and out["data"]["nonce"] == 0 and out["recorded_by"] == "gm"
    text = played("audit", "6").output
    assert "verified: these are the dice the seed committed" in text


def test_audit_open_session_is_pending(toy_campaign):
    invoke = toy_campaign
    invoke("session", "start")
    invoke("roll", "ann", "brawl")
    out = data(invoke("audit", "5", "--json"))
    assert out["verdict"] == "pending"
    assert "verifiable after the session ends" in out["detail"]


def test_audit_physical_roll_and_corrections(played):
    out = data(played("audit", "9", "--json"))
    assert out["status"] == "amended"
    assert out["corrections"][0]["reason"] == "armour took some"
    assert data(played("audit", "5", "--json"))["verdict"] == "recorded"


def test_audit_tampered_roll_fails(played, db_path):
    store = Store(db_path)
    store.conn.execute("drop trigger events_no_update")
    row = store.conn.execute("select data from events where seq = 6").fetchone()[0]
    roll = json.loads(row)
    roll["draws"][0][1] = roll["draws"][0][1] % 6 + 1
    store.conn.execute(
        "update events set data = ? where seq = 6",
        (json.dumps(roll, separators=(",", ":"), sort_keys=True),),
    )
    result = played("audit", "6")
    assert result.exit_code == 1
    assert "the log was changed" in result.output
    assert data(played("audit", "5", "--json"))["verdict"] == "recorded"  # before it: fine


def test_audit_player_cannot_see_gm_event(played):
    result = played("--as", "player", "audit", "8")
    assert result.exit_code == 1 and "GM-only" in result.output


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    secrets=st.lists(st.integers(min_value=10**6, max_value=10**7), min_size=1, max_size=4),
    blind=st.booleans(),
)
def test_no_player_view_contains_a_gm_value(toy_campaign, secrets, blind):
    invoke = toy_campaign
    if "open" not in invoke("session", "list").output:
        invoke("session", "start")
    for value in secrets:
        invoke("record", "secret-noted", "--character", "bob", "--value", str(value))
    if blind:
        invoke("roll", "ann", "brawl", "--dice", "1,1", "--blind")
    views = [
        invoke("--as", "player", "sheet", "bob", "--json").output,
        invoke("--as", "player", "log", "--json").output,
        invoke("--as", "player", "recap", "--session", "1").output,
        invoke("--as", "player", "recap", "--session", "1", "--format", "html").output,
        invoke("export").output,
    ]
    total = str(sum(secrets))
    for text in views:
        for value in [*map(str, secrets), total]:
            assert value not in text


def test_as_player_after_the_command_name(played):
    """`campaign recap --session 1 --as player` is the same as `campaign --as player recap`."""
    for args in (["recap", "--session", "1"], ["sheet", "bob", "--json"], ["log", "--json"]):
        after = played(*args, "--as", "player").output
        before = played("--as", "player", *args).output
        assert after == before and "8675309" not in after
    assert "8675309" in played("recap", "--session", "1", "--as", "gm").output
