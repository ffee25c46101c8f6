"""What every front end shows is computed once, below them: the sheet as a viewer may see
it (:func:`ledger.campaign.viewing.sheet_for`), the undo target (:mod:`ledger.campaign.undo`),
the log line (:func:`ledger.history.words.line`) and the refusal (:class:`ledger.errors.Refused`).

Each promise has a parity check that feeds one ledger to every front end that shows it (the
CLI, ``campaign play``, a player's pages, the GM's pages, the JSON API) and compares what
each shows with the shared function's answer; and a test that makes one front end bypass
the shared function and sees the parity check fail.

The ledger is played by :class:`SlipToy`, the toy rules with a slip a plugin could make:
its players' layout holds an item it marks GM-only (:data:`CANARY`), and its GM's layout an
item it forgets to mark. A players' view must never show the first; the GM's must mark both.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from ledger.campaign.aggregate import open_campaign
from ledger.cli import cli
from ledger.rules.sheets import Line, Section, Sheet
from ledger.store.opening import open_store
from ledger.testing import registered
from ledger.web.app import Server

from .toy import Toy
from .webtools import Table, client, login, post, toy_table

API = "/api/v1"
#: What SlipToy's players' layout carries by mistake, marked GM-only.
CANARY = "Zq-slip-canary-7c1e"
#: What SlipToy's GM layout shows and does not mark (the core must mark it).
UNMARKED = "Zq-unmarked-secret"


class SlipToy(Toy):
    """The toy rules, with a sheet layout that slips: a GM-only item in the players' layout
    and an unmarked GM-only fact in the GM's."""

    def sheet_layout(self, state: Any, *, as_gm: bool) -> Sheet:
        items: list[Any] = [
            Line(label="Hit points", value=str(state.hp)),
            Line(label="Skills", value=", ".join(f"{k} {v}" for k, v in state.skills.items())),
            Line(label="Omen", value=CANARY, gm_only=True),  # the slip: in every layout
        ]
        if as_gm:
            items.append(Line(label="Secret", value=f"{UNMARKED} {state.secret}"))
        return Sheet(title=state.name, sections=(Section(title="Sheet", items=tuple(items)),))


@pytest.fixture
def slip_toy() -> Iterator[None]:
    """:class:`SlipToy` registered as ``toy`` for one test, unregistered after (in a
    ``finally``, by :func:`ledger.testing.registered`)."""
    with registered(SlipToy()):
        yield


def table(path: str) -> Table:
    """Ann Vance (played by Dana) at the toybox: session 1 open, a roll Dana entered, a
    GM-only secret on Ann, damage, and an open roll request."""
    t = toy_table(path)
    t.ok("character", "add", "--sheet", _sheet(path, "bob", 'name = "Bob Marsh"\nplayer = "Olu"\n[skills]\nsneak = 1\n'))
    t.ok("--actor", "Dana", "roll", "ann", "brawl", "--dice", "3,4")
    t.ok("record", "secret-noted", "--character", "ann", "--value", "4242")
    t.ok("record", "hurt", "--character", "ann", "--amount", "2")
    t.ok("request", "ann", "brawl")
    return t


def _sheet(db: str, name: str, text: str) -> str:
    from pathlib import Path

    path = Path(db).parent / f"{name}.toml"
    path.write_text(text)
    return str(path)


def opened(t: Table) -> Any:
    store = open_store(t.db)
    return store, open_campaign(store)


def api_token(t: Table, who: str, scope: str) -> str:
    """An API token for ``who`` (Dana's plays Ann)."""
    more = ["--character", "ann"] if who == "Dana" else []
    out = t.ok("access", "add", who, "--api", "--scope", scope, *more, "--json")
    return str(json.loads(out)["token"])


def signed_in(t: Table, who: str) -> TestClient:
    """A client of the web view signed in as ``who`` (Dana's link reaches Ann)."""
    c = client(t)
    login(c, t.link(who, "ann") if who == "Dana" else t.link(who))
    return c


def play(t: Table, text: str, *args: str) -> str:
    r = CliRunner().invoke(cli, ["--db", t.db, *args, "play"], input=text)
    return r.output


def api_get(t: Table, token: str, path: str) -> Any:
    with TestClient(Server(t.db).app, base_url="http://testserver") as c:
        r = c.get(API + path, headers={"authorization": f"Bearer {token}"})
    assert r.status_code == 200, r.text
    return r


# --- the sheet as a viewer may see it -------------------------------------------------------


