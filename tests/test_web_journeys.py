"""The user journeys 1, 3, 4 and 7 (game night, end-of-session advancement, the GM's secrets,
phones at the table) driven in Debian's Chromium.

Every player and GM scene of the four journeys, at a phone's 390×844 (dark) and, with
``-m slow``, a laptop's 1280×800 (light; all four looks with ``LEDGER_SCREENSHOTS=1``): the
GM's entries (the CLI, and the taps of ``/gm``) and the players' rolls
(the phone's roll form, a roll request answered with one tap) each appear on every other open
page live, with no reload (how fast: bench/serve.py); a GM-only favour and condition reach a player's pages
and stream only as "GM-only entry"; a session's end makes the open log's engine rolls
verifiable live, its recap opens on the phone, and the phone's own verifier passes.

Each journey's campaign is built once per module (:func:`templates`) and copied for each
look; the scenes of one look are separate tests in the order written, on one live server
with its pages left open between them, as at the table (so a later scene needs the earlier
ones of its journey: select a journey or a look with ``-k``, not one scene). Each person
keeps one browser for every journey of a look (:class:`People`), signed in to each
journey's server with a link of its own. The end of each
scene is
screenshotted into a temporary folder; ``LEDGER_SCREENSHOTS=1`` also writes the scenes of
:data:`DOCUMENTED` into ``docs/img/journey-<scene>-<size>-<scheme>.png`` (390×844 light and
dark, 1280×800 light).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from .test_web_browser import CHROMIUM
from .webtools import PATIENCE, ROOT, THE_WORLD, Table, copy_table, live_server

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason="Debian's chromium is not installed (apt-get install chromium)",
)

CASEBOOK = ROOT / "campaigns" / "grand-casebook" / "characters"
MARCHES = ROOT / "campaigns" / "the-drowned-marches" / "characters"
SIZES = {"390x844": {"width": 390, "height": 844}, "1280x800": {"width": 1280, "height": 800}}
#: the looks whose screenshots docs/img keeps (LEDGER_SCREENSHOTS=1)
KEPT_LOOKS = {("390x844", "light"), ("390x844", "dark"), ("1280x800", "light")}
#: each journey on the phone in dark, and with the slow tests (``-m slow``; CI) on the laptop
#: in light (a size or a scheme changes the layout and colours, which
#: tests/test_web_accessibility.py checks on every page in each scheme and at each size, not
#: what reaches each page live); LEDGER_SCREENSHOTS=1 plays all four, for docs/img
LOOKS = (
    [pytest.param((size, scheme), id=f"{size}-{scheme}") for size in SIZES for scheme in ("light", "dark")]
    if os.environ.get("LEDGER_SCREENSHOTS")
    else [
        pytest.param(("390x844", "dark"), id="390x844-dark"),
        pytest.param(("1280x800", "light"), id="1280x800-light", marks=pytest.mark.slow),
    ]
)
#: the scenes whose screenshots docs/img keeps
DOCUMENTED = {"1-sheet", "3-recap-d20", "4-player-log", "7-gm-page", "7-request"}
#: Every frame the page's live streams deliver, kept in ``window.__frames`` (before any of
#: the page's own scripts run): what the player's browser received, not what it showed.
FRAME_SPY = """
window.__frames = [];
(function () {
  var Original = window.EventSource;
  if (!Original) { return; }
  window.EventSource = function (url, options) {
    var source = new Original(url, options);
    ["entry", "message", "revoked", "ended"].forEach(function (kind) {
      source.addEventListener(kind, function (e) { window.__frames.push(kind + " " + e.lastEventId + " " + e.data); });
    });
    return source;
  };
  window.EventSource.prototype = Original.prototype;
  window.EventSource.CLOSED = Original.CLOSED;
})();
"""

#: Journey 4's GM-only facts: no page or stream frame of a player may hold any of these.
CANARIES = ("missed the tithe", "Warden's mark", "favour", "favor")


# --- the campaigns, built once per module -----------------------------------------------------


@dataclass
class Templates:
    """One ledger file per journey's campaign, copied for each look."""

    wyrd: str
    d20: str
    terran: str


