"""Webhooks to the group chat: a local receiver gets every public entry on a public
hook and every entry on a GM hook, each signed, in order, exactly once across a receiver
outage and a deliverer restart; a hook failing for an hour is paused; GM-only entries never
reach a public hook.

Every delivery is checked as it arrives by the `standardwebhooks` package (the Standard
Webhooks reference library, not the ledger's code) with the secrets the receiver was given;
during a rotation (`campaign webhook rotate`) with either secret alone."""

from __future__ import annotations

import base64
import datetime
import http.server
import json
import threading
import time

import pytest
from standardwebhooks import Webhook, WebhookVerificationError

from ledger.exchange import webhooks as wh
from ledger.store.opening import open_store

GM_SECRET_TEXT = "the mayor is the cultist"


def verifies(secret: str, headers: dict[str, str], body: bytes) -> bool:
    """Does the Standard Webhooks library accept this delivery with ``secret``, now?"""
    try:
        Webhook(secret).verify(body, headers, json_parse=False)
    except WebhookVerificationError:
        return False
    return True


class Receiver:
    """A tiny HTTP receiver in a thread: records every request, and whether each of the
    secrets it was given for the path (``secrets[path]``) verifies it as it arrives;
    answers ``status`` (200, or 500 during an outage); :meth:`stop` takes it down
    (connections refused)."""

    def __init__(self, port: int = 0) -> None:
        self.requests: list[tuple[str, dict[str, str], bytes, int]] = []
        #: one per request: when it arrived, and {secret: verified then}
        self.checks: list[tuple[datetime.datetime, dict[str, bool]]] = []
        self.secrets: dict[str, list[str]] = {}
        self.status = 200
        self.delay = 0.0
        self.lock = threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                data = self.rfile.read(int(self.headers["Content-Length"]))
                if receiver.delay:
                    time.sleep(receiver.delay)
                status = receiver.status
                headers = {k.lower(): v for k, v in self.headers.items()}
                checks = {
                    s: verifies(s, headers, data) for s in receiver.secrets.get(self.path, [])
                }
                with receiver.lock:
                    receiver.requests.append((self.path, headers, data, status))
                    receiver.checks.append((datetime.datetime.now(datetime.UTC), checks))
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def accepted(self, path: str) -> list[tuple[dict[str, str], bytes]]:
        with self.lock:
            return [(h, b) for p, h, b, s in self.requests if p == path and s == 200]

    def bodies(self, path: str) -> list[bytes]:
        with self.lock:
            return [b for p, _, b, _ in self.requests if p == path]

    def verified_with(self, path: str, secret: str) -> list[bool]:
        """For each request to ``path``, accepted or not: did ``secret`` verify it on arrival?
        (A secret the receiver learnt later is tried at the request's arrival time.)"""
        from freezegun import freeze_time

        out = []
        with self.lock:
            for (p, headers, body, _), (arrived, checks) in zip(
                self.requests, self.checks, strict=True
            ):
                if p != path:
                    continue
                if secret not in checks:
                    with freeze_time(arrived):
                        checks[secret] = verifies(secret, headers, body)
                out.append(checks[secret])
        return out


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.stop()


def all_verified(receiver: Receiver, path: str, secret: str) -> None:
    """Every request to ``path`` was verified, as it arrived, by the Standard Webhooks
    library with ``secret``; its ``webhook-id`` is the body's ``id`` (json bodies)."""
    got = receiver.verified_with(path, secret)
    assert got and all(got), got
    for headers, body in receiver.accepted(path):
        doc = json.loads(body)
        if "id" in doc:
            assert headers["webhook-id"] == doc["id"] == f"{doc['campaign']}:{doc['seq']}"


def add_hook(invoke, url: str, channel: str, fmt: str = "json", receiver=None) -> tuple[int, str]:
    result = invoke("webhook", "add", url, "--channel", channel, "--format", fmt, "--json")
    assert result.exit_code == 0, result.output
    made = json.loads(result.output)
    if receiver is not None:  # the receiver checks every delivery with it
        receiver.secrets.setdefault(url.split(str(receiver.port), 1)[1], []).append(made["secret"])
    return made["id"], made["secret"]


