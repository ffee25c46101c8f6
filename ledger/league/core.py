"""A league: many tables, one record of every character's chronicle.

The league keeps its log on the ledger's own event store (a SQLite file or PostgreSQL),
as one "campaign" whose id is ``league-<name>``:

- ``league.created`` (its name and its own checkpoint key), ``league.trusted`` (a member
  table's checkpoint key: the keyring), on the league's own stream;
- ``league.accepted``: a chronicle entry accepted, on the stream of its passport id (the
  character), so the stream's version is the number of entries accepted and optimistic
  concurrency is the rule: an entry is appended only at the version it was checked against,
  and it must extend the newest entry of that stream (its ``previous`` is that entry's hash);
- ``league.refused``: an entry refused for a conflict (two tables at once, a passport cut
  short), kept as evidence with the league's entry it conflicts with.

Its log is a C2SP checkpointed log like a table's (RFC 6962 tree kept by the store, signed
notes): :meth:`League.checkpoint`.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgspec

from ledger.errors import ConflictError
from ledger.events import Event
from ledger.store.protocols import Pending
from ledger.trust import chronicle, merkle
from ledger.trust.chronicle import EntryError
from ledger.trust.notes import Checkpoint, NoteError, Signer, Verifier, open_note, sign

if TYPE_CHECKING:
    from ledger.store.protocols import EventStore

KEY_KIND = "checkpoint"
LEAGUE_STREAM = "league"


class LeagueCreated(Event, frozen=True, kw_only=True, tag="league.created"):
    """A league: its name and the verifier key of its checkpoints."""

    league: str
    name: str
    vkey: str


class MemberTrusted(Event, frozen=True, kw_only=True, tag="league.trusted"):
    """A member table's checkpoint verifier key joins the keyring."""

    league: str
    vkey: str


class EntryAccepted(Event, frozen=True, kw_only=True, tag="league.accepted"):
    """A chronicle entry accepted: ``character`` is its passport id (the stream)."""

    character: str
    table: str
    session: int
    hash: str
    previous: str
    note: str


class EntryRefused(Event, frozen=True, kw_only=True, tag="league.refused"):
    """An entry refused for a conflict, kept as evidence: the entry, why, and the league's
    entry it conflicts with (its note)."""

    league: str
    passport: str
    note: str
    problem: str
    conflict: str


LEAGUE_EVENTS: tuple[type[Event], ...] = (LeagueCreated, MemberTrusted, EntryAccepted, EntryRefused)


class LeagueError(ValueError):
    """A league command refused (no such league, a malformed key): ``str()`` says why."""


@dataclass(frozen=True)
class Verdict:
    """What the league said of a submitted entry.

    :ivar status: ``"accepted"``, ``"known"`` (this very entry was accepted before: a
        table submitting again), or ``"refused"``.
    :ivar problem: why it was refused (one line naming which cheat), else ``""``.
    :ivar conflict: the league's entry it conflicts with (a signed note), else ``""``.
    """

    status: str
    problem: str = ""
    conflict: str = ""
    seq: int = 0

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "status": self.status,
            "problem": self.problem,
            "conflict": self.conflict,
            "seq": self.seq,
        }


#: How many times an entry that lost a race is read again before it is refused.
TRIES = 5
_LAST_SEQ = 2**63 - 1
_ACCEPTED = msgspec.json.Decoder(EntryAccepted)


def _text(note: str) -> str:
    return note[: note.rfind("\n\n") + 1]


def league_id(name: str) -> str:
    """The store's id of league ``name``."""
    return f"league-{name}"


@dataclass(frozen=True)
class Checked:
    """A submitted entry whose signature verified: the note, its parsed entry, its hash."""

    note: str
    entry: Any
    digest: str


