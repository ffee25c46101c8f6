"""What docs/witness.md and docs/trust.md promise, checked.

- every ``campaign ...`` line of docs/witness.md names a command that exists, with options
  it has;
- the how-to runs as written: a witness made and told the campaign's key (read from
  ``campaign checkpoint``'s ``Key:`` line), the GM's ``checkpoint --witness`` cosigned, the
  note fetched from ``/<sha256 of the origin>/checkpoint`` accepted by ``campaign verify
  FILE --receipt``; a rewritten log refused by the witness;
- docs/trust.md says nothing is "to come" and has one "What remains" section.
"""

from __future__ import annotations

import hashlib
import re
import shlex
import urllib.request
from pathlib import Path

import click
from click.testing import CliRunner

from ledger.cli import cli
from ledger.trust.cosignature import Cosigner

from .test_web_phone_e2e import rewrite_note
from .test_witness import Running
from .webtools import d20_table

DOCS = Path(__file__).resolve().parent.parent / "docs"


def command_lines(text: str) -> list[str]:
    """The ``campaign ...`` lines of the Markdown's code blocks, comments cut."""
    lines: list[str] = []
    for block in re.findall(r"```\n(.*?)```", text, re.S):
        for line in block.splitlines():
            if line.startswith("campaign "):
                lines.append(line.split("  #")[0].strip())
    return lines


def resolve(words: list[str]) -> tuple[click.Command, list[str]]:
    """The command ``words`` names (after ``campaign``) and the options given to it."""
    command: click.Command = cli
    ctx = click.Context(cli)
    options: list[str] = []
    for word in words:
        if word.startswith("-"):
            options.append(word.split("=")[0])
        elif isinstance(command, click.Group) and not options:
            found = command.get_command(ctx, word)
            assert found is not None, f"no command {word!r} in {words}"
            command = found
    return command, options


def test_every_command_in_the_witness_how_to_exists():
    lines = command_lines((DOCS / "witness.md").read_text())
    assert len(lines) >= 5
    for line in lines:
        command, options = resolve(shlex.split(line)[1:])
        assert not isinstance(command, click.Group), line
        known = {o for p in command.params for o in [*p.opts, *p.secondary_opts]}
        assert set(options) <= known, (line, set(options) - known)


def test_the_witness_how_to_runs_as_written(tmp_path):
    table = d20_table(str(tmp_path / "ledger.db"))
    table.ok("note", "The vault door groans open.")
    table.ok("session", "end")
    key, state = str(tmp_path / "witness.key"), str(tmp_path / "witness.json")
    runner = CliRunner()

    def witness(*args: str) -> str:
        files = ["--state", state] if args[0] == "trust" else ["--key", key, "--state", state]
        result = runner.invoke(cli, ["witness", *args, *files])
        assert result.exit_code == 0, result.output
        return result.output

    printed = witness("init", "club.example/witness")
    witness_key = re.search(r"Its public key: (\S+)", printed).group(1)  # type: ignore[union-attr]
    log_key = re.search(r"^Key: (\S+)$", table.ok("checkpoint"), re.M).group(1)  # type: ignore[union-attr]
    assert "Following campaign-ledger/vault" in witness("trust", log_key)
    from ledger.witness.core import load_cosigner

    cosigner: Cosigner = load_cosigner(key)
    running = Running(Path(state), cosigner)
    try:
        out = table.ok("checkpoint", "--witness", running.url, "--witness-key", witness_key)
        assert "Cosigned by the witness club.example/witness" in out
        assert "cosigned by club.example/witness" in table.ok("verify")
        origin = hashlib.sha256(b"campaign-ledger/vault").hexdigest()
        with urllib.request.urlopen(f"{running.url}/{origin}/checkpoint", timeout=10) as r:
            note = r.read().decode()
        assert "\n— club.example/witness " in note  # cosigned by the witness
        kept = tmp_path / "vault-witnessed.txt"
        kept.write_text(note)
        exported = tmp_path / "players.ndjson"
        exported.write_text(table.ok("export"))
        assert table("verify", str(exported), "--receipt", str(kept)).exit_code == 0

        rewrite_note(table.db, "The vault door groans open.", "The vault door stays shut.")
        table.ok("note", "Nothing to see here.")
        refused = table("checkpoint", "--witness", running.url, "--witness-key", witness_key)
        assert refused.exit_code == 1, refused.output
        assert "refused the checkpoint as inconsistent with what it saw" in refused.output
        exported.write_text(table.ok("export"))
        again = table("verify", str(exported), "--receipt", str(kept))
        assert again.exit_code == 1 and "rewritten" in again.output
    finally:
        running.stop()


def test_trust_md_says_what_remains_once_and_nothing_built_is_to_come():
    text = (DOCS / "trust.md").read_text()
    assert "to come" not in text.lower()
    headings = re.findall(r"^#+ .*$", text, re.M)
    assert sum("What remains" in h for h in headings) == 1, headings
    assert "**What remains" not in text
    for page in ("witness.md", "serve.md"):
        assert f"({page}" in text, page