def note(invoke, text: str, *, blind: bool = False) -> None:
    result = invoke("note", text, *(["--blind"] if blind else []))
    assert result.exit_code == 0, result.output


def visibilities(db_path: str) -> dict[int, str]:
    store = open_store(db_path)
    try:
        return {seq: vis for seq, vis in store.rows("toybox", columns="seq, visibility")}
    finally:
        store.close()


#: The Standard Webhooks spec's example: secret, id, timestamp, body, and its signature.
SPEC_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
SPEC_VECTOR = ("msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, b'{"test": 2432232314}',
               "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")  # fmt: skip


def test_the_signature_is_the_standard_webhooks_one():
    """The spec's own example signs as the spec says; the library agrees; several keys give
    several signatures, space-separated, the current first."""
    ident, stamp, body, vector = SPEC_VECTOR
    key = base64.b64decode(SPEC_SECRET.removeprefix("whsec_"))
    assert wh.signature([key], ident, stamp, body) == vector
    moment = datetime.datetime.fromtimestamp(stamp, tz=datetime.UTC)
    assert Webhook(SPEC_SECRET).sign(ident, moment, body) == vector
    head = wh.headers([key], ident, stamp, body)
    assert (head["webhook-id"], head["webhook-timestamp"], head["webhook-signature"]) == (
        ident, "1614265330", vector
    )  # fmt: skip
    other = b"\x07" * 32
    both = wh.headers([other, key], ident, stamp, body)["webhook-signature"]
    assert both.split(" ") == [wh.signature([other], ident, stamp, body), vector]
    assert wh.secret_text(key) == SPEC_SECRET
    # the id is signed: the same body and time under another id do not verify
    forged = {**head, "webhook-id": "toybox:8"}
    assert not Webhook(SPEC_SECRET).sign("toybox:8", moment, body) == vector
    from freezegun import freeze_time

    with freeze_time(moment):
        assert verifies(SPEC_SECRET, head, body) and not verifies(SPEC_SECRET, forged, body)


