"""The in-browser verifier accepts a players' export holding imported rolls:
``roll.imported`` is a core event there as in ``campaign verify FILE``, checked through its
hash, never as an engine roll."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_imports import ROLL20
from .test_web_browser import CHROMIUM, browser_verdict, cli_verdict, rechain
from .webtools import d20_table

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed (apt-get install chromium)"
)


def test_browser_verifier_accepts_imported_rolls_and_catches_a_changed_one(tmp_path, browser):
    t = d20_table(str(tmp_path / "ledger.db"))
    t.ok("import", "--from", "roll20", ROLL20, "--map", "Ann Vance=isa", "--map", "Nate=bram", "--unmapped", "skip")
    t.ok("session", "end")
    lines = t.ok("export").splitlines()
    assert sum('"roll.imported"' in x for x in lines) == 5
    verifier = tmp_path / "verifier.html"
    t.ok("export", "--verifier", str(verifier))
    page = browser.new_page()
    page.goto(verifier.as_uri())
    good = tmp_path / "good.ndjson"
    good.write_text("\n".join(lines) + "\n")
    assert cli_verdict(t, good) is None
    assert browser_verdict(page, good)[0] is None
    # a face of an imported roll changed and the chain recomputed: only a receipt catches it
    at = next(i for i, x in enumerate(lines) if '"roll.imported"' in x)
    changed = [*lines[:at], lines[at].replace('"dice":[[20,7]]', '"dice":[[20,20]]'), *lines[at + 1 :]]
    assert changed != lines
    bad = tmp_path / "bad.ndjson"
    bad.write_text("\n".join(changed) + "\n")
    seq = cli_verdict(t, bad)
    assert seq is not None and browser_verdict(page, bad)[0] == seq
    forged = tmp_path / "forged.ndjson"
    forged.write_text("\n".join(rechain(changed)) + "\n")
    assert browser_verdict(page, forged)[0] == cli_verdict(t, forged)
