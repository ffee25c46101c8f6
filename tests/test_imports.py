"""Imports from other tools' chat logs: Foundry VTT and Roll20, with provenance.

The sample files in tests/data/ are built the way those tools write them (each file's
comment, or tests/data/README.md for the JSON ones, says how).
"""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.exchange import foundry, roll20
from ledger.exchange.foreign import BadFile

DATA = Path(__file__).parent / "data"
ROLL20 = str(DATA / "roll20-chat-archive.html")
FOUNDRY_TXT = str(DATA / "fvtt-log-Thu-Nov-26-2026.txt")
FOUNDRY_JSON = str(DATA / "foundry-chat-messages.json")


def events(db_path: str, type_: str = "roll.imported") -> list[dict]:
    conn = sqlite3.connect(db_path)
    try:
        rows = conn.execute("select seq, stream, data from events where type = ? order by seq", (type_,))
        return [{"seq": s, "stream": st, **json.loads(d)} for s, st, d in rows]
    finally:
        conn.close()


def count_events(db_path: str) -> int:
    conn = sqlite3.connect(db_path)
    try:
        return conn.execute("select count(*) from events").fetchone()[0]
    finally:
        conn.close()


def test_roll20_archive_imports_with_its_rolls_attributed(toy_campaign, db_path):
    result = toy_campaign("import", "--from", "roll20", ROLL20, "--map", "Nate=bob", "--unmapped", "skip")
    assert result.exit_code == 0, result.output
    assert "5 new, 0 already imported" in result.output
    # the /gmroll is the GM's (skipped); the whisper shown "(To ...)" names no sender
    assert "messages: 4 imported, 0 already imported, 1 not a roll, 2 refused" in result.output
    assert "refused: message -M5Jt2emR4EN5ttCCtT_ (line 46): a whisper the archive shows" in result.output
    rolls = events(db_path)
    assert [(r["stream"], r["formula"], r["total"]) for r in rolls] == [
        ("ann", "d20-1", 6),
        ("ann", "2d20kh1", 12),  # no span.by: the speaker carries over, as Roll20 writes it
        ("bob", "1d20+0[CON]", 14),
        ("bob", "1d20+0[CON]", 7),
        ("bob", "2d6+3", 13),
    ]
    first = rolls[0]
    assert first["tool"] == "roll20" and first["key"] == "-M5KELlQVMhq7p0h926d"
    assert first["dice"] == [[20, 7]] and first["speaker"] == "Ann Vance"
    assert first["at"] == "April 19, 2020 4:22PM"
    assert rolls[1]["dice"] == [[20, 12], [20, 9]]  # the dropped die was rolled too
    assert rolls[4]["dice"] == [[6, 6], [6, 4]] and rolls[4]["label"] == "Dagger (+3)"
    assert "Rolling 2d6+3" in rolls[4]["text"]
    # the whisper's and the /gmroll's dice are nowhere
    assert not any(r["total"] in (19, 88) for r in rolls)


def test_reimport_adds_nothing(toy_campaign, db_path):
    assert toy_campaign("import", "--from", "roll20", ROLL20, "--map", "Nate=bob", "--unmapped", "skip").exit_code == 0
    before = count_events(db_path)
    again = toy_campaign("import", "--from", "roll20", ROLL20, "--map", "Nate=bob", "--unmapped", "skip")
    assert again.exit_code == 0, again.output
    assert "0 new, 5 already imported" in again.output
    assert count_events(db_path) == before


def test_unmapped_speaker_is_refused_with_suggestions_and_nothing_written(toy_campaign, db_path):
    before = count_events(db_path)
    result = toy_campaign("import", "--from", "roll20", ROLL20)
    assert result.exit_code == 1
    line = result.output.strip()
    assert "\n" not in line and "Traceback" not in line
    assert "speaker 'Nate' and 1 more (GM Kevin (GM)) is not a character of toybox" in line
    assert '"Nate=' in line and "skip the speakers left unmapped (--map)" in line
    assert count_events(db_path) == before
    skipped = toy_campaign("import", "--from", "roll20", ROLL20, "--unmapped", "skip")
    assert skipped.exit_code == 0, skipped.output
    assert "2 new" in skipped.output and "3 roll(s) of Nate skipped" in skipped.output
    assert "1 roll(s) of GM Kevin (GM) skipped" in skipped.output


