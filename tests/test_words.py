"""ledger.history.words: the one place an event becomes a line."""

from __future__ import annotations

from ledger.campaign.aggregate import open_campaign
from ledger.history.words import CORE_WORDS, LogLine, describe, line
from ledger.store.sqlite import Store
from ledger.web.pages import entry


def test_a_line_carries_seq_text_view_and_mark_and_the_web_renders_it_unparsed(
    toy_campaign, db_path
):
    invoke = toy_campaign
    assert invoke("note", "the [7] bridge is out", "--character", "ann").exit_code == 0  # seq 4
    assert invoke("note", "a secret", "--blind").exit_code == 0  # seq 5
    assert invoke("correct", "4", "--reason", "wrong bridge").exit_code == 0
    campaign = open_campaign(Store(db_path))
    corrections = campaign.corrections()
    note, secret = campaign.record(4), campaign.record(5)
    said = line(campaign, note, corrections)
    assert said == LogLine(4, "Ann Vance — Note: the [7] bridge is out", False, "retracted")
    assert str(said) == describe(campaign, note) == "[4] Ann Vance — Note: the [7] bridge is out"
    assert line(campaign, secret, corrections).gm is True
    shown = entry(campaign, note, corrections)  # the web view's entry is the same line
    assert (shown["seq"], shown["text"], shown["gm"], shown["mark"]) == (
        said.seq, said.text, said.gm, said.mark,
    )  # fmt: skip


def test_every_core_event_type_has_words():
    from ledger.events import CORE_EVENT_TYPES, event_tag

    assert {event_tag(t) for t in CORE_EVENT_TYPES} <= set(CORE_WORDS)