def expected_sheets(t: Table, as_gm: bool) -> dict[str, Any]:
    """The shared sheet, and what each front end's renderer makes of it."""
    from ledger.campaign.viewing import sheet_for
    from ledger.cli.views import headed
    from ledger.rules.sheets import render_text
    from ledger.templating import environment

    store, campaign = opened(t)
    try:
        shown = sheet_for(campaign, "ann", as_gm=as_gm)
        upto = store.head(campaign.id).seq
        text = render_text(headed(campaign, "ann", upto, as_gm), color=False)
    finally:
        store.close()
    fragment = str(environment().get_template("sheet.html.j2").module.sheet_fragment(shown))
    as_json = json.loads(msgspec.json.encode(shown))
    return {"sheet": shown, "text": text, "html": fragment, "json": as_json}


def sheets_shown(t: Table, as_gm: bool) -> dict[str, Any]:
    """Ann's sheet as each front end shows it to the GM or to Dana (her player)."""
    who, view = ("gm", "gm") if as_gm else ("Dana", "player")
    token = api_token(t, who, "gm" if as_gm else "read")
    shown: dict[str, Any] = {}
    r = CliRunner().invoke(cli, ["--db", t.db, "--as", view, "sheet", "ann"])
    assert r.exit_code == 0, r.output
    shown["cli"] = r.output
    shown["play"] = play(t, "sheet ann\n", "--as", view)
    with signed_in(t, who) as c:
        shown["page"] = c.get("/sheet/ann/part").text
        shown["page whole"] = c.get("/sheet/ann").text
    shown["api"] = api_get(t, token, "/sheet/ann").json()["layout"]
    return shown


def check_sheet_parity(t: Table) -> None:
    for as_gm in (False, True):
        want = expected_sheets(t, as_gm)
        got = sheets_shown(t, as_gm)
        assert got["cli"] == want["text"], ("cli", as_gm)
        assert want["text"] in got["play"], ("play", as_gm)
        assert got["page"] == want["html"], ("page", as_gm)
        assert want["html"] in got["page whole"], ("page whole", as_gm)
        assert got["api"] == want["json"], ("api", as_gm)
        items = {i.label: i for s in want["sheet"].sections for i in s.items}
        if as_gm:  # every fact, each GM-only one marked: the plugin's and the one it forgot
            assert items["Omen"].gm_only and items["Secret"].gm_only
            assert want["text"].count("[GM]") == 2
        else:
            assert "Omen" not in items and "Secret" not in items
            for what, body in got.items():
                assert CANARY not in json.dumps(body), f"the slip reached a player by {what}"
                assert UNMARKED not in json.dumps(body), what


@pytest.mark.usefixtures("slip_toy", "frozen")
def test_every_front_end_shows_the_one_sheet_the_viewer_may_see(tmp_path):
    check_sheet_parity(table(str(tmp_path / "toybox.db")))


@pytest.mark.usefixtures("slip_toy", "frozen")
@pytest.mark.parametrize("front", ["web", "cli", "api"])
def test_the_sheet_parity_check_fails_when_one_front_end_lays_out_its_own(
    tmp_path, monkeypatch, front
):
    """A front end that renders the rule system's layout as given (as the web view did)
    shows the slip: the parity check fails."""
    import ledger.campaign.viewing as viewing

    def as_given(campaign, cid, *, as_gm, upto=None, save_snapshots=True):
        state = campaign.state_of(cid, upto=upto, as_gm=as_gm, save_snapshots=save_snapshots)
        return campaign.system.sheet_layout(state, as_gm=as_gm)

    t = table(str(tmp_path / "toybox.db"))
    if front == "web":
        import ledger.web.pages as pages

        real = pages._sheet_html

        def bypass(campaign, cid, as_gm):
            monkeypatch.setattr(viewing, "sheet_for", as_given)
            try:
                return real(campaign, cid, as_gm)
            finally:
                monkeypatch.undo()

        monkeypatch.setattr(pages, "_sheet_html", bypass)
    elif front == "cli":
        import ledger.cli.views as views

        def own(campaign, cid, upto, as_gm):
            return as_given(campaign, cid, as_gm=as_gm, upto=upto)

        monkeypatch.setattr(views, "headed", own)
    else:
        import ledger.web.api.app as apiapp

        real_sheet = apiapp.sheet

        def own_api(campaign, token, request):
            with pytest.MonkeyPatch.context() as m:
                m.setattr(viewing, "sheet_for", as_given)
                return real_sheet(campaign, token, request)

        monkeypatch.setattr(apiapp, "sheet", own_api)
    with pytest.raises(AssertionError):
        check_sheet_parity(t)


# --- a plugin's GM-only sheet item never reaches a player -----------------------------------