def test_public_and_gm_hooks_get_their_entries_once_in_order_across_an_outage_and_restarts(
    toy_campaign, receiver, db_path, frozen
):
    invoke = toy_campaign
    note(invoke, "before any hook")  # added before the hooks: never posted
    pub, pub_secret = add_hook(invoke, receiver.url("/public"), "public", receiver=receiver)
    gm, gm_secret = add_hook(invoke, receiver.url("/gm"), "gm", receiver=receiver)
    first = max(visibilities(db_path))

    note(invoke, "The door creaks open")
    note(invoke, GM_SECRET_TEXT, blind=True)
    note(invoke, "Ann lights a torch")
    result = invoke("webhook", "deliver")
    assert result.exit_code == 0, result.output
    assert f"Webhook {pub} (" in result.output and "3 delivered" in result.output
    assert len(receiver.accepted("/public")) == 2 and len(receiver.accepted("/gm")) == 3

    # the receiver answers 500 for a while: nothing is accepted, the hooks wait their turn
    receiver.status = 500
    note(invoke, "A shadow moves")
    note(invoke, "The GM rolls behind the screen: " + GM_SECRET_TEXT, blind=True)
    result = invoke("webhook", "deliver")
    assert result.exit_code == 1 and "HTTP 500" in result.output
    result = invoke("webhook", "deliver")  # within the backoff: nothing is posted
    assert "next attempt" in result.output
    tried = len(receiver.requests)
    assert invoke("webhook", "deliver").exit_code == 0 and len(receiver.requests) == tried

    # then it is down altogether (connection refused), while more is appended
    port = receiver.port
    receiver.stop()
    note(invoke, "Bob hides")
    frozen.tick(datetime.timedelta(seconds=30))
    result = invoke("webhook", "deliver")
    assert result.exit_code == 1 and "no answer" in result.output
    listed = json.loads(invoke("webhook", "list", "--json").output)
    assert [h["state"] for h in listed] == ["failing", "failing"]
    assert listed[0]["deliveries"][0]["status"] is None

    # back up on the same port; a deliverer thread (as `campaign serve` runs) delivers the
    # rest, is stopped, more is appended, and a new one picks up where it left off
    back = Receiver(port)
    back.requests, back.lock = receiver.requests, receiver.lock  # one record of everything
    back.checks, back.secrets = receiver.checks, receiver.secrets
    receiver.server = back.server
    frozen.tick(datetime.timedelta(minutes=10))
    run_thread(db_path, until=lambda: len(receiver.accepted("/gm")) == 6)
    note(invoke, "The torch gutters", blind=False)
    note(invoke, "A GM-only aside", blind=True)
    run_thread(db_path, until=lambda: len(receiver.accepted("/gm")) == 8)

    kinds = visibilities(db_path)
    public = [s for s, v in kinds.items() if s > first and v == "public"]
    every = [s for s in kinds if s > first]
    for path, secret, want in (("/public", pub_secret, public), ("/gm", gm_secret, every)):
        got = receiver.accepted(path)
        all_verified(receiver, path, secret)  # every request, the failed attempts' too
        assert [json.loads(b)["seq"] for _, b in got] == want  # in order, each exactly once
    gm_bodies = [json.loads(b) for _, b in receiver.accepted("/gm")]
    assert any(GM_SECRET_TEXT in d["text"] and d["text"].endswith("[GM]") for d in gm_bodies)
    first_public = json.loads(receiver.accepted("/public")[0][1])
    assert first_public["text"] == f"[{first + 1}] Note: The door creaks open"
    # the text is the line `campaign log` prints in the hook's view
    for path, view in (("/public", ()), ("/gm", ("--as", "gm"))):
        lines = {
            line.split("]")[0] + "]": line for line in invoke(*view, "log").output.splitlines()
        }
        for _, raw in receiver.accepted(path):
            doc = json.loads(raw)
            assert doc["text"] == lines[f"[{doc['seq']}]"]
    assert (first_public["type"], first_public["visibility"]) == ("note.added", "public")
    assert len(first_public["hash"]) == 64 and first_public["at"].startswith("2026-03-01T19:")

    # every body ever posted to the public hook, accepted or not: no GM-only entry at all
    gm_seqs = {s for s, v in kinds.items() if v == "gm"}
    for raw in receiver.bodies("/public"):
        doc = json.loads(raw)
        assert doc["seq"] not in gm_seqs and doc["visibility"] == "public"
        assert GM_SECRET_TEXT not in raw.decode() and "GM-only" not in raw.decode()
    listed = json.loads(invoke("webhook", "list", "--json").output)
    assert [(h["state"], h["delivered_upto"]) for h in listed] == [
        ("ok", max(kinds)),
        ("ok", max(kinds)),
    ]


def run_thread(db_path: str, *, until) -> None:
    """Run `campaign serve`'s delivery thread until ``until()``, then stop it."""
    from ledger.cli.serve import _start_webhooks

    stop = _start_webhooks(db_path, "toybox")
    try:
        for _ in range(400):
            if until():
                break
            time.sleep(0.05)
    finally:
        stop()
    assert until()