def test_map_to_no_character_is_refused(toy_campaign, db_path):
    before = count_events(db_path)
    result = toy_campaign("import", "--from", "roll20", ROLL20, "--map", "Nate=Nathan")
    assert result.exit_code == 1 and "Nathan" in result.output
    assert count_events(db_path) == before
    bad = toy_campaign("import", "--from", "roll20", ROLL20, "--map", "Nate")
    assert bad.exit_code == 2 and 'takes "Speaker=character"' in bad.output


def test_foundry_text_export(toy_campaign, db_path):
    result = toy_campaign("import", "--from", "foundry", FOUNDRY_TXT)
    assert result.exit_code == 0, result.output
    assert "5 new, 0 already imported" in result.output
    rolls = events(db_path)
    assert [(r["stream"], r["formula"], r["total"], r["dice"]) for r in rolls] == [
        ("ann", "1d20 + 5", 19, [[20, 14]]),
        ("bob", "2d6 + 1d20", 11, [[20, 4]]),  # 2d6 shows only its sum (7) in the export
        ("bob", "2d20kh + 2", 17, []),  # kept die of two: its faces are not in the export
        ("ann", "1d8 + 3", 9, [[8, 6]]),
        ("ann", "1d4", 2, [[4, 2]]),
    ]
    assert rolls[0]["at"] == "11/26/2026, 8:16:05 PM"  # the narrow no-break space folded
    assert rolls[1]["label"] == "Sneak Attack"
    again = toy_campaign("import", "--from", "foundry", FOUNDRY_TXT)
    assert "0 new, 5 already imported" in again.output


def test_foundry_json_keeps_every_face_and_leaves_whispers_out(toy_campaign, db_path):
    result = toy_campaign("import", "--from", "foundry", FOUNDRY_JSON, "--json", "--unmapped", "skip")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["new"] == 3 and report["unmapped_skipped"] == {"Gamemaster": 1}
    rolls = events(db_path)
    assert [(r["key"], r["dice"]) for r in rolls] == [
        ("cD4eF6gH8iJ0kL2m", [[20, 14]]),
        ("eF5gH7iJ9kL1mN3o#1", [[6, 3], [6, 4]]),
        ("eF5gH7iJ9kL1mN3o#2", [[20, 15], [20, 9]]),
    ]
    assert rolls[0]["at"] == "2026-11-26T20:16:05.000000Z"
    assert rolls[0]["label"] == "Perception Check"


@pytest.mark.parametrize(
    ("tool", "name", "says"),
    [
        ("foundry", "fvtt-log-malformed.txt", "line 8: not the start of a Foundry chat message"),
        ("foundry", "foundry-chat-messages-bad-die.json", "message 2 (cD4eF6gH8iJ0kL2m): roll 1: a d20 cannot show 25"),
        ("roll20", "roll20-bad-total.html", "message -MaaaBad02 (line 5): the total 'four' is not a whole number"),
    ],
)
def test_a_malformed_message_is_refused_and_listed(toy_campaign, db_path, tool, name, says):
    result = toy_campaign("import", "--from", tool, str(DATA / name), "--unmapped", "skip")
    assert result.exit_code == 0, result.output
    assert f"refused: {says}" in result.output
    report = json.loads(toy_campaign("import", "--from", tool, str(DATA / name), "--unmapped", "skip", "--json").output)
    assert [r for r in report["report"] if r["status"] == "refused"][0]["reason"] in says + result.output


