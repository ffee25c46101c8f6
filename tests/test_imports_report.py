"""The import's report accounts for every message; what the file says is checked before
it is stored: a total its dice do not give, a total that is not whole, a file cut short,
an emote's roll, a Foundry v9 world, inline rolls in a Foundry message, blind rolls."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from .test_imports import DATA, ROLL20, count_events, events

V9_WORLD = DATA / "foundry-v9-phandelver-messages.db"
V9_DELETED = DATA / "foundry-v9-frostmaiden-messages.db"


def report(toy_campaign, tool: str, path, *extra: str) -> dict:
    result = toy_campaign("import", "--from", tool, str(path), "--unmapped", "skip", "--json", *extra)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def nedb_messages(path: Path) -> int:
    """What NeDB itself would load: the last line of each _id, deleted ones gone."""
    live: dict[str, bool] = {}
    for line in path.read_text().splitlines():
        doc = json.loads(line)
        if "_id" in doc:
            live[doc["_id"]] = not doc.get("$$deleted")
    return sum(live.values())


FIXTURES = [
    ("roll20", ROLL20, 7),  # seven div.message
    ("roll20", DATA / "roll20-bad-total.html", 2),
    ("foundry", DATA / "fvtt-log-Thu-Nov-26-2026.txt", 5),  # five [TIME] headers
    ("foundry", DATA / "fvtt-log-malformed.txt", 3),
    ("foundry", DATA / "foundry-chat-messages.json", 4),
    ("foundry", DATA / "foundry-chat-messages-bad-die.json", 2),
    ("foundry", V9_WORLD, nedb_messages(V9_WORLD)),
    ("foundry", V9_DELETED, nedb_messages(V9_DELETED)),
]


@pytest.mark.parametrize(("tool", "path", "messages"), FIXTURES, ids=lambda x: getattr(x, "name", None))
def test_the_report_accounts_for_every_message(toy_campaign, tool, path, messages):
    first = report(toy_campaign, tool, path)
    assert len(first["report"]) == messages == sum(first["counts"].values())
    assert sum(r["rolls"] for r in first["report"]) == first["new"]
    for row in first["report"]:
        assert row["status"] in ("imported", "already imported", "not a roll", "refused")
        assert bool(row["reason"]) == (row["status"] == "refused")
    again = report(toy_campaign, tool, path)
    assert again["new"] == 0 and again["counts"]["imported"] == 0
    assert again["counts"]["already imported"] == first["counts"]["imported"]


def test_a_foundry_v9_world_imports_its_rolls_and_plain_messages_are_not_rolls(toy_campaign, db_path):
    """A real v9 world: plain chat messages have neither roll nor rolls (refused whole before)."""
    got = report(toy_campaign, "foundry", V9_WORLD)
    assert got["counts"] == {"imported": 0, "already imported": 0, "not a roll": 4, "refused": 6}
    assert {r["reason"].split("'")[1] for r in got["report"] if r["status"] == "refused"} == {
        "Wooferius (The Cloak)", "Giant Spider", "Twig Blight", "Groi Ugnshosh (Groi)",
        "Erdan Siannodel (Erdan)",
    }  # fmt: skip
    mapped = toy_campaign("import", "--from", "foundry", str(V9_WORLD), "--unmapped", "skip",
                          "--map", "Giant Spider=ann", "--map", "Twig Blight=bob")  # fmt: skip
    assert mapped.exit_code == 0, mapped.output
    rolls = events(db_path)
    assert [(r["key"], r["formula"], r["total"], r["dice"]) for r in rolls] == [
        ("0CffMNcDtS1OkYjH", "1d8", 3, [[8, 3]]),
        ("0T9p7bV6JAloi9zj", "d20", 13, [[20, 13]]),
        ("7WVKpmQBSijX7Bnk", "1d20 + 3", 9, [[20, 6]]),
    ]
    # the Twig Blight's d20 was whispered to its user: GM-only
    conn = sqlite3.connect(db_path)
    try:
        seen = dict(conn.execute("select json_extract(data, '$.key'), visibility from events where type = 'roll.imported'"))
    finally:
        conn.close()
    assert seen["0T9p7bV6JAloi9zj"] == "gm" and seen["0CffMNcDtS1OkYjH"] != "gm"
    player = toy_campaign("log").output
    assert "rolled d20" not in player and "rolled 1d8 = 3" in player


def test_nedb_deleted_and_rewritten_lines(toy_campaign):
    got = report(toy_campaign, "foundry", V9_DELETED)
    (only,) = got["report"]  # every other document deleted; the last line of each wins
    assert only["id"] == "LGJVHQTk7JOTkvPl" and only["status"] == "refused"
    assert "'(1)' is no character here" in only["reason"]


def test_a_text_export_cut_inside_a_number_is_refused_not_imported(toy_campaign, db_path, tmp_path):
    cut = tmp_path / "cut.txt"
    cut.write_text("[11/26/2026, 8:16:05 PM] Ann Vance\n1d20 + 4 = 7 + 4 = 1")
    got = report(toy_campaign, "foundry", cut)
    assert got["new"] == 0 and got["counts"]["refused"] == 1
    assert "give 11, not the total 1" in got["report"][0]["reason"]
    cut.write_text("[11/26/2026, 8:16:05 PM] Ann Vance\n1d20 + 4 = 7 +")
    got = report(toy_campaign, "foundry", cut)
    assert got["new"] == 0 and "cut short" in got["report"][0]["reason"]
    assert events(db_path) == []


def test_a_roll20_page_cut_inside_a_message_imports_nothing_past_the_cut(toy_campaign, db_path, tmp_path):
    page = Path(ROLL20).read_text()
    at = page.index('<div class="rolled">6</div>') + len('<div class="rolled">')
    cut = tmp_path / "cut.html"
    cut.write_text(page[:at] + "1")  # "6" cut to "1"... and the page ends there
    got = report(toy_campaign, "roll20", cut)
    assert got["new"] == 0 and got["counts"] == {"imported": 0, "already imported": 0, "not a roll": 1, "refused": 1}
    assert "the file ends inside this message" in got["report"][1]["reason"]
    altered = tmp_path / "altered.html"
    altered.write_text(page.replace('<div class="rolled">6</div>', '<div class="rolled">1</div>'))
    got = report(toy_campaign, "roll20", altered, "--map", "Nate=bob")
    bad = [r for r in got["report"] if r["id"] == "-M5KELlQVMhq7p0h926d"][0]
    assert bad["status"] == "refused" and "give 6, not the total 1" in bad["reason"]
    assert 1 not in [r["total"] for r in events(db_path)]


def test_a_roll20_inline_total_its_dice_do_not_give_is_refused(toy_campaign, tmp_path):
    page = Path(ROLL20).read_text().replace('basicdiceroll&quot;>14</span>)+0">14', 'basicdiceroll&quot;>14</span>)+0">19')
    bad = tmp_path / "bad.html"
    bad.write_text(page)
    got = report(toy_campaign, "roll20", bad, "--map", "Nate=bob")
    row = [r for r in got["report"] if r["id"] == "-M5JkLjGB4vfj5_O0ykM"][0]
    assert row["status"] == "refused" and "give 14, not the total 19" in row["reason"]


def foundry_doc(**over) -> dict:
    roll = {"class": "Roll", "formula": "1d20 + 0.9", "total": 11.9, "evaluated": True, "terms": [
        {"class": "Die", "faces": 20, "number": 1, "results": [{"result": 11, "active": True}]},
        {"class": "OperatorTerm", "operator": "+"}, {"class": "NumericTerm", "number": 0.9}]}  # fmt: skip
    return {"_id": "aaaaaaaaaaaaaaa1", "type": 5, "timestamp": 1658070074737, "content": "11.9",
            "speaker": {"alias": "Ann Vance"}, "whisper": [], "blind": False,
            "rolls": [json.dumps(roll)], **over}  # fmt: skip


def test_a_foundry_total_not_whole_is_refused_never_truncated(toy_campaign, db_path, tmp_path):
    path = tmp_path / "messages.json"
    path.write_text(json.dumps([foundry_doc()]))
    got = report(toy_campaign, "foundry", path)
    assert got["new"] == 0 and got["counts"]["refused"] == 1
    assert "the total 11.9 is not a whole number" in got["report"][0]["reason"]
    assert events(db_path) == []


def test_an_inline_roll_in_foundry_content_is_imported(toy_campaign, db_path, tmp_path):
    roll = {"class": "Roll", "formula": "1d20+4", "total": 15, "evaluated": True, "terms": [
        {"class": "Die", "faces": 20, "number": 1, "results": [{"result": 11, "active": True}]},
        {"class": "OperatorTerm", "operator": "+"}, {"class": "NumericTerm", "number": 4}]}  # fmt: skip
    from urllib.parse import quote

    content = ('Ann tries the lock <a class="inline-roll inline-result" title="1d20+4" '
               f'data-roll="{quote(json.dumps(roll))}"><i class="fas fa-dice-d20"></i>15</a>')  # fmt: skip
    doc = foundry_doc(rolls=[], content=content, type=1)
    path = tmp_path / "messages.json"
    path.write_text(json.dumps([doc]))
    got = report(toy_campaign, "foundry", path)
    assert got["new"] == 1, got
    (only,) = events(db_path)
    assert (only["key"], only["total"], only["dice"]) == ("aaaaaaaaaaaaaaa1#inline-1", 15, [[20, 11]])


def test_a_blind_roll_is_gm_only_and_never_reaches_a_player(toy_campaign, db_path, tmp_path):
    roll = json.loads(foundry_doc()["rolls"][0]) | {"formula": "1d20", "total": 17, "terms": [
        {"class": "Die", "faces": 20, "number": 1, "results": [{"result": 17, "active": True}]}]}  # fmt: skip
    path = tmp_path / "messages.json"
    path.write_text(json.dumps([foundry_doc(blind=True, content="?", rolls=[json.dumps(roll)])]))
    got = report(toy_campaign, "foundry", path)
    assert got["new"] == 1 and got["gm_only_rolls"] == 1
    player = toy_campaign("log").output + toy_campaign("export").output
    assert "17" not in player.replace("GM-only", "") or '"total":17' not in player
    assert '"total":17' not in toy_campaign("export").output
    assert "rolled 1d20 = 17" in toy_campaign("--as", "gm", "log").output


def test_a_roll20_emote_is_never_credited_to_the_speaker_before_it(toy_campaign, db_path, tmp_path):
    page = tmp_path / "emote.html"
    page.write_text(
        '<div class="content">'
        '<div class="message general" data-messageid="-A1"><span class="tstamp">8:00PM</span>'
        '<span class="by">Ann Vance:</span>I look around.</div>'
        '<div class="message emote" data-messageid="-A2">Bob Marsh swings at the door '
        '<span class="inlinerollresult showtip" title="Rolling 1d20 = (<span class=&quot;basicdiceroll&quot;>9</span>)">9</span></div>'
        '<div class="message emote" data-messageid="-A3">The stranger laughs '
        '<span class="inlinerollresult showtip" title="Rolling 1d20 = (<span class=&quot;basicdiceroll&quot;>4</span>)">4</span></div>'
        "</div>"
    )
    got = report(toy_campaign, "roll20", page, "--map", "Bob Marsh=bob")
    rows = {r["id"]: r for r in got["report"]}
    assert rows["-A1"]["status"] == "not a roll"
    assert rows["-A2"]["status"] == "refused" and "emote" in rows["-A2"]["reason"]
    assert rows["-A3"]["status"] == "refused"
    assert [r for r in events(db_path) if r["stream"] == "ann"] == []
    # a speaker named before it in the file, whose name starts the emote, is its speaker
    page.write_text(page.read_text().replace('<div class="message emote" data-messageid="-A2">Bob Marsh',
                                              '<div class="message emote" data-messageid="-A2">Ann Vance'))  # fmt: skip
    got = report(toy_campaign, "roll20", page)
    assert {r["id"]: r["status"] for r in got["report"]}["-A2"] == "imported"
    assert [(r["stream"], r["total"]) for r in events(db_path)] == [("ann", 9)]


def test_nothing_is_written_when_the_file_is_not_a_chat_log(toy_campaign, db_path):
    before = count_events(db_path)
    result = toy_campaign("import", "--from", "foundry", ROLL20)
    assert result.exit_code == 1 and result.output.count("\n") == 1
    assert count_events(db_path) == before


def test_a_messages_db_cut_inside_its_last_line(toy_campaign, db_path, tmp_path):
    whole = V9_WORLD.read_text()
    cut = tmp_path / "messages.db"
    cut.write_text(whole.rstrip("\n")[:-60])  # inside the last document's JSON
    got = report(toy_campaign, "foundry", cut, "--map", "Giant Spider=ann", "--map", "Twig Blight=bob")
    assert len(got["report"]) == nedb_messages(V9_WORLD)
    last = got["report"][-1]
    assert last["status"] == "refused" and "not a JSON document" in last["reason"] and "cut short" in last["reason"]
    assert got["counts"]["imported"] == 3 and len(events(db_path)) == 3


def test_a_roll20_whisper_from_a_player_is_gm_only(toy_campaign, db_path, tmp_path):
    page = tmp_path / "whisper.html"
    page.write_text(
        '<div class="content"><div class="message whisper" data-messageid="-W1">'
        '<span class="tstamp">8:01PM</span><span class="by">(From Ann Vance):</span>I pocket it. '
        '<span class="inlinerollresult showtip" title="Rolling 1d20+2 = (<span class=&quot;basicdiceroll&quot;>17</span>)+2">19</span>'
        "</div></div>"
    )
    got = report(toy_campaign, "roll20", page)
    assert got["new"] == 1 and got["gm_only_rolls"] == 1
    assert '"total":19' not in toy_campaign("export").output
    assert "rolled 1d20+2 = 19" in toy_campaign("--as", "gm", "log").output
