"""Every write goes through the same code as the CLI and the web form: ``campaign
roll``, the web roll form and the JSON API's ``POST /roll`` refuse the same bad roll with the
same sentence and record the same event for the same good roll; the phone and the API answer
a roll request alike (:mod:`ledger.campaign.entering`)."""

from __future__ import annotations

import html
import json
import re

import pytest
from freezegun import freeze_time
from starlette.testclient import TestClient

from ledger.campaign.entering import SECRET_REFUSAL
from ledger.web.app import Server

from .test_web_leak import SecretiveToy, secretive_toy  # noqa: F401 (a fixture)
from .webtools import Table, client, csrf, d20_table, login, post, toy_table

API = "/api/v1"
NOW = "2026-03-01 19:30:00"
ENTROPY = "5e" * 32


def api_token(t: Table, who: str, scope: str, *more: str) -> str:
    out = t.ok("access", "add", who, "--api", "--scope", scope, *more, "--json")
    return str(json.loads(out)["token"])


def cli_refusal(t: Table, *args: str) -> str:
    """The one line ``campaign`` prints for a refused command (exit 1), without ``Error: ``."""
    r = t(*args)
    assert r.exit_code == 1, r.output
    assert r.output.startswith("Error: ") and r.output.count("\n") == 1, r.output
    return r.output.removeprefix("Error: ").strip()


def form_refusal(
    t: Table, who: str, data: dict[str, str], character: str = "isa"
) -> tuple[str, str]:
    """The web form's one refusal (422) and the field it is placed next to (``""``: above)."""
    with client(t, who) as c:
        r = post(c, f"/roll/{character}", data)
    assert r.status_code == 422, r.text
    found = re.findall(r'<p class="error( field-error)?" role="alert"(?: id="err-(\w+)")?>(.*?)</p>', r.text, re.S)
    said = [(field, html.unescape(text.strip())) for _, field, text in found if text.strip()]
    assert len(said) == 1, said
    return said[0][1], said[0][0]


def api_refusal(t: Table, tok: str, body: dict[str, object]) -> tuple[int, str]:
    return api_problem(t, tok, body)[:2]


def api_problem(t: Table, tok: str, body: dict[str, object]) -> tuple[int, str, str]:
    """The API's refusal: its status, ``detail`` and ``field`` (a JSON pointer, ``""``)."""
    with TestClient(Server(t.db).app, base_url="http://testserver") as c:
        r = c.post(f"{API}/roll", headers={"authorization": f"Bearer {tok}"}, json=body)
    assert r.headers["content-type"] == "application/problem+json", r.text
    return r.status_code, r.json()["detail"], r.json().get("field", "")


@pytest.mark.parametrize(
    ("dice", "sentence"),
    [
        ("21", "die 1 is a d20 and cannot show 21 (1 to 20)"),  # a face the d20 cannot show
        ("12,13", "the dice gave 2 faces but the roll uses 1; remove the extra faces"),
    ],
)
@pytest.mark.parametrize("who", ["Dana", "gm"])
def test_three_surfaces_refuse_the_same_bad_roll_with_the_same_sentence(tmp_path, dice, sentence, who):
    """000 d20-world: "Roll a d20 ... add the skill" — one d20, faces 1 to 20. The player's
    and the GM's web form and API token, and the GM's ``campaign roll``."""
    t = d20_table(str(tmp_path / "vault.db"))
    head = t.head()
    tok = api_token(t, who, "gm" if who == "gm" else "roll")
    cli = cli_refusal(t, "--actor", who, "roll", "isa", "Lockpicking", "--time", "--dice", dice)
    problem = api_problem(
        t, tok, {"character": "isa", "skill": "Lockpicking", "dice": dice, "params": {"time": "yes"}}
    )
    form, field = form_refusal(t, who, {"skill": "Lockpicking", "time": "1", "dice": dice})
    # one sentence; the CLI names its option (--dice), the form its field, the API its
    # body's member (a JSON pointer)
    assert cli == f"{sentence} (--dice)"
    assert problem == (422, sentence, "/dice")
    assert form == sentence and field == "dice"
    assert t.head() == head  # nothing written by any of them