@pytest.mark.parametrize(
    ("tool", "name", "says"),
    [
        ("roll20", "roll20-not-archive.html", "holds no Roll20 chat message (div.message)"),
        ("roll20", "fvtt-log-Thu-Nov-26-2026.txt", "holds no Roll20 chat message"),
        ("foundry", "roll20-chat-archive.html", "line 1 of roll20-chat-archive.html is not the start of a Foundry chat message"),
    ],
)
def test_malformed_files_are_refused_in_one_line(toy_campaign, db_path, tool, name, says):
    before = count_events(db_path)
    result = toy_campaign("import", "--from", tool, str(DATA / name))
    assert result.exit_code == 1, result.output
    assert says in result.output
    assert result.output.count("\n") == 1 and "Traceback" not in result.output
    assert count_events(db_path) == before


def test_hostile_strings(toy_campaign, db_path, tmp_path):
    before = count_events(db_path)
    bidi = tmp_path / "bidi.txt"
    bidi.write_text("[11/26/2026, 8:16:05 PM] Ann\u202eecnaV\n1d20 = 3 = 3", encoding="utf-8")
    result = toy_campaign("import", "--from", "foundry", str(bidi))
    assert result.exit_code == 0 and "0 new" in result.output
    assert "refused: line 1:" in result.output and "U+202E" in result.output
    huge = tmp_path / "huge.txt"
    huge.write_text("[11/26/2026, 8:16:05 PM] Ann Vance\n" + "A" * 30_000 + "\n1d20 = 3 = 3")
    result = toy_campaign("import", "--from", "foundry", str(huge))
    assert "0 new" in result.output and "refused: line 1: the message is 30,0" in result.output
    assert count_events(db_path) == before
    # control characters in a message's text are kept, and shown escaped
    ctl = tmp_path / "ctl.txt"
    ctl.write_text("[11/26/2026, 8:16:05 PM] Ann Vance\nbell\x07 \x1b[31mred\n1d20 = 3 = 3")
    assert toy_campaign("import", "--from", "foundry", str(ctl)).exit_code == 0
    log = toy_campaign("log").output
    assert "\x1b" not in log and "\x07" not in log  # the label is on the line, escaped
    assert "bell\\x07 \\x1b[31mred; imported from Foundry VTT" in log
    seq = events(db_path)[0]["seq"]
    audit = toy_campaign("audit", str(seq)).output
    assert "\x1b" not in audit and "\\x1b[31mred" in audit


def test_log_audit_and_fairness_show_the_source(toy_campaign, db_path):
    assert toy_campaign("import", "--from", "roll20", ROLL20, "--map", "Nate=bob", "--unmapped", "skip").exit_code == 0
    seq = events(db_path)[0]["seq"]
    log = toy_campaign("log").output
    assert f"[{seq}] Ann Vance — rolled d20-1 = 6 (faces 7); imported from Roll20, not verifiable" in log
    audit = toy_campaign("audit", str(seq))
    assert audit.exit_code == 0, audit.output
    assert "source: imported from Roll20 (message -M5KELlQVMhq7p0h926d)" in audit.output
    assert "original text: rolling d20-1" in audit.output
    assert "not verifiable" in audit.output and "verified:" not in audit.output
    data = json.loads(toy_campaign("audit", str(seq), "--json").output)
    assert data["verdict"] == "imported" and data["imported"]["tool"] == "Roll20"
    toy_campaign("session", "start")
    toy_campaign("roll", "ann", "brawl")
    fair = json.loads(toy_campaign("fairness", "--json").output)
    sources = {(g["source"], g["sides"]) for g in fair["groups"]}
    assert ("imported", 20) in sources and ("imported", 6) in sources
    assert ("engine", 6) in sources and ("engine", 20) not in sources
    assert fair["predictable"]["imported"] == 5
    only = json.loads(toy_campaign("fairness", "--source", "imported", "--json").output)
    assert {g["source"] for g in only["groups"]} == {"imported"}
    text = toy_campaign("fairness").output
    assert "imported d20, Ann Vance" in text


def test_verify_passes_after_an_import(toy_campaign, db_path):
    assert toy_campaign("import", "--from", "foundry", FOUNDRY_JSON, "--map", "Gamemaster=bob").exit_code == 0
    result = toy_campaign("verify")
    assert result.exit_code == 0, result.output