def test_two_deliverers_at_once_post_each_entry_once(toy_campaign, receiver, db_path, frozen):
    invoke = toy_campaign
    _, secret = add_hook(invoke, receiver.url("/gm"), "gm", receiver=receiver)
    for i in range(12):
        note(invoke, f"entry {i}")
    receiver.delay = 0.02
    passes: list[list[wh.HookPass]] = []

    def deliver() -> None:
        store = open_store(db_path)
        try:
            passes.append(wh.Deliverer().run_once(store, "toybox"))
        finally:
            store.close()

    threads = [threading.Thread(target=deliver) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seqs = [json.loads(b)["seq"] for _, b in receiver.accepted("/gm")]
    assert len(seqs) == len(set(seqs)) == 12 and seqs == sorted(seqs)
    assert sorted(p[0].delivered for p in passes)[-1] >= 1
    assert sum(p[0].delivered for p in passes) == 12
    all_verified(receiver, "/gm", secret)


def test_a_hook_failing_for_an_hour_is_paused_until_resumed(toy_campaign, receiver, db_path):
    from freezegun import freeze_time

    invoke = toy_campaign
    hook, secret = add_hook(invoke, receiver.url("/gm"), "gm", receiver=receiver)
    note(invoke, "posted after the pause")
    receiver.status = 503
    start = datetime.datetime(2026, 3, 1, 20, 0, tzinfo=datetime.UTC)
    with freeze_time(start) as clock:
        at, delays = start, []
        while True:
            result = invoke("webhook", "deliver", "--json")
            assert result.exit_code == 1
            [done] = json.loads(result.stdout)
            if done["outcome"] == "paused":
                break
            assert done["outcome"] == "failed" and at < start + datetime.timedelta(hours=1)
            due = datetime.datetime.fromisoformat(done["next_attempt_at"])
            delays.append((due - at).total_seconds())
            tried = len(receiver.requests)
            clock.move_to(due - datetime.timedelta(seconds=1))  # within the backoff
            [waiting] = json.loads(invoke("webhook", "deliver", "--json").stdout)
            assert waiting["outcome"] == "waiting" and len(receiver.requests) == tried
            clock.move_to(due)
            at = due
        # paused at the first attempt an hour or more after the first failure
        assert start + datetime.timedelta(hours=1) <= at < start + datetime.timedelta(minutes=65)
        assert delays[:9] == [2, 4, 8, 16, 32, 64, 128, 256, 300] and set(delays[8:]) == {300}
        assert f"Warning: webhook {hook} (" in result.stderr
        assert "failed for an hour (HTTP 503" in result.stderr
        assert f"`campaign webhook resume {hook}`" in result.stderr
        paused_at = at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        listed = json.loads(invoke("webhook", "list", "--json").output)
        assert listed[0]["state"] == "paused"
        assert listed[0]["paused_at"] == paused_at
        assert listed[0]["failing_since"] == "2026-03-01T20:00:00.000000Z"
        text = invoke("webhook", "list").output
        assert f"paused {paused_at[:19].replace('T', ' ')} UTC" in text and "HTTP 503" in text
        tried = len(receiver.requests)
        clock.move_to("2026-03-02 09:00:00")
        result = invoke("webhook", "deliver")  # a paused hook is not tried
        assert "paused (`campaign webhook resume" in result.output
        assert len(receiver.requests) == tried
        receiver.status = 200
        result = invoke("webhook", "resume", str(hook))
        assert result.exit_code == 0 and "Resumed webhook" in result.output
        assert invoke("webhook", "deliver").exit_code == 0
    assert len(receiver.accepted("/gm")) == 1
    all_verified(receiver, "/gm", secret)  # every attempt of the hour, each when it came
    assert len({h["webhook-id"] for _, h, *_ in receiver.requests}) == 1  # one id throughout
    listed = json.loads(invoke("webhook", "list", "--json").output)
    assert listed[0]["state"] == "ok" and listed[0]["deliveries"][0]["status"] == 200


def test_the_backoff_doubles_up_to_five_minutes():
    assert [wh.backoff(n).total_seconds() for n in (1, 2, 3, 4, 8, 9, 50)] == [
        2, 4, 8, 16, 256, 300, 300,
    ]  # fmt: skip


def test_a_serve_without_hooks_or_with_a_store_error_keeps_running(db_path):
    """The thread reports an error and tries again at the next pass (no ledger here)."""
    said: list[str] = []
    stop = threading.Event()
    calls = []

    def opener():
        calls.append(1)
        if len(calls) >= 3:
            stop.set()
        raise OSError("disk on fire")

    wh.run_forever(opener, "toybox", stop, interval=0.01, warn=said.append)
    assert len(calls) == 3  # tried at every pass, said once
    assert said == ["Warning: webhook delivery: OSError: disk on fire"]


def test_discord_bodies_fit_and_ping_nobody(toy_campaign, receiver, db_path, frozen):
    invoke = toy_campaign
    _, secret = add_hook(invoke, receiver.url("/discord"), "public", "discord", receiver=receiver)
    note(invoke, "@everyone " + "x" * 2500)
    note(invoke, "a short one")
    assert invoke("webhook", "deliver").exit_code == 0
    all_verified(receiver, "/discord", secret)
    docs = [json.loads(b) for _, b in receiver.accepted("/discord")]
    assert [len(d["content"]) for d in docs] == [2000, len(docs[1]["content"])]
    assert docs[0]["content"].endswith("…") and docs[0]["allowed_mentions"] == {"parse": []}
    assert docs[1]["content"].endswith("] Note: a short one")
    assert set(docs[0]) == {"content", "allowed_mentions"}


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["ftp://example.com/x", "--channel", "gm"], "is not an http(s) URL"),
        (["example.com/hook", "--channel", "gm"], "is not an http(s) URL"),
        (["https:///nohost", "--channel", "gm"], "is not an http(s) URL"),
        (["https://me:pw@example.com/x", "--channel", "gm"], "holds a user or password"),
        (["https://example.com/a b", "--channel", "gm"], "without spaces"),
        (["https://example.com/x", "--channel", "players"], "'players' is not one of"),
        (["https://example.com/x"], "Missing option '--channel'"),
        (["https://example.com/x", "--channel", "gm", "--format", "slack"], "'slack' is not"),
    ],
)
def test_a_bad_hook_is_refused_in_one_line_and_nothing_is_kept(toy_campaign, args, words):
    invoke = toy_campaign
    result = invoke("webhook", "add", *args)
    assert result.exit_code == 2
    assert words in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.output
    assert json.loads(invoke("webhook", "list", "--json").output) == []


