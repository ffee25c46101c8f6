"""Chronicles and passports: a signed entry per character at `session end`, a passport a
player carries to another table, verified there entry by entry; every cheat refused in one
line naming the entry, and nothing in a passport a player's export would not show."""

from __future__ import annotations

import base64
import json

import msgspec
import pytest

from ledger.campaign.aggregate import open_campaign
from ledger.history import passports
from ledger.store.sqlite import Store
from ledger.trust import chronicle
from ledger.trust.notes import Verifier, open_note

from .leaguetools import runner as _runner

SHEETS = "campaigns/the-world/characters/"
CANARIES = ("CANARY-NOTE", "CANARY-FAVOUR", "CANARY-HIDDEN")


def _table(tmp_path, name, system="d20-world", options=()):
    run = _runner(tmp_path / f"{name}.db")
    opts = [x for o in options for x in ("--option", o)]
    run("new", name, "--system", system, *opts)
    return run


@pytest.fixture
def mara(tmp_path, frozen):
    """Mara's table: Isa and Bram over two sessions, with GM-only facts about Isa."""
    run = _table(tmp_path, "mara")
    run("character", "add", "--sheet", SHEETS + "isa.toml")
    run("character", "add", "--sheet", SHEETS + "bram.toml")
    run("session", "start")
    run("roll", "isa", "Forage", "--time", "--dice", "15")
    run("note", "CANARY-NOTE the vault is a trap", "--blind")
    run("--as", "gm", "record", "favour-changed", "--character", "isa", "--bond", "the Guild",
        "--delta", "-2", "--reason", "CANARY-FAVOUR")  # fmt: skip
    run("--as", "gm", "record", "hidden-condition-added", "--character", "isa", "--condition",
        "CANARY-HIDDEN", "--check-penalty", "1", "--lasts-minutes", "600")  # fmt: skip
    run("roll", "isa", "Forage", "--time", "--blind", "--dice", "7")
    run("session", "end")
    run("session", "start")
    run("roll", "isa", "Forage", "--time", "--dice", "3")
    run("session", "end")
    return run


def _export(run, tmp_path, character="isa", name="isa.passport"):
    path = tmp_path / name
    run("passport", "export", character, "-o", str(path))
    return path


def test_session_end_signs_an_entry_per_character_who_played(mara, tmp_path):
    store = Store(str(tmp_path / "mara.db"))
    campaign = open_campaign(store)
    vkey = Verifier.parse(campaign.created.checkpoint_key)
    signed = list(campaign.records(types=["chronicle.signed"]))
    assert [(r.data.character, r.data.session) for r in signed] == [("isa", 1), ("isa", 2)]
    # Bram was made but never played: no entry for him
    first, second = (chronicle.parse(passports._note_text(r.data.note)) for r in signed)
    for r in signed:
        open_note(r.data.note, [vkey])  # the table's campaign key signed it
    assert second.previous == chronicle.entry_hash(passports._note_text(signed[0].data.note))
    assert first.previous == chronicle.NO_PREVIOUS and first.passport == second.passport
    assert second.changed == ("Forage +2 xp (3/12)",)  # the plugin's own words
    assert second.table == "campaign-ledger/mara" and second.system == "d20-world"
    state = campaign.state_of("isa", upto=second.checkpoint[0], as_gm=False)
    assert second.state == chronicle.state_hash(state)  # the players' view, as projected
    store.close()
    assert "OK:" in mara("verify").output


def test_a_passport_holds_nothing_a_player_may_not_see(mara, tmp_path):
    data = _export(mara, tmp_path).read_bytes()
    for canary in CANARIES:
        assert canary.encode() not in data
    parsed = json.loads(data)
    gm_export = mara("--as", "gm", "export").output
    assert all(c in gm_export for c in CANARIES)  # the GM's own export has them all
    for entry in parsed["entries"]:
        assert all(e["visibility"] == "public" for e in entry["events"])
        assert "salt" not in json.dumps(entry["events"])  # no GM-only payload, even salted


