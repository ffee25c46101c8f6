"""The in-browser verifier checks an export's checkpoint and cosignature lines with
WebCrypto (Ed25519, SHA-256) through witness.js, and names the first bad one as ``campaign
verify FILE`` does: the same seq (the checkpoint's size) and the same words. Run in Debian's
Chromium on the downloaded single-file verifier and on the server's /verify page."""

from __future__ import annotations

import base64
import json
import re
import shutil
from pathlib import Path

import pytest

from ledger.campaign import checkpoints
from ledger.campaign.aggregate import open_campaign
from ledger.store.opening import open_store
from ledger.trust.cosignature import Cosigner
from ledger.trust.notes import Checkpoint, Signer, sign

from .test_web_browser import (  # noqa: F401
    CHROMIUM,
    PHONE,
    browser_verdict,
    desktop,
    desktop_context,
    played,
    signed_in_by_cookie,
)
from .webtools import AT, PATIENCE, Table, d20_table, live_server

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason="Debian's chromium is not installed (apt-get install chromium)",
)


WITNESS = Cosigner("club.example/witness", bytes(range(32)))
NO_ED25519 = """
  const real = crypto.subtle.importKey.bind(crypto.subtle);
  crypto.subtle.importKey = function (format, key, alg, ...rest) {
    if (alg && (alg === "Ed25519" || alg.name === "Ed25519")) {
      return Promise.reject(new DOMException("Ed25519 is not supported", "NotSupportedError"));
    }
    return real(format, key, alg, ...rest);
  };
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The ledger file of :func:`table`, built once for the file (each test takes a copy)."""
    t = d20_table(str(tmp_path_factory.mktemp("built") / "ledger.db"))
    played(t)
    out = json.loads(t.ok("checkpoint", "--json"))
    store = open_store(t.db)
    try:
        campaign = open_campaign(store)
        line = WITNESS.cosign(out["note"], 1_772_391_600)
        assert checkpoints.add_cosignature(
            campaign, out["size"], WITNESS.verifier.key(), line, at=AT
        )
    finally:
        store.close()
    return Path(t.db)


@pytest.fixture
def table(built, tmp_path):
    """Two checkpoints (session 1's end, then `campaign checkpoint`), the newest cosigned by
    a witness: a copy of the file's :func:`built` ledger (its WAL too); returns the table."""
    for suffix in ("", "-wal"):
        source = Path(f"{built}{suffix}")
        if source.exists():
            target = tmp_path / f"ledger.db{suffix}"
            shutil.copyfile(source, target)
            target.chmod(0o600)  # as the CLI makes a ledger
    return Table(str(tmp_path / "ledger.db"))


def export(table, tmp_path: Path, name: str, lines: list[str] | None = None) -> Path:
    path = tmp_path / f"{name}.ndjson"
    text = "\n".join(lines) + "\n" if lines is not None else table.ok("export")
    path.write_text(text)
    return path


def cli(table, path: Path) -> tuple[int | None, str | None]:
    out = json.loads(table("verify", str(path), "--json").output)
    return (None, None) if out["ok"] else (out["bad_seq"], out["problem"])


def trust_lines(lines: list[str]) -> tuple[list[int], list[int]]:
    kinds = [json.loads(x).get("kind") for x in lines]
    return ([i for i, k in enumerate(kinds) if k == "checkpoint"],
            [i for i, k in enumerate(kinds) if k == "cosignature"])  # fmt: skip


def agree(table, page, path: Path) -> str:
    """The browser names the same first bad seq and problem as `campaign verify FILE`;
    returns the problem."""
    bad, problem = cli(table, path)
    assert problem is not None
    got, text = browser_verdict(page, path)
    assert got == bad and text == f"verification failed at seq {bad}: {problem}", (text, problem)
    return problem


@pytest.fixture(scope="module")
def downloaded_verifier(tmp_path_factory, desktop_context):  # noqa: F811
    """The single-file verifier a table's ``campaign export --verifier`` writes, open in a
    page of the file's desktop context for all its tests (it checks one file after another,
    see :func:`browser_verdict`), and the list its console errors go to."""
    folder = tmp_path_factory.mktemp("verifier")
    html = folder / "verifier.html"
    d20_table(str(folder / "ledger.db")).ok("export", "--verifier", str(html))
    page = desktop_context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(html.as_uri())
    yield page, errors
    page.close()


@pytest.fixture
def verifier_page(downloaded_verifier):
    """The downloaded verifier's page for one test, which must leave no console error."""
    page, errors = downloaded_verifier
    errors.clear()
    yield page
    assert not errors, errors


