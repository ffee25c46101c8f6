"""A phone forgets per web address; a note the player kept does not.

A browser keeps IndexedDB per origin (scheme, host and port), so a phone meeting a table at a
new address remembers nothing of it: it says so plainly, with the log's age. After a
checkpoint (each session's end) it offers the signed note for the player's own files, and
"Check a note I kept" checks such a file against the log now, at any address: the
consistency proof from the note's size to the newest checkpoint, and the signatures, with
witness.js (WebCrypto) in Debian's Chromium.

- ``checkKeptNote`` against answers the test controls: every verdict, with the Python
  reference modules making the notes and proofs;
- end to end on real servers: the honest ledger served at another port passes the kept
  note; the same ledger rewritten (one event changed, every hash after it recomputed, the
  tree rebuilt and a new checkpoint signed with the campaign's own key) and served at yet
  another port is caught by it, in red, naming the size, while the phone itself, new to
  that address, could only say it had not seen the campaign before.
"""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path
from typing import Any

import pytest

from ledger.trust import merkle
from ledger.trust.cosignature import Cosigner, add_cosignatures
from ledger.trust.notes import Checkpoint, Signer, sign

from .test_web_browser import CHROMIUM, signed_in
from .test_web_phone_e2e import rewrite_note
from .webtools import PATIENCE, d20_table, live_server


def session_end_checkpoint(db: str) -> dict[str, Any]:
    """The newest kept checkpoint, ``{"size", "note", ...}``: the one ``session end`` signed
    (the chronicle entries it appends after it are not in it)."""
    from ledger.campaign.aggregate import open_campaign
    from ledger.store.opening import open_store

    store = open_store(db)
    try:
        found = store.latest_checkpoint(open_campaign(store).id)
    finally:
        store.close()
    assert found is not None
    return found


pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason="Debian's chromium is not installed (apt-get install chromium)",
)


@pytest.fixture(scope="module")
def page(tmp_path_factory, phone_context):
    """A page of a served table (same origin as /static/witness.js), the module loaded as
    ``window.W``."""
    table = d20_table(str(tmp_path_factory.mktemp("kept") / "ledger.db"))
    with live_server(table.db) as base:
        page = phone_context.new_page()
        page.goto(f"{base}/static/site.css")
        page.evaluate("async () => { window.W = await import('/static/witness.js'); }")
        yield page
        page.close()


#: checkKeptNote with a fetcher answering arg.answers in turn (null: a 404).
CHECK = """
  const W = window.W;
  const answers = arg.answers.slice(), asked = [];
  const fetcher = async (url) => {
    asked.push(url);
    const next = answers.shift();
    return new Response(next === null ? "{}" : JSON.stringify(next), {status: next === null ? 404 : 200});
  };
  const result = await W.checkKeptNote({note: arg.note, fetcher});
  return {...result, asked};
"""


def check(page: Any, note: str, *answers: Any) -> dict[str, Any]:
    return dict(
        page.evaluate(f"async (arg) => {{ {CHECK} }}", {"note": note, "answers": list(answers)})
    )


def checkpoint_of(signer: Signer, leaves: list[bytes], origin: str | None = None) -> dict[str, Any]:
    top = merkle.root(leaves)
    note = sign(Checkpoint(origin or signer.name, len(leaves), top).text(), signer)
    return {"note": note, "vkey": signer.verifier.key(), "size": len(leaves),
            "root": base64.b64encode(top).decode()}  # fmt: skip


def proof(old: int, leaves: list[bytes], new: int | None = None) -> dict[str, Any]:
    new = len(leaves) if new is None else new
    hashes = merkle.consistency_proof(old, new, leaves[:new]) if old < new else []
    return {"old": old, "new": new, "proof": [base64.b64encode(h).decode() for h in hashes]}


