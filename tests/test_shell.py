"""`campaign play`, the table shell: driven through a pipe, through prompt_toolkit's input
pipe, and its completion asked directly."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from prompt_toolkit import PromptSession
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from ledger.campaign.aggregate import open_campaign
from ledger.cli import App, cli
from ledger.cli.play import TableShell, candidates, default_history, prompt_lines
from ledger.store import sqlite as store_module
from ledger.store.sqlite import Store

from .webtools import apart

SHEETS = Path(__file__).resolve().parent.parent / "campaigns" / "grand-casebook" / "characters"


@pytest.fixture
def casebook(invoke, frozen, db_path):
    """A Wyrd Engine ledger with Julian and Felix and session 1 open."""
    assert invoke("new", "casebook", "--system", "wyrd-engine").exit_code == 0
    for who in ("julian", "felix"):
        result = invoke("character", "add", "--sheet", str(SHEETS / f"{who}.toml"))
        assert result.exit_code == 0, result.output
    assert invoke("session", "start").exit_code == 0
    return db_path


def play(db_path, text, *args):
    return CliRunner().invoke(cli, ["--db", db_path, *args, "play"], input=text)


def events(db_path):
    store = Store(db_path)
    try:
        return [r[0] for r in store.conn.execute("select type from events order by seq")]
    finally:
        store.conn.close()


def test_piped_entries_run_like_commands_on_one_open_ledger(casebook, monkeypatch):
    opened = []
    real = store_module.Store

    class Counting(real):  # type: ignore[misc, valid-type]
        def __init__(self, *a, **k):
            opened.append(a[0])
            super().__init__(*a, **k)

    monkeypatch.setattr(store_module, "Store", Counting)
    result = play(
        casebook,
        "roll julian investigate --dr good --dice ++-0\ndamage felix 2\nsheet felix --json\n",
    )
    assert result.exit_code == 0, result.output
    assert opened == [casebook]  # one ledger, opened once for every entry
    assert "[5] Julian Hargrave — Investigate +3, dice [+ + − ·] = +1" in result.output
    sheet = json.loads(result.output[result.output.index("{") :])
    assert sheet["character"] == "felix"
    assert events(casebook)[-2:] == ["wyrd-engine.check_rolled", "wyrd-engine.damage_taken"]


def test_a_refused_entry_writes_nothing_and_the_shell_goes_on(casebook):
    before = events(casebook)
    result = play(
        casebook,
        "roll nobody notice --dice ++++\n"  # refused: exit 1
        "roll julian notice --dice ++\n"  # refused: 4dF needs 4 faces
        "roll julian 'notice\n"  # unclosed quote: usage
        "roll julian notice --dr fair --dice 0000\n",  # done
    )
    assert result.exit_code == 1  # some entry was refused
    assert "no character 'nobody'" in result.output
    assert "close the quote" in result.output
    assert "Notice +2, dice [· · · ·]" in result.output
    assert events(casebook) == [*before, "wyrd-engine.check_rolled"]


def test_exit_ends_the_shell_and_comments_and_blank_lines_do_nothing(casebook):
    before = events(casebook)
    result = play(casebook, "# the party rests\n\n   \nexit\nroll julian notice --dice ++++\n")
    assert result.exit_code == 0
    assert result.output == ""
    assert events(casebook) == before  # nothing after `exit` ran


def test_the_shell_refuses_another_ledger_and_nesting(casebook):
    result = play(casebook, "--db other.db log\n--campaign=x log\nplay\n")
    assert result.exit_code == 1
    assert result.output.count("is fixed for this shell") == 2
    assert "already at the table" in result.output
    assert not Path("other.db").exists()


def test_help_entries_show_the_commands_help(casebook):
    result = play(casebook, "help damage\nhelp\n")
    assert result.exit_code == 0
    assert "Usage: campaign damage [OPTIONS] CHARACTER AMOUNT" in result.output
    assert "Commands:" in result.output


def test_each_entry_may_give_its_own_view_and_actor(casebook):
    result = play(
        casebook,
        "roll julian notice --dr fair --dice +--- --blind\n"
        "--as player log --json\n"
        "log --json\n"
        "--actor maria note 'Felix owes Julian a favour'\n"
        "log --json\n",
        "--as",
        "gm",
    )
    assert result.exit_code == 0, result.output
    documents = [json.loads(line) for line in result.output.splitlines() if line.startswith("[{")]
    player, gm_before, gm_after = documents
    blind = [e for e in gm_before if e["type"] == "wyrd-engine.check_rolled"]
    assert blind and blind[0]["visibility"] == "gm"
    assert all(e.get("type") != "wyrd-engine.check_rolled" for e in player)
    shown = [e for e in player if not e.get("redacted")]  # GM-only: stubs
    assert len(gm_before) > len(shown)  # the next entry is in the shell's view (GM) again
    assert gm_after[-1]["actor"] == "maria" and gm_after[-1]["type"] == "note.added"


def test_the_shell_shows_the_players_view_unless_started_as_gm(casebook):
    result = play(casebook, "roll julian notice --dr fair --dice +--- --blind\nlog --json\n")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output[result.output.index("[{") :])
    assert all(e.get("type") != "wyrd-engine.check_rolled" for e in rows)
    assert rows[-1].keys() == {"seq", "hash", "redacted"}  # the blind roll: a stub


def test_shell_defaults_come_from_the_campaign_command(casebook):
    result = play(casebook, "note 'from the player table'\nlog --json\n", "--actor", "ana")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output[result.output.index("[{") :])
    assert rows[-1]["actor"] == "ana"


def test_each_entry_sees_what_another_writer_appended(casebook):
    app = App(casebook, None, None, "gm")
    shell = TableShell(app)
    try:
        assert shell.run_line("character list") == 0
        other = Store(casebook)
        campaign = open_campaign(other)
        campaign.add_character(
            {"name": "Isa Marrow", "npc": True, "skills": {"Notice": 1}},
            actor="gm",
            at="2026-03-01T19:00:00.000000Z",
        )
        other.conn.close()
        assert shell.run_line("roll isa notice --dr fair --dice ++00") == 0
        assert shell.failures == 0
    finally:
        app.close()
    assert events(casebook)[-1] == "wyrd-engine.check_rolled"


def test_a_missing_ledger_is_refused_before_the_prompt(tmp_path):
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "none.db"), "play"], input="")
    assert result.exit_code == 1
    assert "no ledger at" in result.output


def wait_for(condition, seconds=60.0):  # bounds a hang only
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the prompt did not get there in time"
        time.sleep(0.005)


def typist(session, pipe, steps):
    """Types like a person: each step's keys, then waits until the prompt's buffer shows
    what it should (Tab completion runs in the background, as on a terminal)."""

    problems = []

    def run():
        try:
            for keys, shows in steps:
                wait_for(lambda: session.app.is_running)
                pipe.send_text(keys)
                if shows is not None:
                    wait_for(lambda shows=shows: session.default_buffer.text == shows)
                else:  # Enter: wait for the prompt to finish this line
                    wait_for(
                        lambda: not session.app.is_running or session.default_buffer.text == ""
                    )
        except AssertionError:
            problems.append(f"after {keys!r} the prompt shows {session.default_buffer.text!r}")
            pipe.send_text("\x03\x04")  # Ctrl-C drops the line, Ctrl-D leaves

    threading.Thread(target=run, daemon=True).start()
    return problems


def test_prompt_toolkit_entries_with_tab_completion(casebook, capsys):
    def typed() -> tuple[list[str], int]:
        app = App(casebook, None, None, "gm")
        shell = TableShell(app)
        try:
            with create_pipe_input() as pipe:
                session: PromptSession[str] = PromptSession(input=pipe, output=DummyOutput())
                problems = typist(
                    session,
                    pipe,
                    [
                        ("roll jul", "roll jul"),
                        ("\t", "roll julian"),
                        (" investi", "roll julian investi"),
                        ("\t", "roll julian Investigate"),
                        (" --dr goo", "roll julian Investigate --dr goo"),
                        ("\t", "roll julian Investigate --dr good"),
                        (" --dice ++-0\r", None),
                        ("damage fel", "damage fel"),
                        ("\t", "damage felix"),
                        (" 1\r", None),
                        ("\x04", None),  # Ctrl-D leaves
                    ],
                )
                return problems, shell.run_lines(prompt_lines(app, history=None, session=session))
        finally:
            app.close()

    problems, failures = apart(typed)  # the prompt runs its own asyncio loop
    out = capsys.readouterr().out
    assert problems == []
    assert failures == 0, out
    assert "Investigate +3, dice [+ + − ·] = +1, total 4 vs Difficult/Good (+2): success" in out
    assert events(casebook)[-2:] == ["wyrd-engine.check_rolled", "wyrd-engine.damage_taken"]


def test_completion_offers_what_the_campaign_holds(casebook):
    app = App(casebook, None, None, "gm")
    try:
        assert "roll" in candidates(app, [], "")
        assert {"help", "exit", "quit"} <= set(candidates(app, [], ""))
        assert candidates(app, [], "ro") == ["roll"]
        assert candidates(app, ["session"], "") == ["abandon", "end", "list", "start"]
        assert {"felix", "julian"} <= set(candidates(app, ["roll"], ""))
        assert "Investigate" in candidates(app, ["roll", "julian"], "")
        assert candidates(app, ["roll", "julian"], "inv") == ["Investigate"]  # any case
        options = candidates(app, ["roll", "julian", "notice"], "--")
        assert "--dr" in options and "--dice" in options
        assert "--advantage" not in options  # d20-world's: not offered in a Wyrd campaign
        assert candidates(app, ["roll", "julian", "notice", "--dr"], "g") == ["good", "great"]
        assert "difficult" in candidates(app, ["roll", "julian", "notice", "--dr"], "")
        assert candidates(app, ["--as"], "") == ["gm", "player"]
        assert "felix" in candidates(app, ["--as", "player", "sheet"], "")
        assert candidates(app, ["odds"], "wyrd") == ["wyrd-engine"]
    finally:
        app.close()


def test_completion_of_record_events_and_their_fields(toy_campaign, db_path):
    app = App(db_path, None, None, "gm")
    try:
        names = candidates(app, ["record"], "")
        assert "list" in names
        assert all("." not in n for n in names) and len(names) > 1
        event = next(n for n in names if n != "list")
        fields = candidates(app, ["record", event], "--")
        assert "--blind" in fields and len(fields) > 2
        assert candidates(app, ["record", "no-such-event"], "--") == []
    finally:
        app.close()


def test_completion_without_a_ledger_offers_commands_only(tmp_path):
    app = App(str(tmp_path / "none.db"), None, None, "gm")
    assert "roll" in candidates(app, [], "")
    assert candidates(app, ["roll"], "") == sorted(candidates(app, ["roll"], ""))
    assert not any(not c.startswith("-") for c in candidates(app, ["roll"], ""))
    assert not (tmp_path / "none.db").exists()


def test_history_lives_in_the_xdg_state_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert default_history() == tmp_path / "campaign-ledger" / "history"
    monkeypatch.delenv("XDG_STATE_HOME")
    assert default_history() == Path.home() / ".local" / "state" / "campaign-ledger" / "history"


class Typed:
    """A prompt session that types ``lines`` and keeps every prompt it was shown."""

    completer = None

    def __init__(self, lines):
        self.lines, self.shown = list(lines), []

    def prompt(self, message):
        self.shown.append(message)
        if not self.lines:
            raise EOFError
        return self.lines.pop(0)


def test_the_prompt_shows_the_view_the_next_entry_uses(casebook, capsys):
    for default, marks in ((None, ["", "", ""]), ("gm", [" [GM]"] * 3)):
        app = App(casebook, None, default, "gm")
        typed = Typed(
            [
                "--as gm roll julian notice --dr fair --dice +--- --blind",
                "--as player log --json",
            ]
        )
        try:
            assert TableShell(app).run_lines(prompt_lines(app, history=None, session=typed)) == 0
        finally:
            app.close()
        assert typed.shown == [f"casebook s1{mark}> " for mark in marks], default
    capsys.readouterr()
    result = play(casebook, "--as gm log --json\nlog --json\n")  # each entry: its own view
    first, second = (
        json.loads(line) for line in result.output.splitlines() if line.startswith("[")
    )
    assert len(first) > len([e for e in second if not e.get("redacted")])


def test_undo_in_the_shell_takes_its_reason_from_its_own_entry(casebook, monkeypatch):
    from ledger.cli import table

    monkeypatch.setattr(table, "_interactive", lambda: True)  # a terminal
    result = play(casebook, "damage felix 1\nundo --yes\nnote 'Felix owes Julian a favour'\n")
    assert result.exit_code == 1  # the undo was refused; the shell went on
    assert "give the reason in the same entry" in result.output
    assert "(it takes back event 5, the last entry gm wrote, whole)" in result.output
    assert events(casebook)[-2:] == ["wyrd-engine.damage_taken", "note.added"]
    result = play(casebook, 'undo --reason "misread the die"\n')
    assert result.exit_code == 0, result.output
    assert "Undone: [6] Note: Felix owes Julian a favour" in result.output
    assert events(casebook)[-1] == "correction.recorded"
    log = json.loads(play(casebook, "--as gm log --json\n").output)
    assert log[-1]["data"]["reason"] == "misread the die"
