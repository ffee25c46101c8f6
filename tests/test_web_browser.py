"""Browser tests of ``campaign serve``, in Debian's Chromium through Playwright
(``executable_path``: no browser download).

- the in-browser verifier, opened as the downloaded single file, names the same first bad
  seq as ``campaign verify FILE`` for a good player's export and tampered ones (a bad byte,
  swapped events, a forged engine roll, a wrong seed, a receipt);
- a player's physical roll entered on a phone-sized page appears in the GM's open log page
  (live) and in ``campaign log``;
- the pages run under their Content-Security-Policy without a violation.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import msgspec
import pytest

from .webtools import PATIENCE, d20_table, for_one_test, live_server, wait_live

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason="Debian's chromium is not installed (apt-get install chromium)",
)
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def table(tmp_path):
    return d20_table(str(tmp_path / "ledger.db"))


@pytest.fixture(scope="module")
def desktop_context(chromium):
    """One desktop browser context for the tests of this file that need a fresh page, not a
    fresh browser: a test that signs in does so on a server of its own (another port:
    another origin, so no storage or service worker of an earlier test is met), its cookies
    cleared first; the downloaded verifier is a file page of its own."""
    context = chromium.new_context()
    yield context
    context.close()


@pytest.fixture
def desktop(desktop_context):
    """:func:`desktop_context` for one test: no cookie of an earlier test, and the pages and
    routes the test opened are closed after it."""
    desktop_context.clear_cookies()
    with for_one_test(desktop_context):
        yield desktop_context


def rechain(lines: list[str]) -> list[str]:
    """Recompute every hash of an export as a forger would (a stub keeps its own hash: it
    cannot be recomputed without its data, and nobody can check it)."""
    prev, out = "0" * 64, []
    for line in lines:
        event = json.loads(line)
        if "kind" in event:  # the old checkpoints: a forger drops them
            continue
        event["prev_hash"] = prev
        if not event.get("redacted"):
            body = {k: v for k, v in event.items() if k != "hash"}
            canonical = msgspec.json.encode(body, order="sorted")
            event["hash"] = hashlib.sha256(bytes.fromhex(prev) + canonical).hexdigest()
        prev = event["hash"]
        out.append(json.dumps(event, separators=(",", ":"), ensure_ascii=False))
    return out


def played(table) -> list[str]:
    """Session 1 with engine rolls (one blind), a GM-only note, ended (seed revealed);
    session 2 open with an engine roll. Returns the player's export lines."""
    t = table
    t.ok("roll", "bram", "Brawl", "--time")
    t.ok("roll", "isa", "Lockpicking", "--time", "--client-seed", "Dana's ✓ luck")
    t.ok("roll", "bram", "Brawl", "--time", "--blind")
    t.ok("note", "the vault key is a forgery", "--blind")
    t.ok("roll", "isa", "Lockpicking", "--time")
    t.ok("session", "end")
    t.ok("session", "start")
    t.ok("roll", "bram", "Brawl", "--time")
    return t.ok("export").splitlines()


def cli_verdict(table, path: Path, receipt: str | None = None) -> int | None:
    args = ["verify", str(path), "--json"] + (["--receipt", receipt] if receipt else [])
    result = table(*args)
    out = json.loads(result.output)
    return None if out["ok"] else out["bad_seq"]


#: the verdict of the file checked before, forgotten: the next wait is for the new one
FORGET_VERDICT = "v => { delete v.dataset.done; delete v.dataset.badSeq; v.textContent = ''; }"


def browser_verdict(page, path: Path, receipt: str = "") -> tuple[int | None, str]:
    """The verifier ``page``'s verdict on the export at ``path`` (with ``receipt``): the
    first bad seq (``None``: none named) and the verdict's text. The page is loaded once
    and checks one file after another through its own form, as a player picking files in
    turn; the verdict shown before is cleared first, so only the new one is read."""
    page.eval_on_selector("#verdict", FORGET_VERDICT)
    page.set_input_files("#export-file", str(path))
    page.fill("#receipt", receipt)
    page.click("button[type=submit]")
    page.wait_for_selector("#verdict[data-done='1']", timeout=PATIENCE)
    bad = page.get_attribute("#verdict", "data-bad-seq")
    return (int(bad) if bad else None), page.inner_text("#verdict")