def test_what_a_kept_note_concludes_from_what_the_server_answers(page):
    rng = random.Random(35)
    signer = Signer.generate("campaign-ledger/vault")
    leaves = [merkle.leaf_hash(rng.randbytes(32)) for _ in range(30)]
    kept = checkpoint_of(signer, leaves[:12])["note"]

    holds = check(page, kept, checkpoint_of(signer, leaves), proof(12, leaves))
    assert holds["state"] == "holds" and (holds["size"], holds["now"]) == (12, 30)
    assert holds["asked"] == ["/checkpoint", "/proof/consistency?old=12&new=30"]
    same = check(page, kept, checkpoint_of(signer, leaves[:12]))  # nothing added: no proof needed
    assert same["state"] == "holds" and same["asked"] == ["/checkpoint"]
    club = Cosigner("club.example/witness", bytes(range(32)))  # a witness's note, cosigned
    witnessed = add_cosignatures(kept, club.cosign(kept, 1779811200))
    assert (
        check(page, witnessed, checkpoint_of(signer, leaves), proof(12, leaves))["state"] == "holds"
    )
    raced = check(page, kept, checkpoint_of(signer, leaves[:20]), proof(12, leaves),
                  checkpoint_of(signer, leaves), proof(12, leaves))  # fmt: skip
    assert raced["state"] == "holds" and raced["now"] == 30  # a checkpoint signed meanwhile

    forged = list(leaves)
    forged[5] = merkle.leaf_hash(b"rewritten" * 4)
    rewritten = check(page, kept, checkpoint_of(signer, forged), proof(12, forged))
    assert rewritten["state"] == "rewritten" and rewritten["size"] == 12
    assert rewritten["root"] == base64.b64encode(merkle.root(leaves[:12])).decode()
    assert "the old root of 12 leaves" in rewritten["problem"]
    assert rewritten["keptNote"] == kept
    at_size = check(page, kept, checkpoint_of(signer, forged[:12]))
    assert at_size["state"] == "rewritten" and "two different trees of 12" in at_size["problem"]
    shorter = check(page, kept, checkpoint_of(signer, leaves[:11]))
    assert shorter["state"] == "rewritten" and "shorter than the 12 you saw" in shorter["problem"]
    no_proof = check(page, kept, checkpoint_of(signer, leaves), None)
    assert no_proof["state"] == "rewritten" and "no consistency proof" in no_proof["problem"]

    impostor = Signer.generate("campaign-ledger/vault")  # the GM made a new key and re-signed
    changed = check(page, kept, checkpoint_of(impostor, forged), proof(12, forged))
    assert changed["state"] == "key-changed" and changed["offered"] == impostor.verifier.key()
    assert changed["signers"] == ["+".join(signer.verifier.key().split("+")[:2])]
    assert check(page, kept, None)["state"] == "no-checkpoint"
    lying = checkpoint_of(impostor, leaves) | {"vkey": signer.verifier.key()}
    assert check(page, kept, lying)["state"] == "bad-note"

    other = Signer.generate("campaign-ledger/other")
    elsewhere = check(page, kept, checkpoint_of(other, leaves), proof(12, leaves))
    assert elsewhere == elsewhere | {"state": "other-campaign", "kept": "campaign-ledger/vault",
                                     "now": "campaign-ledger/other"}  # fmt: skip
    body, sig = kept.split("\n\n")
    edited = body.replace("\n12\n", "\n13\n") + "\n\n" + sig  # the player's file was changed
    bad = check(page, edited, checkpoint_of(signer, leaves), proof(13, leaves))
    assert bad["state"] == "bad-kept-note" and "invalid signature" in bad["problem"]
    for junk in ("", "hello", "a\n12\nAAAA\n\n— x y\n", kept.replace("\n", "\r\n"), "x" * 30000):
        assert check(page, junk)["state"] == "unreadable", junk[:40]


def kept_note_check(phone: Any, note: Path) -> str:
    """Pick ``note`` in "Check a note I kept" as a player would; the verdict's state."""
    phone.click("#kept-note summary")
    phone.set_input_files("#kept-note-file", str(note))
    phone.wait_for_selector("#kept-note-result:not([data-state='checking'])[data-state]",
                            timeout=PATIENCE)  # fmt: skip
    return str(phone.get_attribute("#kept-note-result", "data-state"))