@pytest.fixture(scope="module")
def phone_context(chromium):
    """A phone's browser context for this file's tests: each meets a server of its own
    (another port: another origin, so its pinned keys start empty)."""
    context = chromium.new_context(viewport=PHONE, is_mobile=True)
    yield context
    context.close()


@pytest.fixture
def phone(phone_context):
    """:func:`phone_context` for one test: its cookies cleared first, and the pages and
    routes the test opened closed after it."""
    phone_context.clear_cookies()
    yield phone_context
    phone_context.unroute_all(behavior="ignoreErrors")
    for page in phone_context.pages:
        page.close()


def test_a_good_export_passes_and_reports_its_checkpoints(table, tmp_path, verifier_page):
    good = export(table, tmp_path, "good")
    lines = good.read_text().splitlines()
    cps, cosigs = trust_lines(lines)
    sizes = [json.loads(lines[i])["size"] for i in cps]
    assert len(sizes) == 2 and len(cosigs) == 1
    assert cli(table, good) == (None, None)
    bad, text = browser_verdict(verifier_page, good)
    assert bad is None, text
    assert (f"; 2 signed checkpoints hold (sizes {sizes[0]}, {sizes[1]}), cosigned by "
            "club.example/witness.") in text, text  # fmt: skip
    # the CLI says the same of the same file
    assert (
        f"2 signed checkpoints hold (sizes {sizes[0]}, {sizes[1]}), cosigned by club.example/witness"
        in (table.ok("verify", str(good)))
    )


def test_a_forged_checkpoint_signature_fails_as_in_the_cli(table, tmp_path, verifier_page):
    lines = export(table, tmp_path, "good").read_text().splitlines()
    i = trust_lines(lines)[0][0]
    row = json.loads(lines[i])
    body, sig = row["note"].rsplit("\n\n", 1)
    name, b64 = sig.rstrip("\n").rsplit(" ", 1)
    raw = bytearray(base64.b64decode(b64))
    raw[10] ^= 0x01  # one bit of the Ed25519 signature
    row["note"] = f"{body}\n\n{name} {base64.b64encode(bytes(raw)).decode()}\n"
    lines[i] = json.dumps(row, ensure_ascii=False, separators=(",", ":"))
    problem = agree(table, verifier_page, export(table, tmp_path, "forged-sig", lines))
    assert f"the checkpoint of size {row['size']} is not signed by this campaign's key" in problem
    assert "invalid signature for key campaign-ledger/vault+" in problem


def test_a_checkpoint_of_a_wrong_root_fails_as_in_the_cli(table, tmp_path, verifier_page):
    """The GM's own key signs a root the log does not have (a history rewritten after the
    checkpoint, or a forged checkpoint): the signature holds, the root does not."""
    lines = export(table, tmp_path, "good").read_text().splitlines()
    i = trust_lines(lines)[0][0]
    row = json.loads(lines[i])
    store = open_store(table.db)
    seed = store.get_secret("vault", 0, "checkpoint")
    store.close()
    assert seed is not None
    wrong = Checkpoint("campaign-ledger/vault", row["size"], bytes(32))
    row["note"] = sign(wrong.text(), Signer("campaign-ledger/vault", seed))
    lines[i] = json.dumps(row, ensure_ascii=False, separators=(",", ":"))
    problem = agree(table, verifier_page, export(table, tmp_path, "wrong-root", lines))
    n = row["size"]
    assert problem == (f"the checkpoint of size {n} does not match the log's first {n} events: "
                       f"the log was rewritten after the checkpoint of size {n} was signed")  # fmt: skip


def test_a_cosignature_moved_to_another_checkpoint_fails_as_in_the_cli(
    table, tmp_path, verifier_page
):
    lines = export(table, tmp_path, "good").read_text().splitlines()
    cps, (j,) = trust_lines(lines)
    first = json.loads(lines[cps[0]])["size"]
    row = json.loads(lines[j])
    assert row["size"] != first
    row["size"] = first
    lines[j] = json.dumps(row, ensure_ascii=False, separators=(",", ":"))
    problem = agree(table, verifier_page, export(table, tmp_path, "moved", lines))
    assert problem.startswith(f"a cosignature of the checkpoint of size {first}: invalid cosignature by "
                              "club.example/witness+")  # fmt: skip
    assert problem.endswith(" for this checkpoint")


