"""Sentences the commands print, read as a person reads them: grammar that agrees with its
number, dice shown by their faces, no field that seems to contradict the line above it."""

from __future__ import annotations

from pathlib import Path

import pytest

CAMPAIGNS = Path(__file__).resolve().parents[1] / "campaigns"


@pytest.fixture
def vault(invoke, frozen):
    """A d20-world campaign with Isa Marrow and Bram Holloway, a session open."""
    assert invoke("new", "vault", "--system", "d20-world").exit_code == 0
    for who in ("isa", "bram"):
        sheet = CAMPAIGNS / "the-world" / "characters" / f"{who}.toml"
        result = invoke("character", "add", "--sheet", str(sheet))
        assert result.exit_code == 0, result.output
    assert invoke("session", "start").exit_code == 0
    return invoke


def test_verify_says_one_checkpoint_holds_in_the_singular(vault):
    assert vault("roll", "isa", "Lockpicking", "--time", "--dice", "16").exit_code == 0
    assert vault("session", "end").exit_code == 0
    out = vault("verify").output
    assert "; 1 signed checkpoint holds (size " in out, out
    assert "checkpoint hold " not in out and "(sizes" not in out


def test_time_passing_with_nothing_timed_says_so_plainly(vault):
    out = vault("time", "pass", "8h").output
    assert "Nothing the rules put a time limit on ends within 8 h." in out, out
    assert "time runs out" not in out


def test_initiative_missing_for_some_names_them_with_a_verb_that_agrees(vault):
    result = vault("encounter", "start", "isa", "bram", "--foe", "thug=3")
    assert result.exit_code == 1
    assert result.output == (
        "Error: Isa Marrow and Bram Holloway have no initiative: give every participant one "
        "(NAME=N, e.g. thug=2) or none\n"
    )
    one = vault("encounter", "start", "isa", "bram=12", "--foe", "thug=3")
    assert one.exit_code == 1
    assert "Error: Isa Marrow has no initiative: give every participant one" in one.output
    assert vault("log", "--json").output.count("encounter.started") == 0  # nothing written


def test_audit_of_physical_fudge_dice_shows_their_faces_and_no_field_at_its_default(invoke, frozen):
    assert invoke("new", "casebook", "--system", "wyrd-engine").exit_code == 0
    sheet = CAMPAIGNS / "grand-casebook" / "characters" / "julian.toml"
    assert invoke("character", "add", "--sheet", str(sheet)).exit_code == 0
    assert invoke("session", "start").exit_code == 0
    rolled = invoke("roll", "julian", "investigate", "--dr", "good", "--dice", "++-0")
    assert rolled.exit_code == 0, rolled.output
    out = invoke("audit", "4").output
    assert "  dice: physical; draws in order: dF:+ dF:+ dF:− dF:0\n" in out, out
    assert "d3:" not in out and "source: physical" not in out
    fields = next(line for line in out.splitlines() if line.startswith("  fields: "))
    assert "physical=" not in fields and "trait=None" not in fields
    assert "dice=[1, 1, -1, 0]" in fields and "outcome=success" in fields
    assert fields.endswith("(the others at their defaults)")
    physical = invoke(
        "roll", "julian", "investigate", "--dr", "good", "--physical", "--dice", "+000"
    )
    assert physical.exit_code == 0, physical.output
    assert "physical=True" in invoke("audit", "5").output  # a field set is always shown


# --- campaign play ------------------------------------------------------------------------


@pytest.fixture
def at_a_terminal(monkeypatch):
    """``campaign play`` as at a terminal: its entries from ``lines`` through the prompt's
    path (where a refused entry once printed "(exit 2)"), not read from a pipe."""
    import types

    from ledger.cli import play as shell

    entries: list[str] = []
    tty = types.SimpleNamespace(isatty=lambda: True)
    monkeypatch.setattr(shell, "sys", types.SimpleNamespace(stdin=tty, stdout=tty))
    monkeypatch.setattr(shell, "prompt_lines", lambda app, **kw: iter(entries))
    return entries


def test_a_bare_undo_in_play_asks_for_its_reason_in_one_short_line(vault, at_a_terminal):
    assert vault("roll", "isa", "Lockpicking", "--time", "--dice", "16").exit_code == 0
    at_a_terminal.extend(["undo", "log --json"])
    result = vault("play")
    assert result.exit_code == 0
    refusal = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert refusal == [
        'Error: give the reason in the same entry: undo --reason "..." (it takes back event '
        "5, the last entry gm wrote, whole) (see `campaign undo --help`)"
    ]
    assert "Lockpicking" not in refusal[0]  # the entry is named, not echoed whole
    assert "(exit" not in result.output
    assert '"correction.recorded"' not in result.output  # nothing written


def test_help_in_play_lists_what_an_entry_can_run(vault, at_a_terminal):
    at_a_terminal.extend(["help", "serve", "demo"])
    result = vault("play")
    listed = result.output.split("Commands:\n", 1)[1]
    names = {
        line.split()[0] for line in listed.splitlines() if line.startswith("  ") and line[2] != " "
    }
    assert {"roll", "undo", "log", "sheet", "encounter"} <= names
    assert not names & {"demo", "serve", "play"}
    assert "Error: the web view runs until Ctrl-C: start `campaign serve` in another terminal" in (
        result.output
    )
    assert "Error: the demo builds its own ledgers: run `campaign demo` outside this shell" in (
        result.output
    )
    assert "--db" not in result.output.split("Commands:")[0]  # fixed for the shell


def test_play_completion_offers_no_command_that_runs_outside_it(vault, db_path):
    from ledger.cli import App
    from ledger.cli.play import candidates

    app = App(db_path, None, None, "gm")
    try:
        offered = set(candidates(app, [], ""))
    finally:
        app.close()
    assert {"roll", "help", "exit"} <= offered
    assert not offered & {"demo", "serve", "play"}


# --- campaign serve -----------------------------------------------------------------------


def test_a_signed_out_player_is_told_what_to_do_not_the_gms_commands(tmp_path):
    from .webtools import client, csrf, d20_table

    table = d20_table(str(tmp_path / "ledger.db"))
    with client(table, "Dana") as c:
        signed_in = c.get("/")
        assert signed_in.status_code == 200
        r = c.post("/logout", data={"csrf": csrf(c)}, headers={"origin": "http://testserver"})
        assert r.status_code == 200 and "You are signed out on this device" in r.text
    with client(table) as after:
        for path in ("/", "/log", "/gm"):
            page = after.get(path)
            assert page.status_code == 403
            assert "Open the link your GM gave you to see this table." in page.text
            assert "ask your GM for a new one" in page.text
            assert "<code>" not in page.text and "campaign " not in page.text, path
