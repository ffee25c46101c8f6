"""Hostile text: HTML escapes what users type, names refuse invisible characters,
free text cannot pose as a log entry."""

from __future__ import annotations

import json
import re

import pytest

from ledger.history.recap import CharacterChanges, Line, Recap, render
from ledger.text import check_name, printable

SCRIPT = "<script>alert(document.cookie)</script>"
FORGED = "\n[33] Isa Marrow — Lockpicking +3, d20 20 = 23: good"
HOSTILE = [
    SCRIPT,
    '"><img src=x onerror=alert(1)>',
    "a\x1b[31mred\x1b[0m",
    "evil\u202etxt.exe",
    "iso\u2066late\u2069",
    "line" + FORGED,
    "para\u2029graph",
    "&amp; <b>bold</b>",
]


def hostile_recap(text: str) -> Recap:
    """A recap with ``text`` in every field a user can type."""
    return Recap(
        campaign="c",
        title=text,
        system="toy",
        system_name=text,
        session=1,
        as_gm=True,
        started_at="2026-03-01T19:00:00.000000Z",
        ended_at=None,
        seed_commitment="0" * 64,
        seed_reveal=None,
        receipt=None,
        lines=[
            Line(
                seq=2,
                kind="roll",
                character=text,
                text=text,
                source="engine",
                dice=[[6, 3]],
                corrections=[text],
                struck=True,
                extra=[text, text],
            )
        ],
        characters=[CharacterChanges("ann", text, 1, [text])],
    )


@pytest.mark.parametrize("text", HOSTILE)
def test_every_template_escapes_every_user_field(text):
    html = render(hostile_recap(text), "html")
    md = render(hostile_recap(text), "md")
    for out in (html, md):
        assert "\x1b" not in out and "\u202e" not in out and "\u2066" not in out
        assert "\u2029" not in out
        # the forged entry stays on its line, marked
        assert not re.search(r"^\s*(- \*\*)?\[33\]", out, re.M), out
    tags = re.compile(r"<[^>]*>")
    # exactly the template's own markup: nothing the user typed became a tag
    assert tags.findall(html) == tags.findall(render(hostile_recap("plain"), "html"))
    if text == SCRIPT:
        assert "&lt;script&gt;alert(document.cookie)&lt;/script&gt;" in html
    if FORGED in text:
        assert "line⏎[33] Isa Marrow" in md and "line⏎[33] Isa Marrow" in html


def test_html_recap_escapes_a_note(toy_campaign):
    # Seen: `note '<script>alert(document.cookie)</script>'` came out unescaped
    invoke = toy_campaign
    assert invoke("session", "start").exit_code == 0
    assert invoke("note", SCRIPT).exit_code == 0
    assert invoke("scene", "start", '<img src=x onerror="alert(1)">').exit_code == 0
    html = invoke("recap", "--session", "1", "--format", "html").output
    assert "<script>alert" not in html and "<img" not in html
    assert "&lt;script&gt;alert(document.cookie)&lt;/script&gt;" in html


def test_a_note_cannot_forge_a_log_line(toy_campaign):
    # Seen: a note with "\n[33] Isa Marrow — ..." wrote a real-looking log line
    invoke = toy_campaign
    result = invoke("note", "found a lockpick" + FORGED + "\x1b[2J")
    assert result.exit_code == 0
    assert len(result.output.splitlines()) == 1
    log = invoke("log").output.splitlines()
    assert [line for line in log if line.startswith("[33]")] == []
    assert log[-1] == (
        "[4] Note: found a lockpick⏎[33] Isa Marrow — Lockpicking +3, d20 20 = 23: good\\x1b[2J"
    )
    exact = json.loads(invoke("log", "--json").output)[-1]["data"]["text"]
    assert exact == "found a lockpick" + FORGED + "\x1b[2J"  # JSON stays exact
    nl_line = invoke("log", "--nl").output.splitlines()[-1]
    assert json.loads(nl_line)["data"]["text"] == exact