def test_ndjson_import_unchanged_and_map_needs_from(toy_campaign, tmp_path):
    result = toy_campaign("import", ROLL20, "--map", "Nate=bob")
    assert result.exit_code == 2 and "--from" in result.output


# --- no input makes a parser fail any other way than a one-line refusal ----------------------

SAMPLES = {
    "foundry": [(DATA / n).read_text() for n in ("fvtt-log-Thu-Nov-26-2026.txt", "foundry-chat-messages.json")],
    "roll20": [(DATA / "roll20-chat-archive.html").read_text()],
}


def mutated(text: str, cuts: list[tuple[int, int, str]]) -> str:
    for at, length, insert in cuts:
        at %= len(text) + 1
        text = text[:at] + insert + text[at + length :]
    return text


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    tool=st.sampled_from(["foundry", "roll20"]),
    which=st.integers(0, 1),
    cuts=st.lists(
        st.tuples(st.integers(0, 10**6), st.integers(0, 40), st.text(max_size=12)), max_size=4
    ),
)
def test_parsers_refuse_in_one_line_or_read(tool, which, cuts):
    samples = SAMPLES[tool]
    text = mutated(samples[which % len(samples)], cuts)
    parse = foundry.parse if tool == "foundry" else roll20.parse
    try:
        parsed = parse(io.BytesIO(text.encode()), "f")
    except BadFile as e:
        assert "\n" not in str(e)
        return
    for roll in parsed.rolls:
        assert all(2 <= s <= 1000 and 1 <= f <= s for s, f in roll.dice)
        assert roll.speaker and roll.key
    for message in parsed.messages:
        assert "\n" not in message.refused


def test_roll20_hostile_speaker_is_refused(toy_campaign, db_path, tmp_path):
    page = tmp_path / "bidi.html"
    page.write_text(
        '<div class="message rollresult" data-messageid="-Mx"><span class="by">Ann\u202e:</span>'
        '<div class="formula">rolling d20</div><div class="diceroll d20"><div class="didroll">3'
        '</div></div><div class="rolled">3</div></div>'
    )
    before = count_events(db_path)
    result = toy_campaign("import", "--from", "roll20", str(page))
    assert "0 new" in result.output and "refused: message -Mx (line 1):" in result.output
    assert "U+202E" in result.output and count_events(db_path) == before


def test_web_audit_page_shows_the_source(toy_campaign, db_path):
    from tests.webtools import Table, client

    assert toy_campaign("import", "--from", "roll20", ROLL20, "--map", "Nate=bob", "--unmapped", "skip").exit_code == 0
    seq = events(db_path)[0]["seq"]
    with client(Table(db_path), "Dana") as c:
        page = c.get(f"/audit/{seq}").text
    assert "imported from Roll20 (message -M5KELlQVMhq7p0h926d), said by Ann Vance" in page
    assert "not verifiable" in page and "rolling d20-1" in page


def test_gm_only_import_reaches_no_player(toy_campaign, db_path):
    result = toy_campaign("import", "--from", "foundry", FOUNDRY_TXT, "--gm-only")
    assert result.exit_code == 0 and "Imported from Foundry VTT GM-only: 5 new" in result.output
    conn = sqlite3.connect(db_path)
    try:
        seen = {v for (v,) in conn.execute("select visibility from events where type = 'roll.imported'")}
    finally:
        conn.close()
    assert seen == {"gm"}
    player = toy_campaign("log").output
    assert "imported from" not in player and player.count("GM-only entry") == 5
    assert "imported" not in json.loads(toy_campaign("fairness", "--json").output)["predictable"]
    gm = json.loads(toy_campaign("--as", "gm", "fairness", "--json").output)
    assert gm["predictable"]["imported"] == 5
    again = toy_campaign("import", "--from", "foundry", FOUNDRY_TXT)
    assert "0 new, 5 already imported" in again.output  # public or not, once is enough


