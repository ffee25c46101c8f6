"""The players' roll form on a phone: built from the rule system's roll params in the
book's words, skills as buttons, dice as face buttons or the numeric keypad, the exact odds
before rolling (from the plugin's own ``odds``), a refusal shown next to the field it is
about, and a "Recorded" confirmation on the log. A player's roll at the table, literally:
Dana taps Isa → Lockpicking, enters 14, and the GM sees "Isa Marrow — Lockpicking +3, d20 14
= 17: messy — entered by Dana (physical dice)"."""

from __future__ import annotations

import html
import json
import re
from fractions import Fraction
from html.parser import HTMLParser
from pathlib import Path

import pytest

from ledger.campaign.aggregate import open_campaign
from ledger.rules.form import percent_text
from ledger.rules.plugins import load_system
from ledger.store.opening import open_store

from .webtools import PATIENCE, ROOT, Table, client, copy_table, csrf, d20_table, live_server

CAMPAIGNS = ROOT / "campaigns"

#: One sheet of each bundled system's example campaign.
SHEETS = {
    "d20-world": CAMPAIGNS / "the-world" / "characters" / "isa.toml",
    "wyrd-engine": CAMPAIGNS / "grand-casebook" / "characters" / "julian.toml",
    "decision-dice": CAMPAIGNS / "the-salt-road" / "characters" / "jen.toml",
    "spellwoven": CAMPAIGNS / "nimble-jen" / "characters" / "jen.toml",
    "terran-engine": CAMPAIGNS / "the-drowned-marches" / "characters" / "jen.toml",
}


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> str:
    """The Warden's Vault (:func:`d20_table`), built once for the module."""
    return d20_table(str(tmp_path_factory.mktemp("vault") / "ledger.db")).db


@pytest.fixture
def table(built, tmp_path):
    """A copy of the Warden's Vault of its own for each test."""
    return copy_table(built, tmp_path / "ledger.db")