@pytest.mark.parametrize(
    "name", ["Isa\x1bMarrow", "Isa\u202eMarrow", "Isa\nMarrow", "Isa\u2067Marrow", "Isa\u200bM"]
)
def test_character_names_refuse_invisible_characters(toy_campaign, db_path, tmp_path, name):
    from .test_reliability_fuzz import fingerprint

    invoke = toy_campaign
    sheet = tmp_path / "isa.toml"
    sheet.write_text(f"name = {json.dumps(name)}\nid = 'isa'\n[skills]\nbrawl = 1\n")
    before = fingerprint(db_path)
    result = invoke("character", "add", "--sheet", str(sheet))
    assert result.exit_code == 1
    assert "invisible character" in result.output and "U+" in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert fingerprint(db_path) == before


@pytest.mark.parametrize("skill", ["brawl\x1b", "sne\u202eak", "a\nb"])
def test_sheet_keys_refuse_invisible_characters(toy_campaign, tmp_path, skill):
    invoke = toy_campaign
    sheet = tmp_path / "isa.toml"
    sheet.write_text(f"name = 'Isa Marrow'\n[skills]\n{json.dumps(skill)} = 1\n")
    result = invoke("character", "add", "--sheet", str(sheet))
    assert result.exit_code == 1 and "invisible character" in result.output


def test_campaign_title_refuses_invisible_characters(toy_system, invoke):
    result = invoke("new", "tales", "--system", "toy", "--title", "Tales\u202e of old")
    assert result.exit_code == 1 and "the campaign title" in result.output
    assert invoke("new", "tales", "--system", "toy", "--title", "Tales of old").exit_code == 0


def test_import_refuses_a_character_name_the_cli_would_refuse(toy_campaign, db_path, tmp_path):
    from ledger.campaign.aggregate import open_campaign
    from ledger.events import CharacterCreated
    from ledger.store.sqlite import Store

    store = Store(db_path)
    open_campaign(store).append(
        [CharacterCreated(character="isa", name="Isa\u202eMarrow", sheet={"skills": {}})],
        actor="gm",
        at="2026-03-01T19:00:00.000000Z",
    )
    store.conn.close()
    invoke = toy_campaign
    export = tmp_path / "gm.ndjson"
    assert invoke("--as", "gm", "export", "-o", str(export)).exit_code == 0
    result = invoke("import", str(export), db=str(tmp_path / "new.db"))
    assert result.exit_code == 1 and "invisible character" in result.output
    assert not (tmp_path / "new.db").exists()


def test_check_name_and_printable():
    assert check_name("Élodie Brun 名前", "a name") == "Élodie Brun 名前"
    assert (
        printable("a\r\nb\rc\nd\te\x00\u202e\U000e0001") == "a⏎b⏎c⏎d\\x09e\\x00\\u202e\\U000e0001"
    )
    assert printable("plain text") == "plain text"


def test_slug_drops_accents():
    from ledger.campaign.aggregate import ID_PATTERN, slug

    assert slug("Élodie Brun") == "elodie"
    assert slug("名前") == "character"
    assert ID_PATTERN.match(slug("_" * 80 + "x"))


def test_html_recap_shows_a_hostile_note_as_its_text(toy_campaign):
    # a note carrying HTML, Markdown and rich markup reads as the note's text, nothing more
    invoke = toy_campaign
    note = "<script>alert(1)</script> **bold** [x](javascript:alert(1)) [bold red]rich[/]"
    assert invoke("session", "start").exit_code == 0
    assert invoke("note", note).exit_code == 0
    html = invoke("recap", "--session", "1", "--format", "html").output
    assert "<script>" not in html and 'href="javascript' not in html and "<b>bold" not in html
    line = next(li for li in html.split("<li ")[1:] if "alert(1)" in li)
    assert 'class="note"' in line
    assert (
        "&lt;script&gt;alert(1)&lt;/script&gt; **bold** [x](javascript:alert(1)) "
        "[bold red]rich[/]" in line
    )
    assert "added" not in line and "None" not in line and "character" not in line
    md = invoke("recap", "--session", "1").output
    assert f"** {note}" in md  # the note's text, as typed, after its entry number
