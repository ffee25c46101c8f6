"""Requests that mean what they say: a roll request takes the options of the system's roll
form in the book's words on every front end (``campaign request``, ``campaign play``, the
GM's page, ``POST /api/v1/request``); one the rules settle without dice is refused when it
is made, with the same sentence everywhere; nothing says dice were drawn when none were;
log lines and cards name options as the book does, never ``time True`` or ``dr: good``."""

from __future__ import annotations

import hashlib
import html
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from freezegun import freeze_time
from starlette.testclient import TestClient

from ledger.campaign.aggregate import open_campaign
from ledger.cli import cli
from ledger.events import RollRequested
from ledger.rules.plugins import rule_systems
from ledger.store.opening import open_store
from ledger.web.app import Server

from .webtools import Table, client, csrf

ROOT = Path(__file__).resolve().parent.parent / "campaigns"
NOW = "2026-03-01 19:30:00"
ENTROPY = hashlib.sha256(b"from dana's phone").hexdigest()


@pytest.fixture(autouse=True)
def _clock():
    """Every entry is written at the table's evening, setting up included."""
    with freeze_time(NOW):
        yield


@dataclass(frozen=True)
class Example:
    """A campaign of one system with one character, and a roll its book makes."""

    system: str
    sheet: str  # campaigns/<dir>/characters/<name>.toml
    character: str
    skill: str
    params: dict[str, str]  # a roll the rules make with dice (text values, "1": a switch)


EXAMPLES = {
    "d20-world": Example("d20-world", "the-world/characters/isa.toml", "isa", "Lockpicking", {"time": "1"}),
    "wyrd-engine": Example("wyrd-engine", "grand-casebook/characters/julian.toml", "julian", "Investigate", {"dr": "good"}),
    "decision-dice": Example("decision-dice", "the-salt-road/characters/jen.toml", "jen", "Wits", {"target": "8"}),
    "spellwoven": Example("spellwoven", "nimble-jen/characters/jen.toml", "jen", "Sprint", {}),
    "terran-engine": Example("terran-engine", "the-drowned-marches/characters/jen.toml", "jen", "Exploration", {"attribute": "Agility"}),
}  # fmt: skip

#: Requests each system's rules settle without a die: (system, skill, params, the field the
#: refusal is about, words the sentence must hold).
SETTLED = [
    # 001 "Checks": skill alone, no help (ruling R1): failure is certain, no check
    ("d20-world", "Forage", {}, "time", "With neither Time nor Tools no check is made (d20-world, Checks"),
    # 001 "Checks": time, tools and skill: success is certain
    ("d20-world", "Forage", {"time": "1", "tools": "1"}, "time", "With Time, Tools and skill no check is made"),
    # 004 "Static Difficulty from Attributes": a target's Attribute of 1 is hit without a roll
    ("spellwoven", "Sprint", {"target": "1"}, "target", "no roll is made (spellwoven, Static Difficulty"),
    # 003 "2.1 Risky Actions", ruling R3: no dice at all is a fail
    ("terran-engine", "Exploration", {"attribute": "Insight", "position": "-1", "extra": "-1"}, "dark",
     "With no Light and no Dark Dice no roll is made"),
]  # fmt: skip


def table_of(tmp_path: Path, example: Example) -> Table:
    t = Table(str(tmp_path / f"{example.system}.db"))
    t.ok("new", "vault", "--system", example.system)
    t.ok("character", "add", "--sheet", str(ROOT / example.sheet))
    t.ok("session", "start")
    return t


def cli_args(params: dict[str, str]) -> list[str]:
    out: list[str] = []
    for name, value in params.items():
        flag = "--" + name.replace("_", "-")
        out += [flag] if value == "1" and _is_flag(name) else [flag, value]
    return out


def _is_flag(name: str) -> bool:
    return any(p.name == name and p.is_flag for s in rule_systems().values() for p in s.roll_params)


def gm_token(t: Table) -> str:
    return str(json.loads(t.ok("access", "add", "gm", "--api", "--scope", "gm", "--json"))["token"])


