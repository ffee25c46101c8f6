"""One corpus, every verifier, the same answer.

Every ledger of the corpus (tests/corpus.py: one evening per rule system shipped, with every
event kind the product writes, and the older releases' ledgers under tests/data/), as it was
written and after each tampering of :data:`ledger.testing.corpus.TAMPERS`, goes through:

- ``campaign verify`` of the ledger, ``campaign verify FILE`` of the GM's export and of the
  players' export: the same verdict, the same first bad seq, the same words;
- the in-browser verifier, in Chromium: the ``/verify`` page of ``campaign serve`` and the
  downloaded single-file verifier, on both exports, and the phone's own check of its answers
  (answers-check.js) on the players' export;
- ``audit`` of every roll.

What "the same" means where the browser cannot see a tampering (docs/trust.md "What each
verifier checks"): the browser's verdict is exactly ``verify_rows(rules=False)`` followed by
the checkpoints (:func:`ledger.testing.corpus.generic_verdict`), same seq, same words. Where
that differs from ``campaign verify`` (a result changed and every hash rebuilt: only the
rules see it), ``campaign verify`` names the changed roll, and the browser either passes
saying that results are checked by ``campaign verify``, or fails at a signed checkpoint that
covers the roll (its size at or after the roll's seq). Nothing else counts as agreement.

The whole product runs in about a minute on two cores; every disagreement is listed as
ledger × verifier × tampering.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ledger.testing.corpus import (
    ENTROPY,
    GOOD_AUDITS,
    START,
    TAMPERS,
    Ledger,
    Verdict,
    audits,
    build,
    cli_verdict,
    exports,
    generic_verdict,
    tamper,
)

from .corpus import PLAYS, old_release_ledgers
from .test_web_browser import CHROMIUM


@dataclass
class Case:
    """A ledger of the corpus, tampered or not, with its exports and its CLI verdicts."""

    ledger: Ledger
    files: dict[str, Path]
    verdicts: dict[str, Verdict]  # "ledger", "gm file", "player file"
    generic: dict[str, Verdict]  # what the browser must say of each export

    @property
    def kind(self) -> str:
        return self.ledger.tamper or "untouched"


@pytest.fixture(scope="session")
def corpus(tmp_path_factory) -> list[Case]:
    """Every ledger of the corpus and every tampering of it, built once per test run."""
    folder = tmp_path_factory.mktemp("corpus")
    from freezegun import freeze_time

    ledgers = [
        build(play, folder / f"{play.name}.db", clock=freeze_time(START, tick=True))
        for play in PLAYS
    ]
    for path in old_release_ledgers():
        from ledger.campaign.aggregate import open_campaign
        from ledger.store.opening import open_store

        copy = folder / path.name  # opening migrates a file: never the fixture itself
        copy.write_bytes(path.read_bytes())
        store = open_store(str(copy))
        try:
            cid = open_campaign(store).id
            rolls = [r.seq for r in store.rows(cid) if '"draws":' in r.data]
        finally:
            store.close()
        ledgers.append(Ledger(path.stem, copy, cid, rolls))
    cases = []
    for ledger in ledgers:
        variants = [ledger]
        if ledger.name in {p.name for p in PLAYS}:
            variants += [tamper(ledger, k, folder / f"{ledger.name}-{k}.db") for k in TAMPERS]
        for one in variants:
            files = exports(one, folder)
            verdicts = {"ledger": cli_verdict(one)}
            verdicts.update({f"{v} file": cli_verdict(file=p) for v, p in files.items()})
            generic = {v: generic_verdict(p) for v, p in files.items()}
            cases.append(Case(one, files, verdicts, generic))
    return cases


def agreeing(full: Verdict, browser: Verdict, browser_text: str) -> bool:
    """Does a browser's verdict agree with ``campaign verify``'s (see the module's doc)?"""
    if browser == full:
        return True
    if full.ok or full.bad_seq is None:
        return False
    if browser.ok:  # the rules' own check: the page says it left results to the CLI
        return "checked by `campaign verify`" in browser_text
    return (
        browser.bad_seq is not None
        and browser.bad_seq >= full.bad_seq
        and "the checkpoint of size" in str(browser.words)
    )


def test_every_cli_verifier_and_audit_agree_on_every_ledger_and_tampering(corpus):
    disagreements = []
    counted: Counter[str] = Counter()
    for case in corpus:
        first = case.verdicts["ledger"]
        for name, verdict in case.verdicts.items():
            counted[name] += 1
            if verdict != first:
                disagreements.append(f"{case.ledger.name} × {name} × {case.kind}: {verdict} "
                                     f"(campaign verify: {first})")  # fmt: skip
        if case.ledger.tamper is None and not first.ok:
            disagreements.append(f"{case.ledger.name} × campaign verify × untouched: {first}")
        if case.ledger.tamper is not None and first.ok:
            disagreements.append(f"{case.ledger.name} × campaign verify × {case.kind}: passes")
        # the browser's own verdict is what the generic check says: both exports alike
        for view, verdict in case.generic.items():
            if not agreeing(first, verdict, "checked by `campaign verify`"):
                disagreements.append(f"{case.ledger.name} × generic check of the {view} export "
                                     f"× {case.kind}: {verdict} (campaign verify: {first})")  # fmt: skip
        for seq, a in audits(case.ledger).items():
            counted["audit"] += 1
            good = a["verdict"] in GOOD_AUDITS
            chain_bad = a.get("chain", {}).get("bad_seq")
            if first.ok and not good:
                disagreements.append(f"{case.ledger.name} × audit {seq} × {case.kind}: "
                                     f"{a['verdict']} ({a.get('detail')}) but verify passes")  # fmt: skip
            elif not first.ok and seq == first.bad_seq and good:
                disagreements.append(f"{case.ledger.name} × audit {seq} × {case.kind}: "
                                     f"{a['verdict']} but verify fails there: {first}")  # fmt: skip
            elif a["verdict"] == "refused" and f"event {first.bad_seq}:" not in a["detail"]:
                disagreements.append(f"{case.ledger.name} × audit {seq} × {case.kind}: refused "
                                     f"({a['detail']}), verify: {first}")  # fmt: skip
            elif not first.ok and chain_bad is not None and chain_bad < (first.bad_seq or 0):
                # an audit proves one event from the nearest anchor: where its proof breaks
                # (the changed event, or a signed checkpoint's last event after it) is never
                # before the first changed event
                disagreements.append(f"{case.ledger.name} × audit {seq} × {case.kind}: the chain "
                                     f"fails at {chain_bad}, before verify's {first.bad_seq}")  # fmt: skip
    ledgers = len({c.ledger.name.split("/")[0] for c in corpus})
    print(f"\ncorpus: {ledgers} ledgers × {len(TAMPERS) + 1} states (untouched and "
          f"{len(TAMPERS)} tamperings) = {len(corpus)} cases; verdicts: {dict(counted)}")
    assert not disagreements, "\n".join(disagreements)


# --- the browser --------------------------------------------------------------------------

VERIFY = """async ([text]) => {
  const r = await LedgerVerify.verifyExport(text, "");
  return {ok: r.ok, bad: r.badSeq, text: LedgerVerify.describe(r)};
}"""

PHONE = """async ([text, records]) => {
  const m = await import("/static/answers-check.js");
  return await m.judgeAnswers(records, text, true);
}"""


def browser_of(page: Any, text: str) -> tuple[Verdict, str]:
    out = page.evaluate(VERIFY, [text])
    words = None if out["ok"] else out["text"]
    return Verdict(out["ok"], out["bad"], words), out["text"]


def records_of(case: Case) -> list[dict[str, Any]]:
    """What a phone that answered the ledger's requests keeps (phone-db.js "answers")."""
    return [
        {"campaign": case.ledger.campaign, "seq": seq, "character": who, "entropy": ENTROPY,
         "status": "accepted", "words": f"request {seq}", "roll": seq + 1}
        for seq, who in case.ledger.requests.items()
    ]  # fmt: skip


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed")
def test_the_browser_and_the_phone_agree_with_campaign_verify(corpus, browser, tmp_path):
    from .test_web_browser import signed_in
    from .webtools import Table, live_server

    verifier = tmp_path / "verifier.html"
    from ledger.web.verifier import verifier_html

    verifier.write_text(verifier_html())
    served = corpus[0].ledger.path
    disagreements = []
    counted: Counter[str] = Counter()
    red_boxes = 0
    with live_server(str(served)) as base:
        token = Table(str(served)).link("Ada")
        context = browser.new_context()  # one context: a file page shares nothing with it
        page, errors = signed_in(context, base, token)
        page.goto(f"{base}/verify")
        page.wait_for_function("() => window.LedgerVerify && window.LedgerCheckpoints")
        offline = context.new_page()
        offline.goto(verifier.as_uri())
        offline.wait_for_function("() => window.LedgerVerify && window.LedgerCheckpoints")
        for case in corpus:
            full = case.verdicts["ledger"]
            for view, path in case.files.items():
                text = path.read_text()
                for name, where in (("/verify page", page), ("verifier.html", offline)):
                    got, said = browser_of(where, text)
                    counted[name] += 1
                    if got != case.generic[view] or not agreeing(full, got, said):
                        disagreements.append(
                            f"{case.ledger.name} × {name} ({view}) × {case.kind}: {said!r} "
                            f"(expected {case.generic[view]}; campaign verify: {full})"
                        )
            records = records_of(case)
            if not records:
                continue
            counted["phone"] += 1
            mine = page.evaluate(PHONE, [case.files["player"].read_text(), records])
            expected = case.generic["player"]
            logged = [f for f in mine["flags"] if f["text"].startswith("The log fails")]
            listed = {e["seq"] for e in mine["fine"] + mine["pending"] + mine["flags"]}
            if expected.ok and logged:
                disagreements.append(f"{case.ledger.name} × phone × {case.kind}: a red box "
                                     f"{logged} where campaign verify passes")  # fmt: skip
            if not expected.ok:
                red_boxes += 1
                if len(logged) != 1 or logged[0]["seq"] != expected.bad_seq or (
                    str(expected.words) not in logged[0]["text"]
                ):
                    disagreements.append(f"{case.ledger.name} × phone × {case.kind}: {logged} "
                                         f"(expected {expected})")  # fmt: skip
            if not all(r["seq"] in listed for r in records):
                disagreements.append(f"{case.ledger.name} × phone × {case.kind}: its own "
                                     f"answers are not all listed: {mine}")  # fmt: skip
        offline.close()
        assert not [e for e in errors if "Content Security Policy" in e], errors
    print(f"\nbrowser verdicts: {dict(counted)}, phone red boxes: {red_boxes}")
    assert not disagreements, "\n".join(disagreements)
    assert red_boxes >= len(TAMPERS)  # the phone did catch what the browser can


def test_the_words_of_a_failure_are_the_same_everywhere(corpus):
    """The CLI prints exactly the verdict's words (after ``error: ``)."""
    from click.testing import CliRunner

    from ledger.cli import cli

    case = next(c for c in corpus if c.ledger.tamper == "seed")
    result = CliRunner().invoke(cli, ["verify", str(case.files["player"])])
    assert result.exit_code == 1
    assert f"error: {case.verdicts['player file'].words}" in result.output
    assert json.loads(CliRunner().invoke(cli, ["verify", str(case.files["gm"]), "--json"]).stdout)[
        "bad_seq"
    ] == case.ledger.target