@pytest.mark.parametrize("command", ["remove", "resume"])
def test_an_unknown_hook_is_refused(toy_campaign, receiver, command):
    invoke = toy_campaign
    hook, _ = add_hook(invoke, receiver.url("/gm"), "gm", receiver=receiver)
    result = invoke("webhook", command, str(hook + 5))
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        f"Error: no webhook {hook + 5} in campaign 'toybox' "
        f"(it has: {hook}; see `campaign webhook list`)"
    )
    assert invoke("webhook", command, "abc").exit_code == 2


def test_removing_a_hook_forgets_it_and_its_secret(toy_campaign, receiver, db_path):
    invoke = toy_campaign
    hook, _ = add_hook(invoke, receiver.url("/gm"), "gm", receiver=receiver)
    result = invoke("webhook", "remove", str(hook))
    assert result.exit_code == 0 and f"Removed webhook {hook}" in result.output
    store = open_store(db_path)
    try:
        assert (
            store.webhooks("toybox") == [] and store.get_secret("toybox", hook, "webhook") is None
        )
    finally:
        store.close()
    assert "No webhooks" in invoke("webhook", "list").output


def test_the_secret_is_shown_once_and_never_in_a_players_export(toy_campaign, receiver, tmp_path):
    invoke = toy_campaign
    result = invoke("webhook", "add", receiver.url("/gm"), "--channel", "gm")
    secret = result.output.split("shown once: ")[1].strip()
    key = base64.b64decode(secret.removeprefix("whsec_"), validate=True)
    assert secret.startswith("whsec_") and len(key) == 32  # Standard Webhooks: 24 to 64 bytes
    listed = invoke("webhook", "list", "--json").output + invoke("webhook", "list").output
    assert secret not in listed and key.hex() not in listed
    out = tmp_path / "players.ndjson"
    assert invoke("export", "-o", str(out)).exit_code == 0
    assert secret not in out.read_text() and key.hex() not in out.read_text()
    assert invoke("--as", "gm", "export", "-o", str(out)).exit_code == 0
    assert key.hex() not in out.read_text()  # the GM's export holds no secret either
    backup = invoke("backup", str(tmp_path / "gm.ndjson"))
    assert "0 unrevealed seeds" in backup.output  # a hook's secret is not a seed


def test_a_discord_url_token_is_not_shown_in_lists():
    url = "https://discord.com/api/webhooks/1234567890/AbCdEfGhIjKlMnOpQrStUvWxYz_0123456789"
    assert wh.shown_url(url) == "https://discord.com/api/webhooks/1234567890/AbCd…"
    assert wh.shown_url("http://127.0.0.1:8080/hook?key=1") == "http://127.0.0.1:8080/hook"