@pytest.mark.usefixtures("slip_toy", "frozen")
def test_a_gm_only_sheet_item_reaches_no_players_output(tmp_path):
    """Every output a player gets (their pages, the live stream's sheet, the export, the
    API, the recap, ``sheet --format html``, the webhook bodies) is free of the canary the
    plugin marked GM-only, though the plugin put it in the players' layout; the GM's sheet
    shows it."""
    from ledger.exchange.webhooks import body

    t = table(str(tmp_path / "toybox.db"))
    t.ok("session", "end")
    seen: dict[str, str] = {}
    for args in (["sheet", "ann"], ["sheet", "ann", "--format", "html"], ["sheet", "ann", "--json"],
                 ["export"], ["recap", "--session", "1"], ["recap", "--session", "1", "--format", "html"],
                 ["log"], ["log", "--nl"]):  # fmt: skip
        seen[" ".join(args)] = t.ok(*args)
    seen["play sheet"] = play(t, "sheet ann\nlog\n")
    with client(t) as c:
        login(c, t.link("Dana", "ann"))
        for path in ("/", "/log", "/sheet/ann", "/sheet/ann/part", "/sheet/bob", "/roll/ann",
                     "/recap/1", "/export.ndjson", "/requests/part"):  # fmt: skip
            seen[path] = c.get(path).text
        seen["POST /roll/ann"] = post(c, "/roll/ann", {"skill": "nope", "dice": "3,4"}).text
    token = api_token(t, "Dana", "roll")
    for path in ("/sheet/ann", "/sheet/bob", "/log", "/export.ndjson", "/characters", "/requests",
                 "/campaign"):  # fmt: skip
        seen[f"API {path}"] = api_get(t, token, path).text
    store, campaign = opened(t)
    try:
        for rec in campaign.records(as_gm=False):
            for fmt in ("json", "discord"):
                seen[f"webhook {rec.seq} {fmt}"] = body(campaign, rec, fmt).decode()
    finally:
        store.close()
    for what, text in seen.items():
        assert CANARY not in text and UNMARKED not in text, f"the GM-only item reached {what}"
    assert CANARY in t.ok("--as", "gm", "sheet", "ann")  # the GM's sheet has it, marked
    with client(t, "gm") as c:
        assert CANARY in c.get("/sheet/ann/part").text


# --- the undo target ------------------------------------------------------------------------


def undone_by(t: Table, front: str, seq: int | None = None) -> tuple[int, str, int]:
    """Undo with ``front`` (the GM's last entry, or the GM page's undo of the line at
    ``seq``): ``(entry taken back, event type written, its target)``."""
    before = t.head()
    if front == "cli":
        out = json.loads(t.ok("undo", "--yes", "--reason", "parity", "--json"))
        assert out["seq"] == before + 1
    elif front == "play":
        out = play(t, 'undo --reason "parity"\n')
        assert "Undone:" in out, out
    else:
        with client(t, "gm") as c:
            page = c.get("/gm").text
            nonce = re.search(r'name="nonce" value="([^"]+)"', page)
            assert nonce
            r = post(c, "/gm/undo", {"form": f"undo-{seq}", "seq": str(seq), "reason": "parity",
                                      "nonce": nonce[1]})  # fmt: skip
            assert r.status_code == 303, html.unescape(r.text)
    assert t.head() == before + 1
    store, campaign = opened(t)
    try:
        rec = campaign.record(before + 1)
        target = getattr(rec.data, "target", None) or getattr(rec.data, "request", None)
        return int(target), rec.type, before + 1
    finally:
        store.close()


def gm_page_offers(t: Table, seq: int) -> tuple[str, str]:
    """The GM page's recent entry at ``seq``: its undo button's words ("Undo #N",
    "Withdraw the request", or "" for none)."""
    with client(t, "gm") as c:
        page = c.get("/gm").text
    item = re.search(rf'<li id="r-{seq}".*?</li>', page, re.S)
    assert item, page
    button = re.search(r'<button type="submit">([^<]*)</button>', item[0])
    return (html.unescape(button[1]) if button else ""), item[0]


def check_undo_parity(tmp_path: Any, name: str) -> None:
    """The same ledger three times; each front end undoes its last entry (an open request,
    then Ann's damage): the same entry taken back the same way by each."""
    seen = []
    for front in ("cli", "play", "gm"):
        t = table(str(tmp_path / f"{name}-{front}.db"))
        request = t.head()
        assert gm_page_offers(t, request)[0] == "Withdraw the request"
        first = undone_by(t, front, request)
        hurt = request - 1
        assert gm_page_offers(t, hurt)[0] == f"Undo #{hurt}"
        second = undone_by(t, front, hurt)
        seen.append((first, second))
    cli, played, gm = seen
    assert cli[0][1] == "roll.withdrawn" and cli[1][1] == "correction.recorded"
    assert played == cli, "campaign play undoes another entry than campaign undo"
    assert gm == cli, "the GM page undoes another entry than campaign undo"


