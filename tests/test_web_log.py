"""The live log page of ``campaign serve``, served in process: the ✔ ◐ ✘ marks the
CLI prints, the "verifiable" badge once a session's seed is revealed, filters as query
parameters (no JavaScript needed), the "Recorded #N" banner after a roll, the one-line
header with the player's characters, and GM-only entries that a filtered view leaves out."""

from __future__ import annotations

import html
import json
import re

import pytest

from .webtools import client, d20_table, login

#: the CLI's marks (tests/test_web_browser.py reads ``[seq] ✔ ...`` from ``campaign log``)
CLI_MARK = re.compile(r"^\[(\d+)\] ([✔◐✘]) ", re.M)


@pytest.fixture
def table(tmp_path, frozen):
    """The d20 table (Isa: Dana, Bram: Olu; seq 5 Isa's physical Lockpicking d20 12 =
    15, messy), then: Bram's engine Brawl (6), a GM-only note (7), Isa's physical
    Lockpicking d20 18 (8, good), a physical d20 2 (9, bad)."""
    t = d20_table(str(tmp_path / "ledger.db"))
    t.ok("roll", "bram", "Brawl", "--time")
    t.ok("note", "Zqsecret the vault key is a forgery", "--blind")
    t.ok("roll", "isa", "Lockpicking", "--time", "--dice", "18")
    t.ok("roll", "bram", "Brawl", "--time", "--dice", "2")
    return t


def items(page: str) -> dict[int, str]:
    """``{seq: the <li> of the entry}`` of a log page."""
    return {int(m[1]): m[0] for m in re.finditer(r'<li id="e(\d+)".*?</li>', page, re.S)}