def test_delivery_on_both_backends(store_target, receiver, frozen):
    """The same pass over a SQLite file and a PostgreSQL database (`--db postgresql://...`):
    the public hook skips the GM-only note, the GM hook gets it; a second pass posts nothing."""
    from ledger.campaign.aggregate import Campaign
    from ledger.events import NoteAdded

    store = open_store(store_target)
    try:
        campaign = Campaign.create(store, "pg", system="decision-dice", actor="gm",
                                   at="2026-03-01T19:00:00.000000Z")  # fmt: skip
        pub, pub_secret = wh.add(store, "pg", receiver.url("/public"), "public", "json",
                                 at="2026-03-01T19:00:00.000000Z")  # fmt: skip
        gm, gm_secret = wh.add(store, "pg", receiver.url("/gm"), "gm", "discord",
                               at="2026-03-01T19:00:00.000000Z")  # fmt: skip
        receiver.secrets.update({"/public": [pub_secret], "/gm": [gm_secret]})
        for text, vis in (("open", None), (GM_SECRET_TEXT, "gm"), ("shut", None)):
            campaign.append([NoteAdded(text=text)], actor="gm",
                            at="2026-03-01T19:00:01.000000Z", visibility=vis)  # fmt: skip
        passes = wh.Deliverer().run_once(store, "pg")
        assert [(p.id, p.outcome, p.delivered, p.skipped) for p in passes] == [
            (pub, "ok", 2, 1),
            (gm, "ok", 3, 0),
        ]
        assert [p.delivered for p in wh.Deliverer().run_once(store, "pg")] == [0, 0]
    finally:
        store.close()
    public = receiver.accepted("/public")
    assert [json.loads(b)["seq"] for _, b in public] == [2, 4]
    all_verified(receiver, "/public", pub_secret)
    all_verified(receiver, "/gm", gm_secret)
    assert [h["webhook-id"] for h, _ in receiver.accepted("/gm")] == ["pg:2", "pg:3", "pg:4"]
    gm_texts = [json.loads(b)["content"] for _, b in receiver.accepted("/gm")]
    assert gm_texts == ["[2] Note: open", f"[3] Note: {GM_SECRET_TEXT} [GM]", "[4] Note: shut"]


def test_a_hook_removed_during_a_pass_stops_quietly(toy_campaign, receiver, db_path, frozen):
    invoke = toy_campaign
    hook, _ = add_hook(invoke, receiver.url("/gm"), "gm", receiver=receiver)
    note(invoke, "one")
    note(invoke, "two")
    store = open_store(db_path)

    def post_then_remove(url: str, payload: bytes, head: dict[str, str]) -> wh.Posted:
        store.remove_webhook("toybox", hook)
        return wh.post(url, payload, head)

    try:
        [done] = wh.Deliverer(post=post_then_remove).run_once(store, "toybox")
        assert (done.outcome, done.delivered) == ("removed", 0)
        assert store.webhooks("toybox") == [] and store.webhook_log(hook) == []
    finally:
        store.close()
    assert len(receiver.accepted("/gm")) == 1  # the one in flight, then nothing


def serve_process(db: str, errors):
    """`campaign serve` in a process of its own, once it says it is serving."""
    import subprocess
    import sys

    from .webtools import free_port

    port = str(free_port())
    server = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from ledger.cli import cli; cli()",
            "--db",
            db,
            "serve",
            "--port",
            port,
        ],  # fmt: skip
        stdout=subprocess.PIPE,
        stderr=errors,
    )
    assert server.stdout is not None
    printed = ""
    while "Serving" not in printed:
        line = server.stdout.readline().decode()
        assert line, printed
        printed += line
    return server


def stop_process(server) -> None:
    server.terminate()
    server.wait(timeout=30)
    server.stdout.close()


def wait_for(until) -> None:
    for _ in range(600):
        if until():
            return
        time.sleep(0.05)
    assert until()


