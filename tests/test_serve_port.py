"""``campaign serve`` keeps one port per campaign: a phone remembers what it checked per web
address (port included), so a campaign is served at the port of its first ``serve`` unless
the GM moves it with ``--new-port``; another ``--port`` is used once, with a warning.

The choice is tested as a function (:func:`ledger.cli.address.choose_port`); the command is
run with serving stubbed out (its sockets closed), on ports the system hands out.
"""

from __future__ import annotations

import socket
from typing import Any

import click
import pytest
import uvicorn

from ledger.cli.address import DEFAULT_PORT, PortChoice, choose_port
from ledger.store.opening import open_store

from .webtools import AT, d20_table


@pytest.fixture
def table(tmp_path):
    return d20_table(str(tmp_path / "ledger.db"))


@pytest.fixture
def no_serving(monkeypatch):
    """``campaign serve`` returns instead of serving: each run's sockets are recorded (their
    ports) and closed."""
    runs: list[int] = []

    def run(self: Any, sockets: list[socket.socket] | None = None) -> None:
        runs.append(sockets[0].getsockname()[1] if sockets else -1)
        for sock in sockets or []:
            sock.close()

    monkeypatch.setattr(uvicorn.Server, "run", run)
    return runs


def test_the_port_choice():
    # nothing kept yet: what is asked, the default, or any free one, and kept once bound
    assert choose_port(None, None) == PortChoice(DEFAULT_PORT, keep=True)
    assert choose_port(8765, None) == PortChoice(8765, keep=True)
    assert choose_port(0, None) == PortChoice(0, keep=True)
    assert choose_port(8765, None, new_port=True) == PortChoice(8765, keep=True)
    # kept: the kept port, for no --port, --port 0 and the kept port itself, quietly
    for asked in (None, 0, 8765):
        assert choose_port(asked, 8765) == PortChoice(8765, keep=False)
    assert choose_port(8765, 8765, new_port=True) == PortChoice(8765, keep=False)
    # another port: this once, warned, not kept
    once = choose_port(8767, 8765)
    assert (once.port, once.keep) == (8767, False)
    assert once.warning is not None and "\n" not in once.warning
    assert "kept at port 8765" in once.warning and "new place" in once.warning
    assert "`--port 8767 --new-port`" in once.warning
    # --new-port: moved for good, still warned
    moved = choose_port(8767, 8765, new_port=True)
    assert (moved.port, moved.keep) == (8767, True)
    assert moved.warning and "from port 8765 to port 8767 for good" in moved.warning
    assert "new place" in moved.warning
    fresh = choose_port(0, 8765, new_port=True)
    assert (fresh.port, fresh.keep) == (0, True) and "to a free port" in str(fresh.warning)
    # behind a proxy the players' address is --url's: the warning says what to change
    proxied = choose_port(8767, 8765, behind_url=True)
    assert proxied.warning and "proxy of --url" in proxied.warning
    assert "phones" not in proxied.warning
    with pytest.raises(click.UsageError, match="add --port N"):
        choose_port(None, 8765, new_port=True)


def test_serve_keeps_the_port_of_its_first_run(table, no_serving):
    first = table("serve", "--port", "0")  # a free port, the first time
    assert first.exit_code == 0, first.output
    kept = no_serving[-1]
    assert f"Port {kept} is kept for vault" in first.stdout
    again = table("serve")  # no --port: the kept one, not 8000
    assert again.exit_code == 0, again.output
    assert no_serving[-1] == kept
    assert f"Serving vault at http://127.0.0.1:{kept} " in again.stdout
    assert "is kept for" not in again.stdout and again.stderr == ""
    zero = table("serve", "--port", "0")  # the documented --port 0: still the kept one
    assert zero.exit_code == 0, zero.output
    assert no_serving[-1] == kept

    other = socket.socket()  # a port the system hands out, free again when serve binds it
    other.bind(("127.0.0.1", 0))
    port = other.getsockname()[1]
    other.close()
    once = table("serve", "--port", str(port))
    assert once.exit_code == 0, once.output
    assert no_serving[-1] == port
    warning = once.stderr.strip().splitlines()
    assert warning == [
        f"Warning: this campaign is kept at port {kept}; serving at port {port} this once: "
        "phones treat the new address as a new place and do not recall what they checked "
        f"(`--port {port} --new-port` moves it for good)."
    ]
    back = table("serve")
    assert back.exit_code == 0, back.output
    assert no_serving[-1] == kept
    # access add prints links at the address last served at, the kept one again
    assert table.ok("access", "add", "Kim").startswith(f"Kim: http://127.0.0.1:{kept}/a/")

    moved = table("serve", "--port", str(port), "--new-port")
    assert moved.exit_code == 0, moved.output
    assert f"from port {kept} to port {port} for good" in moved.stderr
    assert f"Port {port} is kept for vault" in moved.stdout
    after = table("serve")
    assert after.exit_code == 0, after.output
    assert no_serving[-1] == port


def test_new_port_without_a_port_is_a_usage_error(table, no_serving):
    table.ok("serve", "--port", "0")
    out = table("serve", "--new-port")
    assert out.exit_code == 2, out.output
    assert "--new-port keeps the --port you give" in out.output and no_serving == [no_serving[0]]


def test_a_busy_kept_port_says_so_in_one_line_with_the_fix(table, no_serving):
    table.ok("serve", "--port", "0")
    kept = no_serving[-1]
    busy = socket.socket()
    busy.bind(("127.0.0.1", kept))
    busy.listen()
    try:
        out = table("serve")
        assert out.exit_code == 1, out.output
        assert out.output.strip().splitlines() == [
            f"Error: port {kept} on 127.0.0.1, where this campaign is kept (phones know it by "
            "its address), is in use (another `campaign serve`?): stop that server, or "
            "`--port N` serves elsewhere this once (phones will treat it as a new place)"
        ]
        assert len(no_serving) == 1
    finally:
        busy.close()


def test_the_port_is_kept_per_campaign_by_both_backends(store_target):
    store = open_store(store_target)
    try:
        assert "m014_serve_port" in store.migrations()
        assert store.serve_port("vault") is None
        store.set_public_url("vault", "http://127.0.0.1:8765", AT)
        assert store.serve_port("vault") is None  # an address, no port kept yet
        store.set_public_url("vault", "http://127.0.0.1:8765", AT, port=8765)
        store.set_public_url("other", "https://other.example.org", AT, port=9000)
        store.set_public_url("vault", "http://127.0.0.1:8767", AT)  # served elsewhere once
        assert store.serve_port("vault") == 8765
        assert store.public_url("vault") == "http://127.0.0.1:8767"
        assert store.serve_port("other") == 9000
        store.set_public_url("vault", "http://127.0.0.1:8767", AT, port=8767)
        assert store.serve_port("vault") == 8767
    finally:
        store.close()