def test_joining_another_table_starts_from_the_verified_state(mara, tmp_path):
    path = _export(mara, tmp_path)
    oskar = _table(tmp_path, "oskar")
    out = oskar("character", "add", "--passport", str(path)).output
    assert "verified; last entry signed by campaign-ledger/mara" in out
    sheet = oskar("sheet", "isa").output
    assert "Before this table" in sheet and "signed by campaign-ledger/mara" in sheet
    assert "Forage +2 xp (3/12)" in sheet
    mara_sheet = json.loads(mara("sheet", "isa", "--json").output)
    here = json.loads(oskar("sheet", "isa", "--json").output)
    assert here["skills"] == mara_sheet["skills"]  # what she earned, carried
    oskar("session", "start")
    oskar("roll", "isa", "Forage", "--time", "--dice", "12")
    oskar("session", "end")
    assert "OK:" in oskar("verify").output
    again = _export(oskar, tmp_path, name="isa2.passport")
    entries = json.loads(again.read_bytes())["entries"]
    tables = [chronicle.parse(passports._note_text(e["note"])).table for e in entries]
    assert tables == ["campaign-ledger/mara"] * 2 + ["campaign-ledger/oskar"]
    kept = tmp_path / "kept.db"  # and a third table takes the two-table passport
    third = _table(tmp_path, "third")
    assert third("character", "add", "--passport", str(again)).exit_code == 0
    assert kept.exists() is False


def _refused(tmp_path, data, name="oskar", system="d20-world", options=()):
    path = tmp_path / f"{name}.passport"
    path.write_bytes(data)
    run = _table(tmp_path, name, system, options)
    result = run("character", "add", "--passport", str(path), ok=False)
    assert result.exit_code == 1
    line = result.output.strip()
    assert "\n" not in line and "Traceback" not in line
    assert "isa" not in run("character", "list").output  # nothing written
    return line


def _edit(data, fn):
    parsed = json.loads(data)
    fn(parsed)  # every other event's data keeps its canonical bytes
    return json.dumps(parsed, separators=(",", ":"), sort_keys=True, ensure_ascii=False).encode()


def test_an_edited_experience_is_refused_naming_the_entry(mara, tmp_path):
    data = _export(mara, tmp_path).read_bytes()

    def more_xp(p):
        for e in p["entries"][1]["events"]:
            if e["type"] == "d20-world.check_rolled":
                e["data"]["experience"] = 9

    line = _refused(tmp_path, _edit(data, more_xp))
    assert "entry 2 (signed by campaign-ledger/mara)" in line
    assert "changed after the table signed it" in line


def test_a_forged_hash_fails_the_inclusion_proof(mara, tmp_path):
    from ledger.chain import hash_of

    data = _export(mara, tmp_path).read_bytes()

    def forge(p):  # the player recomputes the edited event's hash
        e = p["entries"][1]["events"][-1]
        e["data"]["experience"] = 9
        raw = json.dumps(e["data"], separators=(",", ":"), sort_keys=True, ensure_ascii=False)
        event = passports.PassportEvent(**{**e, "data": msgspec.Raw(raw.encode())})
        e["hash"] = hash_of(event.stored())

    line = _refused(tmp_path, _edit(data, forge))
    assert line.startswith("Error: entry 2 (signed by campaign-ledger/mara): event")
    assert "not in the table's log" in line


def test_an_edited_entry_fails_its_signature(mara, tmp_path):
    data = _export(mara, tmp_path).read_bytes()

    def brag(p):
        p["entries"][1]["note"] = p["entries"][1]["note"].replace("(3/12)", "(9/12)")

    line = _refused(tmp_path, _edit(data, brag))
    assert "entry 2 (signed by campaign-ledger/mara): its signature does not verify" in line


def test_a_passport_cut_short_is_refused(mara, tmp_path):
    data = _export(mara, tmp_path).read_bytes()
    line = _refused(tmp_path, _edit(data, lambda p: p["entries"].pop(0)))
    assert "entry 1 (signed by campaign-ledger/mara): the chain is broken" in line


def test_another_rule_system_or_other_options_are_refused(mara, tmp_path):
    data = _export(mara, tmp_path).read_bytes()
    line = _refused(tmp_path, data, name="casebook", system="wyrd-engine")
    assert (
        "entry 1 (signed by campaign-ledger/mara): a d20-world character; this table plays wyrd-engine"
        in line
    )
    line = _refused(tmp_path, data, name="strict", options=("jinx_before_check=true",))
    assert "entry 1 (signed by campaign-ledger/mara): played with options" in line


def test_a_table_cannot_forge_another_tables_entry(mara, tmp_path):
    """A forger with his own key re-signs Mara's entry: it no longer names its signer."""
    from ledger.trust.notes import Signer, sign

    data = _export(mara, tmp_path).read_bytes()
    forger = Signer.generate("campaign-ledger/mara")

    def resign(p):
        e = p["entries"][0]
        e["note"] = sign(passports._note_text(e["note"]), forger)
        e["vkey"] = forger.verifier.key()

    line = _refused(tmp_path, _edit(data, resign))
    assert "entry 1 (signed by campaign-ledger/mara): its checkpoint does not verify" in line


