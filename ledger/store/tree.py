"""Each campaign's Merkle tree, kept by the store as events are appended, and its signed
checkpoints and their cosignatures.

The tree is RFC 6962 / RFC 9162 section 2.1's over the campaign's events in seq order: leaf
``i`` (seq ``i + 1``) is ``SHA-256(0x00 ‖ the event's 32-byte hash)``, an interior node
``SHA-256(0x01 ‖ left ‖ right)``. The two hash functions are written out here (the store sits
beside :mod:`ledger.trust`, not above it); the store contract
(:class:`ledger.testing.EventStoreContract`) checks the stored roots against
:func:`ledger.trust.merkle.root` of every leaf after random batches, on both backends.

What is stored, per campaign (migration m010, SQLite and PostgreSQL alike):

- ``merkle_frontier``: one row, the tree's size and its compact range (the roots of its
  perfect subtrees, largest first, one per set bit of the size, 32 bytes each, concatenated),
  rewritten once per append batch in the batch's own transaction: O(log n) hashes per event
  and one write per batch, never a rebuild.
- ``merkle_tiles``: the root of every complete, aligned subtree of :data:`TILE_HEIGHTS`
  heights (every 256 leaves: a height-8 root; every 65,536: a height-16 root), so the root of
  any perfect subtree a proof needs is a fold of at most 255 stored hashes (leaves below
  height 8, height-8 tiles below 16, height-16 tiles above): a proof at a million events
  reads a few hundred hashes, never the whole log.
- ``checkpoints``: every signed checkpoint note (size, root, note text, when made).
- ``cosignatures``: each verified cosignature of a checkpoint (cosigner name, key id,
  verifier key, the signature line, when received). The store keeps what it is given; the
  campaign layer verifies before it stores (:mod:`ledger.campaign.checkpoints`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, runtime_checkable

#: The heights whose complete subtrees' roots are stored (``merkle_tiles``).
TILE_HEIGHTS = (8, 16)
HASH_BYTES = 32


def _leaf(event_hash: str) -> bytes:
    """RFC 6962 leaf hash of an event's hex chain hash: ``SHA-256(0x00 ‖ hash)``."""
    return hashlib.sha256(b"\x00" + bytes.fromhex(event_hash)).digest()


def _node(left: bytes, right: bytes) -> bytes:
    """RFC 6962 interior node: ``SHA-256(0x01 ‖ left ‖ right)``."""
    return hashlib.sha256(b"\x01" + left + right).digest()


def fold(hashes: Sequence[bytes]) -> bytes:
    """The root of a perfect subtree whose ``2**k`` nodes of one level are ``hashes`` (left
    to right).

    :raises ValueError: not a power of two of hashes.
    """
    n = len(hashes)
    if n == 0 or n & (n - 1):
        raise ValueError(f"{n} hashes are not one perfect subtree's level")
    level = list(hashes)
    while len(level) > 1:
        level = [_node(level[i], level[i + 1]) for i in range(0, len(level), 2)]
    return level[0]


@dataclass
class Growth:
    """A frontier grown by some leaves: its new size and compact range, and the tiles the
    growth completed as ``(height, index, root)``."""

    size: int
    hashes: list[bytes]
    tiles: list[tuple[int, int, bytes]]


def grow(size: int, hashes: Sequence[bytes], event_hashes: Iterable[str]) -> Growth:
    """Append the leaves of ``event_hashes`` (hex chain hashes, in seq order) to the
    frontier ``(size, hashes)``: O(log n) hashes each.

    :raises ValueError: ``hashes`` that do not fit ``size``.
    """
    if len(hashes) != bin(size).count("1"):
        raise ValueError(f"a tree of {size} leaves has {bin(size).count('1')} subtree roots")
    stack = list(hashes)
    tiles: list[tuple[int, int, bytes]] = []
    sha256, fromhex, pop, push = hashlib.sha256, bytes.fromhex, stack.pop, stack.append
    low = min(TILE_HEIGHTS)
    for h in event_hashes:  # the hot loop of every append: names bound once
        node = sha256(b"\x00" + fromhex(h)).digest()
        n = size
        height = 0
        while n & 1:  # merge with each equal-sized subtree on the right edge
            node = sha256(b"\x01" + pop() + node).digest()
            n >>= 1
            height += 1
            if height >= low and height in TILE_HEIGHTS:
                tiles.append((height, ((size + 1) >> height) - 1, node))
        push(node)
        size += 1
    return Growth(size, stack, tiles)


