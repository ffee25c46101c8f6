"""The webhooks' part of the store contract (:class:`ledger.store.hooks.WebhookKeeper`):
mixed into :class:`ledger.testing.store_contract.EventStoreContract`, so every backend runs it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ledger.store.hooks import DELIVERY_FIELDS, LOG_KEEP, WEBHOOK_FIELDS

if TYPE_CHECKING:
    from ledger.store.protocols import EventStore

T0 = "2026-03-01T19:00:00.000000Z"
T1 = "2026-03-01T19:00:30.000000Z"
T2 = "2026-03-01T19:01:00.000000Z"
T3 = "2026-03-01T19:02:00.000000Z"


class WebhookContract:
    """Hooks added, listed and removed with their secret; the lease (one holder at a time,
    a lapsed lease taken over, a paused hook never claimed); the cursor moved only by the
    lease's holder and only forwards; failures counted and logged; the log bounded."""

    def test_webhooks_are_kept_with_their_secret_apart(self, store: EventStore) -> None:
        a = store.add_webhook("c", "https://x.test/a", "public", "json", b"\x01" * 32, T0, 5)
        b = store.add_webhook("c", "https://x.test/b", "gm", "discord", b"\x02" * 32, T0, 7)
        store.add_webhook("other", "https://x.test/o", "gm", "json", b"\x03" * 32, T0, 0)
        hooks = store.webhooks("c")
        assert [h["id"] for h in hooks] == [a, b]
        assert list(hooks[0]) == list(WEBHOOK_FIELDS) and "secret" not in hooks[0]
        assert (hooks[0]["channel"], hooks[0]["last_seq"], hooks[1]["format"]) == (
            "public",
            5,
            "discord",
        )
        assert store.get_secret("c", a, "webhook") == b"\x01" * 32
        assert store.get_secret("c", b, "webhook") == b"\x02" * 32
        assert store.remove_webhook("c", a) is True
        assert store.remove_webhook("c", a) is False
        assert store.remove_webhook("other", b) is False  # another campaign's id
        assert store.get_secret("c", a, "webhook") is None
        assert [h["id"] for h in store.webhooks("c")] == [b]
        c = store.add_webhook("c", "https://x.test/c", "gm", "json", b"\x04" * 32, T0, 0)
        assert c > b  # a removed hook's id is never given again

    def test_one_lease_holder_moves_the_cursor_forwards_only(self, store: EventStore) -> None:
        h = store.add_webhook("c", "https://x.test/a", "gm", "json", b"\x01" * 32, T0, 0)
        assert store.claim_webhook(h, "one", T0, T2)
        assert not store.claim_webhook(h, "two", T1, T2)  # one holds it until T2
        assert store.claim_webhook(h, "one", T1, T3)  # renewed
        assert not store.advance_webhook(h, "two", 1)  # not the holder: nothing written
        assert store.advance_webhook(h, "one", 1, logged=(T1, 204))
        assert not store.advance_webhook(h, "one", 1)  # never backwards nor twice
        assert store.webhooks("c")[0]["last_seq"] == 1
        assert store.webhook_log(h) == [
            dict(zip(DELIVERY_FIELDS, (1, T1, 204, 1, None), strict=True))
        ]
        store.release_webhook(h, "two")  # not the holder: still held
        assert not store.claim_webhook(h, "two", T1, T2)
        store.release_webhook(h, "one")
        assert store.claim_webhook(h, "two", T1, T2)
        assert store.claim_webhook(h, "one", T3, T3)  # two's lease lapsed at T2

    def test_failures_are_counted_paused_and_resumed(self, store: EventStore) -> None:
        h = store.add_webhook("c", "https://x.test/a", "gm", "json", b"\x01" * 32, T0, 0)
        assert store.claim_webhook(h, "one", T0, T3)
        store.webhook_failed(h, "one", 1, at=T0, status=500, error="HTTP 500",
                             next_attempt_at=T1, pause=False)  # fmt: skip
        store.webhook_failed(h, "one", 1, at=T1, status=None, error="no answer",
                             next_attempt_at=T2, pause=True)  # fmt: skip
        store.webhook_failed(h, "two", 1, at=T1, status=None, error="not mine",
                             next_attempt_at=T2, pause=False)  # fmt: skip
        hook = store.webhooks("c")[0]
        assert (hook["attempts"], hook["failing_since"], hook["next_attempt_at"]) == (2, T0, T2)
        assert (hook["paused_at"], hook["last_error"], hook["last_seq"]) == (T1, "no answer", 0)
        assert [(d["status"], d["attempt"]) for d in store.webhook_log(h)] == [(None, 2), (500, 1)]
        store.release_webhook(h, "one")
        assert not store.claim_webhook(h, "one", T3, T3)  # a paused hook is never claimed
        assert store.resume_webhook("c", h) and not store.resume_webhook("c", h + 99)
        hook = store.webhooks("c")[0]
        assert (hook["paused_at"], hook["attempts"], hook["failing_since"]) == (None, 0, None)
        assert store.claim_webhook(h, "one", T3, T3)

    def test_the_delivery_log_is_bounded(self, store: EventStore) -> None:
        h = store.add_webhook("c", "https://x.test/a", "gm", "json", b"\x01" * 32, T0, 0)
        assert store.claim_webhook(h, "one", T0, T3)
        for seq in range(1, LOG_KEEP + 11):
            assert store.advance_webhook(h, "one", seq, logged=(T1, 200))
        log = store.webhook_log(h, LOG_KEEP + 10)
        assert len(log) == LOG_KEEP and log[0]["seq"] == LOG_KEEP + 10

    def test_a_rotation_keeps_the_previous_secret_until_it_ends(self, store: EventStore) -> None:
        h = store.add_webhook("c", "https://x.test/a", "gm", "json", b"\x01" * 32, T0, 0)
        assert store.end_webhook_rotation("c", h) is False  # nothing to end
        assert store.rotate_webhook("c", h, b"\x02" * 32, T2)
        assert store.rotate_webhook("c", h + 99, b"\x09" * 32, T2) is False
        assert store.rotate_webhook("other", h, b"\x09" * 32, T2) is False  # another campaign's
        assert store.get_secret("c", h, "webhook") == b"\x02" * 32
        assert store.get_secret("c", h, "webhook-previous") == b"\x01" * 32
        assert store.webhooks("c")[0]["rotated_until"] == T2
        assert store.rotate_webhook("c", h, b"\x03" * 32, T3)  # again: the oldest goes
        assert store.get_secret("c", h, "webhook-previous") == b"\x02" * 32
        assert store.end_webhook_rotation("c", h, at=T2) is False  # runs until T3
        assert store.get_secret("c", h, "webhook-previous") == b"\x02" * 32
        assert store.end_webhook_rotation("c", h, at=T3) is True
        assert store.get_secret("c", h, "webhook-previous") is None
        assert store.get_secret("c", h, "webhook") == b"\x03" * 32
        assert store.webhooks("c")[0]["rotated_until"] is None
        assert store.rotate_webhook("c", h, b"\x04" * 32, T3)
        assert store.remove_webhook("c", h)
        assert store.get_secret("c", h, "webhook-previous") is None  # both forgotten
        assert store.get_secret("c", h, "webhook") is None
