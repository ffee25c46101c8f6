"""verify reads a whole ledger in flat memory: the scan runs outside the store's memory map,
which comes back after it (even when the scan fails), and what is kept per event is each
seq's stream, found again by seq for a correction."""

from __future__ import annotations

from pathlib import Path

import pytest

from ledger.rules.results import StreamsBySeq
from ledger.store.sqlite import MMAP_BYTES, Store


def mmap_size(store: Store) -> int:
    return int(store.conn.execute("pragma mmap_size").fetchone()[0])


def test_unmapped_turns_the_map_off_inside_and_back_on_after(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "l.db"))
    assert mmap_size(store) == MMAP_BYTES
    with store.unmapped():
        assert mmap_size(store) == 0
    assert mmap_size(store) == MMAP_BYTES
    with pytest.raises(RuntimeError), store.unmapped():
        raise RuntimeError("a scan that fails")
    assert mmap_size(store) == MMAP_BYTES
    store.close()


def test_streams_by_seq_answers_each_seq_fed_and_none_elsewhere() -> None:
    streams = StreamsBySeq()
    streams.put(1, "campaign")
    streams.put(2, "isa")
    streams.put(5, "isa")  # 3 and 4 not fed (a player's stubs)
    streams.put(6, "bram")
    assert [streams.get(s) for s in range(0, 8)] == [
        None, "campaign", "isa", None, None, "isa", "bram", None
    ]  # fmt: skip
    assert streams.get(-1) is None