def test_verify_rechecks_the_kept_passport(mara, tmp_path):
    path = _export(mara, tmp_path)
    oskar = _table(tmp_path, "oskar")
    oskar("character", "add", "--passport", str(path))
    store = Store(str(tmp_path / "oskar.db"))
    campaign = open_campaign(store)
    assert passports.check_log(campaign) is None
    joined = next(iter(campaign.records(types=["character.joined"])))
    text = joined.data.text.replace('"experience":1', '"experience":5')
    assert text != joined.data.text
    with pytest.raises(passports.PassportError, match="entry 1"):
        passports.verify_passport(text.encode(), campaign.system, campaign.codec)
    store.close()


def test_proofs_are_base64_audit_paths_to_the_checkpoint(mara, tmp_path):
    from ledger.trust import merkle
    from ledger.trust.notes import Checkpoint

    parsed = json.loads(_export(mara, tmp_path).read_bytes())
    for entry in parsed["entries"]:
        cp = Checkpoint.parse(passports._note_text(entry["checkpoint"]))
        for e, proof in zip(entry["events"], entry["proofs"], strict=True):
            merkle.verify_inclusion(
                e["seq"] - 1, cp.size, merkle.leaf_hash(bytes.fromhex(e["hash"])),
                [base64.b64decode(h) for h in proof], cp.root,
            )  # fmt: skip


def _league(tmp_path, *tables):
    """League "marches" on a ledger of its own, trusting each table's checkpoint key;
    returns its ledger path and its checkpoint key."""
    path = str(tmp_path / "league.db")
    run = _runner(path)
    made = run("league", "init", "marches").output
    vkey = made.rsplit(": ", 1)[1].strip()
    for table in tables:
        key = json.loads(table("checkpoint", "--json").output)
        run("league", "trust", key["vkey"])
    return path, vkey


def test_joining_in_a_league_refuses_a_passport_cut_short(tmp_path, frozen):
    """A player keeps Isa's passport from before her last session (say, the one she died
    in) and brings it to Oskar's table: the league's newest entry for her is later, so the
    passport is refused, naming its last entry; her whole passport is accepted."""
    from .leaguetools import league_server

    mara = _table(tmp_path, "mara")
    oskar = _table(tmp_path, "oskar")
    db, vkey = _league(tmp_path, mara, oskar)
    with league_server(db, "marches") as url:
        league = ["--league", url, "--league-key", vkey]
        mara("character", "add", "--sheet", SHEETS + "isa.toml")
        mara("session", "start")
        mara("roll", "isa", "Forage", "--time", "--dice", "15")
        mara("session", "end", *league)
        early = _export(mara, tmp_path, name="early.passport")
        mara("session", "start")
        mara("roll", "isa", "Forage", "--time", "--dice", "3")
        mara("session", "end", *league)
        whole = _export(mara, tmp_path, name="whole.passport")
        head = Store(str(tmp_path / "oskar.db")).head("oskar").seq
        got = oskar("character", "add", "--passport", str(early), *league, ok=False)
        assert got.exit_code == 1
        line = got.output.strip()
        assert "\n" not in line and "Traceback" not in line
        assert line == (
            "Error: entry 1 (signed by campaign-ledger/mara), the passport's last: the passport "
            "was cut short: the league's newest entry for it is session 2 signed by "
            "campaign-ledger/mara"
        )
        assert Store(str(tmp_path / "oskar.db")).head("oskar").seq == head  # nothing written
        # without the league, the cut passport verifies on its own: the league is what
        # catches it
        got = oskar("character", "add", "--passport", str(whole), *league)
        assert "verified; last entry signed by campaign-ledger/mara" in got.output
    # the league gone: refused in one line, nothing written
    head = Store(str(tmp_path / "oskar.db")).head("oskar").seq
    got = oskar("character", "add", "--passport", str(whole), "--id", "isa2", *league, ok=False)
    assert got.exit_code == 1 and got.output.startswith(
        "Error: cannot ask the league about the passport: the league at"
    )
    assert got.output.count("\n") == 1
    assert Store(str(tmp_path / "oskar.db")).head("oskar").seq == head
    got = oskar("character", "add", "--passport", str(whole), "--league", url, ok=False)
    assert got.exit_code == 2 and "--league needs --league-key" in got.output
