"""The end-to-end scene for the phone as witness, on the real checkpoint
endpoints (ledger/web/witness_api.py) and cosignatures (ledger/trust/cosignature.py), in
Debian's Chromium:

a player's phone sees the campaign's signed checkpoint (pins the key, cosigns); the table
plays on and the phone checks the consistency proof and cosigns again; the GM then rewrites
one event in the ledger file (the append-only triggers dropped, every later hash recomputed,
the Merkle tree rebuilt, a new checkpoint signed with the campaign's own key) and serves it
again: the phone shows the red banner, the two notes download, and ``campaign verify FILE
--receipt`` with the old note fails too.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import msgspec
import pytest

pytest.importorskip("ledger.web.witness_api")
pytest.importorskip("ledger.trust.cosignature")

from ledger.store.sqlite import COLUMNS, chain_hash  # noqa: E402

from .test_web_browser import CHROMIUM, PHONE, signed_in  # noqa: E402
from .webtools import PATIENCE, d20_table, free_port, live_server  # noqa: E402

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason="Debian's chromium is not installed (apt-get install chromium)",
)


def rewrite_note(db: str, old_text: str, new_text: str) -> int:
    """What a GM holding the file can do: change a note's text in place, recompute every
    hash from there on, and rebuild the campaign's Merkle tree from the changed hashes
    (the old checkpoints are thrown away). Returns the seq changed."""
    from ledger.codec import canonical_envelope
    from ledger.events import Envelope
    from ledger.store import tree  # lands with the checkpoints

    conn = sqlite3.connect(db, isolation_level=None)
    for (name,) in conn.execute(
        "select name from sqlite_master where type = 'trigger' and tbl_name = 'events'"
    ).fetchall():
        conn.execute(f"drop trigger {name}")
    rows = [dict(zip(COLUMNS, r, strict=True)) for r in conn.execute(
        f"select {', '.join(COLUMNS)} from events order by seq"
    )]  # fmt: skip
    target = next(r["seq"] for r in rows if old_text in r["data"])
    prev = "0" * 64
    for r in rows:
        if r["seq"] == target:
            r["data"] = r["data"].replace(old_text, new_text)
        if r["seq"] >= target:
            fields = {k: v for k, v in r.items() if k != "hash"}
            fields["prev_hash"] = prev
            fields["data"] = msgspec.Raw(r["data"].encode())
            r["hash"] = chain_hash(prev, canonical_envelope(Envelope(**fields)))
            conn.execute(
                "update events set data = ?, prev_hash = ?, hash = ? where seq = ?",
                (r["data"], prev, r["hash"], r["seq"]),
            )
        prev = r["hash"]
    for table in ("merkle_frontier", "merkle_tiles", "cosignatures", "checkpoints"):
        conn.execute(f"delete from {table}")
    tree.fill_trees(conn, "?")
    conn.close()
    return int(target)


def test_a_gm_who_rewrites_one_event_after_a_phone_saw_a_checkpoint_is_caught(browser, tmp_path):
    table = d20_table(str(tmp_path / "ledger.db"))
    table.ok("note", "The vault door groans open.")
    table.ok("session", "end")  # signs the first checkpoint
    token, port = table.link("Dana"), free_port()
    context = browser.new_context(viewport=PHONE, is_mobile=True, accept_downloads=True)
    with live_server(table.db, port=port) as base:
        phone, errors = signed_in(context, base, token)
        phone.wait_for_selector("#witness-status[data-state='pinned']", timeout=PATIENCE)
        assert "and cosigned" in phone.inner_text("#witness-status")
        table.ok("session", "start")
        table.ok("roll", "bram", "Brawl", "--time", "--dice", "17")
        table.ok("session", "end")
        seen = json.loads(table.ok("checkpoint", "--json"))
        phone.goto(f"{base}/log")
        phone.wait_for_selector("#witness-status[data-state='consistent']", timeout=PATIENCE)
        assert f"the log at {seen['size']} events continues" in phone.inner_text("#witness-status")
        verified = json.loads(table.ok("verify", "--json"))
        assert verified["ok"], verified
        assert not errors, errors
    cosigned = json.dumps(verified)
    assert "campaign-ledger-phone/" in cosigned  # the phone's cosignatures are kept

    changed = rewrite_note(table.db, "The vault door groans open.", "The vault door stays shut.")
    table.ok("note", "Nothing to see here.")
    table.ok("checkpoint")  # signed with the campaign's own key, over the rewritten log
    with live_server(table.db, port=port) as base:  # the same origin: the phone's records
        phone.goto(f"{base}/")
        phone.wait_for_selector("#history-banner[data-state='rewritten']", timeout=PATIENCE)
        banner = phone.inner_text("#history-banner")
        assert (
            f"This campaign's history was rewritten since you saw it at size {seen['size']}"
            in banner
        )
        notes = {}
        for link in phone.locator("#history-banner a[download]").all():
            with phone.expect_download() as caught:
                link.click()
            notes[caught.value.suggested_filename] = Path(caught.value.path()).read_text()
    context.close()
    old_note = notes[f"checkpoint-seen-at-{seen['size']}.txt"]
    assert old_note == seen["note"]
    kept = tmp_path / "seen.note"
    kept.write_text(old_note)
    exported = tmp_path / "rewritten.ndjson"
    exported.write_text(table.ok("export"))
    result = table("verify", str(exported), "--receipt", str(kept), "--json")
    assert result.exit_code == 1, result.output
    report = json.loads(result.output)
    assert not report["ok"] and changed <= seen["size"]
    assert "rewritten" in report["problem"] and str(seen["size"]) in report["problem"]