def gm_form(page: str, cid: str) -> str:
    """The GM page's "Ask for a roll" form for ``cid``."""
    start = page.index(f'name="form" value="request-{cid}"')
    return page[start : page.index("</form>", start)]


def gm_page_refusal(t: Table, cid: str, data: dict[str, str]) -> tuple[str, str]:
    """The GM page's one refusal of a request (422) and the field it stands next to."""
    with client(t, "gm") as c:
        page = c.get("/gm").text
        nonce = re.search(r'name="nonce" value="([^"]+)"', page)
        assert nonce is not None
        body = {"csrf": csrf(c), "nonce": nonce.group(1), "form": f"request-{cid}", "character": cid, **data}
        r = c.post("/gm/request", data=body, headers={"origin": "http://testserver"})
    assert r.status_code == 422, r.text
    said = re.findall(r'<p class="error[^"]*" role="alert" id="err-request-[^"]+">(.*?)</p>', r.text, re.S)
    assert len(said) == 1, said
    form = gm_form(r.text, cid)
    where = re.findall(r'name="(\w+)"[^>]*>[^<]*(?:</label>)?\s*(?:<small[^>]*>[^<]*</small>)?\s*<p class="error field-error"', form)
    return html.unescape(said[0].strip()), where[0] if where else ""


@pytest.mark.parametrize(("system", "skill", "params", "field", "words"), SETTLED)
@pytest.mark.parametrize("front", ["cli", "play", "gm-page", "api"])
def test_a_request_the_rules_settle_without_dice_is_refused_on_every_front_end(
    tmp_path, front, system, skill, params, field, words
):
    example = EXAMPLES[system]
    t = table_of(tmp_path, example)
    cid = example.character
    expected = None
    with freeze_time(NOW):
        head = t.head()
        cli_out = t("request", cid, skill, *cli_args(params))
        assert cli_out.exit_code == 1, cli_out.output
        assert cli_out.output.startswith("Error: ") and cli_out.output.count("\n") == 1
        said_cli = cli_out.output.removeprefix("Error: ").strip()
        # the rules' sentence in the book's words; the CLI adds the flag it is about
        flag = f" (--{field.replace('_', '-')})"
        assert said_cli.endswith(flag), said_cli
        expected = said_cli.removesuffix(flag)
        assert words in expected
        assert "--" not in expected and "True" not in expected  # the book's words
        if front == "play":
            line = " ".join(["request", cid, skill, *cli_args(params)])
            out = CliRunner().invoke(cli, ["--db", t.db, "play"], input=line + "\n")
            assert out.output == f"Error: {said_cli}\n" and out.exit_code == 1, out.output
        elif front == "gm-page":
            said, where = gm_page_refusal(t, cid, {"skill": skill, **params})
            assert said == f"{expected.rstrip('.')} (nothing was written)."
            assert where == field  # next to the option it is about
        elif front == "api":
            tok = gm_token(t)
            head = t.head()
            with TestClient(Server(t.db).app, base_url="http://testserver") as c:
                r = c.post("/api/v1/request", headers={"authorization": f"Bearer {tok}"},
                           json={"character": cid, "skill": skill, "params": params})  # fmt: skip
            assert r.status_code == 422 and r.headers["content-type"] == "application/problem+json"
            assert r.json()["detail"] == expected and r.json()["field"] == f"/params/{field}"
        assert t.head() == head  # nothing written