def _split(blob: bytes | memoryview | None) -> list[bytes]:
    raw = bytes(blob or b"")
    return [raw[i : i + HASH_BYTES] for i in range(0, len(raw), HASH_BYTES)]


#: The fields of a checkpoint row, as :meth:`TreeStore.checkpoints` gives them.
CHECKPOINT_FIELDS = ("campaign", "size", "root", "note", "made_at")
#: The fields of a cosignature row, as :meth:`TreeStore.cosignatures` gives them.
COSIGNATURE_FIELDS = (
    "campaign", "size", "cosigner", "key_id", "vkey", "signature", "received_at",
)  # fmt: skip


@runtime_checkable
class TreeKeeper(Protocol):
    """What the campaign layer needs of the stored tree and checkpoints (part of
    :class:`ledger.store.protocols.EventStore`); :class:`TreeStore` implements it."""

    def tree_frontier(self, campaign: str) -> tuple[int, list[bytes]]:
        """``(size, compact range)`` of the campaign's tree."""
        ...

    def tree_tiles(self, campaign: str, height: int, first: int, count: int) -> list[bytes]:
        """Stored roots of complete height-``height`` subtrees ``first`` on."""
        ...

    def tree_leaves(self, campaign: str, first: int, count: int) -> list[bytes]:
        """Leaf hashes ``first`` to ``first + count - 1``."""
        ...

    def add_checkpoint(
        self, campaign: str, size: int, root: bytes, note: str, made_at: str
    ) -> bool:
        """Keep a signed checkpoint note (the first of a size stays)."""
        ...

    def checkpoints(self, campaign: str, *, size: int | None = None) -> list[dict[str, Any]]:
        """The kept checkpoints, oldest first."""
        ...

    def latest_checkpoint(self, campaign: str) -> dict[str, Any] | None:
        """The newest kept checkpoint, or ``None``."""
        ...

    def add_cosignature(
        self, campaign: str, size: int, cosigner: str, key_id: str, vkey: str,
        signature: str, received_at: str,
    ) -> bool:  # fmt: skip
        """Keep a verified cosignature (once per cosigner key and checkpoint)."""
        ...

    def cosignatures(self, campaign: str, *, size: int | None = None) -> list[dict[str, Any]]:
        """The kept cosignatures."""
        ...