def tamper_cases(lines: list[str]) -> dict[str, list[str]]:
    events = [json.loads(line) for line in lines]
    engine = [
        i
        for i, e in enumerate(events)
        if not e.get("redacted")
        and isinstance(e.get("data"), dict)
        and e["data"].get("source") == "engine"
        and e["session"] == 1
    ]
    ended = next(i for i, e in enumerate(events) if e.get("type") == "session.ended")
    cases: dict[str, list[str]] = {}
    # a bad byte: one letter of a roll's skill changed, nothing re-chained
    i = engine[0]
    cases["bad byte"] = [*lines[:i], lines[i].replace("Brawl", "Brawn", 1), *lines[i + 1 :]]
    # two events swapped
    cases["swapped events"] = [*lines[:4], lines[5], lines[4], *lines[6:]]
    # a forged engine roll: a die face changed, the chain recomputed
    forged = [dict(e) for e in events]
    roll = dict(forged[engine[1]])
    data = dict(roll["data"])
    sides, face = data["draws"][0]
    data["draws"] = [[sides, face % sides + 1], *data["draws"][1:]]
    roll["data"] = data
    forged[engine[1]] = roll
    cases["forged engine roll"] = rechain([json.dumps(e, ensure_ascii=False) for e in forged])
    # a wrong seed revealed: another seed, the chain recomputed
    wrong = [dict(e) for e in events]
    end = dict(wrong[ended])
    end["data"] = {**end["data"], "seed_reveal": "ab" * 32}
    wrong[ended] = end
    cases["wrong seed"] = rechain([json.dumps(e, ensure_ascii=False) for e in wrong])
    # a truncated file
    cases["line dropped"] = [*lines[:6], *lines[7:]]
    return cases


def test_verifier_agrees_with_campaign_verify_on_good_and_tampered_exports(
    table, tmp_path, desktop
):
    lines = played(table)
    verifier = tmp_path / "verifier.html"
    table.ok("export", "--verifier", str(verifier))
    page = desktop.new_page()
    page.goto(verifier.as_uri())
    good = tmp_path / "good.ndjson"
    good.write_text("\n".join(lines) + "\n")
    assert cli_verdict(table, good) is None
    bad, text = browser_verdict(page, good)
    assert bad is None
    # a pass says plainly what it checked and what only `campaign verify FILE` does
    assert text.startswith(
        "OK: chain, seeds and 3 engine rolls check; results are re-derived by "
        "`campaign verify FILE`"
    ), text
    assert "1 engine roll waits for its session's seed" in text
    assert "are checked by campaign verify FILE" in page.inner_text("#verifier-scope")
    assert "campaign verify FILE" in page.inner_text("#verifier-scope")
    receipt = json.loads(lines[6])
    held = f"{receipt['seq']}:{receipt['hash']}"
    bad, text = browser_verdict(page, good, held)
    assert bad is None
    assert "your receipt matches" in text
    for name, tampered in tamper_cases(lines).items():
        path = tmp_path / f"{name.replace(' ', '-')}.ndjson"
        path.write_text("\n".join(tampered) + "\n")
        expected = cli_verdict(table, path)
        assert expected is not None, name
        assert browser_verdict(page, path)[0] == expected, name
    # a re-chained forgery passes the chain, but not the receipt kept before it
    rechained = tmp_path / "rechained.ndjson"
    rechained.write_text("\n".join(tamper_cases(lines)["forged engine roll"]) + "\n")
    forged_at = cli_verdict(table, rechained)
    assert browser_verdict(page, rechained)[0] == forged_at


def new_page(
    context, *, init_script: str | None = None, color_scheme: str | None = None
) -> tuple[Any, list[str]]:
    """A new page of ``context`` (a browser or a browser context) and the list its console
    errors go to; ``init_script`` runs in each document of that page before the page's own
    scripts, and ``color_scheme`` ("light", "dark") is the one the page's system prefers."""
    page = context.new_page()
    if init_script is not None:
        page.add_init_script(init_script)
    if color_scheme is not None:
        page.emulate_media(color_scheme=color_scheme)
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    return page, errors