@pytest.mark.parametrize("system", sorted(EXAMPLES))
def test_the_gm_pages_request_form_offers_the_roll_forms_options(tmp_path, system):
    """The same fields, labels and kinds as ``/roll/CHARACTER``, in the same order."""
    example = EXAMPLES[system]
    t = table_of(tmp_path, example)
    cid = example.character
    with client(t, "gm") as c:
        roll_page = c.get(f"/roll/{cid}").text
        gm = gm_form(c.get("/gm").text, cid)
    roll = roll_page[roll_page.index('id="roll-form"') : roll_page.index("</form>", roll_page.index('id="roll-form"'))]
    own = {p.name for p in rule_systems()[system].roll_params}

    def options(form: str, prefix: str) -> list[tuple[str, str, str]]:
        found = re.findall(
            rf'<label[^>]*for="{prefix}(\w+)"[^>]*>(?:<input type="(\w+)"[^>]*>)?\s*([^<]+)</label>', form
        )
        out = []
        for name, kind, label in found:
            if name in own:
                tag = re.search(rf'<(input|select)[^>]*id="{prefix}{name}"[^>]*>', form)
                assert tag is not None
                kind = re.search(r'type="(\w+)"', tag.group(0))
                shown = kind.group(1) if kind else ("select" if tag.group(1) == "select" else "text")
                out.append((name, shown, html.unescape(label.strip())))
        return out

    on_roll = options(roll, "f-")
    on_gm = options(gm, f"rq-{cid}-")
    assert [n for n, _, _ in on_roll] == [p.name for p in _ordered(system)]
    assert on_gm == on_roll


def _ordered(system: str) -> list[Any]:
    from ledger.web.roll_help import fields

    by_name = {p.name: p for p in rule_systems()[system].roll_params}
    return [by_name[f["name"]] for f in fields(rule_systems()[system], {}, fresh=True)]


@pytest.mark.parametrize("system", sorted(EXAMPLES))
def test_request_help_lists_only_the_campaigns_own_options(tmp_path, system):
    t = table_of(tmp_path, EXAMPLES[system])
    shown = t.ok("request", "--help")
    own = {p.name for p in rule_systems()[system].roll_params}
    others = {p.name for s in rule_systems().values() for p in s.roll_params} - own
    for name in own:
        assert f"--{name.replace('_', '-')}" in shown
    for name in others:
        assert not re.search(rf"--{name.replace('_', '-')}(?![\w-])", shown), name
    assert "[" + system + "]" not in shown


def _old_request(db: str, cid: str, skill: str) -> int:
    """A request the rules settle without dice, as a ledger written before such requests
    were refused holds it (appended past ``request_roll``)."""
    store = open_store(db)
    try:
        campaign = open_campaign(store)
        event = RollRequested(character=cid, skill=skill, params={})
        return campaign.append([event], actor="gm", at="2026-03-01T19:30:00Z")[0].seq
    finally:
        store.close()


def test_an_audit_of_a_roll_without_draws_says_nothing_of_who_could_have_known(tmp_path):
    """The issue's night: a request with neither Time nor Tools (kept in an old ledger),
    answered with the phone's entropy: no die was drawn, so no line says nobody (or the GM)
    could have known it."""
    t = table_of(tmp_path, EXAMPLES["d20-world"])
    with freeze_time(NOW):
        seq = _old_request(t.db, "isa", "Forage")
        answer = json.loads(t.ok("roll", "isa", "--answer", str(seq), "--entropy", ENTROPY, "--auto", "--json"))
        settled = json.loads(t.ok("roll", "isa", "Forage", "--auto", "--json"))  # the GM's, no dice
        drawn = json.loads(t.ok("roll", "isa", "Lockpicking", "--time", "--json"))
    for roll in (answer, settled):
        assert roll["draws"] == []
        said = t.ok("audit", str(roll["seq"]))
        assert "could have known" not in said and "in advance" not in said, said
        assert "no dice were drawn" in said
        audit = json.loads(t.ok("audit", str(roll["seq"]), "--json"))
        assert "predictable" not in audit and audit["no_dice"].startswith("no dice were drawn")
    audit = json.loads(t.ok("audit", str(drawn["seq"]), "--json"))
    assert audit["predictable"]["by"] == "gm-seed"  # a roll with dice keeps its line
    fair = t.ok("fairness")
    assert "nobody could have known" not in fair