class TreeStore:
    """The Merkle tree, checkpoints and cosignatures of an SQL event store (a mixin of
    :class:`ledger.store.base.SqlEventStore`; the SQL is the same on both backends but for
    the placeholder, :attr:`MARK`). ``root``s and hashes are 32-byte ``bytes``."""

    MARK: ClassVar[str]
    conn: Any

    def lock(self, campaign: str) -> None: ...  # pragma: no cover (SqlEventStore's)

    def _sql(self, text: str) -> str:
        return text.replace("?", self.MARK)

    # --- the frontier, kept by every append --------------------------------------------------

    def _stored_frontier(self, campaign: str) -> tuple[int, list[bytes]]:
        row = self.conn.execute(
            self._sql("select size, hashes from merkle_frontier where campaign = ?"), (campaign,)
        ).fetchone()
        return (int(row[0]), _split(row[1])) if row else (0, [])

    def _grow_tree(
        self,
        campaign: str,
        rows: Sequence[Sequence[Any]],
        stored: tuple[int, list[bytes]] | None = None,
    ) -> None:
        """Add the just-written ``rows`` (chained rows of one campaign, in seq order) to its
        tree: one frontier write per batch, plus any tiles they complete. Call inside the
        transaction that writes them. ``stored``: the stored frontier, when the caller has
        read it already (PostgreSQL reads it with the head).

        A frontier behind the rows' first seq (a ledger from before m010 that missed its
        fill, an import's earlier chunk) is caught up from the stored hashes first.
        """
        if not rows:
            return
        first = int(rows[0][0])
        size, hashes = self._frontier_before(campaign, first, str(rows[0][10]), stored)
        hashes_of = [str(r[11]) for r in rows]
        if first - 1 < size:  # rows the tree already holds (never expected): keep the tree
            skip = size - (first - 1)
            hashes_of = hashes_of[skip:]
        elif first - 1 > size:
            missing = [str(h) for (h,) in self._event_hashes(campaign, size, first - 1)]
            hashes_of = missing + hashes_of
        grown = grow(size, hashes, hashes_of)
        self._save_growth(campaign, grown)
        last = rows[-1]
        if int(last[0]) == grown.size:  # what the next append of this campaign starts from
            self._frontier_cache()[campaign] = (
                grown.size, str(last[11]), grown.hashes, getattr(self, "rollbacks", 0),
            )  # fmt: skip

    def _frontier_cache(self) -> dict[str, tuple[int, str, list[bytes], int]]:
        """``{campaign: (size, hash of the event at seq size, compact range, rollbacks)}``:
        the frontier this connection last wrote, per campaign."""
        cache: dict[str, tuple[int, str, list[bytes], int]] | None
        cache = self.__dict__.get("_frontiers")
        if cache is None:
            cache = self.__dict__["_frontiers"] = {}
        return cache

    def _frontier_fits(self, campaign: str, size: int, last_hash: str) -> bool:
        """Is the frontier this connection wrote last the campaign's tree of ``size`` events,
        the last of them hashed ``last_hash`` (a hash covers every event before it, so the
        tree is the same), with no transaction rolled back since?"""
        cached = self._frontier_cache().get(campaign)
        return (
            cached is not None
            and cached[0] == size
            and cached[1] == last_hash
            and cached[3] == getattr(self, "rollbacks", 0)
        )

    def _frontier_before(
        self,
        campaign: str,
        first: int,
        prev_hash: str,
        stored: tuple[int, list[bytes]] | None = None,
    ) -> tuple[int, list[bytes]]:
        """The stored frontier rows from seq ``first`` (whose first row's ``prev_hash`` is
        given) grow: the one this connection wrote last when it fits
        (:meth:`_frontier_fits`; one read per append batch saved); else ``stored``, or
        read."""
        if self._frontier_fits(campaign, first - 1, prev_hash):
            cached = self._frontier_cache()[campaign]
            return cached[0], list(cached[2])
        return stored if stored is not None else self._stored_frontier(campaign)

    def _save_growth(self, campaign: str, grown: Growth) -> None:
        self.conn.execute(
            self._sql(
                "insert into merkle_frontier (campaign, size, hashes) values (?, ?, ?) "
                "on conflict (campaign) do update set size = excluded.size, "
                "hashes = excluded.hashes"
            ),
            (campaign, grown.size, b"".join(grown.hashes)),
        )
        for height, index, root in grown.tiles:
            self.conn.execute(
                self._sql(
                    "insert into merkle_tiles (campaign, height, idx, hash) values (?, ?, ?, ?) "
                    "on conflict do nothing"
                ),
                (campaign, height, index, root),
            )

    def _grow_trees(self, rows: Sequence[Sequence[Any]]) -> None:
        """:meth:`_grow_tree` for rows of any campaigns (an import's or a copy's chunk)."""
        by_campaign: dict[str, list[Sequence[Any]]] = {}
        for row in rows:
            by_campaign.setdefault(str(row[1]), []).append(row)
        for campaign, mine in by_campaign.items():
            self._grow_tree(campaign, sorted(mine, key=lambda r: int(r[0])))

    def _event_hashes(self, campaign: str, after: int, upto: int) -> list[tuple[str]]:
        return list(
            self.conn.execute(
                self._sql(
                    "select hash from events where campaign = ? and seq > ? and seq <= ? "
                    "order by seq"
                ),
                (campaign, after, upto),
            )
        )

    def rebuild_tree(self, campaign: str) -> int:
        """Build the campaign's tree from its stored event hashes (O(n), once: migration
        m010 on an existing ledger). Call inside a transaction; returns the tree's size."""
        self._frontier_cache().pop(campaign, None)
        self.conn.execute(self._sql("delete from merkle_frontier where campaign = ?"), (campaign,))
        self.conn.execute(self._sql("delete from merkle_tiles where campaign = ?"), (campaign,))
        size, hashes = 0, list[bytes]()
        page = 50_000
        while True:
            chunk = self._event_hashes(campaign, size, size + page)
            if not chunk:
                break
            grown = grow(size, hashes, [h for (h,) in chunk])
            self._save_growth(campaign, grown)
            size, hashes = grown.size, grown.hashes
        return size

    # --- reading the tree ------------------------------------------------------------------

    def tree_frontier(self, campaign: str) -> tuple[int, list[bytes]]:
        """``(size, compact range)`` of the campaign's tree: its size (the head's seq) and
        the roots of its perfect subtrees, largest first. One read; when the stored frontier
        is behind the head (a file written before m010 opened read-only), the missing leaves
        are added in memory."""
        self.lock(campaign)
        size, hashes = self._stored_frontier(campaign)
        row = self.conn.execute(
            self._sql("select max(seq) from events where campaign = ?"), (campaign,)
        ).fetchone()
        head = int(row[0] or 0) if row else 0
        if head > size:
            grown = grow(size, hashes, [h for (h,) in self._event_hashes(campaign, size, head)])
            return grown.size, grown.hashes
        return size, hashes

    def tree_tiles(self, campaign: str, height: int, first: int, count: int) -> list[bytes]:
        """The stored roots of the height-``height`` subtrees ``first`` to ``first + count
        - 1`` (each covers leaves ``i * 2**height`` to ``(i + 1) * 2**height - 1``), in
        order; fewer when some are not stored (the caller folds lower levels instead)."""
        rows = self.conn.execute(
            self._sql(
                "select hash from merkle_tiles where campaign = ? and height = ? "
                "and idx >= ? and idx < ? order by idx"
            ),
            (campaign, height, first, first + count),
        )
        return [bytes(r[0]) for r in rows]

    def tree_leaves(self, campaign: str, first: int, count: int) -> list[bytes]:
        """The leaf hashes of leaves ``first`` to ``first + count - 1`` (seqs ``first + 1``
        on), read from the events' stored hashes."""
        return [_leaf(h) for (h,) in self._event_hashes(campaign, first, first + count)]

    # --- checkpoints and cosignatures --------------------------------------------------------

    def add_checkpoint(
        self, campaign: str, size: int, root: bytes, note: str, made_at: str
    ) -> bool:
        """Keep a signed checkpoint note; a second note of the same size is not kept (the
        first stays). Call inside a transaction. Returns whether it was kept."""
        cursor = self.conn.execute(
            self._sql(
                "insert into checkpoints (campaign, size, root, note, made_at) "
                "values (?, ?, ?, ?, ?) on conflict do nothing"
            ),
            (campaign, size, root, note, made_at),
        )
        return int(cursor.rowcount) == 1

    def checkpoints(self, campaign: str, *, size: int | None = None) -> list[dict[str, Any]]:
        """Every kept checkpoint of the campaign (or the one of ``size``), oldest first, as
        ``{"campaign", "size", "root" (bytes), "note", "made_at"}``."""
        sql = f"select {', '.join(CHECKPOINT_FIELDS)} from checkpoints where campaign = ?"
        args: list[Any] = [campaign]
        if size is not None:
            sql += " and size = ?"
            args.append(size)
        rows = self.conn.execute(self._sql(sql + " order by size"), args)
        return [_checkpoint_row(r) for r in rows]

    def latest_checkpoint(self, campaign: str) -> dict[str, Any] | None:
        """The newest (largest) kept checkpoint, or ``None``."""
        row = self.conn.execute(
            self._sql(
                f"select {', '.join(CHECKPOINT_FIELDS)} from checkpoints where campaign = ? "
                "order by size desc limit 1"
            ),
            (campaign,),
        ).fetchone()
        return _checkpoint_row(row) if row else None

    def add_cosignature(
        self, campaign: str, size: int, cosigner: str, key_id: str, vkey: str,
        signature: str, received_at: str,
    ) -> bool:  # fmt: skip
        """Keep a (verified) cosignature of the checkpoint of ``size``; the same cosigner's
        key signing the same checkpoint again is kept once. Returns whether it was new."""
        cursor = self.conn.execute(
            self._sql(
                "insert into cosignatures (campaign, size, cosigner, key_id, vkey, signature, "
                "received_at) values (?, ?, ?, ?, ?, ?, ?) on conflict do nothing"
            ),
            (campaign, size, cosigner, key_id, vkey, signature, received_at),
        )
        return int(cursor.rowcount) == 1

    def cosignatures(self, campaign: str, *, size: int | None = None) -> list[dict[str, Any]]:
        """The kept cosignatures (of one checkpoint's ``size``, or all), by size then when
        received, as dicts of :data:`COSIGNATURE_FIELDS`."""
        sql = f"select {', '.join(COSIGNATURE_FIELDS)} from cosignatures where campaign = ?"
        args: list[Any] = [campaign]
        if size is not None:
            sql += " and size = ?"
            args.append(size)
        rows = self.conn.execute(self._sql(sql + " order by size, received_at, cosigner"), args)
        return [dict(zip(COSIGNATURE_FIELDS, r, strict=True)) for r in rows]


