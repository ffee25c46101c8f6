"""``applying_seq()`` (a class, and a fold writes one cell per event instead of a
ContextVar set and reset per event) says the seq being applied, only there: nested blocks
restore the outer seq, another thread never sees it, and a fold leaves it as it found it."""

from __future__ import annotations

import threading

from ledger.rules.projection import Corrections, Projector, applying, applying_seq


def test_applying_sets_and_restores():
    assert applying_seq() is None
    with applying(5):
        assert applying_seq() == 5
        with applying(None):
            assert applying_seq() is None
        with applying(7):
            assert applying_seq() == 7
        assert applying_seq() == 5
    assert applying_seq() is None


def test_another_thread_does_not_see_it():
    seen: list[int | None] = []
    with applying(3):
        t = threading.Thread(target=lambda: seen.append(applying_seq()))
        t.start()
        t.join()
        assert applying_seq() == 3
    assert seen == [None]


def test_a_fold_gives_each_applier_its_seq_and_restores_the_outer():
    import types

    from ledger.codec import Codec, encode_data
    from ledger.events import CharacterCreated, NoteAdded, StoredEvent, stream_of

    events = [
        CharacterCreated(character="ana", name="Ana", sheet={}),
        NoteAdded(text="a", character="ana"),
        NoteAdded(text="b"),  # the campaign stream: every character
        NoteAdded(text="c", character="ana"),
    ]
    rows = [
        StoredEvent(
            seq,
            "c",
            stream_of(e),
            seq,
            "t",
            encode_data(e).decode(),
            "",
            "gm",
            None,
            "public",
            "",
            "",
        )  # fmt: skip
        for seq, e in enumerate(events, start=1)
    ]
    seen: list[tuple[str, int | None]] = []

    def on_note(state, event):
        seen.append((event.text, applying_seq()))
        return state + [event.text]

    system = types.SimpleNamespace(initial_state=lambda cid, name, sheet: [])
    projector = Projector(system, Codec(), {NoteAdded: on_note})  # type: ignore[arg-type]
    steps: list[int | None] = []
    with applying(99):
        states = projector.fold(rows, {}, Corrections(), on_step=lambda s, _: steps.append(
            applying_seq()))  # fmt: skip
        assert applying_seq() == 99
    assert applying_seq() is None
    assert states == {"ana": ["a", "b", "c"]}
    assert seen == [("a", 2), ("b", 3), ("c", 4)]
    assert steps == [99, 99, 99, 99]  # between events: the outer seq, as before