def isa_with_athletics(folder: Path) -> Path:
    """Isa's sheet with Athletics in place of Sing (journey 7 asks for her Athletics; the
    book gives a starting character exactly three skills)."""
    text = (THE_WORLD / "characters" / "isa.toml").read_text()
    assert 'name = "Sing"' in text
    sheet = folder / "isa.toml"
    sheet.write_text(text.replace('"Sing"', '"Athletics"'))
    return sheet


@pytest.fixture(scope="module")
def templates(tmp_path_factory) -> Templates:
    """Journey 1's Wyrd Engine casebook (Julian played by Mara, Felix by Oskar; no session
    yet), the d20-world vault of journeys 3, 4 and 7 (Isa played by Dana, Bram by Olu;
    session 1 open, Bram's two miscast Mendings — jinx 2 — and one engine roll of Isa's),
    and journey 3's Terran Engine marches (Kit played by Lee: session 1 open, Kit's and
    Jen's Ego lost, one engine roll of Jen's)."""
    folder = tmp_path_factory.mktemp("journeys")
    wyrd = Table(str(folder / "casebook.db"))
    wyrd.ok("new", "casebook", "--system", "wyrd-engine")
    for name in ("julian", "felix"):
        wyrd.ok("character", "add", "--sheet", str(CASEBOOK / f"{name}.toml"))
    d20 = Table(str(folder / "vault.db"))
    d20.ok("new", "vault", "--system", "d20-world")
    d20.ok("character", "add", "--sheet", str(isa_with_athletics(folder)))
    d20.ok("character", "add", "--sheet", str(THE_WORLD / "characters" / "bram.toml"))
    d20.ok("session", "start")
    d20.ok("roll", "bram", "Mending", "--time", "--dice", "10")
    d20.ok("roll", "bram", "Mending", "--time", "--dice", "10")
    d20.ok("roll", "isa", "Lockpicking", "--time")
    terran = Table(str(folder / "marches.db"))
    terran.ok("new", "marches", "--system", "terran-engine")
    for name in ("jen", "kit", "bo"):
        terran.ok("character", "add", "--sheet", str(MARCHES / f"{name}.toml"))
    terran.ok("session", "start")
    # the Ego lost that buys Experience (003_2aeb47bc6ca82a40.txt, "Experience"), as
    # tests/plugins/test_terran_engine_cli.py plays it; then one engine roll of Jen's
    terran.ok(
        "roll", "kit", "Violence", "--attribute", "Strength", "--dark", "2", "--dice", "2,3,1,2,3"
    )
    terran.ok(
        "roll", "jen", "Survival", "--attribute", "Strength", "--dark", "1", "--dice", "1,2,5,1"
    )
    terran.ok("roll", "jen", "Survival", "--attribute", "Strength")
    return Templates(wyrd.db, d20.db, terran.db)


def copy_of(db: str, folder: Path) -> Table:
    """A copy of the ledger file ``db`` in ``folder`` (SQLite's own backup: a consistent
    copy whatever its journal holds)."""
    return copy_table(db, folder / Path(db).name)


# --- the looks, the pages, the screenshots ----------------------------------------------------


@dataclass
class Look:
    """A viewport (``390x844`` or ``1280x800``) and a colour scheme."""

    size: str
    scheme: str

    @property
    def phone(self) -> bool:
        return self.size == "390x844"

    @property
    def viewport(self) -> dict[str, int]:
        return SIZES[self.size]


@pytest.fixture(scope="module", params=LOOKS)
def look(request) -> Look:
    return Look(*request.param)


@dataclass
class People:
    """The people's browsers for one look, shared by every journey's night: one browser
    context a person (Dana's phone is the same phone at each table), signed in to one
    night's server at a time (the session cookie names no port, so a night puts its own
    back before it opens a page)."""

    browser: Any
    look: Look
    contexts: dict[str, Any] = field(default_factory=dict)
    #: whose cookie jar holds which night's session now: person → the night's base URL
    at: dict[str, str] = field(default_factory=dict)

    def context(self, who: str) -> Any:
        """``who``'s browser context, made once."""
        if who not in self.contexts:
            phone = self.look.phone
            context = self.browser.new_context(
                viewport=self.look.viewport, is_mobile=phone, has_touch=phone,
                color_scheme=self.look.scheme, device_scale_factor=1,
            )  # fmt: skip
            context.set_default_timeout(PATIENCE)
            self.contexts[who] = context
        return self.contexts[who]