def _checkpoint_row(r: Sequence[Any]) -> dict[str, Any]:
    row = dict(zip(CHECKPOINT_FIELDS, r, strict=True))
    row["root"] = bytes(row["root"])
    row["size"] = int(row["size"])
    return row


# --- migration m010: the tables, the wider secrets kinds, the trees of existing ledgers -----

#: The tables of m010, ``{blob}`` standing for the backend's bytes type and ``{text}`` for
#: its key text type.
M010_TABLES = (
    "create table merkle_frontier (campaign {text} primary key, size bigint not null, "
    "hashes {blob} not null)",
    "create table merkle_tiles (campaign {text}, height integer not null, idx bigint not null, "
    "hash {blob} not null, primary key (campaign, height, idx))",
    "create table checkpoints (campaign {text}, size bigint not null, root {blob} not null, "
    "note text not null, made_at text not null, primary key (campaign, size))",
    "create table cosignatures (campaign {text}, size bigint not null, cosigner text not null, "
    "key_id text not null, vkey text not null, signature text not null, "
    "received_at text not null, primary key (campaign, size, vkey))",
)
#: The kinds a secret may have from m010: a session's seed, a downtime seed, and the
#: campaign's checkpoint signing key (``"checkpoint"``, session 0).
SECRET_KINDS = ("session", "downtime", "checkpoint")


def fill_trees(conn: Any, mark: str) -> None:
    """Build every campaign's tree from its stored events (m010 on an existing ledger: O(n)
    once), through a bare connection ``conn`` whose placeholder is ``mark``."""

    filler = TreeStore()
    filler.conn = conn
    filler.MARK = mark  # type: ignore[misc]
    for (campaign,) in list(conn.execute("select distinct campaign from events")):
        filler.rebuild_tree(str(campaign))