def test_a_cosignature_of_a_checkpoint_not_in_the_file_fails_as_in_the_cli(
    table, tmp_path, verifier_page
):
    lines = export(table, tmp_path, "good").read_text().splitlines()
    cps, _ = trust_lines(lines)
    dropped = [x for k, x in enumerate(lines) if k != cps[-1]]
    problem = agree(table, verifier_page, export(table, tmp_path, "orphan", dropped))
    assert "that is not kept" in problem


def test_without_ed25519_the_verdict_says_the_checkpoints_were_not_checked(
    table,
    tmp_path,
    desktop,  # noqa: F811
):
    html = tmp_path / "verifier.html"
    table.ok("export", "--verifier", str(html))
    page = desktop.new_page()
    page.add_init_script(NO_ED25519)
    page.goto(html.as_uri())
    bad, text = browser_verdict(page, export(table, tmp_path, "good"))
    assert bad is None
    assert "; the checkpoints could not be checked: this browser's WebCrypto has no Ed25519" in text
    assert "signed checkpoints hold" not in text
    page.close()


def test_the_servers_verify_page_checks_the_checkpoints_too(table, desktop):  # noqa: F811
    token = table.link("Dana")
    with live_server(table.db) as base:
        page, errors = signed_in_by_cookie(desktop, base, token)
        page.goto(f"{base}/verify")
        page.click("#fetch-export")
        page.wait_for_selector("#verdict[data-done='1']", timeout=PATIENCE)
        verdict = page.inner_text("#verdict")
        # the phone's own page visit cosigned the newest checkpoint too (phone-witness.js)
        assert "2 signed checkpoints hold" in verdict, verdict
        assert re.search(r"cosigned by [^;]*club\.example/witness", verdict), verdict
        assert not errors, errors
        page.close()


# --- the phone's pinned key against the key the log records ---------------------------------


def pin_check(page, base: str) -> tuple[str, str, str]:
    """(state, text, colour) of /verify's #pin-check once the table's export is verified."""
    page.goto(f"{base}/verify")
    page.wait_for_selector("#witness-status[data-state]", timeout=PATIENCE)  # the visit pinned
    page.click("#fetch-export")
    page.wait_for_selector("#verdict[data-done='1']", timeout=PATIENCE)
    assert page.get_attribute("#verdict", "class") == "ok", page.inner_text("#verdict")
    page.wait_for_selector("#pin-check[data-state]", timeout=PATIENCE)
    return (
        str(page.get_attribute("#pin-check", "data-state")),
        page.inner_text("#pin-check"),
        page.eval_on_selector("#pin-check", "e => getComputedStyle(e).color"),
    )


def test_the_phone_finds_its_pinned_key_is_the_one_the_log_records(table, phone):
    token = table.link("Dana")
    with live_server(table.db) as base:
        page, errors = signed_in_by_cookie(phone, base, token)
        state, text, _ = pin_check(page, base)
        assert state == "match", text
        assert "The key your phone pinned is the campaign key this log records." == text
        assert not errors, errors


def test_a_pinned_key_the_log_does_not_record_is_flagged_in_red(table, phone):
    """The server shows the phone checkpoints signed by another key of the same name (a key
    the GM keeps aside), while the log records the campaign's own: the phone pins the key it
    was shown, and the verified export gives it away."""
    from .test_web_phone_witness import FakeCheckpoints

    token = table.link("Dana")
    other = Signer.generate("campaign-ledger/vault")
    events = [x for x in table.ok("export").splitlines() if "kind" not in json.loads(x)]
    fake = FakeCheckpoints(events, other)
    store = open_store(table.db)
    recorded = open_campaign(store).created.checkpoint_key
    store.close()
    with live_server(table.db) as base:
        for path in ("**/checkpoint", "**/proof/consistency*", "**/cosignature"):
            phone.route(path, fake.handle)
        page, errors = signed_in_by_cookie(phone, base, token)
        state, text, colour = pin_check(page, base)
        assert state == "mismatch", text
        assert (
            f"The key your phone pinned ({other.verifier.key()}) is not the campaign key this log records ({recorded})"
            in text
        )
        assert colour == "rgb(155, 44, 44)"  # the red of the history banner
        assert page.get_attribute("#pin-check", "role") == "alert"
        assert not errors, errors


def test_the_downloaded_verifier_inlines_the_modules_without_imports_or_exports():
    from ledger.web.verifier import inline_modules, verifier_html

    text = inline_modules()
    assert "LedgerCheckpoints" in text and "async function verifyCosignature" in text
    assert not re.search(r"^\s*(import|export)\s", text, re.MULTILINE)
    html = verifier_html()
    assert '<script type="module">' in html and "connect-src 'none'" in html