def test_campaign_serve_delivers_what_other_processes_append_across_its_restart(
    invoke, receiver, db_path, tmp_path
):
    """The issue's "Done when": `campaign serve` (its own process) posts what the CLI (another
    process) appends, is stopped, more is appended, and once started again it posts the rest:
    each entry once, in order, signed; the receiver's outage in between changes nothing."""
    assert invoke("new", "casebook", "--system", "decision-dice").exit_code == 0
    hook, secret = add_hook(invoke, receiver.url("/gm"), "gm", receiver=receiver)
    errors = open(tmp_path / "serve.err", "wb")  # noqa: SIM115
    try:
        server = serve_process(db_path, errors)
        try:
            for text in ("one", "two"):
                note(invoke, text)
            wait_for(lambda: len(receiver.accepted("/gm")) == 2)
            receiver.status = 500  # an outage while serving: retried with backoff
            note(invoke, "three")
            wait_for(lambda: len(receiver.requests) >= 3)
            receiver.status = 200
            wait_for(lambda: len(receiver.accepted("/gm")) == 3)  # after its 2 s backoff
        finally:
            stop_process(server)
        note(invoke, "four (while stopped)")
        note(invoke, "five (while stopped)", blind=True)
        server = serve_process(db_path, errors)
        try:
            wait_for(lambda: len(receiver.accepted("/gm")) == 5)
        finally:
            stop_process(server)
    finally:
        errors.close()
    got = receiver.accepted("/gm")
    all_verified(receiver, "/gm", secret)
    assert [json.loads(b)["seq"] for _, b in got] == [2, 3, 4, 5, 6]
    assert json.loads(got[-1][1])["text"] == "[6] Note: five (while stopped) [GM]"
    assert "Traceback" not in (tmp_path / "serve.err").read_text()


def test_a_success_between_failures_starts_the_count_again(toy_campaign, receiver, db_path):
    from freezegun import freeze_time

    invoke = toy_campaign
    hook, _ = add_hook(invoke, receiver.url("/gm"), "gm", receiver=receiver)
    note(invoke, "one")
    note(invoke, "two")
    answers = iter([500, 500, 200, 500])

    def poster(url: str, payload: bytes, head: dict[str, str]) -> wh.Posted:
        return next(answers), ""

    store = open_store(db_path)
    try:
        with freeze_time("2026-03-01 20:00:00") as clock:
            deliverer = wh.Deliverer(post=poster)
            deliverer.run_once(store, "toybox")
            clock.move_to("2026-03-01 20:00:02")
            deliverer.run_once(store, "toybox")
            assert store.webhooks("toybox")[0]["attempts"] == 2
            clock.move_to("2026-03-01 20:00:06")
            [done] = deliverer.run_once(store, "toybox")  # "one" goes, "two" fails
        assert (done.delivered, done.outcome) == (1, "failed")
        [row] = store.webhooks("toybox")
        assert (row["attempts"], row["failing_since"], row["next_attempt_at"]) == (
            1,
            "2026-03-01T20:00:06.000000Z",
            "2026-03-01T20:00:08.000000Z",  # the first retry's 2 s again
        )
    finally:
        store.close()


