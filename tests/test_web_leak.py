"""Leak tests of ``campaign serve``: a player's link serves nothing of a GM-only event
in any byte (HTML, live-stream frames, downloads, error pages, headers), nor the unrevealed
seed, nor state derived from GM-only events.

For every installed rule system: a campaign built from its example campaign's characters,
an open session, a public physical roll (the system's book example), then the GM-only
entries: a blind note, a blind engine roll, and each GM-only event type of the system (a
recipe per type below; a new GM-only type fails :func:`test_every_gm_only_type_has_a_recipe`
until it gets one). Every page and the live stream are crawled with a player's link; no
canary (the GM-only payloads' salts, blind client seeds and texts, the unrevealed seed)
may appear. A twin campaign without the GM-only entries serves the same sheets.
"""

from __future__ import annotations

import html
import re
import shlex
import tomllib
from pathlib import Path

import httpx2
import msgspec
import pytest

from ledger import RuleError
from ledger.campaign.aggregate import open_campaign
from ledger.rules.plugins import rule_systems
from ledger.store.opening import open_store
from ledger.testing import registered
from ledger.web.roll_form import SECRET_REFUSAL

from .toy import Toy
from .webtools import (
    ROOT,
    Table,
    client,
    d20_table,
    live_server,
    login,
    post,
    sse_frames,
    toy_table,
)

#: GM-only event types of the installed systems: how the GM records each (``{c}`` is a
#: character of the campaign, ``{canary}`` a unique text).
RECIPES: dict[str, list[list[str]]] = {
    "d20-world.favour_changed": [
        ["record", "favour-changed", "--character", "isa", "--bond", "the Guild", "--delta", "-2",
         "--reason", "{canary}"],
    ],
    "d20-world.hidden_condition_added": [
        ["record", "hidden-condition-added", "--character", "isa", "--condition", "{canary}",
         "--check-penalty", "3", "--ends-when", "{canary}x"],
    ],
    "d20-world.hidden_condition_ended": [
        ["record", "hidden-condition-added", "--character", "bram", "--condition", "{canary}",
         "--check-penalty", "1"],
        ["record", "hidden-condition-ended", "--character", "bram", "--condition", "{canary}"],
    ],
    "d20-world.blind_check_rolled": [["roll", "bram", "Brawl", "--time", "--blind"]],
}


def example_campaign(system_id: str) -> Path:
    for path in sorted((ROOT / "campaigns").iterdir()):
        if tomllib.loads((path / "campaign.toml").read_text()).get("system") == system_id:
            return path
    raise LookupError(system_id)


#: A public physical roll where the book's example needs more set-up than characters.
PUBLIC_ROLLS = {
    "d20-world": "roll isa Lockpicking --time --dice 16",
    "terran-engine": "roll jen Exploration --attribute Agility --dark 1 --dice 2,3,1,4,5",
}


def example_roll(system_id: str) -> list[str]:
    line = PUBLIC_ROLLS.get(system_id) or rule_systems()[system_id].example_roll.split("  # ")[0]
    return shlex.split(line)


def without_dice(args: list[str]) -> list[str]:
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a == "--dice":
            skip = True
            continue
        out.append(a)
    return out


def build(db: str, system_id: str, *, secrets: bool) -> tuple[Table, list[str]]:
    """The campaign (with or without its GM-only entries); returns the canaries typed."""
    t = Table(db)
    t.ok("new", "leaky", "--system", system_id)
    for sheet in sorted((example_campaign(system_id) / "characters").glob("*.toml")):
        t.ok("character", "add", "--sheet", str(sheet))
    t.ok("session", "start")
    roll = example_roll(system_id)
    t.ok(*roll)
    canaries: list[str] = []
    if not secrets:
        return t, canaries
    note = f"Zq{system_id}note"
    t.ok("note", note, "--blind")
    canaries.append(note)
    t.ok(*without_dice(roll), "--blind")
    for tag in sorted(RECIPES):
        if not tag.startswith(system_id + "."):
            continue
        canary = f"Zq{tag.split('.')[1]}"
        canaries += [canary, canary + "x"]
        for step in RECIPES[tag]:
            t.ok(*(a.replace("{canary}", canary) for a in step))
    return t, canaries


