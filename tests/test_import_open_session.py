"""A GM export made during an open session is not a backup.

It holds every event but not the open session's seed: restored, that session could neither
roll nor end and its engine rolls could never be verified. `export --as gm` says so and
names `campaign backup`; `import` refuses such a file while that session has engine rolls
(naming `campaign backup`), or with `--abandon-open-session` imports it with the session
abandoned and its rolls reported unverifiable, never as "pending" for ever.
"""

from __future__ import annotations

import json
import os

import pytest

from .test_outputs import refused, run


@pytest.fixture
def mid_session(toy_campaign, db_path):
    """The toy campaign in session 2 (session 1 ended) with two engine rolls in session 2."""
    invoke = toy_campaign
    for args in (
        ["session", "start"],
        ["roll", "ann", "brawl"],
        ["session", "end"],
        ["session", "start"],
        ["roll", "bob", "sneak"],
        ["roll", "ann", "brawl"],
    ):
        assert invoke(*args).exit_code == 0, args
    return db_path


def test_a_gm_export_during_an_open_session_names_the_backup_command(mid_session, tmp_path):
    # Seen: docs/getting-started.md called `campaign --as gm export` "a full backup"
    out = tmp_path / "gm.ndjson"
    result = run(mid_session, "--as", "gm", "export", "-o", str(out))
    assert result.exit_code == 0, result.output
    assert "session 2 is open" in result.output
    assert "Only `campaign backup FILE` carries the seed" in result.output
    assert len(out.read_bytes().splitlines()) > 10  # the export is still written whole
    assert "Warning" not in run(mid_session, "export", "-o", str(out)).output  # players' copy
    assert run(mid_session, "session", "end").exit_code == 0
    result = run(mid_session, "--as", "gm", "export", "-o", str(out))
    assert result.exit_code == 0 and "Warning" not in result.output, result.output


def test_importing_an_open_session_without_its_seed_is_refused(mid_session, tmp_path):
    # Seen: it imported with a warning, and `verify` then reported the session's rolls as
    # verifiable once it ends, which it never could
    gm = tmp_path / "gm.ndjson"
    assert run(mid_session, "--as", "gm", "export", "-o", str(gm)).exit_code == 0
    target = tmp_path / "restored.db"
    refused(
        run(str(target), "import", str(gm)),
        "session 2 is open",
        "2 engine rolls",
        "campaign backup FILE",
        "--abandon-open-session",
        "nothing imported",
    )
    assert not target.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".campaign")] == []


def test_abandon_open_session_imports_it_abandoned(mid_session, tmp_path):
    gm = tmp_path / "gm.ndjson"
    assert run(mid_session, "--as", "gm", "export", "-o", str(gm)).exit_code == 0
    target = str(tmp_path / "restored.db")
    result = run(target, "import", "--abandon-open-session", "--json", str(gm))
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert answer["abandoned_session"] == 2 and answer["engine_rolls_unverifiable"] == 2
    events = answer["events"]
    log = run(target, "log").output.strip().splitlines()
    # the file's events, then the abandonment (and the downtime seed it commits)
    assert log[-2].startswith(f"[{events + 1}] Session 2 abandoned, its seed lost: imported")
    assert log[-1].startswith(f"[{events + 2}] Downtime seed after session 2 committed")
    result = run(target, "verify", "--json")
    report = json.loads(result.output)
    assert report["ok"] and report["engine_rolls_abandoned"] == 2
    assert report["engine_rolls_unverifiable"] == 0  # nothing left "pending"
    assert report["engine_rolls_verified"] == 1  # session 1's
    assert run(target, "session", "start").exit_code == 0
    assert run(target, "roll", "ann", "brawl").exit_code == 0


def test_abandon_open_session_into_an_existing_ledger_is_one_transaction(mid_session, tmp_path):
    gm = tmp_path / "gm.ndjson"
    assert run(mid_session, "--as", "gm", "export", "-o", str(gm)).exit_code == 0
    other = str(tmp_path / "other.db")
    assert run(other, "new", "elsewhere", "--system", "toy").exit_code == 0
    result = run(other, "import", "--abandon-open-session", str(gm))
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert "its 2 engine rolls are unverifiable" in lines[0]
    assert lines[-1].startswith("Imported campaign toybox")  # success is said last
    assert run(other, "--campaign", "toybox", "verify").exit_code == 0
    assert run(other, "--campaign", "elsewhere", "verify").exit_code == 0


def test_a_backup_restores_the_open_session_without_abandoning_it(mid_session, tmp_path):
    backup = tmp_path / "b.backup"
    assert run(mid_session, "backup", str(backup)).exit_code == 0
    target = str(tmp_path / "restored.db")
    result = run(target, "import", "--abandon-open-session", str(backup))
    assert result.exit_code == 0, result.output
    assert "abandoned" not in result.output
    assert run(target, "session", "end").exit_code == 0
    result = run(target, "verify", "--json")
    assert json.loads(result.output)["engine_rolls_verified"] == 3


def test_an_open_session_without_engine_rolls_imports_with_a_warning(toy_campaign, tmp_path):
    invoke = toy_campaign
    assert invoke("session", "start").exit_code == 0
    assert invoke("roll", "ann", "brawl", "--dice", "3,4").exit_code == 0  # physical dice
    gm = tmp_path / "gm.ndjson"
    assert invoke("--as", "gm", "export", "-o", str(gm)).exit_code == 0
    target = str(tmp_path / "restored.db")
    result = run(target, "import", str(gm))
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert "session 1 is open and the file does not hold its seed" in lines[0]
    assert "campaign session abandon" in lines[0]
    assert lines[-1].startswith("Imported campaign toybox")
    assert os.path.exists(target)