def test_rotation_signs_with_both_secrets_during_the_overlap_then_the_new_only(
    store_target, receiver, toy_system
):
    """`campaign webhook rotate` on SQLite and PostgreSQL: during the overlap every delivery
    (a retry too, under the same id) verifies with the old secret alone and with the new one
    alone; after 24 hours, or after `--finish`, with the new one only, and the old secret is
    gone from the store."""
    from click.testing import CliRunner
    from freezegun import freeze_time

    from ledger.cli import cli

    def run(*args: str, code: int = 0):
        result = CliRunner().invoke(cli, ["--db", store_target, *args], catch_exceptions=False)
        assert result.exit_code == code, result.output
        return result

    def delivered(path: str) -> list[tuple[dict[str, str], bytes]]:
        return [(h, b) for p, h, b, _ in receiver.requests if p == path]

    with freeze_time("2026-03-01 19:00:00") as clock:
        run("new", "toybox", "--system", "toy")
        hook, old = add_hook(run, receiver.url("/gm"), "gm", receiver=receiver)
        run("note", "before the rotation")
        run("webhook", "deliver")
        assert len(delivered("/gm")[0][0]["webhook-signature"].split(" ")) == 1

        made = json.loads(run("webhook", "rotate", str(hook), "--json").output)
        new = made["secret"]
        assert new != old and new.startswith("whsec_")
        assert made["old_secret_until"] == "2026-03-02T19:00:00.000000Z"
        receiver.secrets["/gm"].append(new)
        listed = run("webhook", "list").output
        assert "rotating: the old secret signs too until 2026-03-02 19:00:00 UTC" in listed
        assert new not in listed and old not in listed
        run("note", "during the overlap")
        receiver.status = 500  # the first attempt fails: the retry keeps its id
        run("webhook", "deliver", code=1)
        receiver.status = 200
        clock.tick(datetime.timedelta(hours=23, minutes=59))
        run("note", "late in the overlap")
        run("webhook", "deliver")
        overlap = delivered("/gm")[1:]
        assert len(overlap) == 3
        assert [h["webhook-id"] for h, _ in overlap][:2] == ["toybox:3", "toybox:3"]
        assert all(len(h["webhook-signature"].split(" ")) == 2 for h, _ in overlap)

        clock.tick(datetime.timedelta(minutes=2))  # the overlap is over
        run("note", "after the overlap")
        run("webhook", "deliver")
        after = delivered("/gm")[-1][0]
        assert len(after["webhook-signature"].split(" ")) == 1
        assert "rotating" not in run("webhook", "list").output
        store = open_store(store_target)
        try:
            assert store.get_secret("toybox", hook, "webhook-previous") is None  # forgotten
            [row] = store.webhooks("toybox")
            assert row["rotated_until"] is None
        finally:
            store.close()

        # a second rotation, finished at once: the one before signs no more
        newer = json.loads(run("webhook", "rotate", str(hook), "--json").output)["secret"]
        receiver.secrets["/gm"].append(newer)
        finished = run("webhook", "rotate", str(hook), "--finish").output
        assert "the old secret is forgotten" in finished
        run("note", "after --finish")
        run("webhook", "deliver")
        refused = run("webhook", "rotate", str(hook), "--finish", code=1)
        assert refused.stderr.strip() == (
            f"Error: webhook {hook} is not being rotated, nothing to finish: "
            f"`campaign webhook rotate {hook}` gives it a new secret"
        )
        missing = run("webhook", "rotate", str(hook + 7), code=1)
        assert f"no webhook {hook + 7} in campaign 'toybox'" in missing.stderr

    verdicts = {s: receiver.verified_with("/gm", s) for s in (old, new, newer)}
    assert verdicts[old] == [True, True, True, True, False, False]
    assert verdicts[new] == [False, True, True, True, True, False]
    assert verdicts[newer] == [False, False, False, False, False, True]
    assert [json.loads(b)["seq"] for _, b in receiver.accepted("/gm")] == [2, 3, 4, 5, 6]


def test_a_hook_made_before_standard_webhooks_keeps_its_key(store_target, receiver, frozen):
    """A hook's secret stored before m015 (shown as 64 hex digits, the key their ASCII text)
    signs with the same key after the migration: ``whsec_`` and the base64 of that text
    verifies its deliveries, on SQLite and PostgreSQL."""
    from ledger.campaign.aggregate import Campaign
    from ledger.events import NoteAdded

    at = "2026-03-01T19:00:00.000000Z"
    store = open_store(store_target)
    try:
        campaign = Campaign.create(store, "old", system="decision-dice", actor="gm", at=at)
        hook, _ = wh.add(store, "old", receiver.url("/gm"), "gm", "json", at=at)
        shown = "0123456789abcdef" * 4  # what `webhook add` printed then
        with store.transaction():  # the ledger as the release before kept it
            store.conn.execute(
                store._sql("update secrets set seed = ? where kind = 'webhook'"),
                (bytes.fromhex(shown).hex(),),
            )
            store.conn.execute(store._sql("alter table webhooks drop column rotated_until"))
            table = "ledger_migrations" if "://" in store_target else "_sqlite_migrations"
            store.conn.execute(
                store._sql(f"delete from {table} where name = 'm015_webhook_rotation'")
            )
        campaign.append([NoteAdded(text="kept")], actor="gm", at=at)
    finally:
        store.close()
    receiver.secrets["/gm"] = ["whsec_" + base64.b64encode(shown.encode()).decode()]
    store = open_store(store_target)  # migrates
    try:
        [done] = wh.Deliverer().run_once(store, "old")
        assert (done.outcome, done.delivered) == ("ok", 1)
        assert store.get_secret("old", hook, "webhook") == shown.encode()
    finally:
        store.close()
    all_verified(receiver, "/gm", receiver.secrets["/gm"][0])