@pytest.fixture(scope="module")
def people(look, chromium) -> Iterator[People]:
    crowd = People(chromium, look)
    try:
        yield crowd
    finally:
        for context in crowd.contexts.values():
            context.close()


@dataclass
class Night:
    """One look's table: the ledger, the live server's base URL, and the people's open pages
    (their browsers, each one's session at this night's server, its pages by name, and the
    script errors they saw)."""

    table: Table
    base: str
    look: Look
    people: People
    shots: Path
    sessions: dict[str, list[Any]] = field(default_factory=dict)
    pages: dict[str, Any] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    def person(self, who: str) -> Any:
        """``who``'s browser, signed in to this night's server (with a new link, once: its
        answer sets the session cookie, as opening the link does; opening a link in the
        browser is tests/test_web_browser.py's and tests/test_web_phone_form.py's)."""
        context = self.people.context(who)
        if who not in self.sessions:
            answer = context.request.get(f"{self.base}/a/{self.table.link(who)}")
            assert answer.status == 200 and f"Welcome, {who}" in answer.text(), answer.text()
            cookies = [c for c in context.cookies() if c["name"] == "ledger_session"]
            assert len(cookies) == 1, cookies
            self.sessions[who] = cookies
        elif self.people.at.get(who) != self.base:
            context.add_cookies(self.sessions[who])
        self.people.at[who] = self.base
        return context

    def open(self, name: str, who: str, path: str, *, spy: bool = False) -> Any:
        """A page of ``who``'s browser at ``path``, kept open as ``name`` (the live log's
        stream connected before it is handed back)."""
        page = self.person(who).new_page()
        if spy:
            page.add_init_script(FRAME_SPY)
        page.on(
            "console",
            lambda m: (
                self.errors.append(f"{self.name_of(page)}: {m.text} {m.location}")
                if m.type == "error" else None
            ),
        )  # fmt: skip
        page.on("pageerror", lambda e: self.errors.append(f"{self.name_of(page)}: {e}"))
        page.on(
            "response",
            lambda r: (
                self.errors.append(f"{self.name_of(page)}: {r.status} {r.url}")
                if r.status >= 400 else None
            ),
        )  # fmt: skip
        return self.go(name, page, path)

    def go(self, name: str, page: Any, path: str) -> Any:
        """``page`` (one of this night's) taken to ``path``, kept open as ``name`` from now
        on (the live log's stream connected before it is handed back)."""
        page.goto(f"{self.base}{path}")
        if page.locator("#status").count():
            page.wait_for_selector("#status:has-text('Live')", timeout=PATIENCE)
        self.pages = {k: v for k, v in self.pages.items() if v is not page}
        self.pages[name] = page
        return page

    def name_of(self, page: Any) -> str:
        return next((k for k, v in self.pages.items() if v is page), "a page")

    def tap(self, page: Any, selector: str) -> None:
        """A tap on a phone, a click on a laptop, on ``page`` brought to the front (a tab
        behind another has its frames throttled: Playwright's wait for a stable element
        would take seconds)."""
        page.bring_to_front()
        if self.look.phone:
            page.tap(selector)
        else:
            page.click(selector)

    def shoot(self, page: Any, scene: str) -> Path:
        """The page at the end of ``scene``: no wider than the viewport, drawn in the look's
        scheme; screenshotted (into docs/img too for the kept scenes and looks when
        ``LEDGER_SCREENSHOTS`` is set)."""
        width = self.look.viewport["width"]
        assert page.evaluate("document.documentElement.scrollWidth") <= width, scene
        assert background_is(page, self.look.scheme), (scene, self.look.scheme)
        name = f"journey-{scene}-{self.look.size}-{self.look.scheme}.png"
        path = self.shots / name
        page.screenshot(path=str(path))
        assert path.stat().st_size > 5000
        if (
            os.environ.get("LEDGER_SCREENSHOTS")
            and scene in DOCUMENTED
            and (self.look.size, self.look.scheme) in KEPT_LOOKS
        ):
            shutil.copy(path, ROOT / "docs" / "img" / name)
        return path