def test_a_rules_refusal_is_the_same_sentence_on_every_surface(tmp_path):
    """A skill Isa does not have: the rules' sentence, word for word, from the CLI, the
    player's API token and the player's form (the form names the option by its label)."""
    t = d20_table(str(tmp_path / "vault.db"))
    head = t.head()
    tok = api_token(t, "Dana", "roll")
    cli = cli_refusal(t, "roll", "isa", "Juggling", "--time", "--dice", "12")
    assert cli.startswith("Isa Marrow has no skill 'Juggling' (they have: Lockpicking")
    assert cli.endswith("“Practise a skill you lack” (--practice)")
    sentence = cli.removesuffix(" (--practice)")
    problem = api_problem(t, tok, {"character": "isa", "skill": "Juggling", "dice": "12",
                                   "params": {"time": "yes"}})  # fmt: skip
    assert problem == (422, sentence, "/params/practice")
    form, field = form_refusal(t, "Dana", {"skill": "Juggling", "time": "1", "dice": "12"})
    assert form == sentence
    assert field == "practice" and t.head() == head


@pytest.mark.usefixtures("secretive_toy", "frozen")
def test_a_gm_only_reason_is_the_same_secret_refusal_on_the_form_and_the_api(tmp_path):
    """Only the GM's view refuses Ann's roll (a GM-only secret binds her, the worst case of
    :class:`SecretiveToy`): Dana's form and Dana's token both say :data:`SECRET_REFUSAL` and
    nothing more; the GM's ``campaign roll``, form and token all give the rules' sentence."""
    t = toy_table(str(tmp_path / "toybox.db"))
    t.ok("record", "secret-noted", "--character", "ann", "--value", "4242")
    head = t.head()
    dana = api_token(t, "Dana", "roll", "--character", "ann")
    gm = api_token(t, "gm", "gm")
    body = {"character": "ann", "skill": "brawl", "dice": "3,4"}
    form = {"skill": "brawl", "dice": "3,4"}
    with client(t) as c:
        login(c, t.link("Dana", "ann"))
        r = post(c, "/roll/ann", form)
        assert r.status_code == 422 and html.unescape(r.text).count(SECRET_REFUSAL) == 1
        assert "4242" not in r.text
    assert api_refusal(t, dana, body) == (422, SECRET_REFUSAL)
    said = "Ann Vance is bound by secret 4242 and cannot roll"
    assert cli_refusal(t, "roll", "ann", "brawl", "--dice", "3,4") == said
    assert api_refusal(t, gm, body) == (422, said)
    assert form_refusal(t, "gm", form, character="ann") == (said, "")
    assert t.head() == head


def stored(t: Table, seq: int) -> dict[str, object]:
    """The stored event at ``seq`` as the store keeps it, but for its place in the chain:
    its payload's canonical JSON (the bytes the hash covers), type, stream, version, actor,
    time, session and visibility."""
    from ledger.campaign.aggregate import open_campaign
    from ledger.store.opening import open_store

    store = open_store(t.db)
    try:
        row = next(iter(store.rows(open_campaign(store).id, after=seq - 1, upto=seq)))
    finally:
        store.close()
    keep = ("data", "type", "stream", "version", "actor", "recorded_at", "session", "visibility")
    return {k: getattr(row, k) for k in keep}