def test_a_speaker_mapped_once_stays_mapped(toy_campaign, db_path, tmp_path):
    assert toy_campaign("import", "--from", "roll20", ROLL20, "--map", "Nate=bob", "--unmapped", "skip").exit_code == 0
    later = tmp_path / "later.txt"
    later.write_text("[11/27/2026, 8:00:00 PM] Nate\n1d20 = 11 = 11")
    result = toy_campaign("import", "--from", "foundry", str(later))
    assert result.exit_code == 0, result.output
    assert "Nate → bob" in result.output and events(db_path)[-1]["stream"] == "bob"


def test_foundry_nedb_messages_db_last_line_wins(toy_campaign, db_path, tmp_path):
    """A world's data/messages.db of v10 and earlier: NeDB appends a document's new version
    as a new line, a deletion as {"$$deleted": true}, and index lines."""
    docs = json.loads(Path(FOUNDRY_JSON).read_text())
    ann, bob = docs[1], docs[2]
    edited = {**ann, "flavor": "Perception Check (edited)"}
    lines = [{"$$indexCreated": {"fieldName": "timestamp"}}, ann, bob, edited,
             {"_id": bob["_id"], "$$deleted": True}]  # fmt: skip
    db = tmp_path / "messages.db"
    db.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    result = toy_campaign("import", "--from", "foundry", str(db), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["new"] == 1
    (only,) = events(db_path)
    assert only["key"] == ann["_id"] and only["label"] == "Perception Check (edited)"


def test_import_and_players_copy_on_both_backends(store_target, toy_system, frozen, tmp_path):
    from click.testing import CliRunner

    from ledger.cli import cli

    def run(*args):
        return CliRunner().invoke(cli, ["--db", store_target, *args], catch_exceptions=False)

    assert run("new", "toybox", "--system", "toy").exit_code == 0
    sheet = tmp_path / "ann.toml"
    sheet.write_text('name = "Ann Vance"\n[skills]\nbrawl = 2\n')
    assert run("character", "add", "--sheet", str(sheet)).exit_code == 0
    first = run("import", "--from", "foundry", FOUNDRY_JSON, "--unmapped", "skip")
    assert first.exit_code == 0 and "1 new, 0 already imported" in first.output, first.output
    again = run("import", "--from", "foundry", FOUNDRY_JSON, "--unmapped", "skip")
    assert "0 new, 1 already imported" in again.output
    copy = tmp_path / "players.db"
    assert run("export", "--format", "sqlite", str(copy)).exit_code == 0
    conn = sqlite3.connect(copy)
    try:
        (text,) = conn.execute("select text from events where type = 'roll.imported'").fetchone()
    finally:
        conn.close()
    assert text.startswith("Ann Vance — rolled 1d20 + 5 = 19 (faces 14) — Perception Check")


def test_foundry_text_twin_messages_are_two_rolls(toy_campaign, db_path, tmp_path):
    twin = "[11/26/2026, 8:16:05 PM] Ann Vance\n1d20 = 3 = 3"
    log = tmp_path / "twins.txt"
    log.write_text(twin + "\n---------------------------\n" + twin)
    assert "2 new, 0 already" in toy_campaign("import", "--from", "foundry", str(log)).output
    assert "0 new, 2 already" in toy_campaign("import", "--from", "foundry", str(log)).output


def test_web_audit_and_log_of_an_imported_roll_speak_in_sentences(toy_campaign, db_path):
    """The audit page's sentences reach imported rolls: no Python value on the audit page, the
    dice in words; "rolls only" in the live log keeps imported rolls."""
    import html
    import re

    from tests.webtools import Table, client

    assert toy_campaign("import", "--from", "roll20", ROLL20, "--map", "Nate=bob", "--unmapped", "skip").exit_code == 0
    seq = events(db_path)[0]["seq"]
    with client(Table(db_path), "Dana") as c:
        page = c.get(f"/audit/{seq}").text
        rolls = c.get("/log?rolls=1").text
    main = page.split("<main", 1)[1].split("</main>", 1)[0]
    said = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", main)).split())
    assert not re.search(r"\bNone\b|\bTrue\b|\bFalse\b|\[\(|\{'|\['", said), said
    assert "Imported, not verifiable: the ledger never saw these dice" in said
    assert re.search(r"Dice d20 showed \d+", said), said
    assert f'id="e{seq}"' in rolls
