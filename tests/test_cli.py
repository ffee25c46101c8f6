import json
import os
from pathlib import Path

import pytest

from ledger.campaign.aggregate import open_campaign
from ledger.store.sqlite import Store


def data(result):
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_new_stamps_the_frozen_time(toy_system, invoke, db_path, frozen):
    assert data(invoke("new", "toybox", "--system", "toy", "--json"))["campaign"] == "toybox"
    rows = data(invoke("log", "--json"))
    assert rows[0]["type"] == "campaign.created"
    assert rows[0]["recorded_at"].startswith("2026-03-01T19:00:")


def test_systems_lists_installed_distributions(invoke):
    rows = {r["id"]: r for r in data(invoke("systems", "--json"))}
    assert rows["wyrd-engine"]["distribution"] == "ledger-wyrd-engine"
    assert rows["spellwoven"]["source"] == "004_663ae3e4ecc71fd1.txt"  # for scripts
    assert rows["spellwoven"]["book"] == "Spellwoven: Rules for the Game"  # for people
    assert rows["terran-engine"]["book"] == "Terran Engine SRD v0.4.5"


def test_character_list_and_lookup(toy_campaign):
    invoke = toy_campaign
    assert data(invoke("character", "list", "--json")) == [
        {"character": "ann", "name": "Ann Vance"},
        {"character": "bob", "name": "Bob Marsh"},
    ]
    assert data(invoke("sheet", "ANN VANCE", "--json"))["character"] == "ann"
    result = invoke("sheet", "anne")
    assert result.exit_code == 1
    assert "did you mean 'ann'" in result.output


def test_physical_roll_json(toy_campaign):
    invoke = toy_campaign
    out = data(invoke("roll", "ann", "brawl", "--dice", "3,4", "--target", "9", "--json"))
    assert out["seq"] == 4 and out["character"] == "ann" and out["source"] == "physical"
    assert out["dice"] == [3, 4] and out["total"] == 9 and out["outcome"] == "success"
    assert out["draws"] == [[6, 3], [6, 4]]
    assert out["session"] is None


def test_engine_roll_needs_open_session(toy_campaign, db_path):
    invoke = toy_campaign
    result = invoke("roll", "ann", "brawl")
    assert result.exit_code == 1
    assert "open session" in result.output
    assert Store(db_path).head("toybox").seq == 3


def test_engine_rolls_verify_after_session_end(toy_campaign):
    invoke = toy_campaign
    start = data(invoke("session", "start", "--json"))
    first = data(invoke("roll", "ann", "brawl", "--json"))
    second = data(invoke("roll", "bob", "sneak", "--client-seed", "bob's luck", "--json"))
    assert (first["nonce"], second["nonce"]) == (0, 1)
    assert second["client_seed"] == "bob's luck"
    verify_open = data(invoke("verify", "--json"))
    assert verify_open["engine_rolls_unverifiable"] == 2
    end = data(invoke("session", "end", "--json"))
    import hashlib

    assert hashlib.sha256(bytes.fromhex(end["seed_reveal"])).hexdigest() == start["seed_commitment"]
    report = data(invoke("verify", "--json"))
    assert report["ok"] and report["engine_rolls_verified"] == 2
    # the receipt session end printed still holds; the head moved on by one chronicle
    # entry for each character who rolled, signed after the session's checkpoint
    assert [c["character"] for c in end["chronicles"]] == ["ann", "bob"]
    receipt_seq = int(end["receipt"].split(":")[0])
    assert [c["seq"] for c in end["chronicles"]] == [receipt_seq + 1, receipt_seq + 2]
    assert report["receipt"] == end["head"] and end["head"].startswith(f"{receipt_seq + 2}:")
    held = data(invoke("verify", "--receipt", end["receipt"], "--json"))
    assert held["ok"]


