"""The league's log as C2SP tlog-tiles: the Merkle tree the store keeps, cut into tiles any
web server or mirror can serve as static files.

The tree is the store's own (RFC 6962 over the league's events in seq order:
:mod:`ledger.store.tree`), so a tile is read, never rebuilt:

- ``tile/<L>/<N>``: tile ``N`` of level ``L``, the 256 hashes of tree level ``8·L`` from
  ``256·N``, 32 bytes each; level 0 holds the leaf hashes, level 1 the roots of the stored
  height-8 subtrees, level 2 those of the height-16 ones, higher levels fold the stored
  height-16 roots. ``<N>`` is written in groups of three digits, every group but the last
  prefixed ``x`` (``x001/x234/067``).
- ``tile/<L>/<N>.p/<W>``: the partial tile of the tree's right edge, its first ``W`` hashes
  (1 to 255); still served once that tile is full (its first ``W`` hashes never change),
  so a client holding an older checkpoint reads the tiles of its size.
- ``tile/entries/<N>``: the entry bundle of leaves ``256·N`` on, each entry a big-endian
  16-bit length and the entry (the event's 32-byte chain hash: leaf hash is
  ``SHA-256(0x00 ‖ entry)``); the accepted chronicle entries themselves are read from
  ``GET /characters/{passport}``.

A client that holds a checkpoint of size ``n`` reads the tiles of that size (full tiles, and
the partial ones of its right edge) and recomputes its root: no server is trusted.
"""

from __future__ import annotations

import os
import struct
from typing import TYPE_CHECKING, Any

from ledger.history.tree_proofs import StoredTree
from ledger.store.tree import fold

if TYPE_CHECKING:
    from ledger.store.protocols import EventStore

#: Hashes per tile (tile height 8).
WIDTH = 256
HEIGHT = 8


class TileError(ValueError):
    """No such tile for the tree (a path outside it, or a partial tile of a full one)."""


def encode_index(n: int) -> str:
    """``N`` as tlog-tiles writes it: groups of three digits, all but the last ``x``-prefixed."""
    digits = f"{n:d}"
    digits = "0" * (-len(digits) % 3) + digits
    groups = [digits[i : i + 3] for i in range(0, len(digits), 3)]
    return "/".join([*("x" + g for g in groups[:-1]), groups[-1]])


def decode_index(parts: list[str]) -> int:
    """The tile index of path segments ``["x001", "x234", "067"]``.

    :raises TileError: not that form.
    """
    if not parts or any(len(p) != (4 if i < len(parts) - 1 else 3) for i, p in enumerate(parts)):
        raise TileError("a tile index is groups of three digits, all but the last x-prefixed")
    digits = "".join(p.removeprefix("x") for p in parts[:-1]) + parts[-1]
    if not digits.isdigit() or any(not p.startswith("x") for p in parts[:-1]):
        raise TileError("a tile index is groups of three digits, all but the last x-prefixed")
    return int(digits)


def tile_path(level: int | str, index: int, width: int = WIDTH) -> str:
    """The path of a tile (``level`` ``"entries"`` for an entry bundle)."""
    path = f"tile/{level}/{encode_index(index)}"
    return path if width == WIDTH else f"{path}.p/{width}"


def _level_width(size: int, level: int, index: int) -> int:
    """How many hashes of tile ``index`` of ``level`` the tree of ``size`` leaves holds."""
    nodes = size >> (HEIGHT * level)  # complete nodes at that tree level
    return max(0, min(WIDTH, nodes - index * WIDTH))


def tile(
    store: EventStore, log: str, size: int, level: int, index: int, width: int = WIDTH
) -> bytes:
    """Tile ``index`` of ``level`` (its first ``width`` hashes) of the tree of the log's
    first ``size`` leaves: ``width`` hashes of 32 bytes.

    :raises TileError: the tree of ``size`` leaves does not hold those hashes.
    """
    have = _level_width(size, level, index)
    if not 1 <= width <= min(have, WIDTH):
        raise TileError(f"the tree of {size} leaves has no tile {tile_path(level, index, width)}")
    tree = StoredTree(store, log)
    first = index * WIDTH
    if level == 0:
        return b"".join(store.tree_leaves(log, first, width))
    height = HEIGHT * level
    if height in (8, 16):
        got = store.tree_tiles(log, height, first, width)
        if len(got) == width:
            return b"".join(got)
    out = [tree._perfect((first + i) << height, height) for i in range(width)]  # noqa: SLF001
    return b"".join(out)