def secrets_of(db: str) -> tuple[list[str], list[int], str]:
    """Canaries from the store: every GM-only payload's salt and blind client seed; the
    GM-only seqs; the open session's unrevealed seed (hex)."""
    store = open_store(db)
    try:
        campaign = open_campaign(store)
        found, seqs = [], []
        for stored in store.rows(campaign.id):
            values = msgspec.structs.asdict(stored)
            if values["visibility"] != "gm":
                continue
            seqs.append(values["seq"])
            data = msgspec.json.decode(values["data"])
            found.append(data["salt"])
            if str(data.get("client_seed", "")).startswith("blind:"):
                found.append(data["client_seed"])
        seed = store.get_secret(campaign.id, campaign.current_session())
        assert seed is not None
        return found, seqs, seed.hex()
    finally:
        store.close()


#: the live log's filters a player may ask for
FILTERED = ["mine=1", "rolls=1", "session=1", "mine=1&rolls=1"]


def crawl(base: str, token: str, db: str) -> dict[str, str]:
    """Every page, download, error page and the live stream a player's link reaches:
    ``{what: body with its headers}``."""
    store = open_store(db)
    campaign = open_campaign(store)
    head = store.head(campaign.id).seq
    chars = list(campaign.characters())
    store.close()
    out: dict[str, str] = {}
    with httpx2.Client(base_url=base, timeout=30) as h:
        h.get(f"/a/{token}")
        paths = ["/", "/log", "/recap/1", "/recap/2", "/export.ndjson", "/verify",
                 "/verifier.html", "/nothing", "/static/site.css", "/static/verify.js",
                 "/gm", "/static/gm.js", "/static/gm.css"]  # the GM's page: 404
        paths += [f"/sheet/{c}" for c in chars] + [f"/sheet/{c}/part" for c in chars]
        paths += [f"/roll/{c}" for c in chars] + [f"/audit/{s}" for s in range(0, head + 2)]
        # the live log's filters and its "Recorded #N" banner, a GM-only seq included
        paths += [f"/log?{q}" for q in FILTERED] + ["/log?character=nobody"]
        paths += [f"/log?character={c}" for c in chars]
        paths += [f"/log?recorded={s}" for s in range(0, head + 2)]
        for path in paths:
            r = h.get(path)
            out[path] = "\n".join(f"{k}: {v}" for k, v in r.headers.items()) + "\n" + r.text
        for c in chars:  # the odds preview of every skill the roll form offers
            for skill in re.findall(r'name="skill" value="([^"]+)"', out[f"/roll/{c}"]):
                r = h.get(f"/roll/{c}/preview", params={"skill": html.unescape(skill)})
                out[f"/roll/{c}/preview?skill={skill}"] = r.text
        for action in ("damage", "record", "undo", "link"):  # the GM's taps: 404
            r = h.post(f"/gm/{action}", data={"character": chars[0], "amount": "1", "seq": "1"},
                       headers={"origin": base})  # fmt: skip
            out[f"POST /gm/{action}"] = r.text
        for c in chars:  # a roll refused, and one with a bad form: error pages
            r = h.post(f"/roll/{c}", data={"skill": "x", "dice": "999"},
                       headers={"origin": base})
            out[f"POST /roll/{c}"] = r.text
        with h.stream("GET", "/events", headers={"last-event-id": "0"}) as r:
            buffer = ""
            for chunk in r.iter_text():
                buffer += chunk
                frames = sse_frames(buffer)
                if frames and frames[-1].get("id") == str(head):  # a stub's, perhaps
                    break
            out["/events"] = "\n".join(f"{k}: {v}" for k, v in r.headers.items()) + "\n" + buffer
    return out


def test_every_gm_only_type_has_a_recipe():
    for system_id, system in rule_systems().items():
        for cls in system.event_types:
            if getattr(cls, "visibility", "public") == "gm":
                tag = msgspec.inspect.type_info(cls).tag  # type: ignore[attr-defined]
                assert tag in RECIPES, f"{tag} ({system_id}) has no leak-test recipe"


