"""Shell completion (`_CAMPAIGN_COMPLETE=bash_source campaign`, docs/cli.md): bash, zsh and
fish answer from the campaign named by --db or CAMPAIGN_DB."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from ledger.cli import cli

SHEETS = Path(__file__).resolve().parent.parent / "campaigns" / "grand-casebook" / "characters"


@pytest.fixture
def casebook(invoke, frozen, db_path):
    """A Wyrd Engine ledger with Julian and Felix."""
    assert invoke("new", "casebook", "--system", "wyrd-engine").exit_code == 0
    for who in ("julian", "felix"):
        result = invoke("character", "add", "--sheet", str(SHEETS / f"{who}.toml"))
        assert result.exit_code == 0, result.output
    return db_path


def complete(line: str, shell: str = "bash", env: dict[str, str] | None = None) -> list[str]:
    """What ``shell`` offers for the last word of ``line`` (``"roll ju"``, ``"roll "``)."""
    words = line.split(" ")
    # bash and zsh give the words and the index of the one being completed; fish gives the
    # words before it and the word itself
    cword = words[-1] if shell == "fish" else str(len(words))
    result = CliRunner().invoke(
        cli,
        [],
        prog_name="campaign",
        env={
            "_CAMPAIGN_COMPLETE": f"{shell}_complete",
            "COMP_WORDS": " ".join(["campaign", *words]),
            "COMP_CWORD": cword,
            **(env or {}),
        },
    )
    assert result.exit_code == 0, result.output
    return result.output.splitlines()


def values(lines: list[str]) -> list[str]:
    """The values of bash's ``type,value`` lines."""
    return [line.split(",", 1)[1] for line in lines]


def test_bash_completes_characters_from_the_campaign(casebook):
    assert values(complete(f"--db {casebook} roll ")) [-2:] == ["felix", "julian"]
    assert values(complete(f"--db {casebook} damage fe")) == ["felix"]


def test_campaign_db_names_the_ledger(casebook):
    assert values(complete("sheet j", env={"CAMPAIGN_DB": casebook})) == ["julian"]


def test_skills_and_dr_names(casebook):
    assert values(complete(f"--db {casebook} roll julian inv")) == ["Investigate"]
    offered = values(complete(f"--db {casebook} roll julian investigate --dr g"))
    assert offered == ["good", "great"]


def test_zsh_and_fish_answer_too(casebook):
    zsh = complete(f"--db {casebook} sheet fe", shell="zsh")
    assert zsh == ["plain", "felix", "_"]
    fish = complete(f"--db={casebook} sheet fe", shell="fish")
    assert fish == ["plain,felix"]


def test_no_ledger_offers_commands_and_creates_nothing(tmp_path):
    missing = tmp_path / "nope.db"
    assert "sheet" in values(complete(f"--db {missing} sh"))
    assert not missing.exists()
    assert os.listdir(tmp_path) == []


def test_paths_complete_as_files(casebook):
    assert complete("--db cam") == ["file,cam"]
    assert complete(f"--db {casebook} character add --sheet ju") == ["file,ju"]


def test_source_script_names_the_program():
    result = CliRunner().invoke(
        cli, [], prog_name="campaign", env={"_CAMPAIGN_COMPLETE": "bash_source"}
    )
    assert result.exit_code == 0
    assert "_CAMPAIGN_COMPLETE=bash_complete" in result.output
    assert "complete -o nosort -F _campaign_completion campaign" in result.output
