"""ledger.rules.sheets: the renderer-neutral sheet, its text and HTML renderings, and
``campaign sheet`` (the plugin owns its layout)."""

from __future__ import annotations

import json
import os

import pytest

from ledger import Line, Section, Sheet, Table, Track
from ledger.rules.sheets import (
    generic_layout,
    mark_gm_only,
    players_only,
    render_html,
    render_text,
    signed,
)

HOSTILE = "[bold]Eve[/bold] <script>alert(1)</script> [x] & \x1b[31m"

SHEET = Sheet(
    title="Julian Hargrave",
    subtitle="The Wyrd Engine",
    sections=(
        Section(
            title="Skills",
            items=(
                Line(label="Investigate", value="+3 (Great)"),
                Line(label="Notice", value="+2 (Good)"),
            ),
        ),
        Section(
            title="Stress",
            items=(Track(label="Stress", marked=2, boxes=5, note="3 boxes left"),),
        ),
        Section(
            title="Wounds",
            items=(
                Line(label="Moderate", value="shot", note="−2 to Athletics", tone="bad"),
                Line(label="Cursed", value="", note="−3 to all checks", gm_only=True),
            ),
        ),
        Section(title="Empty"),
        Section(
            title="Spells",
            items=(Table(columns=("Spell", "Cost"), rows=(("Light", "1"), ("Ward", "2"))),),
        ),
    ),
    as_gm=True,
)


def test_track_is_drawn_as_boxes():
    assert Track(label="Stress", marked=2, boxes=5).drawn() == "[x][x][ ][ ][ ]"
    assert Track(label="Stress", marked=0, boxes=3).drawn() == "[ ][ ][ ]"
    assert Track(label="Stress", marked=6, boxes=4).drawn() == "[x][x][x][x] +2"
    assert Track(label="Stress", marked=0, boxes=0).drawn() == "(no boxes)"


def test_signed_uses_the_books_signs():
    assert [signed(n) for n in (3, 0, -2)] == ["+3", "0", "−2"]


def test_plain_text_has_no_ansi_and_reads_as_a_sheet():
    text = render_text(SHEET, color=False)
    assert "\x1b[" not in text
    lines = text.splitlines()
    assert lines[:2] == ["Julian Hargrave", "The Wyrd Engine"]
    assert any(line.startswith("Investigate") and "+3 (Great)" in line for line in lines)
    stress = next(line for line in lines if line.startswith("Stress  "))
    assert "[x][x][ ][ ][ ]" in stress and "3 boxes left" in stress
    cursed = next(line for line in lines if "Cursed" in line)
    assert cursed.endswith("[GM]")
    assert "Empty" not in lines  # an empty section is not drawn
    assert "Light" in text and "Ward" in text and "Cost" in text
    assert all(len(line) <= 78 for line in lines)
    assert all(line == line.rstrip() for line in lines)


def test_colour_text_uses_ansi_and_panels():
    text = render_text(SHEET, color=True, width=80)
    assert "\x1b[" in text
    assert "╭" in text and "Investigate" in text and "[x][x][ ][ ][ ]" in text


def test_hostile_strings_print_literally_in_text():
    sheet = Sheet(
        title=HOSTILE,
        sections=(
            Section(
                title="[red]Skills",
                items=(
                    Line(label=HOSTILE, value="[b]+3[/b]", note="[link=x]y[/link]"),
                    Track(label="[i]Stress[/i]", marked=1, boxes=2),
                    Table(columns=("[c]",), rows=(("<b>cell</b>",),)),
                ),
            ),
        ),
    )
    for color in (False, True):
        text = render_text(sheet, color=color, width=200)
        for literal in (
            "[bold]Eve[/bold]",
            "<script>alert(1)</script>",
            "[x] &",
            "[red]Skills",
            "[b]+3[/b]",
            "[link=x]y[/link]",
            "[i]Stress[/i]",
            "[c]",
            "<b>cell</b>",
        ):
            assert literal in text, (color, literal)
        # an escape character in a name shows as text, never reaches the terminal
        assert "\\x1b[31m" in text
        assert "\x1b[31m" not in text.replace("\\x1b[31m", "")