@pytest.mark.usefixtures("slip_toy", "frozen")
def test_undo_takes_back_the_same_entry_on_every_front_end(tmp_path):
    check_undo_parity(tmp_path, "undo")


@pytest.mark.usefixtures("slip_toy", "frozen")
def test_the_undo_parity_check_fails_when_the_gm_page_undoes_its_own_way(tmp_path, monkeypatch):
    """The GM page's undo as it was: the line's own seq corrected, a request withdrawn;
    ``campaign undo`` corrected a request. Made to correct the line always, it diverges."""
    import ledger.web.gm as gm

    def own(campaign, form):
        from ledger.campaign.clock import now

        rec = campaign.correct(int(form["seq"]), form["reason"], actor="gm", at=now())
        return f"/gm?done={rec.seq}"

    monkeypatch.setattr(gm, "_undo", own)
    with pytest.raises(AssertionError):
        check_undo_parity(tmp_path, "diverged")


# --- the log line ---------------------------------------------------------------------------


def expected_lines(t: Table, as_gm: bool) -> dict[int, str]:
    from ledger.history.words import GM_ONLY_ENTRY, line

    store, campaign = opened(t)
    try:
        out = {}
        for rec in campaign.records(as_gm=True):
            hidden = rec.visibility == "gm" and not as_gm
            out[rec.seq] = GM_ONLY_ENTRY if hidden else line(campaign, rec).text
        return out
    finally:
        store.close()


def page_lines(text: str) -> dict[int, str]:
    found = re.findall(r'<li id="e(\d+)"[^>]*>.*?<span class="text">(.*?)</span>', text, re.S)
    return {int(s): html.unescape(re.sub(r"<[^>]+>", "", x)).strip() for s, x in found}


def lines_shown(t: Table, as_gm: bool) -> dict[str, dict[int, str]]:
    who, view = ("gm", "gm") if as_gm else ("Dana", "player")
    token = api_token(t, who, "gm" if as_gm else "read")
    out: dict[str, dict[int, str]] = {}
    nl = [json.loads(x) for x in t.ok("--as", view, "log", "--nl").splitlines()]
    out["cli"] = {x["seq"]: x["text"] for x in nl}
    played = play(t, "log --nl\n", "--as", view)
    out["play"] = {x["seq"]: x["text"] for x in map(json.loads, re.findall(r"^\{.*\}$", played, re.M))}
    with signed_in(t, who) as c:
        out["page"] = page_lines(c.get("/log").text)
        if as_gm:
            page = c.get("/gm").text
            recent = re.findall(r'<li id="r-(\d+)"[^>]*><span class="seq">#\d+</span> ([^<\n]*)', page)
            out["gm page"] = {
                int(s): html.unescape(x).strip().split(" — entered by ")[0] for s, x in recent
            }
    api = api_get(t, token, "/log").json()["entries"]
    out["api"] = {e["seq"]: e["text"] for e in api}
    return out


def check_log_parity(t: Table) -> None:
    for as_gm in (False, True):
        want = expected_lines(t, as_gm)
        for front, got in lines_shown(t, as_gm).items():
            assert got, front
            for seq, text in got.items():
                assert text == want[seq], (front, as_gm, seq, text, want[seq])
            if front != "gm page":  # the GM page lists the recent entries only
                assert set(got) == set(want), (front, as_gm)


@pytest.mark.usefixtures("slip_toy", "frozen")
def test_every_front_end_says_the_same_log_line(tmp_path):
    check_log_parity(table(str(tmp_path / "toybox.db")))


@pytest.mark.usefixtures("slip_toy", "frozen")
def test_the_log_parity_check_fails_when_the_gm_page_words_its_own_line(tmp_path, monkeypatch):
    import ledger.web.gm_forms as gm_forms
    from ledger.history.words import describe

    monkeypatch.setattr(gm_forms, "said", lambda campaign, rec: describe(campaign, rec))
    with pytest.raises(AssertionError):
        check_log_parity(table(str(tmp_path / "toybox.db")))


# --- the refusal ----------------------------------------------------------------------------


