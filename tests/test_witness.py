"""The club witness (C2SP tlog-witness): a real server on a free port, in a thread.

Besides our own logs, the witness replays the add-checkpoint requests of the reference
witness's own test (FiloSottile/torchwood, cmd/litewitness/testdata/litewitness.txt at
commit 341dc2f0f552a29816955d4834718cd741f1ca64: a Sigsum log's checkpoints of sizes 1, 3
and 5, a forged signature, an unknown origin, an empty and a wrong proof, stale sizes) and
must give the statuses the reference gives (save one: an unknown origin is 404 in today's
spec, where that test, older, expects 403).
"""

from __future__ import annotations

import base64
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from freezegun import freeze_time

from ledger.trust.cosignature import Cosigner, verify_cosignature
from ledger.trust.merkle import consistency_proof, leaf_hash, root
from ledger.trust.notes import Checkpoint, Signer, sign
from ledger.witness import server as witness_server
from ledger.witness.client import (
    BadWitnessAnswer,
    WitnessConflict,
    WitnessRefused,
    WitnessUnavailable,
    add_checkpoint,
    request_body,
)
from ledger.witness.core import Witness, origin_hash, trust
from ledger.witness.state import WitnessError, WitnessState

ORIGIN = "ledger.example/campaign/alpha"
WITNESS_SEED = bytes(range(32))


class Log:
    """A test log: leaves, the log's key, checkpoints and proofs."""

    def __init__(self, name: str = ORIGIN, leaves: int = 0, signer: Signer | None = None):
        self.signer = signer or Signer.generate(name)
        self.origin = name
        self.leaves = [leaf_hash(bytes([i % 256]) * 32) for i in range(leaves)]

    def grow(self, n: int) -> None:
        start = len(self.leaves)
        self.leaves += [leaf_hash((start + i).to_bytes(32, "big")) for i in range(n)]

    def note(self, size: int | None = None, *, signer: Signer | None = None) -> str:
        size = len(self.leaves) if size is None else size
        checkpoint = Checkpoint(self.origin, size, root(self.leaves[:size]))
        return sign(checkpoint.text(), signer or self.signer)

    def proof(self, old: int, new: int | None = None) -> list[bytes]:
        new = len(self.leaves) if new is None else new
        return consistency_proof(old, new, self.leaves) if 0 < old < new else []