def text(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def test_each_roll_carries_the_mark_the_cli_prints(table):
    marks = {int(seq): mark for seq, mark in CLI_MARK.findall(table.ok("log"))}
    assert marks == {5: "◐", 6: marks[6], 8: "✔", 9: "✘"}  # messy, good, bad (d20 2)
    with client(table, "Dana") as c:
        shown = items(c.get("/log").text)
    for seq, mark in marks.items():
        assert f'<span aria-hidden="true">{mark}</span>' in shown[seq], seq
        words = {"✔": "success", "◐": "mixed result", "✘": "failure"}[mark]
        assert f'<span class="sr">{words}:</span>' in shown[seq]  # read out, not only drawn
    for seq in (1, 2, 3, 4):  # not rolls: no mark
        assert "outcome" not in shown[seq]


def test_an_engine_roll_is_verifiable_once_its_session_seed_is_revealed(table):
    with client(table, "Dana") as c:
        before = items(c.get("/log").text)
        assert not any("✓ verifiable" in li for li in before.values())
        assert 'data-seed="session:1"' in before[6]  # the page marks it when the seed comes
        table.ok("session", "end")
        after = items(c.get("/log").text)
        audit = c.get("/audit/6").text
    assert "✓ verifiable" in after[6] and 'data-seed="' not in after[6]
    for seq in (5, 8, 9):  # physical dice: nothing to recompute
        assert "verifiable" not in after[seq]
    assert "anyone can recompute these dice from the log alone" in after[6]
    # the promise holds: the audit recomputes them and says so
    assert "Verified: the revealed seed gives these dice" in audit
    ended = next(li for li in after.values() if "Session 1 ended" in li)
    assert 'data-reveals="session:1"' in ended


def test_filters_are_query_parameters_that_work_without_javascript(table):
    table.ok("session", "end")
    table.ok("session", "start")
    table.ok("roll", "isa", "Lockpicking", "--time", "--dice", "7")  # the head: session 2
    head = table.head()
    # session end signed a chronicle entry for each character who played, in their streams
    signed = {
        e["stream"]: e["seq"]
        for e in map(json.loads, table.ok("export").splitlines())
        if e.get("type") == "chronicle.signed"
    }
    with client(table, "Dana") as c:
        every = items(c.get("/log").text)
        rolls = items(c.get("/log?rolls=1").text)
        bram = items(c.get("/log?character=bram").text)
        mine = items(c.get("/log?mine=1").text)
        second = items(c.get("/log?session=2").text)
        both = items(c.get("/log?character=isa&rolls=1&session=1").text)
        page = c.get("/log?mine=1&rolls=1").text
    assert sorted(every) == list(range(1, head + 1))
    assert sorted(rolls) == [5, 6, 8, 9, head]
    # his character.created, his two rolls and his chronicle entry
    assert sorted(bram) == [3, 6, 9, signed["bram"]]
    assert sorted(mine) == [2, 5, 8, signed["isa"], head]  # Dana plays Isa
    assert min(second) == head - 1 and sorted(second) == [head - 1, head]
    assert sorted(both) == [5, 8]
    assert "Showing: Your characters&#39; rolls." in page
    # the chips are links that keep the rest of the filter
    assert 'href="/log?mine=1"' in page and 'href="/log?rolls=1"' in page
    assert '<a class="chip on" href="/log?mine=1" aria-current="true">Rolls only</a>' in page


def test_a_filter_that_cannot_be_honoured_says_so_and_shows_the_rest(table):
    with client(table, "Dana") as c:
        page = c.get("/log?character=nobody&session=99&rolls=1").text
        r = c.get("/log?session=" + "9" * 40)
    assert "There is no character “nobody” here: showing every character." in text(page)
    assert "There is no session 99 yet: showing every session." in text(page)
    assert sorted(items(page)) == [5, 6, 8, 9]  # rolls only still holds
    assert r.status_code == 200 and "There is no session 999999999999" in r.text
    with client(table, "gm") as gm:
        page = gm.get("/log?mine=1").text
    assert "You play no character here" in page and ">Mine<" not in page
    assert sorted(items(page)) == list(range(1, 10))


def test_a_filtered_view_leaves_gm_only_entries_out_and_the_whole_log_shows_their_stub(table):
    with client(table, "Dana") as c:
        whole = c.get("/log").text
        views = {q: c.get(f"/log?{q}").text for q in (
            "rolls=1", "session=1", "character=isa", "character=bram", "mine=1")}  # fmt: skip
    assert '<li id="e7" class="entry stub" data-seq="7">' in whole
    for query, page in views.items():
        assert 'id="e7"' not in page and "GM-only entry" not in page, query
        assert "Zqsecret" not in page, query
        assert "A filtered view leaves GM-only entries out." in page
    with client(table, "gm") as gm:  # the GM's own filtered views show them, marked
        assert "Zqsecret" in gm.get("/log?session=1").text


def test_recorded_banner_confirms_the_roll_and_highlights_it(table):
    with client(table, "Dana") as c:
        page = c.get("/log?recorded=8").text
        stub = c.get("/log?recorded=7").text
        nothing = [c.get(f"/log?recorded={q}").text for q in ("999", "0", "x", "-1")]
    banner = re.search(r'<section id="recorded".*?</section>', page, re.S)
    assert banner and 'role="status"' in banner[0]
    assert text(banner[0]).startswith("Recorded #8 — ✔ success Isa Marrow — Lockpicking +3, d20 18")
    assert 'class="entry roll success recorded"' in items(page)[8]
    assert sum("recorded" in li.split(">")[0] for li in items(page).values()) == 1
    # a GM-only seq: no banner, nothing of the event
    assert 'id="recorded"' not in stub and "Zqsecret" not in stub
    for other in nothing:
        assert 'id="recorded"' not in other


def test_the_header_is_one_line_of_campaign_log_and_who_with_the_players_characters(table):
    with client(table) as c:
        login(c, table.link("Dana", "bram"))  # Dana plays Bram too now
        page = c.get("/sheet/bram").text
        log = c.get("/log").text
    header = re.search(r'<header class="bar">.*?</header>', page, re.S)
    assert header
    assert '<span class="who">Dana</span>' in header[0]
    switcher = re.search(r'<nav aria-label="Your characters".*?</nav>', header[0], re.S)
    assert switcher and 'href="/sheet/isa"' in switcher[0]
    assert '<a href="/sheet/bram" aria-current="page">Bram Holloway</a>' in switcher[0]
    # the sheet page switches between them too, and links the character's log
    assert '<nav class="switch" aria-label="Switch character">' in page
    assert 'href="/log?character=bram"' in page
    assert '<a href="/log" aria-current="page">Log</a>' in log
    # the theme script comes before the stylesheet: no flash of the wrong theme
    head = log.split("</head>")[0]
    assert head.index('src="/static/theme.js"') < head.index('href="/static/site.css"')


def test_the_sheet_page_has_no_inline_style_for_the_csp_to_refuse(table):
    with client(table, "Dana") as c:
        for path in ("/sheet/isa", "/sheet/isa/part", "/log", "/audit/5"):
            body = c.get(path).text
            assert "<style" not in body and " style=" not in body, path
            assert "<script>" not in body, path  # every script is a file of /static


def test_the_live_stream_carries_what_the_page_filters_and_marks_with(table):
    from .webtools import sse_frames

    with client(table, "Dana") as c:
        with c.stream("GET", "/events", headers={"last-event-id": "7"}) as r:
            buffer = ""
            for chunk in r.iter_text():
                buffer += chunk
                if 'id="e9"' in buffer:
                    break
    frames = {int(f["id"]): f["data"] for f in sse_frames(buffer)}
    assert 'data-character="isa"' in frames[8] and 'data-roll="1"' in frames[8]
    assert 'data-session="1"' in frames[8] and "✔" in frames[8]
    assert "\n" not in frames[9] and "✘" in frames[9]