def signed_in(context, base: str, token: str, **options: Any) -> tuple[Any, list[str]]:
    """A new page of ``context`` (a browser or a browser context) that has opened the link
    ``token`` on the server at ``base``, and the list its console errors go to (``options``:
    :func:`new_page`'s)."""
    page, errors = new_page(context, **options)
    page.goto(f"{base}/a/{token}")
    page.wait_for_url(f"{base}/")
    return page, errors


def signed_in_by_cookie(context, base: str, token: str, **options: Any) -> tuple[Any, list[str]]:
    """As :func:`signed_in`, for a test whose first page is another than ``/``: the link
    ``token`` is exchanged for the session cookie by the browser context's own HTTP client
    (it shares the context's cookies), so no page loads the link's page and ``/`` on the way;
    the new page is blank. The tests of the way in (the link's page, then ``/`` under its
    CSP and with its scripts: tests/test_web_kept_note.py, tests/test_web_phone_e2e.py and
    others) sign in through the link in a page, with :func:`signed_in`."""
    answer = context.request.get(f"{base}/a/{token}", max_redirects=0)
    assert answer.status == 200 and "Welcome, " in answer.text(), answer.status
    return new_page(context, **options)


def test_the_verifier_page_says_when_the_export_could_not_be_fetched(table, desktop):
    """A tap on "check this table's export" that meets no answer (the laptop gone, a
    refusal) says so and that nothing was checked, instead of leaving the page waiting."""
    token = table.link("Dana")
    with live_server(table.db) as base:
        context = desktop
        page, errors = signed_in_by_cookie(context, base, token)
        page.goto(f"{base}/verify")
        for answer in (lambda route: route.abort(), lambda route: route.fulfill(status=503)):
            context.route("**/export.ndjson*", answer)
            page.click("#fetch-export")
            page.wait_for_selector("#verdict[data-done='1']", timeout=PATIENCE)
            verdict = page.inner_text("#verdict")
            assert verdict.startswith("Could not fetch this table's export"), verdict
            assert "nothing was checked" in verdict
            assert page.get_attribute("#verdict", "class") == "bad"
            context.unroute("**/export.ndjson*")


def test_verifier_page_of_the_server_checks_the_tables_export(table, desktop):
    played(table)
    token = table.link("Dana")
    with live_server(table.db) as base:
        page, errors = signed_in_by_cookie(desktop, base, token)
        page.goto(f"{base}/verify")
        page.click("#fetch-export")
        page.wait_for_selector("#verdict[data-done='1']", timeout=PATIENCE)
        verdict = page.inner_text("#verdict")
        assert verdict.startswith(
            "OK: chain, seeds and 3 engine rolls check; results are "
            "re-derived by `campaign verify FILE`"
        ), verdict
        assert "are checked by campaign verify FILE" in page.inner_text("#verifier-scope")
        assert not errors, errors


def test_physical_roll_in_the_browser_reaches_the_gm_page_and_the_cli(
    table, browser, desktop, tmp_path
):
    gm_token, dana_token = table.link("gm"), table.link("Dana")
    with live_server(table.db) as base:
        gm, errors = signed_in_by_cookie(desktop, base, gm_token)
        gm.goto(f"{base}/log")
        wait_live(gm)
        phone_context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
        phone, _ = signed_in_by_cookie(phone_context, base, dana_token)
        phone.goto(f"{base}/roll/isa")
        box = phone.locator("#dice").bounding_box()
        assert box is not None and box["height"] >= 44
        assert phone.locator("button[type=submit]").bounding_box()["height"] >= 44
        phone.click("label.chip:has-text('Lockpicking')")  # the skills are buttons
        phone.check("input[name=time]")
        phone.fill("#dice", "18")
        phone.click("button[type=submit]")
        phone.wait_for_url("**/log?recorded=*")
        seq = int(phone.url.split("#e")[1])
        gm.wait_for_selector(f"#e{seq}", timeout=PATIENCE)  # the GM's open log, live
        line = gm.inner_text(f"#e{seq}")
        log = table.ok("log")
        assert f"[{seq}] ✔ Isa Marrow — Lockpicking +3, d20 18" in log
        assert "entered by Dana (physical dice)" in line and "d20 18" in line
        assert not errors, errors  # no CSP violation, no script error
        gm.close()