def test_three_surfaces_record_the_same_event_for_the_same_good_roll(tmp_path):
    """The same roll (Isa, Lockpicking with time, the d20 showing 15, entered by Dana) on
    three identical tables, by ``campaign roll --actor Dana``, the API with Dana's token and
    Dana's web form: the stored payloads are equal, byte for byte."""
    seen = []
    for surface in ("cli", "api", "form"):
        with freeze_time("2026-03-01 19:00:00"):
            t = d20_table(str(tmp_path / f"{surface}.db"))
            tok = api_token(t, "Dana", "roll")
        with freeze_time(NOW):
            if surface == "cli":
                t.ok("--actor", "Dana", "roll", "isa", "Lockpicking", "--time", "--dice", "15")
            elif surface == "api":
                with TestClient(Server(t.db).app, base_url="http://testserver") as c:
                    r = c.post(f"{API}/roll", headers={"authorization": f"Bearer {tok}"},
                               json={"character": "isa", "skill": "Lockpicking", "dice": "15",
                                     "params": {"time": "yes"}})  # fmt: skip
                    assert r.status_code == 201, r.text
            else:
                with client(t, "Dana") as c:
                    r = post(c, "/roll/isa", {"skill": "Lockpicking", "time": "1", "dice": "15"})
                    assert r.status_code == 303, r.text
        seen.append(stored(t, t.head()))
    cli, api, form = seen
    assert cli["actor"] == "Dana" and cli["recorded_at"].startswith("2026-03-01T19:30:00")
    data = json.loads(str(cli["data"]))
    assert data["draws"] == [[20, 15]] and data["source"] == "physical"
    assert api == cli
    assert form == cli


def by_phone(t: Table, seq: int, **data: str) -> tuple[int, str | None]:
    """Dana's phone answers the request at ``seq`` (its card's nonce, as the script posts)."""
    with client(t, "Dana") as c:
        found = re.search(r'name="nonce" value="([^"]+)"', c.get("/requests/part").text)
        form = {"csrf": csrf(c), "nonce": found.group(1) if found else "none", **data}
        headers = {"origin": "http://testserver", "accept": "application/json"}
        r = c.post(f"/answer/{seq}", data=form, headers=headers)
    return r.status_code, r.json().get("error")


def by_api(t: Table, tok: str, seq: int, **data: str) -> tuple[int, str | None]:
    """Dana's token answers the request at ``seq``."""
    with TestClient(Server(t.db).app, base_url="http://testserver") as c:
        r = c.post(f"{API}/answer/{seq}", headers={"authorization": f"Bearer {tok}"}, json=data)
    return r.status_code, r.json().get("detail")


def test_the_phone_and_the_api_answer_a_request_alike(tmp_path):
    """A roll request answered by the phone's page and by the API: the same refusals for a
    bad answer (the players' view's sentence for a face the d20 cannot show, the same 409
    for a closed request), and the same stored roll for the same dice (engine dice would
    differ: each table has its own session seed)."""
    seen = []
    for surface in ("phone", "api"):
        with freeze_time("2026-03-01 19:00:00"):
            t = d20_table(str(tmp_path / f"{surface}.db"))
            tok = api_token(t, "Dana", "roll")
            seq = json.loads(t.ok("request", "isa", "Lockpicking", "--time", "--json"))["seq"]
        head = t.head()

        def send(**data: str) -> tuple[int, str | None]:
            return by_phone(t, seq, **data) if surface == "phone" else by_api(t, tok, seq, **data)  # noqa: B023

        with freeze_time(NOW):
            assert send(dice="21") == (422, "die 1 is a d20 and cannot show 21 (1 to 20)")
            assert send(entropy=ENTROPY, dice="15")[1] == (
                "Answer with Roll (the phone's own randomness) or with the dice you rolled, not both."
                if surface == "phone"
                else 'Answer with "entropy" (your own randomness) or with "dice", not both.'
            )
            assert t.head() == head
            assert send(dice="15")[0] in (200, 201) and t.head() == head + 1
            closed = send(entropy=ENTROPY)
        assert closed == (
            409, f"This request was already answered (event {head + 1}): a request is answered once."
        )
        seen.append(stored(t, head + 1))
    phone, api = seen
    data = json.loads(str(phone["data"]))
    assert data["request"] == 6 and data["source"] == "physical" and phone["actor"] == "Dana"
    assert phone == api