def background_is(page: Any, scheme: str) -> bool:
    """Is the body's background light (``"light"``) or dark (``"dark"``)?"""
    rgb = page.evaluate("getComputedStyle(document.body).backgroundColor")
    r, g, b = (int(x) for x in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3])
    light = (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255 > 0.5
    return light == (scheme == "light")


def night_of(table: Table, people: People, shots: Path) -> Iterator[Night]:
    """A live server over ``table`` and a :class:`Night` for it; closes its pages."""
    with live_server(table.db) as base:
        night = Night(table, base, people.look, people, shots)
        try:
            yield night
        finally:
            for page in night.pages.values():
                if not page.is_closed():
                    page.close()


def entry_of(page: Any, seq: int) -> str:
    """The text of log entry ``seq`` on ``page`` once it is there (live, with no reload).
    How soon it comes is bench/serve.py's to measure: a test only waits, and a generous
    deadline bounds a hang."""
    arrives(page, f"#e{seq}", state="attached")
    return str(page.inner_text(f"#e{seq}"))


def arrives(page: Any, selector: str, state: str = "visible") -> None:
    """Wait for ``selector`` on ``page`` (what a new entry shows there), live."""
    page.wait_for_selector(selector, state=state, timeout=PATIENCE)


def no_script_error(night: Night) -> None:
    errors, night.errors[:] = list(night.errors), []
    assert not errors, errors  # no CSP violation, no script error on any open page


# --- journey 1: game night, physical dice (Wyrd Engine) ----------------------------------------


@pytest.fixture(scope="module")
def j1(templates, look, people, tmp_path_factory) -> Iterator[Night]:
    """The casebook for one look: Oskar's phone has the log and Felix's sheet open, Mara the
    GM's page."""
    folder = tmp_path_factory.mktemp(f"j1-{look.size}-{look.scheme}")
    yield from night_of(copy_of(templates.wyrd, folder), people, folder)


def test_j1_the_gms_cli_entries_appear_on_the_players_open_log(j1):
    """`campaign session start`, Julian's Investigate with the Fudge dice ++-0 against Good,
    a thug's 2 damage to Felix: each on Oskar's open log, live."""
    t = j1.table
    log = j1.open("log", "Oskar", "/log")
    j1.open("sheet", "Oskar", "/sheet/felix")
    for args, said in (
        (("session", "start"), "Session 1 started"),
        (("roll", "julian", "investigate", "--dr", "good", "--dice", "++-0"),
         "Julian Hargrave — Investigate +3, dice [+ + − ·] = +1, total 4 vs Difficult/Good (+2): "
         "success (margin 2)"),
        (("damage", "felix", "2"), "Felix Cavendish — takes 2 damage"),
    ):  # fmt: skip
        t.ok(*args)
        assert said in entry_of(log, t.head())
    roll = log.locator("li.roll").last
    assert "success" in (roll.get_attribute("class") or "")
    j1.shoot(log, "1-log")
    no_script_error(j1)


def test_j1_damage_tapped_on_the_gm_page_reaches_the_players_log_and_sheet(j1):
    """Mara applies 1 more damage to Felix from /gm: the page says it in the book's words,
    and Oskar's open log and open sheet have it, live."""
    t = j1.table
    gm = j1.open("gm", "gm", "/gm")
    log, sheet = j1.pages["log"], j1.pages["sheet"]
    stress = "#sheet li.track:has(.label:text-is('Stress')) .boxes"
    arrives(sheet, f"{stress}[aria-label='2 of 5 marked']")  # the thug's 2, live
    seq = t.head() + 1
    gm.fill("#amount-felix", "1")
    j1.tap(gm, "#c-felix button.apply")
    assert "Felix Cavendish — takes 1 damage" in entry_of(log, seq)
    arrives(sheet, f"{stress}[aria-label='3 of 5 marked']")
    gm.wait_for_url("**/gm?done=*")
    assert f"Recorded #{seq}" in gm.inner_text("#done")
    assert "Felix Cavendish — takes 1 damage" in gm.inner_text("#done")
    j1.shoot(gm, "1-gm-page")
    sheet.locator(stress).scroll_into_view_if_needed()
    j1.shoot(sheet, "1-sheet")
    no_script_error(j1)


# --- journey 3: the end of a session, advancement (d20-world, Terran Engine) ------------------


@dataclass
class Advancement:
    """Journey 3 in one system: whose phone, the GM's choices at ``campaign advance``, a
    line it writes, and what session 1's recap then says."""

    template: str
    player: str
    choices: tuple[str, ...]
    logged: str
    recap: tuple[str, ...]


ADVANCEMENTS = {
    # Bram rests: half his jinx recovered (d20-world "Jinx"; tests/plugins/test_d20_world_cli.py)
    "d20-world": Advancement(
        "d20", "Dana", ("--choice", "rest=bram"),
        "Bram Holloway — rests, recovering half the jinx (rounded up)",
        ("Rested (half the jinx recovered)", "Jinx 0 → 1"),
    ),
    # Kit's Ego lost buys Experience, spent on engine rolls (Terran Engine "Experience")
    "terran-engine": Advancement(
        "terran", "Lee",
        ("--choice", "kit.advance=1", "--choice", "kit.develop.Exploration=1",
         "--choice", "jen.develop.Social=1"),
        "Kit Ashdown — +2 Experience (Ego lost in session 1)",
        ("Exploration rose to 1", "Ego 4 → 2 (of 4)"),
    ),
}  # fmt: skip


@pytest.fixture(scope="module", params=list(ADVANCEMENTS))
def advancement(request) -> Advancement:
    return ADVANCEMENTS[request.param]


@pytest.fixture(scope="module")
def j3(templates, advancement, look, people, tmp_path_factory) -> Iterator[Night]:
    folder = tmp_path_factory.mktemp(f"j3-{advancement.template}-{look.size}-{look.scheme}")
    db = getattr(templates, advancement.template)
    yield from night_of(copy_of(db, folder), people, folder)


def test_j3_session_end_makes_the_open_logs_engine_roll_verifiable_live(j3, advancement):
    """`campaign session end` reveals the seed: the player's open log marks the session's
    engine roll "✓ verifiable" live, and shows the session's end."""
    t = j3.table
    log = j3.open("log", advancement.player, "/log")
    engine = log.locator("#log li[data-seed]")
    assert engine.count() == 1 and log.locator("#log .badge.verified").count() == 0
    seq = int(engine.get_attribute("data-seq") or 0)
    t.ok("session", "end")
    arrives(log, f"#e{seq} .badge.verified")
    assert log.inner_text(f"#e{seq} .badge.verified") == "✓ verifiable"
    assert "Session 1 ended" in log.inner_text("#log")
    j3.shoot(log, f"3-log-{advancement.template}")
    no_script_error(j3)


def test_j3_advancement_shows_live_and_the_recap_opens_on_the_phone(j3, advancement):
    """`campaign advance --session 1` with the players' choices lands on the player's open
    log live, its own engine rolls verifiable there at once (the downtime seed is
    revealed in the same batch); the player opens session 1's recap from the campaign's page
    and it tells the advancement."""
    t = j3.table
    log = j3.pages["log"]
    before = t.head()
    t.ok("advance", "--session", "1", *advancement.choices)
    head = t.head()
    assert head > before
    text = "".join(entry_of(log, seq) for seq in range(before + 1, head + 1))
    assert advancement.logged in text
    assert log.locator("#log li[data-seed]").count() == 0  # every engine roll verifiable
    home = j3.go("home", log, "/")  # the phone's tab, from the log to the campaign's page
    j3.tap(home, "a[href='/recap/1']")
    home.wait_for_url("**/recap/1")
    recap = home.inner_text("main")
    assert "Session 1" in recap and advancement.logged in recap
    assert all(words in recap for words in advancement.recap), recap
    assert "Receipt" in recap
    j3.shoot(home, f"3-recap-{advancement.template}")
    no_script_error(j3)


# --- journey 4: the GM's secrets (d20-world) ---------------------------------------------------


@pytest.fixture(scope="module")
def j4(templates, look, people, tmp_path_factory) -> Iterator[Night]:
    folder = tmp_path_factory.mktemp(f"j4-{look.size}-{look.scheme}")
    yield from night_of(copy_of(templates.d20, folder), people, folder)


def test_j4_the_gm_records_a_favour_and_a_hidden_condition_and_sees_them(j4):
    """From /gm: Isa's favour with the Guild −2 ("missed the tithe") and a hidden condition
    (the Warden's mark), each GM-only: the GM's page and log show them; Dana's open log
    (its stream watched frame by frame) gets each as a "GM-only entry", live."""
    t = j4.table
    dana = j4.open("player-log", "Dana", "/log", spy=True)
    gm = j4.open("gm", "gm", "/gm")
    # the favour: "Record another event" → Favour changed
    j4.tap(gm, "details.others > summary")
    form = "details.others details.tapfold:has(input[value='favour-changed'])"
    j4.tap(gm, f"{form} > summary")
    gm.select_option(f"{form} select[name=character]", "isa")
    gm.fill(f"{form} input[name='f.bond']", "the Guild")
    gm.fill(f"{form} input[name='f.delta']", "-2")
    j4.tap(gm, f"{form} details.more > summary")
    gm.fill(f"{form} input[name='f.reason']", "missed the tithe")
    favour = t.head() + 1
    j4.tap(gm, f"{form} button[type=submit]")
    assert entry_of(dana, favour).strip() == f"#{favour} GM-only entry"
    gm.wait_for_url("**/gm?done=*")
    assert "missed the tithe" in gm.inner_text("#done")
    # the hidden condition, on Isa's card
    card = "#c-isa details.tapfold:has(input[value='hidden-condition-added'])"
    j4.tap(gm, f"{card} > summary")
    gm.fill(f"{card} input[name='f.condition']", "Warden's mark")
    gm.fill(f"{card} input[name='f.lasts_minutes']", "60")
    hidden = t.head() + 1
    j4.tap(gm, f"{card} button[type=submit]")
    assert entry_of(dana, hidden).strip() == f"#{hidden} GM-only entry"
    gm.wait_for_url("**/gm?done=*")
    chips = gm.inner_text("#c-isa ul.chips")
    assert "Warden's mark" in chips and "hidden" in chips
    recent = gm.inner_text("#recent")
    assert "missed the tithe" in recent and recent.count("GM only") >= 2
    j4.shoot(gm, "4-gm-page")
    gm_log = j4.go("gm-log", gm, "/log")  # the GM's tab, from /gm to the log
    for seq in (favour, hidden):
        assert gm_log.locator(f"#e{seq} .badge.gm").count() == 1
    assert "missed the tithe" in gm_log.inner_text(f"#e{favour}")
    assert "Warden's mark" in gm_log.inner_text(f"#e{hidden}")
    no_script_error(j4)


def test_j4_every_player_page_and_stream_shows_only_gm_only_entry(j4):
    """Dana's pages (the campaign, the log, both sheets, Isa's roll form, the verifier; the
    audit of each secret is "not found") and every frame her open log's stream received: "GM-only entry" and nothing of
    what, whom or how."""
    t = j4.table
    head = t.head()
    dana = j4.pages["player-log"]
    frames = dana.evaluate("window.__frames")
    assert any(f.startswith(f"entry {head} ") for f in frames), frames
    for frame in frames:
        assert not any(c.lower() in frame.lower() for c in CANARIES), frame
    log_text = dana.inner_text("#log")
    assert log_text.count("GM-only entry") == 2
    for seq in (head - 1, head):  # a secret's audit: no such page for a player
        answer = j4.person("Dana").request.get(f"{j4.base}/audit/{seq}")
        assert answer.status == 404
        assert not any(c.lower() in answer.text().lower() for c in CANARIES)
    # her phone's tab (the stream watcher stays on it) through her pages, the log last
    for path in ("/", "/sheet/isa", "/sheet/bram", "/roll/isa", "/verify", "/log"):
        page = j4.go(f"player {path}", dana, path)
        html = page.content()
        for canary in CANARIES:
            assert canary.lower() not in html.lower(), (path, canary)
    reloaded = j4.pages["player /log"]
    assert reloaded.locator("li.stub").count() == 2
    j4.shoot(reloaded, "4-player-log")
    no_script_error(j4)


# --- journey 7: phones at the table (d20-world) ------------------------------------------------


@pytest.fixture(scope="module")
def j7(templates, look, people, tmp_path_factory) -> Iterator[Night]:
    folder = tmp_path_factory.mktemp(f"j7-{look.size}-{look.scheme}")
    yield from night_of(copy_of(templates.d20, folder), people, folder)


#: The journey's line, as the GM's page words it: the roll, then (after the rules' own
#: consequences, here d20-world's ", +1 xp" of a messy result) who entered the dice.
J7_ROLL = "Isa Marrow — Lockpicking +3, d20 14 = 17: messy"
J7_ENTERED = " — entered by Dana (physical dice)"


def test_j7_dana_rolls_lockpicking_14_from_her_phone_and_the_gm_sees_it(j7):
    """Dana taps Isa → Lockpicking, enters the 14 she rolled: the GM's open /gm page and
    open log show the journey's own line, live."""
    t = j7.table
    gm = j7.open("gm", "gm", "/gm")
    gm_log = j7.open("gm-log", "gm", "/log")
    phone = j7.open("home", "Dana", "/")
    j7.tap(phone, "a[href='/roll/isa']")
    phone.wait_for_url("**/roll/isa")
    j7.tap(phone, "label.chip:has-text('Lockpicking')")
    phone.wait_for_selector("#odds li:has-text('you need 15+ for good')")
    j7.tap(phone, "#dice")
    phone.keyboard.type("14")
    seq = t.head() + 1
    j7.tap(phone, "button[type=submit]")
    arrives(gm, f"#r-{seq}")
    said = gm.inner_text(f"#r-{seq}")
    assert said.startswith(f"#{seq} {J7_ROLL}") and said.endswith(J7_ENTERED), said
    just_in = gm.inner_text("#just-in")  # at the top of the page, where the GM looks
    assert just_in.startswith(f"Just in #{seq} — {J7_ROLL}") and J7_ENTERED in just_in
    line = entry_of(gm_log, seq)
    assert "Isa Marrow — Lockpicking +3, d20 14 = 17: messy" in line
    assert "entered by Dana (physical dice)" in line
    phone.wait_for_selector("#recorded")
    assert phone.inner_text("#recorded .headline") == f"Recorded #{seq} — ◐ mixed result"
    gm.locator(f"#r-{seq}").scroll_into_view_if_needed()
    j7.shoot(gm, "7-gm-page")
    gm.reload()  # and as the server draws the page
    assert gm.inner_text(f"#r-{seq}").startswith(said)
    no_script_error(j7)


def test_j7_the_gm_requests_athletics_and_danas_one_tap_roll_lands_on_the_gm_page(j7):
    """Mara taps "request a roll" for Isa's Athletics on /gm: Dana's open page shows it
    live; she taps Roll (her phone's randomness joins the draw) and the roll is
    on the GM's open page, live."""
    t = j7.table
    gm = j7.pages["gm"]
    phone = j7.pages["home"]
    phone.goto(f"{j7.base}/")
    phone.wait_for_selector("#requests[data-ready='1']", state="attached", timeout=PATIENCE)
    j7.tap(gm, "#c-isa details.tapfold:has(#skill-isa) > summary")
    gm.fill("#skill-isa", "Athletics")
    request = t.head() + 1
    j7.tap(gm, "#c-isa button:has-text('Ask Dana to roll')")
    arrives(phone, f"#r{request} button.roll-now")
    assert "Isa Marrow rolls Athletics" in phone.inner_text(f"#r{request}")
    gm.wait_for_url("**/gm?done=*")
    roll = request + 1
    j7.tap(phone, f"#r{request} button.roll-now")
    arrives(gm, f"#r-{roll}")
    assert "Isa Marrow — Athletics" in gm.inner_text(f"#r-{roll}")
    phone.wait_for_selector(f"#r{request} .answer-status.ok", timeout=PATIENCE)
    assert "drawn with your phone's randomness" in phone.inner_text(f"#r{request} .answer-status")
    j7.shoot(phone, "7-request")
    no_script_error(j7)


def test_j7_after_session_end_dana_taps_verify_and_her_browser_checks_the_night(j7):
    """`campaign session end`; Dana taps "Verify it" on the campaign's page: her browser
    recomputes the night's engine rolls (hers among them) from the revealed seed."""
    t = j7.table
    t.ok("session", "end")
    phone = j7.pages["home"]
    phone.goto(f"{j7.base}/")
    j7.tap(phone, "main a[href='/verify']")
    phone.wait_for_url("**/verify")
    j7.tap(phone, "#fetch-export")
    phone.wait_for_selector("#verdict[data-done='1']", timeout=PATIENCE)
    verdict = phone.inner_text("#verdict")
    assert verdict.startswith("OK: chain, seeds and 2 engine rolls check"), verdict
    phone.locator("#verdict").scroll_into_view_if_needed()
    j7.shoot(phone, "7-verify")
    no_script_error(j7)