class Running:
    """A witness served on a free loopback port in a thread."""

    def __init__(self, state_path: Path, cosigner: Cosigner, clock: Any = None) -> None:
        self.state = WitnessState(state_path)
        self.cosigner = cosigner
        self.witness = Witness(cosigner, self.state, clock)
        self.sock = witness_server.bind("127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.server = witness_server.server(self.witness)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )
        self.thread.start()
        deadline = time.monotonic() + 60  # bounds a hang only
        while not self.server.started:
            assert time.monotonic() < deadline, "the witness did not start"
            time.sleep(0.01)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()

    def post(self, body: bytes, path: str = "/add-checkpoint") -> tuple[int, str, str]:
        """(status, content type, body text) of a raw POST."""
        req = urllib.request.Request(self.url + path, data=body, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, r.headers["Content-Type"], r.read().decode()
        except urllib.error.HTTPError as e:
            with e:
                return e.code, e.headers["Content-Type"], e.read().decode()

    def add(self, log: Log, old: int, note: str | None = None, proof: list[bytes] | None = None):
        note = log.note() if note is None else note
        proof = log.proof(old) if proof is None else proof
        return add_checkpoint(self.url, note, old, proof, witness_key=self.cosigner.verifier.key())


@pytest.fixture
def log() -> Log:
    return Log(leaves=4)


@pytest.fixture
def running(tmp_path: Path, log: Log) -> Iterator[Running]:
    state = WitnessState(tmp_path / "witness.json")
    state.create()
    trust(state, log.signer.verifier.key())
    r = Running(tmp_path / "witness.json", Cosigner("club.example/witness", WITNESS_SEED))
    yield r
    r.stop()


def stored(r: Running, origin: str = ORIGIN) -> tuple[int | None, str | None]:
    entry = r.state.read().logs[origin]
    return entry.size, entry.root


# --- the spec's paths --------------------------------------------------------------------


def test_the_cosignature_is_timestamped_by_the_witness_clock(tmp_path: Path, log: Log):
    state = WitnessState(tmp_path / "witness.json")
    state.create()
    trust(state, log.signer.verifier.key())
    witness = Witness(Cosigner("club.example/witness", WITNESS_SEED), state)
    with freeze_time("2026-11-26 20:00:00"):
        answer = witness.add_checkpoint(request_body(log.note(), 0, []))
    assert answer.status == 200
    assert verify_cosignature(witness.cosigner.verifier, log.note(), answer.body) == 1795723200


def test_first_checkpoint_then_growth_with_a_good_proof(running: Running, log: Log):
    line = running.add(log, 0)
    assert verify_cosignature(running.cosigner.verifier, log.note(), line) > 1795723200
    assert stored(running) == (4, base64.b64encode(root(log.leaves)).decode())
    log.grow(7)
    line = running.add(log, 4)
    assert verify_cosignature(running.cosigner.verifier.key(), log.note(), line) > 0
    assert stored(running)[0] == 11
    # the same checkpoint again (old == size, same root) is cosigned again
    running.add(log, 11)
    # the monitoring endpoint serves the last cosigned note with both signatures
    with urllib.request.urlopen(f"{running.url}/{origin_hash(ORIGIN)}/checkpoint") as r:
        served = r.read().decode()
    assert served.startswith(log.note().split("\n\n")[0] + "\n\n— " + ORIGIN)
    assert served.count("— club.example/witness ") == 1


def test_a_fork_at_the_same_size_is_refused(running: Running, log: Log):
    running.add(log, 0)
    forked = Log(leaves=4, signer=log.signer)
    forked.leaves[2] = leaf_hash(b"rewritten".ljust(32, b"."))
    with pytest.raises(WitnessRefused) as e:
        running.add(forked, 4)
    assert e.value.status == 409 and "forked" in str(e.value)  # C2SP: 409, not 422
    # on the wire: 409 with the size it cosigned, as C2SP asks of every 409
    assert running.post(request_body(forked.note(), 4, [])) == (409, "text/x.tlog.size", "4\n")
    with pytest.raises(WitnessConflict) as c:  # starting over from 0 does not help
        running.add(forked, 0)
    assert c.value.size == 4
    assert stored(running) == (4, base64.b64encode(root(log.leaves)).decode())


def test_a_rewritten_history_with_its_own_valid_proof_is_refused(running: Running, log: Log):
    """The proof is checked from the root the witness stored, not the client's old tree."""
    running.add(log, 0)
    rewritten = Log(leaves=4, signer=log.signer)
    rewritten.leaves[0] = leaf_hash(b"the GM changed seq 1".ljust(32, b"."))
    rewritten.grow(3)
    with pytest.raises(WitnessRefused) as e:
        running.add(rewritten, 4)  # a proof that is valid within the rewritten tree
    assert e.value.status == 422 and "does not verify" in str(e.value)
    assert stored(running)[0] == 4


def test_a_bad_proof_is_refused(running: Running, log: Log):
    running.add(log, 0)
    log.grow(5)
    good = log.proof(4)
    for bad in ([], good[:-1], good + [bytes(32)], [bytes(32)] * len(good), good[::-1]):
        with pytest.raises(WitnessRefused) as e:
            running.add(log, 4, proof=bad)
        assert e.value.status == 422
    assert stored(running)[0] == 4
    running.add(log, 4, proof=good)


def test_rollbacks_and_stale_sizes(running: Running, log: Log):
    log.grow(4)
    running.add(log, 0)  # size 8
    with pytest.raises(WitnessConflict) as c:
        running.add(log, 4, note=log.note(6), proof=log.proof(4, 6))  # the witness is at 8
    assert c.value.size == 8 and "size 8" in str(c.value)
    status, ctype, body = running.post(request_body(log.note(6), 8, []))
    assert (status, body) == (400, "old size is larger than the checkpoint's size\n")
    status, ctype, body = running.post(request_body(log.note(6), 6, []))
    assert (status, ctype, body) == (409, "text/x.tlog.size", "8\n")
    assert stored(running)[0] == 8


def test_unknown_origin_and_foreign_or_forged_signatures(running: Running, log: Log):
    stranger = Log("ledger.example/campaign/other", leaves=3)
    with pytest.raises(WitnessRefused) as e:
        running.add(stranger, 0)
    assert e.value.status == 404 and "does not follow this log" in str(e.value)
    impostor = Signer.generate(ORIGIN)  # same name, another key
    with pytest.raises(WitnessRefused) as e:
        running.add(log, 0, note=log.note(signer=impostor))
    assert e.value.status == 403
    note = log.note()
    sig = note.split(" ")[-1]
    raw = base64.b64decode(sig)
    # the last byte flipped (not set to 0: one signature in 256 already ends in a 0 byte)
    forged = note.replace(sig, base64.b64encode(raw[:-1] + bytes([raw[-1] ^ 1])).decode() + "\n")
    with pytest.raises(WitnessRefused) as e:
        running.add(log, 0, note=forged)
    assert e.value.status == 403 and "invalid signature" in str(e.value)
    body = log.note().replace("\n4\n", "\n5\n")  # the text changed under the signature
    with pytest.raises(WitnessRefused) as e:
        running.add(log, 0, note=body)
    assert e.value.status == 403
    assert stored(running) == (None, None)


@pytest.mark.parametrize(
    ("body", "status"),
    [
        (b"", 400),
        (b"old 0\n", 400),  # no empty line, no note
        (b"old 00\n\n", 400),
        (b"old -1\n\n", 400),
        (b"new 0\n\n", 400),
        (b"old 0\nnot base64!\n\n", 400),
        (b"old 0\n" + base64.b64encode(bytes(31)) + b"\n\n", 400),
        (b"old 0\n" + (base64.b64encode(bytes(32)) + b"\n") * 64 + b"\n", 400),
        (b"old 0\n\n\xff\xfe\n", 400),
        (b"old 0\n\nnot a checkpoint\n\n- x y\n", 400),
    ],
)
def test_malformed_requests_are_400(running: Running, body: bytes, status: int):
    assert running.post(body)[0] == status
    assert stored(running) == (None, None)


def test_size_zero_and_proofs_from_zero(running: Running, log: Log):
    empty = Log(leaves=0, signer=log.signer)
    bad_empty = sign(Checkpoint(ORIGIN, 0, bytes(32)).text(), log.signer)
    # old 0 is the size "cosigned", and its root is the empty tree's: another is a fork
    assert running.post(request_body(bad_empty, 0, [])) == (409, "text/x.tlog.size", "0\n")
    assert running.post(request_body(log.note(), 0, [bytes(32)]))[0] == 422
    running.add(empty, 0)  # the empty tree's root: fine
    assert stored(running)[0] == 0
    running.add(log, 0)  # from 0, no proof is needed
    assert stored(running)[0] == 4


def test_a_body_too_large_is_413_and_other_methods_405(running: Running):
    assert running.post(b"x" * (64 * 1024 + 1))[0] == 413
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(running.url + "/add-checkpoint", timeout=10)
    e.value.close()
    assert e.value.code == 405
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(f"{running.url}/{origin_hash(ORIGIN)}/checkpoint", timeout=10)
    e.value.close()
    assert e.value.code == 404  # nothing cosigned yet


def test_concurrent_posts_never_roll_the_witness_back(running: Running, log: Log):
    running.add(log, 0)  # 4
    log.grow(12)  # 16 leaves: each poster submits a different size from 4
    sizes = list(range(5, 17))

    def submit(size: int) -> Any:
        try:
            return running.add(log, 4, note=log.note(size), proof=log.proof(4, size))
        except WitnessConflict as c:
            return c.size

    with ThreadPoolExecutor(len(sizes)) as pool:
        results = list(pool.map(submit, sizes))
    won = [s for s, r in zip(sizes, results, strict=True) if isinstance(r, str)]
    assert len(won) == 1, results  # one checkpoint from size 4; every other saw its size
    assert all(r == won[0] for r in results if isinstance(r, int))
    assert stored(running)[0] == won[0]


def test_a_restart_keeps_the_state(tmp_path: Path, running: Running, log: Log):
    running.add(log, 0)
    running.stop()
    again = Running(tmp_path / "witness.json", running.cosigner)
    try:
        with pytest.raises(WitnessConflict) as c:
            again.add(log, 0)
        assert c.value.size == 4
        log.grow(2)
        again.add(log, 4)
    finally:
        again.stop()
    assert WitnessState(tmp_path / "witness.json").read().logs[ORIGIN].size == 6


def test_a_deleted_or_garbled_state_is_never_a_fresh_witness(running: Running, log: Log):
    running.add(log, 0)
    running.state.path.write_text("{not json")
    status, _, body = running.post(request_body(log.note(), 0, []))
    assert status == 500 and "not a witness state file" in body
    running.state.path.unlink()
    status, _, body = running.post(request_body(log.note(), 0, []))
    assert status == 500 and "no witness state" in body


# --- the reference witness's own requests --------------------------------------------------

SIGSUM = "sigsum.org/v1/tree/4d6d8825a6bb689d459628312889dfbb0bcd41b5211d9e1ce768b0ff0309e562"
SIGSUM_VKEY = SIGSUM + "+5202289b+Af/cLU2Y5BJNP+r3iMDC+av9eWCD0fBJVDfzAux5zxAP"
Z = "A" * 39 + "="  # base64 of zero bytes after the first two


def _sigsum(size: int, root64: str, sig: str, origin: str = SIGSUM) -> str:
    return f"{origin}\n{size}\n{root64}\n\n— {origin} {sig}\n"


SIG1 = (
    "UgIom7fPZTqpxWWhyjWduBvTvGVqsokMbqTArsQilegKoFBJQjUFAmQ0+YeSPM3wfUQMFSzVnnNuWRTYrajXpNUbIQY="
)
SIG3 = (
    "UgIom2VbtIcdFbwFAy1n7s6IkAxIY6J/GQOTuZF2ORV39d75cbAj2aQYwyJre36kezNobZs4SUUdrcawfAB8WVrx6go="
)
SIG5 = (
    "UgIomw/EOJmWi0i1FQsOj+etB7F8IccFam/jgd6wzRns4QPVmyEZtdvl1U2KEmLOZ/ASRcWJi0tW90dJWAShei7sDww="
)
ROOT1 = "KgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
ROOT3 = "RcCI1Nk56ZcSmIEfIn0SleqtV7uvrlXNccFx595Iwl0="
ROOT5 = "QrtXrQZCCvpIgsSmOsah7HdICzMLLyDfxToMql9WTjY="
P1 = [
    "KgEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
    "KgIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
]
LITEWITNESS = [  # (old, proof, note, status, body) as the reference's test, in order
    (0, [], _sigsum(1, ROOT1, SIG1), 200, None),
    (1, P1, _sigsum(3, ROOT3, SIG3[:-2] + "x="), 403, None),  # a mangled signature
    (1, P1, _sigsum(3, ROOT3, SIG3, SIGSUM[:-1] + "3"), 404, None),  # unknown origin
    (1, [], _sigsum(3, ROOT3, SIG3), 422, None),
    (1, [P1[0], "KgIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABA="], _sigsum(3, ROOT3, SIG3), 422, None),
    (1, P1, _sigsum(3, ROOT3, SIG3), 200, None),
    (1, [P1[0], "+fUDV+k970B4I3uKrqJM4aP1lloPZP8mvr2Z4wRw2LI=",
         "KgQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="], _sigsum(5, ROOT5, SIG5), 409, "3\n"),
    (3, ["KgIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
         "KgMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
         "wgiIFdZfYNv6WU1OllBKsWnLYIS/DBMqt8Uh/S4OukE=",
         "KgQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="], _sigsum(5, ROOT5, SIG5), 200, None),
    (0, [], _sigsum(5, ROOT5, SIG5), 409, "5\n"),
]  # fmt: skip


def test_the_reference_witness_requests_get_the_reference_answers(tmp_path: Path):
    state = WitnessState(tmp_path / "w.json")
    state.create()
    trust(state, SIGSUM_VKEY)
    r = Running(tmp_path / "w.json", Cosigner("example.com/witness", WITNESS_SEED))
    try:
        for old, proof, note, status, body in LITEWITNESS:
            text = f"old {old}\n" + "".join(p + "\n" for p in proof) + "\n" + note
            got_status, _, got_body = r.post(text.encode())
            assert got_status == status, (old, note, got_body)
            if body is not None:
                assert got_body == body
            if status == 200:
                assert got_body.startswith("— example.com/witness ")
                verify_cosignature(r.cosigner.verifier, note, got_body)
    finally:
        r.stop()
    assert (state.read().logs[SIGSUM].size, state.read().logs[SIGSUM].root) == (5, ROOT5)


# --- the client's errors -----------------------------------------------------------------


def test_the_client_verifies_the_cosignature_it_gets(running: Running, log: Log):
    someone_else = Cosigner.generate("club.example/witness")  # same name, another key
    with pytest.raises(BadWitnessAnswer, match="without a valid cosignature"):
        add_checkpoint(running.url, log.note(), 0, [], witness_key=someone_else.verifier.key())
    with pytest.raises(WitnessError, match="not a witness key"):
        add_checkpoint(running.url, log.note(), 0, [], witness_key=log.signer.verifier.key())


def test_the_client_says_when_the_witness_is_not_there(tmp_path: Path, log: Log):
    sock = witness_server.bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    key = Cosigner.generate("w").verifier.key()
    with pytest.raises(WitnessUnavailable, match="did not answer"):
        add_checkpoint(f"http://127.0.0.1:{port}", log.note(), 0, [], witness_key=key)
    for url in ("ftp://x", "http://", "http://a@b", "http://x:99999", "http://x/?q"):
        with pytest.raises(WitnessError, match="not a witness URL"):
            add_checkpoint(url, log.note(), 0, [], witness_key=key)


def test_the_client_refuses_a_409_without_a_size(tmp_path: Path, log: Log):
    """A hostile or broken witness: 409 with a body that is not ``SIZE\\n``."""
    from starlette.applications import Starlette
    from starlette.responses import Response
    from starlette.routing import Route

    async def liar(request: Any) -> Response:
        return Response("\x1b[31mlots\n", status_code=409, media_type="text/x.tlog.size")

    async def teapot(request: Any) -> Response:
        return Response("\x1b[2J" + "no " * 500, status_code=418)

    import uvicorn

    app = Starlette(routes=[Route("/a/add-checkpoint", liar, methods=["POST"]),
                            Route("/b/add-checkpoint", teapot, methods=["POST"])])  # fmt: skip
    sock = witness_server.bind("127.0.0.1", 0)
    srv = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not srv.started:
        time.sleep(0.01)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    key = Cosigner.generate("w").verifier.key()
    try:
        with pytest.raises(BadWitnessAnswer, match="409 without its size"):
            add_checkpoint(url + "/a", log.note(), 0, [], witness_key=key)
        with pytest.raises(WitnessRefused) as e:
            add_checkpoint(url + "/b", log.note(), 0, [], witness_key=key)
        assert e.value.status == 418 and "\x1b" not in str(e.value) and len(e.value.reason) <= 200
    finally:
        srv.should_exit = True
        thread.join(10)
        sock.close()


# --- the state file ----------------------------------------------------------------------

CRASH = """
import os, signal, sys
from ledger.witness.state import LogState, WitnessState
state = WitnessState(sys.argv[1])
where = sys.argv[2]
def die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)
if where == "rename":
    os.replace = die  # written and fsynced, killed before the rename
else:
    os.fsync = die  # killed with the temporary file written but not yet synced
with state.update() as s:
    s.logs["killed"] = LogState(keys=["k"], size=99)
"""


@pytest.mark.parametrize("where", ["rename", "fsync"])
def test_a_kill_while_writing_never_leaves_a_half_written_state(tmp_path: Path, where: str):
    state = WitnessState(tmp_path / "witness.json")
    state.create()
    trust(state, Signer.generate("a.example/log").verifier.key())
    before = state.path.read_bytes()
    proc = subprocess.run(
        [sys.executable, "-c", CRASH, str(state.path), where], capture_output=True, timeout=60
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert state.path.read_bytes() == before  # the old state, whole
    assert list(state.read().logs) == ["a.example/log"]
    leftovers = [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]
    assert leftovers  # the temporary file the kill left is there, and never read
    with state.update() as s:  # the next change works (the lock died with the process)
        s.logs["a.example/log"].size = 1
    assert state.read().logs["a.example/log"].size == 1


def test_trust_refuses_bad_keys_and_keeps_a_key_once(tmp_path: Path):
    state = WitnessState(tmp_path / "w.json")
    state.create()
    key = Signer.generate("a.example/log").verifier.key()
    assert trust(state, key)[0] == "a.example/log"
    trust(state, key)
    trust(state, key, origin="other origin")
    logs = state.read().logs
    assert logs["a.example/log"].keys == [key] and logs["other origin"].keys == [key]
    cosigner_key = Cosigner.generate("w").verifier.key()  # a 0x04 key cannot sign a log
    for bad in ("", "junk", key[:-2], cosigner_key):
        with pytest.raises(WitnessError, match="not a log's verifier key"):
            trust(state, bad)
    with pytest.raises(WitnessError, match="one line"):
        trust(state, key, origin="a\nb")
    with pytest.raises(WitnessError, match="no witness state"):
        trust(WitnessState(tmp_path / "missing.json"), key)


def test_a_second_log_under_a_followed_origin_is_not_merged(invoke, tmp_path: Path, log: Log):
    """Two logs cannot share an origin (one size, one root): trusting a second log's key
    there is refused, nothing changed, and the first log's key stays the only one; that
    log's new key is added only when said so (``--same-log``)."""
    state = str(tmp_path / "w.json")
    WitnessState(state).create()
    first = log.signer.verifier.key()
    assert invoke("witness", "trust", first, "--state", state).exit_code == 0
    other = Signer.generate(ORIGIN).verifier.key()  # another campaign, the same name
    refused = invoke("witness", "trust", other, "--state", state)
    assert refused.exit_code == 1 and refused.output.count("\n") == 1, refused.output
    assert "already follows a log under the origin" in refused.output
    assert "--same-log" in refused.output and "rolled back" not in refused.output
    assert WitnessState(state).read().logs[ORIGIN].keys == [first]
    again = invoke("witness", "trust", other, "--same-log", "--state", state)
    assert again.exit_code == 0
    assert WitnessState(state).read().logs[ORIGIN].keys == [first, other]


# --- the commands ------------------------------------------------------------------------


def test_witness_commands_from_init_to_serving(invoke, tmp_path: Path, log: Log):
    import json

    key, state = str(tmp_path / "w.key"), str(tmp_path / "w.json")
    made = invoke(
        "witness", "init", "club.example/witness", "--key", key, "--state", state, "--json"
    )
    assert made.exit_code == 0, made.output
    vkey = json.loads(made.output)["key"]
    assert vkey.startswith("club.example/witness+") and oct(os.stat(key).st_mode)[-3:] == "600"
    again = invoke("witness", "init", "club.example/witness", "--key", key, "--state", state)
    assert again.exit_code == 1 and "never overwritten" in again.output
    assert invoke("witness", "trust", log.signer.verifier.key(), "--state", state).exit_code == 0
    bad = invoke("witness", "trust", "nonsense", "--state", state)
    assert bad.exit_code == 1 and bad.output.count("\n") == 1 and "NAME+HASH+BASE64" in bad.output
    listed = json.loads(invoke("witness", "list", "--state", state, "--key", key, "--json").output)
    assert listed["key"] == vkey and listed["logs"][0]["origin"] == ORIGIN

    env = {**os.environ, "CAMPAIGN_WITNESS_STATE": state, "CAMPAIGN_WITNESS_KEY": key}
    proc = subprocess.Popen(
        [sys.executable, "-c", "from ledger.cli import cli; cli.main(prog_name='campaign')",
         "witness", "serve", "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("Witness club.example/witness at http://127.0.0.1:"), first
        url = first.split(" at ")[1].split(",")[0]
        line = add_checkpoint(url, log.note(), 0, [], witness_key=vkey)
        assert verify_cosignature(vkey, log.note(), line) > 0
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
    assert "Traceback" not in err
    assert WitnessState(state).read().logs[ORIGIN].size == 4


def test_witness_serve_refuses_in_one_line(invoke, tmp_path: Path):
    key, state = str(tmp_path / "w.key"), str(tmp_path / "w.json")
    missing = invoke("witness", "serve", "--key", key, "--state", state)
    assert missing.exit_code == 1 and "campaign witness init" in missing.output
    assert invoke("witness", "init", "w", "--key", key, "--state", state).exit_code == 0
    Path(state).write_text("[]")
    garbled = invoke("witness", "serve", "--key", key, "--state", state)
    assert garbled.exit_code == 1 and "not a witness state file" in garbled.output
    Path(state).unlink()
    WitnessState(state).create()
    busy = witness_server.bind("127.0.0.1", 0)
    try:
        port = str(busy.getsockname()[1])
        taken = invoke("witness", "serve", "--key", key, "--state", state, "--port", port)
        assert taken.exit_code == 1 and "cannot listen" in taken.output
    finally:
        busy.close()
    assert invoke("witness", "serve", "--port", "70000").exit_code == 2
    assert "POST /add-checkpoint" in invoke("witness", "serve", "--help").output
