"""Audit pages and sheets in sentences: every event of each bundled campaign (one per
rule system, every roll kind of the five systems: engine and physical, contests, advancement,
and a blind d20 check, a correction) is audited in the GM's view and the players', and every
sheet is read: no Python value may reach the page (``None``, ``True``, ``False``, ``[(``,
``{'``)."""

from __future__ import annotations

import html
import re

import msgspec
import pytest

from ledger.campaign.aggregate import open_campaign
from ledger.events import Roll
from ledger.store.sqlite import Store
from ledger.web.facts import dice_words, field_facts, value_words

from .bundled import NAMES as CAMPAIGNS
from .bundled import copy_built
from .webtools import Table, client

#: what a Python value looks like on a page
REPR = re.compile(r"\bNone\b|\bTrue\b|\bFalse\b|\[\(|\{'|\['")


def main_text(page: str) -> str:
    """The words of a page's ``<main>`` as a person reads them (tags and attributes gone)."""
    body = page.split("<main", 1)[1].split("</main>", 1)[0]
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", "<main" + body)).split())


@pytest.fixture(scope="module")
def played(tmp_path_factory, bundled_root):
    """Every bundled campaign (copies of the run's builds, fixed clock), plus a blind d20
    check and a correction in the d20 one: ``{name: db path}``."""
    from freezegun import freeze_time

    out = {}
    root = tmp_path_factory.mktemp("sentences")
    with freeze_time("2026-03-01 19:00:00", tick=True):
        for name in CAMPAIGNS:
            db = copy_built(bundled_root, name, root / f"{name}.db")
            t = Table(str(db))
            if name == "the-world":  # d20-world: its blind check, and a correction
                t.ok("session", "start")
                t.ok("roll", "bram", "Brawl", "--time", "--blind")
                rolled = msgspec.json.decode(
                    t.ok("roll", "isa", "Lockpicking", "--time", "--dice", "14", "--json")
                )
                t.ok("correct", str(rolled["seq"]), "--dice", "15", "--reason", "misread")
            out[name] = str(db)
    return out


def roll_kinds(db: str) -> set[str]:
    campaign = open_campaign(Store(db))
    return {rec.type for rec in campaign.records(as_gm=True) if isinstance(rec.data, Roll)}


@pytest.mark.parametrize("name", CAMPAIGNS)
def test_audit_pages_and_sheets_speak_in_sentences(played, name):
    db = played[name]
    t = Table(db)
    campaign = open_campaign(Store(db))
    system = campaign.system
    kinds = {msgspec.inspect.type_info(k).tag for k in system.event_types if issubclass(k, Roll)}
    assert kinds <= roll_kinds(db), f"{name} misses roll kinds {kinds - roll_kinds(db)}"
    head = t.head()
    characters = list(campaign.characters())
    seen = 0
    for who in ("gm", "Player"):
        with client(t, who) as c:
            for seq in range(1, head + 1):
                r = c.get(f"/audit/{seq}")
                if r.status_code == 404:  # GM-only, to a player
                    assert who != "gm"
                    continue
                assert r.status_code == 200, (seq, r.text[:300])
                said = main_text(r.text)
                found = REPR.search(said)
                assert not found, f"{name} /audit/{seq} ({who}) says {found[0]!r}: {said[:600]}"
                seen += 1
            for cid in characters:
                said = main_text(c.get(f"/sheet/{cid}").text)
                found = REPR.search(said)
                assert not found, f"{name} /sheet/{cid} ({who}) says {found[0]!r}: {said[:600]}"
    assert seen > head  # the GM's view of every event and the players' of the public ones


def test_a_roll_audit_says_the_dice_the_source_and_the_verdict_in_words(played):
    t = Table(played["the-world"])
    campaign = open_campaign(Store(t.db))
    physical = next(
        rec.seq for rec in campaign.records(as_gm=False)
        if isinstance(rec.data, Roll) and rec.data.source == "physical"
    )  # fmt: skip
    engine = next(
        rec.seq for rec in campaign.records(as_gm=False)
        if isinstance(rec.data, Roll) and rec.data.source == "engine" and rec.session == 2
    )  # fmt: skip
    with client(t, "gm") as c:
        phys = main_text(c.get(f"/audit/{physical}").text)
        eng = main_text(c.get(f"/audit/{engine}").text)
    faces = dice_words(msgspec.to_builtins(campaign.record(physical).data)["draws"])
    assert f"Dice {faces}." in phys
    assert "Entered by the GM (physical dice: the faces read at the table)." in phys
    assert phys.count("Recorded: physical dice entered by the GM.") == 1
    assert "Verified: the revealed seed gives these dice (session 2's seed)" in eng
    assert "Drawn by the ledger from session 2's seed, its engine roll number" in eng


def test_a_downtime_roll_is_verifiable_from_the_downtime_seed(played):
    """terran-engine's advancement dice draw from the downtime seed after session 1, revealed
    later: the log's badge and the audit's verdict both name it."""
    t = Table(played["the-drowned-marches"])
    campaign = open_campaign(Store(t.db))
    seq = next(
        rec.seq for rec in campaign.records(as_gm=False)
        if rec.type == "terran-engine.advancement_rolled"
    )  # fmt: skip
    with client(t, "Player") as c:
        log = c.get("/log").text
        audit = main_text(c.get(f"/audit/{seq}").text)
    item = re.search(rf'<li id="e{seq}".*?</li>', log, re.S)
    assert item and "✓ verifiable" in item[0]
    assert "Verified: the revealed seed gives these dice (the downtime seed of session 1)" in audit
    assert "Drawn by the ledger from the downtime seed of session 1" in audit


def test_values_in_words():
    for before in ("draws [(20, 14)]", "nonce None", "known True", "{'bag': True}"):
        assert REPR.search(before)  # what the audit page printed before it spoke in sentences
    assert dice_words([[20, 14]]) == "d20 showed 14"
    assert dice_words([[6, 3], [6, 5], [10, 1]]) == "2d6 showed 3 and 5; d10 showed 1"
    assert dice_words([[3, 3], [3, 1], [3, 2], [3, 3]]) == "4 Fudge dice showed +, −, · and +"
    assert dice_words([]) == "no dice"
    assert [value_words(v) for v in (None, True, False, [], ["a", "b"], "", 2.0)] == [
        "—", "yes", "no", "none", "a, b", "—", "2"]  # fmt: skip
    facts = field_facts({"sheet": {"bag": True, "items": [{"name": "Lute", "bulky": True}]}})
    assert facts[0].label == "Sheet"
    bag, items = facts[0].children
    assert (bag.label, bag.text) == ("Bag", "yes")
    assert (items.children[0].label, items.children[0].text) == ("Lute", "bulky yes")