def test_hostile_strings_are_escaped_in_html():
    sheet = Sheet(
        title=HOSTILE,
        subtitle="<img src=x onerror=alert(1)>",
        sections=(
            Section(
                title="<h1>Skills</h1>",
                note="<i>note</i>",
                items=(
                    Line(label=HOSTILE, value="<b>+3</b>", note='" onmouseover="x'),
                    Track(label="<u>Stress</u>", marked=1, boxes=2, note="<s>n</s>"),
                    Table(columns=("<c>",), rows=(("<td>",),)),
                ),
            ),
        ),
    )
    for standalone in (True, False):
        html = render_html(sheet, standalone=standalone)
        assert "<script>" not in html and "<img" not in html and "<b>+3" not in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
        assert "[bold]Eve[/bold]" in html
        assert "&lt;h1&gt;Skills&lt;/h1&gt;" in html
        assert "&lt;u&gt;Stress&lt;/u&gt;" in html and "&lt;td&gt;" in html
        assert "&#34; onmouseover=&#34;x" in html
        assert "\x1b" not in html and "\\x1b[31m" in html


def test_html_page_is_self_contained_and_the_fragment_is_includable():
    page = render_html(SHEET)
    assert page.startswith("<!doctype html>")
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
    for external in ("http://", "https://", "<link", "<script", "@import"):
        assert external not in page
    assert page.count('<span class="box marked">') == 2 and page.count('class="box"') == 3
    assert '<span class="gm">[GM]</span> −3 to all checks' in page
    fragment = render_html(SHEET, standalone=False)
    assert "<html" not in fragment and fragment.startswith("<style>")
    assert '<article class="sheet">' in fragment


def test_a_web_page_includes_the_fragment_macro():
    from ledger.templating import environment

    page = environment().from_string(
        '{% from "sheet.html.j2" import sheet_css, sheet_fragment %}'
        "<style>{{ sheet_css() }}</style><main>{{ sheet_fragment(s) }}</main>"
    )
    html = page.render(s=SHEET)
    assert "<!doctype" not in html and '<article class="sheet">' in html
    assert "Investigate" in html and ".sheet .box" in html


def test_players_only_drops_every_gm_item():
    player = players_only(SHEET)
    assert not player.as_gm and list(player.gm_items()) == []
    assert "Cursed" not in player.text() and "Investigate" in player.text()
    assert "Cursed" not in render_text(player, color=False)
    assert "Cursed" not in render_html(player) and "[GM]" not in render_html(player)


def test_mark_gm_only_marks_what_players_see_otherwise_or_not_at_all():
    gm = Sheet(
        title="Isa",
        sections=(
            Section(
                title="Derived",
                items=(Line(label="Check penalty", value="−3"), Line(label="Carried", value="5")),
            ),
        ),
    )
    player = Sheet(
        title="Isa",
        sections=(
            Section(
                title="Derived",
                items=(Line(label="Check penalty", value="0"), Line(label="Carried", value="5")),
            ),
        ),
    )
    marked = mark_gm_only(gm, player)
    assert marked.as_gm
    assert [i.gm_only for i in marked.sections[0].items] == [True, False]


def test_generic_layout_hides_zero_false_empty_and_never_shows_paths():
    view = {
        "name": "Ann Vance",
        "hp": 10,
        "luck_used": False,
        "secret": 0,
        "rested_after_session": 4,
        "advanced": [],
        "skills": {"brawl": 2, "sneak": 0},
        "conditions": [{"name": "Shaken", "capacity_delta": 0, "penalty": -1}],
    }
    sheet = generic_layout(view, title="Ann Vance", subtitle="Toy")
    text = render_text(sheet, color=False)
    assert "Rested after session  4" in text
    assert "Hp" in text and "Brawl" in text and "Shaken" in text and "Penalty -1" in text
    for hidden in ("Luck used", "Secret", "Sneak", "Advanced", "Capacity delta", "[", "."):
        assert hidden not in text.replace("Ann Vance", ""), hidden
    assert "_" not in text


# --- the command -----------------------------------------------------------------------