class League:
    """One league on an event store (module docstring).

    :param keys: a keyring cache to share between the leagues of several stores (one per
        thread) of one process: ``{table name: verifier}``, read again from the store when
        a table is not in it. ``None``: this league's own.
    :param vkey: the league's checkpoint key when known (its ``league.created`` is then not
        read again).
    :raises LeagueError: no league of that name in the store.
    """

    def __init__(
        self, store: EventStore, name: str, *, keys: dict[str, Verifier] | None = None,
        vkey: str | None = None,
    ) -> None:  # fmt: skip
        self.store = store
        self.name = name
        self.id = league_id(name)
        self._keys: dict[str, Verifier] = {} if keys is None else keys
        if vkey is None:
            row = store.last_of_types(self.id, ["league.created"])
            if row is None:
                raise LeagueError(
                    f"no league {name!r} here: `campaign league init {name}` makes one"
                )
            vkey = str(msgspec.json.decode(row.data)["vkey"])
        self.vkey = vkey

    @classmethod
    def init(cls, store: EventStore, name: str, *, at: str) -> League:
        """Make league ``name`` and its checkpoint key (kept with the store's secrets).

        :raises LeagueError: a bad name, or a league of that name exists.
        """
        if not name or any(c.isspace() or c in "+/" for c in name):
            raise LeagueError("a league's name has no spaces, '+' or '/'")
        if store.last_of_types(league_id(name), ["league.created"]) is not None:
            raise LeagueError(f"league {name!r} exists already")
        signer = Signer(f"campaign-ledger-league/{name}", secrets.token_bytes(32))
        with store.transaction():
            store.put_secret(league_id(name), 0, signer.seed, KEY_KIND)
            store.append(
                league_id(name),
                [Pending(LeagueCreated(league=name, name=name, vkey=signer.verifier.key()))],
                actor="league", recorded_at=at, session=None,
            )  # fmt: skip
        return cls(store, name)

    def trust(self, vkey: str, *, at: str) -> str:
        """Add a member table's checkpoint key to the keyring; its name.

        :raises LeagueError: a malformed key.
        """
        try:
            verifier = Verifier.parse(vkey.strip())
        except NoteError as e:
            raise LeagueError(f"that is not a table's verifier key: {e}") from None
        if verifier.key() not in {v.key() for v in self.keyring().values()}:
            self.store.append(
                self.id, [Pending(MemberTrusted(league=self.name, vkey=verifier.key()))],
                actor="league", recorded_at=at, session=None,
            )  # fmt: skip
        return verifier.name

    def keyring(self) -> dict[str, Verifier]:
        """The member tables' keys by name (read from the store)."""
        out: dict[str, Verifier] = {}
        for (data,) in self.store.rows(self.id, types=["league.trusted"], columns="data"):
            v = Verifier.parse(str(msgspec.json.decode(data)["vkey"]))
            out[v.name] = v
        return out

    def _member(self, table: str) -> Verifier | None:
        """``table``'s key: from the cache, else the keyring read again (a table trusted
        since); ``None``: not a member. A keyring only grows, so a cached key stays right."""
        found = self._keys.get(table)
        if found is None:
            self._keys.update(self.keyring())
            found = self._keys.get(table)
        return found

    def accepted(self, passport: str) -> list[EntryAccepted]:
        """The entries accepted for ``passport``, oldest first."""
        decode = msgspec.json.Decoder(EntryAccepted).decode
        return [
            decode(data)
            for (data,) in self.store.rows(
                self.id, stream=passport, types=["league.accepted"], columns="data"
            )
        ]

    def newest(self, passport: str) -> tuple[int, EntryAccepted | None]:
        """How many entries are accepted for ``passport`` (its stream's version) and the
        newest of them (``None``: none), in one backward index seek whatever the career's
        length."""
        # ``upto``: one row is one page, so no head need be read first to cap the pages
        for version, data in self.store.rows(
            self.id, stream=passport, types=["league.accepted"], descending=True, limit=1,
            upto=_LAST_SEQ, columns="version, data",
        ):  # fmt: skip
            return int(version), _ACCEPTED.decode(data)
        return 0, None

    def head(self, passport: str) -> EntryAccepted | None:
        """The newest entry accepted for ``passport``, or ``None``."""
        return self.newest(passport)[1]

    def check_head(self, passport: str, head: str) -> str | None:
        """``None`` when a passport whose last entry is ``head`` is the league's newest for
        its character (or the league knows none of it), else why not (one line)."""
        newest = self.head(passport)
        if newest is None or newest.hash == head:
            return None
        if any(e.hash == head for e in self.accepted(passport)):
            return (
                f"the passport was cut short: the league's newest entry for it is session "
                f"{newest.session} signed by {newest.table}"
            )
        return "the passport's last entry is not one the league accepted: submit it first"

    def check(self, note: str) -> Checked | Verdict:
        """The first half of :meth:`submit`, which reads nothing but the keyring: ``note``
        parsed and its signature verified by its table's key, or the verdict refusing it.

        :raises LeagueError: not a signed chronicle entry.
        """
        try:
            entry = chronicle.parse(_text(note))
        except EntryError as e:
            raise LeagueError(f"that is not a chronicle entry: {e}") from None
        verifier = self._member(entry.table)
        if verifier is None:
            return Verdict("refused", f"the table {entry.table} is not a member of the league")
        try:
            open_note(note, [verifier])
        except NoteError as e:
            return Verdict("refused", f"the entry's signature does not verify ({e})")
        return Checked(note, entry, entry.hash())

    def submit(self, note: str, *, at: str) -> Verdict:
        """Accept ``note`` (a signed chronicle entry) if it extends its character's newest
        entry, else refuse it naming why; a conflict is kept as evidence.

        Its cost does not grow with the character's career: the newest entry is read by one
        index seek and the entry appended at that stream version (two round trips on
        PostgreSQL); only a refusal reads the whole record, to name the conflict.

        :raises LeagueError: not a signed chronicle entry (nothing kept).
        """
        checked = self.check(note)
        if isinstance(checked, Verdict):
            return checked
        return self.commit([checked], at=at)[0]

    def commit(
        self, items: list[Checked], *, at: str,
        read: dict[int, tuple[int, EntryAccepted | None]] | None = None,
    ) -> list[Verdict]:  # fmt: skip
        """The verdicts on entries :meth:`check` passed, the accepted ones appended
        together: one append for every character's next entry (each at the stream version
        it was read at, so a race with another writer is still refused by the store), then
        the entries of a character that came twice, in turn. A batch that lost a race is
        decided again entry by entry, each read again (at most :data:`TRIES` times). The
        append's actor is the table when every entry appended is one table's, else
        ``"league"`` (each ``league.accepted`` names its table).

        :param read: ``{index in items: what :meth:`newest` gave for its character}`` read
            beforehand (by the submitting threads, at once); each is used in the entry's
            first round only, and an entry it does not let extend is read again before a
            verdict. Missing: read here.
        :raises StoreError: the store failed (nothing of that round kept).
        """
        read = dict(read or {})
        verdicts: list[Verdict | None] = [None] * len(items)
        order = list(range(len(items)))
        tries = 0
        while order:
            now: list[int] = []
            later: list[int] = []
            seen: set[str] = set()
            for i in order:  # a character once per round: its second entry may extend its first
                (later if items[i].entry.passport in seen else now).append(i)
                seen.add(items[i].entry.passport)
            got = self._round([items[i] for i in now], at, [read.pop(i, None) for i in now])
            if got is None and len(now) > 1:  # another writer moved one of them: one by one
                for i in now:
                    verdicts[i] = self.commit([items[i]], at=at)[0]
            elif got is None:
                tries += 1
                if tries < TRIES:
                    later = now + later  # read again: the entry may now conflict
                else:
                    verdicts[now[0]] = Verdict(
                        "refused", "the character's record is changing too fast: submit again"
                    )
            else:
                for i, verdict in zip(now, got, strict=True):
                    verdicts[i] = verdict
            order = later
        return [v for v in verdicts if v is not None]

    def _round(
        self, items: list[Checked], at: str, read: list[tuple[int, EntryAccepted | None] | None]
    ) -> list[Verdict] | None:
        """Verdicts on entries of distinct characters, the accepted appended together;
        ``None``: another writer extended one of them first (nothing appended)."""
        verdicts: list[Verdict | None] = [None] * len(items)
        accept: list[int] = []
        expected: dict[str, int] = {}
        for i, item in enumerate(items):
            for fresh in (False, True):
                ahead = None if fresh else read[i]
                version, newest = ahead if ahead is not None else self.newest(item.entry.passport)
                if newest is not None and newest.hash == item.digest:
                    verdicts[i] = Verdict("known", "this entry was accepted already", seq=version)
                elif item.entry.previous == (newest.hash if newest else chronicle.NO_PREVIOUS):
                    accept.append(i)
                    expected[item.entry.passport] = version
                elif fresh or read[i] is None:
                    verdicts[i] = self._conflict(item, at)
                else:
                    continue  # read beforehand: it may have moved since; read it again
                break
        if accept:
            try:
                stored = self.store.append(
                    self.id,
                    [Pending(EntryAccepted(
                        character=items[i].entry.passport, table=items[i].entry.table,
                        session=items[i].entry.session, hash=items[i].digest,
                        previous=items[i].entry.previous, note=items[i].note,
                    )) for i in accept],
                    actor=items[accept[0]].entry.table if len(accept) == 1 else "league",
                    recorded_at=at, session=None, expected_versions=expected,
                )  # fmt: skip
            except ConflictError:
                return None
            for i, row in zip(accept, stored, strict=True):
                verdicts[i] = Verdict("accepted", seq=row.seq)
        return [v for v in verdicts if v is not None]

    def _conflict(self, item: Checked, at: str) -> Verdict:
        """The verdict on an entry that does not extend its character's newest: ``known``
        when the league accepted it before, else refused naming why (the whole record
        read: a refusal is rare, and names what it conflicts with)."""
        known = self.accepted(item.entry.passport)
        for i, old in enumerate(known):
            if old.hash == item.digest:
                return Verdict("known", "this entry was accepted already", seq=i + 1)
        return self._refuse(item.entry, item.note, known, at)

    def _refuse(self, entry: Any, note: str, known: list[EntryAccepted], at: str) -> Verdict:
        if known and known[-1].previous == entry.previous:  # both extend the same entry
            rival = known[-1]
            problem = (
                f"{entry.name} was played at two tables at once: this entry (session "
                f"{entry.session}, {entry.table}) and the league's (session {rival.session}, "
                f"{rival.table}) extend the same entry"
            )
        elif any(e.hash == entry.previous for e in known):
            rival = known[-1]
            problem = (
                f"{entry.name}'s passport was cut short: this entry extends an older entry "
                f"than the league's newest (session {rival.session}, {rival.table})"
            )
        else:
            return Verdict(
                "refused",
                f"this entry extends one the league has not seen: submit {entry.name}'s "
                "earlier entries first",
            )
        self.store.append(
            self.id,
            [Pending(EntryRefused(league=self.name, passport=entry.passport, note=note,
                                  problem=problem, conflict=rival.note))],
            actor=entry.table, recorded_at=at, session=None,
        )  # fmt: skip
        return Verdict("refused", problem, rival.note)

    def refused(self, table: str | None = None) -> list[dict[str, str]]:
        """The refused entries kept as evidence (each with the entry it conflicts with),
        those of ``table`` (as submitter or as the other side) when given."""
        out = []
        decode = msgspec.json.Decoder(EntryRefused).decode
        for (data,) in self.store.rows(self.id, types=["league.refused"], columns="data"):
            r = decode(data)
            tables = {
                chronicle.parse(_text(r.note)).table,
                chronicle.parse(_text(r.conflict)).table,
            }
            if table is None or table in tables:
                out.append({"passport": r.passport, "problem": r.problem, "entry": r.note,
                            "conflict": r.conflict})  # fmt: skip
        return out

    def consistency(self, old: int, new: int) -> list[bytes]:
        """The consistency proof (RFC 9162) from the league's log of ``old`` events to that
        of ``new``, read from the tree the store keeps (O(log n) reads).

        :raises RuleError: sizes outside the log.
        """
        from ledger.history.tree_proofs import consistency

        return consistency(self.store, self.id, old, new).proof

    def checkpoint(self) -> str:
        """A signed checkpoint (C2SP) of the league's log as it is now (kept)."""
        with self.store.transaction():
            size, hashes = self.store.tree_frontier(self.id)
            kept = self.store.checkpoints(self.id, size=size)
            if kept:
                return str(kept[0]["note"])
            seed = self.store.get_secret(self.id, 0, KEY_KIND)
            if seed is None:
                raise LeagueError(f"league {self.name!r}'s checkpoint key is not on this ledger")
            signer = Signer(f"campaign-ledger-league/{self.name}", seed)
            root = merkle.Frontier(size, hashes).root()
            note = sign(Checkpoint(signer.name, size, root).text(), signer)
            self.store.add_checkpoint(self.id, size, root, note, "")
            return note