@pytest.mark.parametrize(
    "args,code,message",
    [
        (["roll", "ann", "brawl", "--dice", "3,7"], 1, "cannot show 7"),
        (["roll", "ann", "brawl", "--dice", "3,4,5"], 1, "remove the extra faces"),
        (["roll", "ann", "swim", "--dice", "3,4"], 1, "has no skill 'swim'"),
        (["roll", "zed", "brawl", "--dice", "3,4"], 1, "no character 'zed'"),
        (["roll", "ann", "brawl", "--dice", "3,4", "--target", "high"], 2, "not a valid integer"),
        (["roll", "ann", "brawl", "--dice", "3,4", "--dr", "good"], 2, "not an option of toy"),
        (["record", "hurt", "--character", "ann", "--amount", "-2"], 1, "cannot be negative"),
        (
            ["record", "hurt", "--character", "ann", "--amount", "lots"],
            2,
            "--amount takes an integer, not 'lots'",
        ),
        (["record", "hurt", "--character", "ann", "--colour", "red"], 2, "no field --colour"),
        (["record", "hurtt", "--character", "ann"], 2, "did you mean 'hurt'"),
        (["correct", "99", "--reason", "x"], 1, "no event 99"),
        (["correct", "1", "--reason", "x"], 1, "cannot be corrected"),
        (["session", "end"], 1, "no session is open"),
        (["sheet", "ann", "--as-of", "yesterday"], 1, "give a seq"),
        (["new", "Bad Name", "--system", "toy"], 1, "lower-case"),
        (["new", "other", "--system", "nope"], 1, "no rule system 'nope'"),
        (["new", "other", "--system", "toy", "--option", "hp=lots"], 1, "bad option"),
        (["new", "toybox", "--system", "toy"], 1, "already exists"),
        (["verify", "--receipt", "12"], 2, "SEQ:HASH"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(toy_campaign, db_path, args, code, message):
    invoke = toy_campaign
    before = Store(db_path).head("toybox")
    result = invoke(*args)
    assert result.exit_code == code, result.output
    assert message in result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert Store(db_path).head("toybox") == before


def test_missing_ledger_is_refused_without_creating_it(invoke, tmp_path):
    path = str(tmp_path / "none.db")
    result = invoke("log", db=path)
    assert result.exit_code == 1 and "no ledger at" in result.output
    assert not os.path.exists(path)


def test_rule_refusal_writes_nothing(toy_campaign, db_path):
    invoke = toy_campaign
    assert invoke("record", "luck-used", "--character", "bob").exit_code == 0
    head = Store(db_path).head("toybox")
    result = invoke("record", "luck-used", "--character", "bob")
    assert result.exit_code == 1 and "already used luck" in result.output
    assert Store(db_path).head("toybox") == head
    assert invoke("scene", "end").exit_code == 0  # the scene end resets it
    assert invoke("record", "luck-used", "--character", "bob").exit_code == 0


def test_correction_retracts_and_amends(toy_campaign):
    invoke = toy_campaign
    hurt = data(invoke("record", "hurt", "--character", "ann", "--amount", "3", "--json"))
    assert data(invoke("sheet", "ann", "--json"))["hp"] == 7
    data(
        invoke(
            "correct", str(hurt["seq"]), "--set", "amount=1", "--reason", "it was a graze", "--json"
        )
    )
    assert data(invoke("sheet", "ann", "--json"))["hp"] == 9
    fix = data(invoke("correct", str(hurt["seq"]), "--reason", "never happened", "--json"))
    assert fix["action"] == "retract"
    assert data(invoke("sheet", "ann", "--json"))["hp"] == 10
    log = data(invoke("log", "--json"))
    original = next(e for e in log if e["seq"] == hurt["seq"])
    assert original["data"]["amount"] == 3  # the original stays
    assert len(original["corrected_by"]) == 2


def test_sheet_as_of_seq_session_and_time(toy_campaign, frozen):
    invoke = toy_campaign
    data(invoke("session", "start", "--json"))
    first = data(invoke("record", "hurt", "--character", "ann", "--amount", "2", "--json"))
    data(invoke("session", "end", "--json"))
    frozen.tick(3600)
    data(invoke("record", "hurt", "--character", "ann", "--amount", "5", "--json"))
    assert data(invoke("sheet", "ann", "--json"))["hp"] == 3
    assert data(invoke("sheet", "ann", "--as-of", str(first["seq"]), "--json"))["hp"] == 8
    assert data(invoke("sheet", "ann", "--as-of", "session:1", "--json"))["hp"] == 8
    assert data(invoke("sheet", "ann", "--as-of", "2026-03-01T19:30:00Z", "--json"))["hp"] == 8
    assert invoke("sheet", "ann", "--as-of", "session:4").exit_code == 1


def test_player_view_hides_gm_events(toy_campaign):
    invoke = toy_campaign
    data(invoke("record", "secret-noted", "--character", "bob", "--value", "8675309", "--json"))
    assert data(invoke("--as", "gm", "sheet", "bob", "--json"))["secret"] == 8675309
    player = invoke("--as", "player", "sheet", "bob", "--json")
    assert "8675309" not in player.output and "secret" not in player.output
    log = invoke("--as", "player", "log", "--json")
    assert "8675309" not in log.output and "secret_noted" not in log.output


def test_blind_roll_is_gm_only(toy_campaign):
    invoke = toy_campaign
    out = data(invoke("roll", "ann", "brawl", "--dice", "6,6", "--blind", "--json"))
    assert out["visibility"] == "gm"
    # the players' log shows it at its place as a stub: its seq and hash, nothing else
    player = {e["seq"]: e for e in data(invoke("--as", "player", "log", "--json"))}
    gm = {e["seq"]: e for e in data(invoke("--as", "gm", "log", "--json"))}
    assert player[out["seq"]] == {
        "seq": out["seq"],
        "hash": gm[out["seq"]]["hash"],
        "redacted": True,
    }
    text = invoke("--as", "player", "log").output.splitlines()
    assert text[-1] == f"[{out['seq']}] GM-only entry"
    # a filtered view leaves it out: a stub under --character ann would say whose roll it is
    for args in (["--character", "ann"], ["--type", "dice.rolled"], ["--type", "toy.rolled"]):
        assert out["seq"] not in {e["seq"] for e in data(invoke("log", *args, "--json"))}


def test_export_import_round_trip_is_byte_identical(toy_campaign, tmp_path):
    invoke = toy_campaign
    invoke("session", "start")
    invoke("roll", "ann", "brawl")
    invoke("record", "secret-noted", "--character", "bob", "--value", "3")
    invoke("session", "end")
    first = invoke("--as", "gm", "export")
    assert first.exit_code == 0
    backup = tmp_path / "backup.ndjson"
    backup.write_bytes(first.stdout_bytes)
    other = str(tmp_path / "other.db")
    # the session's events, then the chronicle entry session end signs for who played
    assert data(invoke("import", str(backup), "--json", db=other))["events"] == 9
    assert invoke("--as", "gm", "export", db=other).stdout_bytes == first.stdout_bytes
    assert data(invoke("verify", "--json", db=other))["engine_rolls_verified"] == 1
    again = invoke("import", str(backup), db=other)
    assert again.exit_code == 1 and "already exists" in again.output


def test_player_export_redacts_and_still_chains(toy_campaign, tmp_path):
    invoke = toy_campaign
    invoke("record", "secret-noted", "--character", "bob", "--value", "5551234")
    lines = [json.loads(x) for x in invoke("export").output.splitlines()]
    hidden = [x for x in lines if x.get("redacted")]
    assert len(hidden) == 1  # a stub keeps only what the chain needs
    assert set(hidden[0]) == {"seq", "campaign", "prev_hash", "hash", "redacted"}
    assert "5551234" not in invoke("export").output
    for prev, line in zip(lines, lines[1:], strict=False):
        assert line["prev_hash"] == prev["hash"]
    path = tmp_path / "player.ndjson"
    path.write_text(invoke("export").output)
    refused = invoke("import", str(path), db=str(tmp_path / "p.db"))
    assert refused.exit_code == 1 and "player's export" in refused.output


def test_import_refuses_tampered_file_and_writes_nothing(toy_campaign, tmp_path):
    invoke = toy_campaign
    invoke("record", "hurt", "--character", "ann", "--amount", "2")
    text = invoke("--as", "gm", "export").output.replace('"amount":2', '"amount":1')
    path = tmp_path / "t.ndjson"
    path.write_text(text)
    other = str(tmp_path / "t.db")
    result = invoke("import", str(path), db=other)
    assert result.exit_code == 1 and "does not verify: seq 4" in result.output
    assert open_campaign_count(other) == 0


def open_campaign_count(path):
    return len(Store(path).campaigns()) if os.path.exists(path) else 0


def test_import_refuses_garbage(invoke, tmp_path, toy_system):
    path = tmp_path / "g.ndjson"
    path.write_text("not json\n")
    result = invoke("import", str(path), db=str(tmp_path / "g.db"))
    assert result.exit_code == 1 and "line 1 is not an exported event" in result.output


def test_receipt_proves_prefix(toy_campaign, db_path):
    invoke = toy_campaign
    invoke("session", "start")
    receipt = data(invoke("session", "end", "--json"))["receipt"]
    invoke("record", "hurt", "--character", "ann", "--amount", "1")
    assert data(invoke("verify", "--receipt", receipt, "--json"))["ok"]
    seq = receipt.split(":")[0]
    forged = f"{seq}:{'0' * 64}"
    result = invoke("verify", "--receipt", forged)
    assert result.exit_code == 1 and "rewritten" in result.output


def test_two_campaigns_in_one_file(toy_system, invoke, frozen):
    invoke("new", "one", "--system", "toy")
    invoke("new", "two", "--system", "toy")
    result = invoke("log")
    assert result.exit_code == 1 and "several campaigns" in result.output
    assert data(invoke("--campaign", "two", "log", "--json"))[0]["data"]["id"] == "two"


def test_odds(invoke, toy_system):
    assert data(invoke("odds", "toy", "--target", "8", "--json")) == {
        "target": 8,
        "success": "5/12",
    }


def test_snapshots_are_only_a_cache(toy_campaign, db_path, monkeypatch):
    invoke = toy_campaign
    monkeypatch.setattr("ledger.campaign.reading.SNAPSHOT_EVERY", 3)
    for amount in range(1, 9):
        invoke("record", "hurt", "--character", "ann", "--amount", "1")
        if amount == 5:
            invoke("correct", "5", "--reason", "double entry")
    campaign = open_campaign(Store(db_path))
    with_snaps = [campaign.state_of("ann", upto=s).hp for s in range(4, 14)]
    assert campaign.store.conn.execute("select count(*) from snapshots").fetchone()[0] > 0
    campaign.store.conn.execute("delete from snapshots")
    without = [campaign.state_of("ann", upto=s, save_snapshots=False).hp for s in range(4, 14)]
    assert with_snaps == without


def rechain(lines):
    """Recompute every hash of an export (what a forger would do)."""
    import hashlib

    import msgspec

    prev, out = "0" * 64, []
    for line in lines:
        if line.startswith('{"kind"'):  # the old checkpoints: a forger drops them
            continue
        event = json.loads(line)
        event["prev_hash"] = prev
        body = {k: v for k, v in event.items() if k != "hash"}
        canonical = msgspec.json.encode(body, order="sorted")
        event["hash"] = prev = hashlib.sha256(bytes.fromhex(prev) + canonical).hexdigest()
        out.append(json.dumps(event, separators=(",", ":"), ensure_ascii=False))
    return "\n".join(out) + "\n"


def test_import_replays_the_rules(toy_campaign, tmp_path):
    invoke = toy_campaign
    invoke("record", "hurt", "--character", "ann", "--amount", "2")
    invoke("record", "luck-used", "--character", "ann")
    lines = invoke("--as", "gm", "export").output.splitlines()
    honest = tmp_path / "honest.ndjson"
    honest.write_text(rechain(lines))  # re-chaining changes nothing: still importable
    assert invoke("import", str(honest), db=str(tmp_path / "h.db")).exit_code == 0
    forged = tmp_path / "forged.ndjson"
    forged.write_text(rechain([x.replace('"amount":2', '"amount":-2') for x in lines]))
    result = invoke("import", str(forged), db=str(tmp_path / "f.db"))
    assert result.exit_code == 1
    assert "rules refuse: event 4: damage cannot be negative" in result.output
    twice = tmp_path / "twice.ndjson"
    luck = next(x for x in lines if "luck_used" in x)
    seq = json.loads(luck)["seq"]
    extra = json.loads(luck)
    extra["seq"], extra["version"] = seq + 1, extra["version"] + 1
    twice.write_text(rechain([*lines, json.dumps(extra, separators=(",", ":"))]))
    result = invoke("import", str(twice), db=str(tmp_path / "t.db"))
    assert result.exit_code == 1 and "already used luck" in result.output


@pytest.mark.parametrize(
    "name", ["grand-casebook", "the-world", "the-drowned-marches", "the-salt-road", "nimble-jen"]
)
def test_every_example_campaign_round_trips(name, tmp_path, bundled):
    db = bundled(name)
    from click.testing import CliRunner

    from ledger.cli import cli

    runner = CliRunner()
    first = runner.invoke(cli, ["--db", str(db), "--as", "gm", "export"]).stdout_bytes
    path = tmp_path / "backup.ndjson"
    path.write_bytes(first)
    other = str(tmp_path / "copy.db")
    result = runner.invoke(cli, ["--db", other, "import", str(path)])
    assert result.exit_code == 0, result.output
    assert runner.invoke(cli, ["--db", other, "--as", "gm", "export"]).stdout_bytes == first


def test_odds_shows_means_as_numbers_and_probabilities_as_percentages(invoke):
    # Seen: `odds decision-dice` printed `mean: 7/1 (700.0%)`
    out = invoke("odds", "decision-dice", "--stat", "2").output
    assert "mean: 9\n" in out and "%)" in out.split("distribution:")[1]
    assert "(900.0%)" not in out
    out = invoke("odds", "d20-world", "--proficiency", "2").output
    assert "expected_experience: 23/20 = 1.15" in out
    assert "good: 1/4 (25.0%)" in out


def test_too_few_physical_dice_name_the_count_the_roll_uses(invoke, frozen, tmp_path):
    # Seen: "a dice count error does not say how many dice the roll needs and why"
    sheets = Path(__file__).resolve().parent.parent / "campaigns"
    assert invoke("new", "vault", "--system", "d20-world").exit_code == 0
    isa = sheets / "the-world" / "characters" / "isa.toml"
    assert invoke("character", "add", "--sheet", str(isa)).exit_code == 0
    before = invoke("--as", "gm", "log", "--json").output
    result = invoke("roll", "isa", "Forage", "--time", "--disadvantage", "--dice", "12")
    assert result.exit_code == 1
    assert "this roll uses 2 d20: the dice gave 1 face, too few" in result.output
    assert "disadvantage: imposed by The World; 2 d20, the lower is kept" in result.output
    assert invoke("--as", "gm", "log", "--json").output == before
    other = str(tmp_path / "casebook.db")
    assert invoke("new", "casebook", "--system", "wyrd-engine", db=other).exit_code == 0
    felix = sheets / "grand-casebook" / "characters" / "felix.toml"
    assert invoke("character", "add", "--sheet", str(felix), db=other).exit_code == 0
    result = invoke("roll", "felix", "crafts", "--dr", "fair", "--dice", "+-", db=other)
    assert result.exit_code == 1
    assert "this roll uses 4 dF: the dice gave 2 faces, too few" in result.output