@pytest.mark.parametrize("system_id", sorted(rule_systems()))
def test_leak_player_link_serves_nothing_of_gm_only_events(tmp_path, system_id):
    served_to_a_player_leaks_nothing(str(tmp_path / "ledger.db"), system_id)


def served_to_a_player_leaks_nothing(db: str, system_id: str) -> None:
    """Build the campaign with its GM-only entries in ``db`` (a file or a PostgreSQL URL),
    serve it, crawl it with a player's link: no canary, no GM-only seq, anywhere."""
    t, typed = build(db, system_id, secrets=True)
    salts, gm_seqs, seed = secrets_of(t.db)
    assert gm_seqs, "the campaign holds GM-only events"
    token = t.link("Leaky Player", *list(_characters(t.db))[:1])
    with live_server(t.db, poll_interval=0.05) as base:
        served = crawl(base, token, t.db)
    assert served["/events"].count("event: entry") > 3
    for what, body in served.items():
        for canary in [*typed, *salts, seed]:
            assert canary not in body, f"{canary!r} leaked in {what}"
        for seq in gm_seqs:  # a GM-only seq is listed only as its stub, word for word
            items = re.findall(rf'<li id="e{seq}".*?</li>', body)
            assert items in ([], [stub(seq)]), f"GM-only event {seq} shown in {what}: {items}"
    for seq in gm_seqs:  # each stands at its place, in the log page and the live stream
        assert stub(seq) in served["/log"]
        # a filtered view leaves it out: showing it would say its character, session or kind
        filtered = [f"/log?{q}" for q in FILTERED] + [f"/log?character={c}" for c in _characters(t.db)]
        for what in filtered:
            assert f'id="e{seq}"' not in served[what], f"GM-only event {seq} shown in {what}"
        assert 'id="recorded"' not in served[f"/log?recorded={seq}"]
        assert f"id: {seq}\nevent: entry\ndata: {stub(seq)}\n\n" in served["/events"]
        assert "There is nothing here." in served[f"/audit/{seq}"]
    stub_words = re.sub(r"\d+", "", stub(0))
    for secret in [*gm_types(t.db), *_characters(t.db), *_characters(t.db).values(), "GM ", "gm"]:
        assert secret not in stub_words, f"a stub says {secret!r}"


def stub(seq: int) -> str:
    """A GM-only event in a player's log: its seq and "GM-only entry", nothing else."""
    return (
        f'<li id="e{seq}" class="entry stub" data-seq="{seq}"><span class="seq">#{seq}</span> '
        '<span class="text">GM-only entry</span></li>'
    )


def gm_types(db: str) -> set[str]:
    """The types, and their words without the system's prefix, of the GM-only events."""
    store = open_store(db)
    try:
        campaign = open_campaign(store)
        rows = store.rows(campaign.id, columns="type, visibility, actor, stream")
        found = [(t, a, s) for t, v, a, s in rows if v == "gm"]
    finally:
        store.close()
    words = {t for t, _, _ in found} | {t.split(".")[-1] for t, _, _ in found}
    return words | {a for _, a, _ in found} | {s for _, _, s in found}


@pytest.mark.parametrize("system_id", sorted(rule_systems()))
def test_leak_no_state_derived_from_gm_only_events_on_sheets(tmp_path, system_id):
    with_secrets, _ = build(str(tmp_path / "a.db"), system_id, secrets=True)
    without, _ = build(str(tmp_path / "b.db"), system_id, secrets=False)
    sheets = []
    for t in (with_secrets, without):
        token = t.link("Leaky Player")
        with live_server(t.db) as base, httpx2.Client(base_url=base, timeout=30) as h:
            h.get(f"/a/{token}")
            sheets.append({c: h.get(f"/sheet/{c}/part").text for c in _characters(t.db)})
    assert sheets[0] == sheets[1]


def _characters(db: str) -> dict[str, str]:
    store = open_store(db)
    try:
        return open_campaign(store).characters()
    finally:
        store.close()