def test_a_kept_note_catches_a_rewritten_ledger_at_another_port(phone_browser, tmp_path):
    table = d20_table(str(tmp_path / "ledger.db"))
    table.ok("note", "The vault door groans open.")
    table.ok("session", "end")  # signs a checkpoint
    token = table.link("Dana")
    with live_server(table.db) as base:
        phone, errors = signed_in(phone_browser, base, token)
        phone.wait_for_selector("#witness-status[data-state='pinned']", timeout=PATIENCE)
        first = session_end_checkpoint(table.db)  # the one session end signed
        size = first["size"]
        created = json.loads(table.ok("export").splitlines()[0])["recorded_at"][:10]
        said = phone.inner_text("#witness-status")
        assert said.startswith(
            "This phone has not seen this campaign before at this address; the log holds "
            f"1 session ({size} events, since {created})."
        ), said
        assert "now witnesses" not in said
        # the offer: one tap keeps the signed note in the player's own files
        phone.wait_for_selector("#keep-note[data-state='offered']", timeout=PATIENCE)
        with phone.expect_download() as caught:
            phone.click("#keep-note-link")
        kept = tmp_path / "kept.txt"
        kept.write_text(Path(caught.value.path()).read_text())
        assert caught.value.suggested_filename == f"vault-checkpoint-{size}.txt"
        assert phone.get_attribute("#keep-note", "data-state") == "kept"
        phone.reload()  # a note kept is not offered again
        phone.wait_for_selector("#witness-status[data-state='consistent']", timeout=PATIENCE)
        assert phone.locator("#keep-note").is_hidden()
        # the live log offers the next session's note as that session ends
        phone.goto(f"{base}/log")
        phone.wait_for_selector("#witness-status[data-state='consistent']", timeout=PATIENCE)
        table.ok("session", "start")
        table.ok("roll", "bram", "Brawl", "--time", "--dice", "17")
        table.ok("session", "end")
        later = session_end_checkpoint(table.db)["size"]  # session end's, not a newer one
        phone.wait_for_selector("#keep-note[data-state='offered']", timeout=PATIENCE)
        assert f"({later} events)" in phone.inner_text("#keep-note-link")
        assert not errors, errors
    assert kept.read_text() == first["note"]
    assert table("verify", "--receipt", str(kept)).exit_code == 0  # the CLI reads the same file

    with live_server(table.db) as base:  # the honest ledger at another port
        phone.goto(f"{base}/")
        phone.wait_for_selector("#witness-status[data-state='pinned']", timeout=PATIENCE)
        assert "has not seen this campaign before at this address; the log holds 2 sessions" in (
            phone.inner_text("#witness-status")
        )
        assert kept_note_check(phone, kept) == "holds"
        assert phone.inner_text("#kept-note-result") == (
            f"Your note holds: the log now ({later} events) continues the checkpoint of size "
            f"{size} you kept, unchanged."
        )
        assert phone.locator("#history-banner").is_hidden()

    changed = rewrite_note(table.db, "The vault door groans open.", "The vault door stays shut.")
    assert changed <= size
    table.ok("checkpoint")  # re-signed with the campaign's own key, over the rewritten log
    with live_server(table.db) as base:  # the rewritten ledger at yet another port
        phone.goto(f"{base}/")
        phone.wait_for_selector("#witness-status[data-state='pinned']", timeout=PATIENCE)
        assert phone.locator("#history-banner").is_hidden()  # the phone alone cannot know
        assert kept_note_check(phone, kept) == "rewritten"
        result = phone.locator("#kept-note-result")
        assert result.get_attribute("class") == "banner" and result.get_attribute("role") == "alert"
        said = result.inner_text()
        assert (
            f"This campaign's history was rewritten since the checkpoint of size {size} you kept"
            in said
        )
        assert f"Your note shows the log at {size} events with root " in said, said
        assert "does not continue it (the proof does not lead to" in said, said
        links = phone.locator("#kept-note-result a[download]").all()
        assert [a.get_attribute("download") for a in links] == [
            f"checkpoint-kept-{size}.txt", "checkpoint-now.txt"]  # fmt: skip
    phone.close()
    # the CLI says the same of the rewritten ledger with the same note
    result = table("verify", "--receipt", str(kept), "--json")
    assert result.exit_code == 1 and str(size) in json.loads(result.output)["problem"]