def test_phone_screenshots_of_the_log_a_sheet_and_the_roll_form(table, desktop, tmp_path):
    table.ok("roll", "bram", "Brawl", "--time", "--dice", "17")
    table.ok("note", "The vault door groans open.")
    token = table.link("Dana")
    with live_server(table.db) as base:
        # a page of the desktop context at a phone's size (its device scale factor is 1)
        phone, _ = signed_in_by_cookie(desktop, base, token)
        phone.set_viewport_size(PHONE)
        for name, path in (("log", "/log"), ("sheet", "/sheet/isa"), ("roll", "/roll/isa")):
            phone.goto(base + path)
            shot = tmp_path / f"{name}.png"
            phone.screenshot(path=str(shot), full_page=False)
            assert shot.stat().st_size > 5000
            width = phone.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, f"{path} scrolls sideways at 390 px ({width} px)"
            if name == "sheet":  # styled by /sheet.css: cards with borders, one title
                border = phone.eval_on_selector(
                    ".sheet section.part", "e => getComputedStyle(e).borderTopStyle"
                )
                assert border == "solid"
                assert phone.locator("h1").count() == 1


def test_the_live_log_opens_a_new_stream_after_a_503(table, desktop):
    """A browser gives up on a stream answered 503 (the server could not reach its database);
    the live log then opens a new one from the last entry it showed, and goes on."""
    token = table.link("Dana")
    with live_server(table.db) as base:
        page, _ = signed_in_by_cookie(desktop, base, token)
        refused: list[str] = []

        def once_503(route: Any) -> None:
            if refused:
                route.continue_()
                return
            refused.append(route.request.url)
            route.fulfill(status=503, content_type="text/html", body="away")

        page.route("**/events*", once_503)
        page.goto(f"{base}/log")
        wait_live(page, timeout=PATIENCE)
        assert refused
        table.ok("roll", "bram", "Brawl", "--time", "--dice", "17")
        page.wait_for_selector(f"#e{table.head()}", timeout=PATIENCE)


def test_the_browser_verifier_checks_requested_rolls_and_their_entropy(table, tmp_path, desktop):
    """A roll answered with the roller's entropy (ledger-roll-v2) verifies in the
    browser as with `campaign verify FILE`; a swapped entropy (chain recomputed) is named at
    the same seq by both."""
    entropy = hashlib.sha256(b"dana's phone").hexdigest()
    asked = json.loads(table.ok("request", "isa", "Lockpicking", "--time", "--json"))
    answer = json.loads(
        table.ok("roll", "isa", "--answer", str(asked["seq"]), "--entropy", entropy, "--json")
    )
    table.ok("roll", "bram", "Brawl", "--time")
    table.ok("session", "end")
    lines = table.ok("export").splitlines()
    verifier = tmp_path / "verifier.html"
    table.ok("export", "--verifier", str(verifier))
    page = desktop.new_page()
    page.goto(verifier.as_uri())
    good = tmp_path / "good.ndjson"
    good.write_text("\n".join(lines) + "\n")
    assert cli_verdict(table, good) is None
    bad, text = browser_verdict(page, good)
    assert bad is None and text.startswith("OK: chain, seeds and 2 engine rolls check"), text
    events = [json.loads(x) for x in lines]
    i = next(k for k, e in enumerate(events) if e["seq"] == answer["seq"])
    forged = tmp_path / "forged.ndjson"
    # another entropy draws the same d20 face one time in 20 (the seed is new each run): the
    # forger's first entropy that changes the face is the one both verifiers must catch
    for wish in range(10):
        events[i]["data"]["entropy"] = hashlib.sha256(b"what the GM wished %d" % wish).hexdigest()
        forged.write_text("\n".join(rechain([json.dumps(e) for e in events])) + "\n")
        if cli_verdict(table, forged) is not None:
            break
    assert cli_verdict(table, forged) == answer["seq"]
    assert browser_verdict(page, forged)[0] == answer["seq"]