# --- a refused roll says nothing of GM-only state -----------------------------------------
#
# The web form records a player's roll through the same Campaign.roll as `campaign roll`,
# which resolves and validates it against the character's true (GM-view) state. A refusal
# from there may name a GM-only fact, so a player's roll is first tried against the players'
# view (ledger.web.roll_form.rehearse): its refusal is shown word for word; a roll only the GM's
# view refuses is refused without a reason (SECRET_REFUSAL).

#: GM-only entries on Isa (d20-world): a hidden condition with a penalty (ruling R33), a
#: favour change, a blind check (it changes nothing on the sheet, ruling R34), a blind note.
GM_ONLY_ON_ISA = [
    ["record", "hidden-condition-added", "--character", "isa", "--condition", "Zqcurse",
     "--check-penalty", "3", "--ends-when", "Zqdawn"],
    ["record", "favour-changed", "--character", "isa", "--bond", "the Guild", "--delta", "-2",
     "--reason", "Zqgrudge"],
    ["roll", "isa", "Zqlore", "--practice", "--time", "--tools", "--dice", "12", "--blind"],
    ["roll", "isa", "Lockpicking", "--time", "--dice", "9,8", "--trait", "Wiry:help", "--blind"],
    ["note", "Zqnote", "--blind"],
]
D20_CANARIES = ["Zqcurse", "Zqdawn", "Zqgrudge", "Zqlore", "Zqnote", "hidden", "GM"]

#: Roll forms Dana (Isa's player) sends that the rules refuse: the refusal must be the
#: players' view's, word for word, with or without the GM-only entries.
REFUSED = {
    "unknown skill": {"skill": "Nope", "time": "on", "dice": "12"},
    "no such trait": {"skill": "Lockpicking", "time": "on", "dice": "12", "trait": "Nope:help"},
    "a face a d20 cannot show": {"skill": "Lockpicking", "time": "on", "dice": "99"},
    "too few dice": {"skill": "Lockpicking", "time": "on", "dice": "12",
                     "advantage": "on", "trait": "Stubborn:help"},
    "a trait on a certain result": {"skill": "Lockpicking", "time": "on", "tools": "on",
                                    "dice": "12", "trait": "Stubborn:help"},
    "an automatic result not ticked": {"skill": "Sing", "dice": "12"},
    "no dice": {"skill": "Lockpicking", "time": "on"},
}


def refusal(c, character: str, form: dict[str, str]) -> str:
    """The roll form's refusal sentence (the page must refuse: 422)."""
    r = post(c, f"/roll/{character}", form)
    assert r.status_code == 422, (form, r.status_code, r.text[:300])
    found = re.search(r'<p class="error[^"]*" role="alert"[^>]*>(.*?)</p>', r.text, re.S)
    assert found, r.text
    return html.unescape(found[1])


def test_leak_a_refused_roll_says_what_the_players_view_says(tmp_path):
    """d20-world: every refusal Dana gets with the GM-only entries on Isa is the one she
    gets without them (a twin table), names none of them, and nothing is written."""
    secret = d20_table(str(tmp_path / "secret.db"))
    for step in GM_ONLY_ON_ISA:
        secret.ok(*step)
    twin = d20_table(str(tmp_path / "twin.db"))
    head = secret.head()
    with client(secret, "Dana") as s, client(twin, "Dana") as w:
        for what, form in REFUSED.items():
            said = refusal(s, "isa", form)
            assert said == refusal(w, "isa", form), what
            for canary in D20_CANARIES:
                assert canary not in said, (what, said)
    assert secret.head() == head, "a refused roll wrote nothing"


class SecretiveToy(Toy):
    """The toy rules, but a GM-only ``toy.secret_noted`` above 0 forbids rolls and its
    resolve says the secret's value: the worst case, a refusal that names a GM-only fact."""

    def resolve(self, state, request, dice):
        if state.secret:
            raise RuleError(f"{state.name} is bound by secret {state.secret} and cannot roll")
        return super().resolve(state, request, dice)


@pytest.fixture
def secretive_toy():
    """The secretive toy rules in place of the toy's, for one test."""
    with registered(SecretiveToy()):
        yield