def test_sheet_command_prints_the_layout_plainly_when_piped(toy_campaign, monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    result = toy_campaign("sheet", "ann")
    assert result.exit_code == 0, result.output
    assert "\x1b[" not in result.output
    lines = result.output.splitlines()
    assert lines[0] == "Ann Vance (ann)"
    assert lines[1] == "Toy · as of seq 3"
    assert any(line.startswith("Hp") and line.endswith("10") for line in lines)
    for hidden in ("luck_used", "Luck used", "secret", "Secret", "Rolls"):
        assert hidden not in result.output


def test_sheet_command_colour_only_on_a_terminal_without_no_color(toy_campaign, monkeypatch):
    import ledger.cli.views as views

    class Tty:
        @staticmethod
        def isatty():
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert views._color() is False  # pytest captures stdout: not a terminal
    with monkeypatch.context() as m:
        m.setattr("sys.stdout", Tty())
        assert views._color() is True
        m.setenv("NO_COLOR", "1")
        assert views._color() is False
    monkeypatch.setattr(views, "_color", lambda: True)
    coloured = toy_campaign("sheet", "ann")
    assert "\x1b[" in coloured.output and "Ann Vance" in coloured.output


def test_sheet_json_is_unchanged(toy_campaign):
    out = json.loads(toy_campaign("sheet", "ann", "--json").output)
    assert out == {
        "character": "ann",
        "as_of": 3,
        "name": "Ann Vance",
        "skills": {"brawl": 2},
        "hp": 10,
        "luck_used": False,
        "rolls": 0,
        "advanced": [],
    }


def test_sheet_gm_view_marks_gm_only_facts(toy_campaign):
    result = toy_campaign("--as", "gm", "sheet", "ann")
    assert result.exit_code == 0, result.output
    # the toy shows `secret` to the GM only; it is 0, so hidden: nothing is marked
    assert "[GM]" not in result.output
    result = toy_campaign("sheet", "ann", "--format", "html")
    assert result.output.startswith("<!doctype html>") and "Ann Vance" in result.output


def test_sheet_html_to_a_file(toy_campaign, tmp_path):
    target = tmp_path / "ann.html"
    result = toy_campaign("sheet", "ann", "--format", "html", "-o", str(target))
    assert result.exit_code == 0, result.output
    assert result.output == f"Wrote {target}\n"
    assert target.read_text(encoding="utf-8").startswith("<!doctype html>")
    again = toy_campaign("sheet", "ann", "--format", "html", "-o", str(target))
    assert again.exit_code == 0  # an existing .html file is replaced


@pytest.mark.parametrize(
    "args, message",
    [
        (["--format", "html", "-o", "{db}"], "is the open ledger"),
        (["--format", "html", "-o", "{db}-wal"], "WAL file"),
        (["--format", "html", "-o", "{notes}"], "exists and is not an .html file"),
        (["--format", "html", "-o", "{tmp}"], "is a directory"),
        (["-o", "{tmp}/x.html"], "add --format html"),
        (["--json", "--format", "html"], "choose one"),
        (["--format", "pdf"], "'pdf' is not one of"),
    ],
)
def test_sheet_output_refusals(toy_campaign, db_path, tmp_path, args, message):
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    filled = [a.format(db=db_path, notes=notes, tmp=tmp_path) for a in args]
    result = toy_campaign("sheet", "ann", *filled)
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output
    after = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    assert after == before
    assert os.path.exists(db_path)


def test_hostile_names_print_literally_and_escape_in_html(toy_system, invoke, tmp_path, frozen):
    """A character named with rich markup, brackets and a script tag: the text sheet shows
    every character as typed, the HTML sheet escapes it."""
    assert invoke("new", "toybox", "--system", "toy").exit_code == 0
    sheet = tmp_path / "eve.toml"
    sheet.write_text(
        'name = "[bold]Eve[/bold] <script>alert(1)</script>"\n'
        '[skills]\n"[red]sneak[/red] [x]" = 2\n',
        encoding="utf-8",
    )
    added = invoke("character", "add", "--sheet", str(sheet))
    assert added.exit_code == 0, added.output
    cid = json.loads(invoke("character", "list", "--json").output)[0]["character"]
    text = invoke("sheet", cid).output
    assert "[bold]Eve[/bold] <script>alert(1)</script>" in text
    assert "[red]sneak[/red] [x]" in text
    html = invoke("sheet", cid, "--format", "html").output
    assert "<script>" not in html
    assert "[bold]Eve[/bold] &lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "[red]sneak[/red] [x]" in html


def test_humanize_changes_field_names_only():
    from ledger.rules.sheets import humanize

    assert humanize("rested_after_session") == "Rested after session"
    assert humanize("Lock-picking") == "Lock-picking"
    assert humanize("[red]sneak[/red] [x]") == "[red]sneak[/red] [x]"
    assert humanize("Old_Maren") == "Old_Maren"
