"""Writes from the web and from the CLI at once: the server's writes go through the same
``Campaign.append`` transaction as the CLI's, so nothing is lost or written twice and the
chain verifies."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading

import httpx2

from ledger.web.sessions import SessionPolicy

from .webtools import d20_table, live_server

WRITER = """
import sys
from click.testing import CliRunner
from ledger.cli import cli
runner = CliRunner()
print("ready", flush=True)
sys.stdin.readline()  # go: both writers start together
for i in range(int(sys.argv[2])):
    r = runner.invoke(cli, ["--db", sys.argv[1], "roll", "bram", "Brawl", "--time", "--dice", str(i % 20 + 1)])
    assert r.exit_code == 0, r.output
"""


def test_cli_process_and_web_writes_at_once_lose_and_duplicate_nothing(tmp_path):
    t = d20_table(str(tmp_path / "ledger.db"))
    before = t.head()
    token = t.link("Dana")
    n = 40
    web_seqs: list[int] = []
    # a device's write limit would stop this bench-like burst: lifted here
    policy = SessionPolicy(burst=10 * n)
    with live_server(t.db, policy=policy) as base, httpx2.Client(base_url=base, timeout=60) as h:
        h.get(f"/a/{token}")
        cli = subprocess.Popen(
            [sys.executable, "-c", WRITER, t.db, str(n)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert cli.stdout is not None and cli.stdin is not None
        assert cli.stdout.readline().strip() == "ready"

        def web() -> None:
            for i in range(n):
                form = h.get("/roll/isa").text  # each form its own one-time nonce
                csrf, nonce = (
                    re.search(f'name="{name}" value="([^"]+)"', form).group(1)  # type: ignore[union-attr]
                    for name in ("csrf", "nonce")
                )
                r = h.post(
                    "/roll/isa",
                    data={"csrf": csrf, "nonce": nonce, "skill": "Lockpicking", "time": "1",
                          "dice": str(i % 20 + 1)},
                    headers={"origin": base},
                )
                assert r.status_code == 303, r.text
                web_seqs.append(int(r.headers["location"].split("#e")[1]))

        writer = threading.Thread(target=web)
        cli.stdin.write("go\n")
        cli.stdin.close()
        writer.start()
        writer.join()
        assert cli.wait(timeout=120) == 0
        cli.stdout.close()
    assert len(web_seqs) == n == len(set(web_seqs))
    log = json.loads(t.ok("--as", "gm", "log", "--json"))
    rolls = [e for e in log if e["seq"] > before]
    assert [e["seq"] for e in rolls] == list(range(before + 1, before + 2 * n + 1))
    assert sorted(e["actor"] for e in rolls) == ["Dana"] * n + ["gm"] * n
    assert {e["seq"] for e in rolls if e["actor"] == "Dana"} == set(web_seqs)
    dana = [e["data"]["draws"][0][1] for e in rolls if e["actor"] == "Dana"]
    assert dana == [i % 20 + 1 for i in range(n)]  # each once, in the order sent
    verified = json.loads(t.ok("verify", "--json"))
    assert verified["ok"]