def _answer(t: Table, seq: int) -> dict[str, Any]:
    """Dana's phone answers the request at ``seq`` (as static/requests.js posts it)."""
    with client(t, "Dana") as c:
        page = c.get("/requests/part").text
        nonce = re.search(rf'id="r{seq}".*?name="nonce" value="([^"]+)"', page, re.S)
        assert nonce is not None, page
        r = c.post(
            f"/answer/{seq}",
            data={"csrf": csrf(c), "nonce": nonce.group(1), "entropy": ENTROPY},
            headers={"origin": "http://testserver", "accept": "application/json"},
        )
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_an_answered_requests_card_shows_the_dice_the_result_and_the_outcome(tmp_path):
    t = table_of(tmp_path, EXAMPLES["d20-world"])
    with freeze_time(NOW):
        seq = json.loads(t.ok("request", "isa", "Lockpicking", "--time", "--json"))["seq"]
        card = _answer(t, seq)
        roll = json.loads(t.ok("log", "--json"))[-1]
    face = roll["data"]["dice"][0]
    total, outcome = roll["data"]["total"], roll["data"]["outcome"]
    assert card["drawn"] == 1
    assert f"d20 {face}" in card["text"] and f"= {total}: {outcome}" in card["text"], card
    assert card["text"].startswith("Rolled: Isa Marrow — Lockpicking")
    assert card["text"].endswith("drawn with your phone's randomness.")


def test_an_answer_the_rules_settle_without_dice_never_says_it_drew_them(tmp_path):
    t = table_of(tmp_path, EXAMPLES["d20-world"])
    with freeze_time(NOW):
        seq = _old_request(t.db, "isa", "Forage")
        card = _answer(t, seq)
    assert card["drawn"] == 0
    assert "drawn with" not in card["text"] and "No dice were drawn" in card["text"], card
    assert "no check, auto fail" in card["text"]


def test_roll_words_are_the_books():
    systems = rule_systems()
    assert systems["d20-world"].roll_words({"time": True, "tools": True}) == "with time and tools"
    assert systems["d20-world"].roll_words({"time": True, "tools": False, "help_from": "bram"}) == (
        "with time and help from bram"
    )
    assert systems["wyrd-engine"].roll_words({"dr": "good"}) == "against Good"
    assert systems["wyrd-engine"].roll_words({"dr": "3", "trait": ["Wiry", "Brave"]}) == (
        "against 3, invoking Wiry, Brave"
    )
    assert systems["terran-engine"].roll_words({"position": -1}) == "Position -1"


#: What no log line or card may hold: a Python value, or an option named by its code name
#: and a colon (``dr: good``, ``help_from bram``).
RAW = re.compile(r"\b(True|False|None)\b")


def _sample(p: Any) -> str:
    if p.is_flag:
        return "1"
    if p.suggestions:
        return p.suggestions[0]
    if p.type is int:
        return str(p.min if p.min is not None and p.min > 0 else 1)
    return "Wiry"


@pytest.mark.parametrize("system", sorted(EXAMPLES))
def test_no_log_line_or_card_shows_a_raw_value_for_any_option(tmp_path, system):
    """Every roll param of the system, given alone beside the example roll: the request's
    log line and card, and the roll's line (engine dice, an automatic result accepted),
    name it in words."""
    from ledger.web.answers import inputs_in_words

    example = EXAMPLES[system]
    t = table_of(tmp_path, example)
    rules = rule_systems()[system]
    checked = 0
    with freeze_time(NOW):
        for p in rules.roll_params:
            params = {**example.params, p.name: _sample(p)}
            names = {q.name for q in rules.roll_params if q.name in params}
            asked = t("request", example.character, example.skill, *cli_args(params), "--json")
            rolled = t("roll", example.character, example.skill, *cli_args(params), "--auto", "--json")
            for result in (asked, rolled):
                if result.exit_code != 0:
                    continue  # the rules refuse this option here: nothing written
                seq = json.loads(result.output)["seq"]
                line = next(x for x in t.ok("log").splitlines() if x.startswith(f"[{seq}] "))
                assert not RAW.search(line), line
                for name in names:  # never "dr: good", "time True" or "help_from bram"
                    assert not re.search(rf"\b{name}(:| True| False)", line), line
                    assert "_" not in name or name not in line, line
                checked += 1
            if asked.exit_code == 0:
                data = json.loads(asked.output)
                card = inputs_in_words(rules, "X", data.get("skill"), data.get("params") or {})
                assert not RAW.search(card) and not re.search(r"\b\w+: ", card), card
    assert checked >= 4, f"only {checked} lines rendered for {system}"