def refusals(t: Table) -> dict[str, str]:
    """One roll the rules refuse (Ann has no skill "sneak"), entered on every front end by
    the GM and by Dana; and one undo refused (the answered request), by the CLI, play and
    the GM page: the sentence each shows, as each words it."""
    out: dict[str, str] = {}
    head = t.head()
    r = CliRunner().invoke(cli, ["--db", t.db, "roll", "ann", "sneak", "--dice", "3,4"])
    assert r.exit_code == 1
    out["cli roll"] = r.output.removeprefix("Error: ").strip()
    out["play roll"] = play(t, "roll ann sneak --dice 3,4\n")
    for who in ("gm", "Dana"):
        with signed_in(t, who) as c:
            r = post(c, "/roll/ann", {"skill": "sneak", "dice": "3,4"})
            assert r.status_code == 422
            said = re.search(r'<p class="error[^"]*" role="alert"[^>]*>(.*?)</p>', r.text, re.S)
            assert said
            out[f"{who} page roll"] = html.unescape(said[1]).strip()
        token = api_token(t, who, "gm" if who == "gm" else "roll")
        with TestClient(Server(t.db).app, base_url="http://testserver") as c:
            r = c.post(f"{API}/roll", headers={"authorization": f"Bearer {token}"},
                       json={"character": "ann", "skill": "sneak", "dice": "3,4"})  # fmt: skip
        assert r.status_code == 422
        out[f"{who} api roll"] = r.json()["detail"]
    assert t.head() == head
    return out


def check_refusal_parity(t: Table) -> None:
    sentence = "Ann Vance has no skill 'sneak'"
    said = refusals(t)
    for front, text in said.items():
        assert sentence in text, (front, text)
    assert said["cli roll"] == said["gm api roll"] == said["Dana api roll"] == sentence
    assert said["gm page roll"] == said["Dana page roll"] == sentence


@pytest.mark.usefixtures("slip_toy", "frozen")
def test_every_front_end_refuses_with_the_one_refusal(tmp_path):
    check_refusal_parity(table(str(tmp_path / "toybox.db")))


@pytest.mark.usefixtures("slip_toy", "frozen")
def test_an_undo_refused_is_the_same_refusal_on_the_cli_play_and_the_gm_page(tmp_path):
    """The request Dana has answered: ``campaign undo`` (the GM's last entry is the
    request), ``undo`` in play and the GM page's undo of its line refuse alike."""
    t = table(str(tmp_path / "toybox.db"))
    request = t.head()
    with signed_in(t, "Dana") as c:
        nonce = re.search(r'name="nonce" value="([^"]+)"', c.get("/requests/part").text)
        assert nonce
        r = post(c, f"/answer/{request}", {"nonce": nonce[1], "dice": "5,6"},
                 accept="application/json")  # fmt: skip
        assert r.status_code == 200, r.text
    answer = t.head()
    head = t.head()
    sentence = f"roll request {request} was answered at event {answer}: undo the answer instead"
    r = t("undo", "--yes", "--reason", "x")
    assert r.exit_code == 1 and r.output == f"Error: gm's last entry: {sentence}\n"
    assert sentence in play(t, 'undo --reason "x"\n')
    assert gm_page_offers(t, request)[0] == ""  # no undo offered for it
    with client(t, "gm") as c:
        nonce = re.search(r'name="nonce" value="([^"]+)"', c.get("/gm").text)
        assert nonce
        r = post(c, "/gm/undo", {"form": f"undo-{request}", "seq": str(request), "reason": "x",
                                  "nonce": nonce[1]})  # fmt: skip
    assert r.status_code == 409
    assert f"{sentence[:1].upper()}{sentence[1:]} (nothing was written)." in html.unescape(r.text)
    assert t.head() == head


@pytest.mark.usefixtures("slip_toy", "frozen")
def test_the_refusal_parity_check_fails_when_a_page_words_its_own(tmp_path, monkeypatch):
    """The web roll form made to word the refusal its own way, not the shared one's."""
    t = table(str(tmp_path / "toybox.db"))
    from ledger.web import roll_help

    def own_words(*args, **kwargs):
        raise roll_help.Forged("That did not work.")

    monkeypatch.setattr(roll_help, "given", own_words)
    with pytest.raises(AssertionError):
        check_refusal_parity(t)


def test_there_is_one_refusal_type_below_the_front_ends():
    """No front end defines a refusal of its own: every ``Refused`` is the shared one."""
    import importlib
    import pkgutil

    import ledger
    from ledger.errors import LedgerError, Refused

    assert issubclass(Refused, LedgerError)
    for info in pkgutil.walk_packages(ledger.__path__, "ledger."):
        if info.name.startswith(("ledger.templates", "ledger.testing")):
            continue
        module = importlib.import_module(info.name)
        found = getattr(module, "Refused", None)
        if found is not None:
            assert found is Refused, info.name