class FormReader(HTMLParser):
    """What a browser would send for a form as it stands: hidden fields, ticked boxes and
    radios, filled text inputs (the form's own defaults)."""

    def __init__(self) -> None:
        super().__init__()
        self.values: dict[str, str] = {}
        self.inputs: list[dict[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "select":  # a closed choice: sent as its selected option
            self.inputs.append({**a, "type": "select"})
            self._select = a.get("name", "")
            return
        if tag == "option" and "selected" in a and getattr(self, "_select", ""):
            self._pick = True
            return
        if tag != "input":
            return
        self.inputs.append(a)
        kind = a.get("type", "text")
        if kind in ("checkbox", "radio") and "checked" not in a:
            return
        if a.get("name") and (a.get("value") or kind in ("checkbox", "radio")):
            self.values[a["name"]] = a.get("value", "")

    def handle_data(self, data: str) -> None:
        if getattr(self, "_pick", False):
            self.values[self._select] = data.strip()
            self._pick = False

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self._select = ""


def form_of(page: str) -> FormReader:
    reader = FormReader()
    reader.feed(page[page.index('<form method="post" action="/roll/') :])
    return reader


def system_table(tmp_path: Path, system: str) -> tuple[Table, str]:
    """A campaign of ``system`` with one character (from its example campaign's sheet) and
    session 1 open; returns the table and the character's id."""
    t = Table(str(tmp_path / f"{system}.db"))
    t.ok("new", system.replace("-", ""), "--system", system)
    t.ok("character", "add", "--sheet", str(SHEETS[system]))
    t.ok("session", "start")
    store = open_store(t.db)
    try:
        (cid,) = open_campaign(store).characters()
    finally:
        store.close()
    return t, cid


def test_journey_7_dana_taps_lockpicking_enters_14_and_the_gm_sees_it(table):
    """The literal journey: the form as it comes (its defaults), Lockpicking tapped, 14
    typed; nothing else touched."""
    with client(table, "Dana") as c:
        page = c.get("/roll/isa").text
        sent = form_of(page).values
        assert sent.get("time") == "1", "a check needs skill and one more factor: time by default"
        sent.update(skill="Lockpicking", dice="14")
        r = c.post("/roll/isa", data=sent, headers={"origin": "http://testserver"})
        assert r.status_code == 303, r.text[:500]
        seq = table.head()
        assert r.headers["location"] == f"/log?recorded={seq}&verdict=mixed#e{seq}"
    with client(table, "gm") as gm:
        line = re.search(rf'<li id="e{seq}".*?</li>', gm.get("/log").text, re.S)
    assert line is not None
    text = html.unescape(re.sub(r"<[^>]+>", "", line[0]))
    assert "Isa Marrow — Lockpicking +3, d20 14 = 17: messy" in text
    assert "entered by Dana (physical dice)" in text


def test_the_recorded_confirmation_banner_is_on_the_log(table):
    """The log renders the banner itself from the entry (tests/test_web_log.py): the
    verdict is the ledger's, not the address's (``&verdict=`` is not read)."""
    with client(table, "Dana") as c:
        log = c.get("/log?recorded=5&verdict=success").text
    banner = re.search(r'<section id="recorded".*?</section>', log, re.S)
    assert banner and 'role="status"' in banner[0]
    said = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", banner[0])).split())
    assert said.startswith("Recorded #5 — ◐ mixed result")


def test_skills_are_buttons_most_rolled_first(table):
    table.ok("roll", "isa", "Forage", "--time", "--dice", "12")
    table.ok("roll", "isa", "Forage", "--time", "--dice", "13")
    with client(table, "Dana") as c:
        page = c.get("/roll/isa").text
    skills = [
        i["value"]
        for i in form_of(page).inputs
        if i.get("name") == "skill" and i.get("type") == "radio"
    ]
    # Forage twice, Lockpicking once (the table's first roll), Sing never
    assert skills == ["Forage", "Lockpicking", "Sing"]


def test_the_d20_is_typed_on_the_numeric_keypad(table):
    with client(table, "Dana") as c:
        page = c.get("/roll/isa").text
    dice = next(i for i in form_of(page).inputs if i.get("name") == "dice")
    assert dice["inputmode"] == "numeric" and "placeholder" not in dice


def test_wyrd_engine_fudge_dice_are_plus_blank_minus_buttons(tmp_path):
    t, cid = system_table(tmp_path, "wyrd-engine")
    with client(t, "gm") as c:
        page = c.get(f"/roll/{cid}").text
    faces = re.findall(
        r'<button type="button" class="face fudge" data-face="([^"]+)" aria-label="([^"]+)">', page
    )
    assert faces == [("+", "plus"), ("0", "blank"), ("-", "minus")]
    assert "Difficulty Rating" in page and "The four Fudge dice: what you rolled" in page
    inputs = {i.get("name"): i for i in form_of(page).inputs}
    assert inputs["dice"]["inputmode"] == "text"  # + and − are not on the numeric keypad
    assert inputs["boost"]["inputmode"] == "numeric" and inputs["boost"]["type"] == "number"
    assert (inputs["boost"]["min"], inputs["boost"]["max"]) == ("1", "2")
    assert inputs["situational"]["inputmode"] == "text"  # -6 to +6: the keypad has no minus


def test_the_odds_preview_is_the_plugins_odds(table):
    """Isa's Lockpicking +3, a normal check: `campaign odds d20-world --proficiency 3`
    gives good 3/10 ("Checks": 18+ good, so 15+ on the d20), messy 9/20, bad 1/4."""
    book = load_system("d20-world").odds({"proficiency": 3})
    with client(table, "Dana") as c:
        part = c.get("/roll/isa/preview?skill=Lockpicking&time=1").text
        advantage = c.get("/roll/isa/preview?skill=Lockpicking&time=1&advantage=1").text
    text = html.unescape(re.sub(r"<[^>]+>", "", part))
    assert f"you need 15+ for good: {percent_text(Fraction(book['good']))}" in text
    assert "you need 15+ for good: 30%" in text
    assert f"6 to 14: messy: {percent_text(Fraction(book['messy']))}" in text
    assert "5 or less: bad: 25%" in text
    with_advantage = load_system("d20-world").odds({"proficiency": 3, "advantage": True})
    assert f'data-chance="{with_advantage["good"]}"' in advantage
    assert "on the higher d20" in advantage


def test_the_odds_preview_of_wyrd_engine_is_its_odds(tmp_path):
    t, cid = system_table(tmp_path, "wyrd-engine")
    system = load_system("wyrd-engine")
    with client(t, "gm") as c:
        part = c.get(f"/roll/{cid}/preview?skill=Investigate&dr=good").text
    state_rating = re.search(r"you need ([+−-]?\d+) or more on the four dice", html.unescape(part))
    assert state_rating, part
    win = re.search(r'data-chance="([^"]+)">you need', part)[1]
    need = int(state_rating[1].replace("−", "-"))
    row = system.odds({"skill": 2 - need, "dr": "good"})["ladder"][0]
    assert row["success"] == win


def test_a_refusal_is_shown_next_to_the_field_that_caused_it(table):
    head = table.head()
    with client(table, "Dana") as c:
        # no time, no tools: with skill alone the rules make no check ("Checks")
        r = c.post(
            "/roll/isa",
            data={"csrf": csrf(c), "nonce": nonce_of(c), "skill": "Lockpicking", "dice": "14"},
            headers={"origin": "http://testserver"},
        )
        assert r.status_code == 422
        err = re.search(
            r'<p class="error field-error" role="alert" id="err-time">(.*?)</p>', r.text, re.S
        )
        assert err and "no check is made" in err[1] and "automatic failure" in err[1]
        assert (
            r.text.index('id="f-time"')
            < r.text.index('id="err-time"')
            < r.text.index('id="f-tools"')
        )
        # a face the d20 cannot show: next to the dice
        r = c.post(
            "/roll/isa",
            data={
                "csrf": csrf(c),
                "nonce": nonce_of(c),
                "skill": "Lockpicking",
                "time": "1",
                "dice": "21",
            },
            headers={"origin": "http://testserver"},
        )
        assert r.status_code == 422 and 'id="err-dice"' in r.text and "cannot show 21" in r.text
        # a bad trait: next to the trait, the More options opened
        r = c.post(
            "/roll/isa",
            data={
                "csrf": csrf(c),
                "nonce": nonce_of(c),
                "skill": "Lockpicking",
                "time": "1",
                "dice": "12",
                "trait": "Nope:help",
            },
            headers={"origin": "http://testserver"},
        )
        assert r.status_code == 422 and 'id="err-trait"' in r.text
        assert '<details class="more" open>' in r.text
        # the preview says it as the fields change, with the field it is about
        part = c.get("/roll/isa/preview?skill=Lockpicking").text
        assert 'data-field="time"' in part and "no check is made" in part
    assert table.head() == head


def nonce_of(c) -> str:
    return re.search(r'name="nonce" value="([^"]+)"', c.get("/roll/isa").text)[1]


def test_a_forged_field_is_refused_with_one_line(table):
    head = table.head()
    with client(table, "Dana") as c:
        for forged in ({"blind": "1"}, {"dr": "good"}, {"shock_everyone": "1"}):
            data = {
                "csrf": csrf(c),
                "nonce": nonce_of(c),
                "skill": "Lockpicking",
                "time": "1",
                "dice": "14",
                **forged,
            }
            r = c.post("/roll/isa", data=data, headers={"origin": "http://testserver"})
            assert r.status_code == 422
            assert len(re.findall(r'<p class="error[^"]*" role="alert"', r.text)) == 1
            assert "a field the roll form does not show" in r.text
        part = c.get("/roll/isa/preview?skill=Lockpicking&blind=1").text
        assert "a field the roll form does not show" in part
        assert c.get("/roll/bram/preview?skill=Brawl").status_code == 404
    assert table.head() == head


@pytest.mark.parametrize("system", sorted(SHEETS))
def test_no_command_line_text_in_any_roll_form(tmp_path, system):
    t, cid = system_table(tmp_path, system)
    for who in ("gm", "Dana"):
        with client(t, who) as c:
            page = c.get(f"/roll/{cid}")
            if page.status_code == 404:  # Dana plays only the d20-world character
                continue
            assert page.status_code == 200
            text = re.sub(r"<script.*?</script>|<[^>]+>", " ", page.text, flags=re.S)
            assert "--" not in html.unescape(text), (system, who)
            assert "3,5 or ++-0" not in page.text
            fields = form_of(page.text)
            names = {i.get("name") for i in fields.inputs}
            common = [p.name for p in load_system(system).roll_params if p.common]
            assert common and set(common) <= names
            assert '<details class="more">' in page.text


def test_a_request_card_enters_dice_with_the_systems_keypad(table):
    table.ok("request", "isa", "Lockpicking", "--time")
    with client(table, "Dana") as c:
        part = c.get("/requests/part").text
    assert 'inputmode="numeric"' in part and "The d20: what you rolled, in order" in part
    assert "3,5 or ++-0" not in part and 'class="roll-now"' in part


def test_journey_7_tapped_through_on_a_390_px_phone(table, browser, shots):
    """Playwright at 390×844: the form fits, the tap targets are 44 px, the odds show, and
    Lockpicking → 14 → Record lands on the log with "Recorded #N — mixed result"."""
    token = table.link("Dana")
    with live_server(table.db) as base:
        context = browser.new_context(
            viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
        )
        phone = context.new_page()
        errors: list[str] = []
        phone.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        phone.on("pageerror", lambda e: errors.append(str(e)))
        phone.goto(f"{base}/a/{token}")
        phone.wait_for_url(f"{base}/")
        phone.tap('a[href="/roll/isa"]')  # Isa →
        phone.wait_for_url(f"{base}/roll/isa")
        phone.tap("label.chip:has-text('Lockpicking')")
        phone.wait_for_selector("#odds li:has-text('you need 15+ for good')")
        assert "30%" in phone.inner_text("#odds")
        phone.tap("#dice")
        phone.keyboard.type("14")
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
        for selector in ("label.chip span", "#dice", "label.check", "button[type=submit]"):
            box = phone.locator(selector).first.bounding_box()
            assert box is not None and box["height"] >= 44, selector
        shot = shots / "phone-roll.png"  # LEDGER_SCREENSHOTS=1 keeps it for the docs
        phone.screenshot(path=str(shot))
        assert shot.stat().st_size > 5000
        phone.tap("button[type=submit]")
        phone.wait_for_url("**/log?recorded=*")
        seq = int(phone.url.split("#e")[1])
        phone.wait_for_selector("#recorded")
        assert phone.inner_text("#recorded .headline") == f"Recorded #{seq} — ◐ mixed result"
        line = phone.inner_text(f"#e{seq}")
        assert (
            "Lockpicking +3, d20 14 = 17: messy" in line
            and "entered by Dana (physical dice)" in line
        )
        assert "recorded" in (phone.get_attribute(f"#e{seq}", "class") or "")
        assert not errors, errors
        context.close()


def test_a_roll_request_answered_with_enter_dice_on_a_390_px_phone(table, browser):
    """The GM asks Isa for Lockpicking with time; Dana taps "Enter dice", types 14 on the
    numeric keypad and sends it: one roll, answering the request, entered by Dana."""
    token = table.link("Dana")
    with live_server(table.db) as base:
        context = browser.new_context(
            viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
        )
        phone = context.new_page()
        errors: list[str] = []
        phone.on("pageerror", lambda e: errors.append(str(e)))
        phone.goto(f"{base}/a/{token}")
        phone.wait_for_url(f"{base}/")
        phone.wait_for_selector("#requests[data-ready='1']", state="attached", timeout=PATIENCE)
        seq = int(json.loads(table.ok("request", "isa", "Lockpicking", "--time", "--json"))["seq"])
        phone.wait_for_selector(f"#r{seq} button.roll-now", state="visible", timeout=PATIENCE)
        phone.tap(f"#r{seq} details.dice summary")
        dice = phone.locator(f"#dice-{seq}")
        assert dice.get_attribute("inputmode") == "numeric"
        dice.tap()
        phone.keyboard.type("14")
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
        phone.tap(f"#r{seq} button.send-dice")
        phone.wait_for_selector(f"#r{seq} .answer-status.ok", timeout=PATIENCE)
        roll = int(re.search(r"event (\d+)", phone.inner_text(f"#r{seq} .answer-status"))[1])
        assert not errors, errors
        context.close()
    with client(table, "gm") as gm:
        line = re.search(rf'<li id="e{roll}".*?</li>', gm.get("/log").text, re.S)
    text = html.unescape(re.sub(r"<[^>]+>", "", line[0]))
    assert (
        "Lockpicking +3, d20 14 = 17: messy" in text and "entered by Dana (physical dice)" in text
    )


@pytest.mark.parametrize(
    ("system", "query", "params", "key", "sentence"),
    [
        # Jen's MIGHT against 8 on 2d6 (002_735c6d6cd834a641.txt, "Decision Rolls")
        (
            "decision-dice",
            "skill=Might&target=8",
            {"stat": 0, "target": "8"},
            "success",
            "you need 8+ on the 2d6 to meet 8",
        ),
        # Jen's Sprint against Normal (004_663ae3e4ecc71fd1.txt, "Example: Static Difficulty")
        ("spellwoven", "skill=Sprint&difficulty=1", None, "pass", "you need 1 success to pass"),
        # Jen's Exploration with Agility: 4 dice (003_2aeb47bc6ca82a40.txt, "2.1 Risky Actions")
        (
            "terran-engine",
            "skill=Exploration&attribute=Agility",
            {"pool": 4},
            "risky_action.success",
            "a 6 on any of 4 dice: success",
        ),
    ],
)
def test_the_odds_preview_of_other_systems_is_their_odds(
    tmp_path, system, query, params, key, sentence
):
    t, cid = system_table(tmp_path, system)
    rules = load_system(system)
    if params is None:  # the Skill Level the sheet gives, read back from the planned roll
        store = open_store(t.db)
        try:
            campaign = open_campaign(store)
            from ledger.dice.engine import CountingDice
            from ledger.rules.roll_inputs import RollRequest

            state = campaign.state_of(cid, as_gm=True)
            event = rules.resolve(
                state, RollRequest(cid, "Jen", "Sprint", {"difficulty": "1"}), CountingDice([])
            )
        finally:
            store.close()
        params = {"skill": event.skill_level, "difficulty": 1}
    got = rules.odds(params)
    for part in key.split("."):
        got = got[part]
    chance = Fraction(got)
    with client(t, "gm") as c:
        part = html.unescape(c.get(f"/roll/{cid}/preview?{query}").text)
    assert f"{sentence}: <strong>{percent_text(chance)}</strong>" in part