def entries(store: EventStore, log: str, size: int, index: int, width: int = WIDTH) -> bytes:
    """Entry bundle ``index`` (its first ``width`` entries) of the tree of ``size`` leaves.

    :raises TileError: as :func:`tile`.
    """
    have = _level_width(size, 0, index)
    if not 1 <= width <= min(have, WIDTH):
        raise TileError(f"the tree of {size} leaves has no {tile_path('entries', index, width)}")
    first = index * WIDTH + 1
    hashes = store.rows(log, after=first - 1, upto=first + width - 1, columns=["hash"])
    return b"".join(struct.pack(">H", 32) + bytes.fromhex(h) for (h,) in hashes)


def paths(size: int) -> list[tuple[int | str, int, int]]:
    """Every tile of the tree of ``size`` leaves as ``(level, index, width)``: the full
    tiles and the partial tiles of its right edge, entry bundles included."""
    out: list[tuple[int | str, int, int]] = []
    level = 0
    while size >> (HEIGHT * level):
        nodes = size >> (HEIGHT * level)
        for index in range((nodes + WIDTH - 1) // WIDTH):
            width = _level_width(size, level, index)
            out.append((level, index, width))
            if level == 0:
                out.append(("entries", index, width))
        if nodes < WIDTH:
            break
        level += 1
    return out


def write_tiles(store: EventStore, log: str, size: int, checkpoint: str, out_dir: str) -> int:
    """Write the ``checkpoint`` file and every tile of the tree of ``size`` leaves under
    ``out_dir``, as a static web server serves them; the number of files written. Tiles
    already there are kept (a full tile never changes); partial tiles are written anew."""
    written = 0
    for level, index, width in paths(size):
        path = os.path.join(out_dir, tile_path(level, index, width))
        if width == WIDTH and os.path.exists(path):
            continue
        body = (
            entries(store, log, size, index, width)
            if level == "entries"
            else tile(store, log, size, int(level), index, width)
        )
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path + ".tmp", "wb") as f:
            f.write(body)
        os.replace(path + ".tmp", path)
        written += 1
    with open(os.path.join(out_dir, "checkpoint.tmp"), "w", encoding="utf-8") as f:
        f.write(checkpoint)
    os.replace(os.path.join(out_dir, "checkpoint.tmp"), os.path.join(out_dir, "checkpoint"))
    return written + 1


def root_from_tiles(read: Any, size: int) -> bytes:
    """The root of the tree of ``size`` leaves, from tiles alone: ``read(path) -> bytes``
    (a mirror's files, or HTTP). What a client does to hold a league to a checkpoint.

    :raises TileError: a tile of the wrong length.
    """
    from ledger.trust import merkle

    if size == 0:
        return merkle.EMPTY_ROOT
    hashes: list[bytes] = []  # the frontier: perfect subtrees, largest first
    start = 0
    for height in range(size.bit_length() - 1, -1, -1):
        if size & (1 << height):
            level, rest = divmod(height, HEIGHT)
            index = start >> (HEIGHT * level)  # node index at tree level 8·level
            tile_index, offset = divmod(index, WIDTH)
            count = 1 << rest
            width = _level_width(size, level, tile_index)
            data = read(tile_path(level, tile_index, width))
            if len(data) != 32 * width:
                raise TileError(f"{tile_path(level, tile_index, width)} is not {width} hashes")
            nodes = [data[32 * i : 32 * i + 32] for i in range(offset, offset + count)]
            hashes.append(fold(nodes))
            start += 1 << height
    return merkle.Frontier(size, hashes).root()