def test_leak_a_roll_refused_only_for_a_gm_only_fact_does_not_name_it(
    secretive_toy, tmp_path, frozen
):
    tables = {name: toy_table(str(tmp_path / f"{name}.db")) for name in ("secret", "twin")}
    secret = tables["secret"]
    secret.ok("record", "secret-noted", "--character", "ann", "--value", "4242")
    # the GM's own roll is refused with the reason (the GM may know it)
    assert "secret 4242" in secret("roll", "ann", "brawl", "--dice", "3,4").output
    head = secret.head()
    form = {"skill": "brawl", "dice": "3,4"}
    with client(secret) as s, client(tables["twin"]) as w, client(secret) as gm:
        login(s, secret.link("Dana", "ann"))
        login(w, tables["twin"].link("Dana", "ann"))
        login(gm, secret.link("gm"))
        said = refusal(s, "ann", form)
        assert said == SECRET_REFUSAL and "4242" not in said and "secret" not in said.lower()
        # a refusal the players' view gives is still said in full
        assert refusal(s, "ann", {"skill": "sneak", "dice": "3,4"}) == (
            "Ann Vance has no skill 'sneak'"
        )
        assert "bound by secret 4242" in refusal(gm, "ann", form)  # the GM's page says why
        assert secret.head() == head, "nothing was written"
        assert post(w, "/roll/ann", form).status_code == 303  # without the secret: recorded


def test_leak_streams_of_two_players_and_the_gm_at_once_each_get_exactly_their_view(tmp_path):
    """The live stream renders each new line once per view for every open stream
    (:mod:`ledger.web.feed`): with the GM and two players of different characters streaming
    at once, each stream gets exactly the lines of its own view, the GM's with the blind
    note and blind roll, each player's with their stubs, nothing of them. The players' lines
    are the same (which characters a player plays is filtered in the browser)."""
    import threading

    from ledger.web.feed import render_lines

    table = d20_table(str(tmp_path / "vault.db"))
    tokens = {who: table.link(who) for who in ("gm", "Dana", "Olu")}
    start = table.head()
    got: dict[str, str] = {}
    ready = threading.Barrier(4, timeout=20)
    last = start + 4

    def watch(who: str, base: str) -> None:
        with httpx2.Client(base_url=base, timeout=20) as h:
            h.get(f"/a/{tokens[who]}")
            with h.stream("GET", "/events") as r:
                buffer = ""
                chunks = r.iter_text()
                buffer += next(chunks)  # "retry: 1000": the stream is open
                ready.wait()
                for chunk in chunks:
                    buffer += chunk
                    if f"id: {last}\n" in buffer:
                        break
        got[who] = buffer

    with live_server(table.db, poll_interval=0.05) as base:
        threads = [threading.Thread(target=watch, args=(w, base)) for w in tokens]
        for t in threads:
            t.start()
        ready.wait()
        table.ok("note", "canary-note-7f3a the vault code is 4471", "--blind")
        table.ok("roll", "bram", "Brawl", "--time", "--blind")
        table.ok("note", "the door creaks")
        table.ok("roll", "isa", "Forage", "--time", "--dice", "9")
        for t in threads:
            t.join(timeout=30)
    assert set(got) == {"gm", "Dana", "Olu"}

    store = open_store(table.db)
    try:
        campaign = open_campaign(store)
        assert store.head(campaign.id).seq == last
        view = {
            as_gm: [f for _seq, f in render_lines(campaign, as_gm=as_gm, after=start, upto=last)]
            for as_gm in (True, False)
        }
    finally:
        store.close()
    frames = {who: sse_frames(text) for who, text in got.items()}
    assert frames["gm"] == sse_frames("".join(view[True]))
    assert frames["Dana"] == frames["Olu"] == sse_frames("".join(view[False]))
    assert [f["id"] for f in frames["Dana"]] == [str(s) for s in range(start + 1, last + 1)]
    assert "canary-note-7f3a" in got["gm"] and "Brawl" in got["gm"]
    for who in ("Dana", "Olu"):
        assert "canary-note-7f3a" not in got[who] and "4471" not in got[who]
        assert "Brawl" not in got[who]
        assert got[who].count("GM-only entry") == 2 and "the door creaks" in got[who]
