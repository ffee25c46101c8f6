"""Verification: the hash chain, the sessions' seeds and every engine roll.

:func:`verify_rows` checks rows in the order they are stored or exported, exactly as an
outside verifier holding only the export would (docs/events.md "Checking an export by hand"):

- ``seq`` runs 1, 2, 3, ... without gaps; each ``prev_hash`` is the previous ``hash``
  (64 zeros first); each ``hash`` is recomputed from the canonical envelope; each stream's
  ``version`` runs 1, 2, 3, ... (in a player's copy a stream may skip as many versions as
  the stubs before could hold, and an engine roll as many nonces);
- sessions start once each, numbered 1, 2, 3, ..., never while another is open, and close
  once (``session.ended`` or ``session.abandoned``); each ``session.ended`` reveal hashes to
  its ``session.started`` commitment (:func:`session_problem`);
- every event's type is a core type or one of the campaign's rule system (named by
  ``campaign.created``), read from the decoded payload, never from byte patterns;
- a downtime seed is committed once after its session closes, and revealed (or abandoned)
  before the next session starts (:func:`downtime_problem`);
- every engine roll is drawn from a seed not yet revealed: a ``ledger-roll-v1`` roll inside
  its open session, a ``ledger-downtime-v1`` roll (advancement) before its downtime seed's
  reveal; once the seed is revealed, each has the next nonce and the draws the seed gives
  (:func:`engine_roll_problem`); a roll drawn after the reveal is refused. Rolls of an open session are counted in
  ``unverifiable_rolls`` (verifiable once the session ends), rolls of an abandoned session in
  ``abandoned_rolls``.
- every roll's recorded result (engine and physical) is what its rule system gives for its
  recorded inputs and draws, against its character's state just before it
  (:class:`ledger.rules.results.ResultCheck`). Only when the campaign's rule system is not
  installed here are results reported as not checked (``results_unchecked``).

A redacted row (a player's export) is chained through its stored hashes only.

A ``recorded_at`` earlier than one before it is not a failure: its bytes are in the chain,
so it is what was written, and appends have never let it happen since they keep times in
order (:func:`ledger.chain.not_before`); only a log written before then by a clock that ran
backwards holds one. The report names the first (:class:`ClockBack`, :func:`clock_note`),
because ``--as-of TIME`` reads of such a log follow the time order, not the log's.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import msgspec

from ledger.chain import ZERO_HASH, hash_of
from ledger.codec import Codec
from ledger.errors import RuleError
from ledger.events import (
    CAMPAIGN_STREAM,
    CORE_EVENT_TYPES,
    CampaignCreated,
    StoredEvent,
    event_tag,
)
from ledger.history.report import VerifyReport, check_receipt
from ledger.history.seeds import (
    SessionSeeds,
    downtime_problem,
    engine_roll_problem,
    session_problem,
)
from ledger.rules.results import ResultCheck, RowsOf
from ledger.rules.snapshots import snapshot_problems
from ledger.store.base import EventStore

if TYPE_CHECKING:
    from ledger.store.protocols import EventStore


def _version_problem(stream: str, version: Any, versions: dict[str, int], hidden: int) -> str | None:
    """A stream's next version follows its last one, or skips at most as many as the
    ``hidden`` stubs before it not yet counted could hold (a player's copy: stubs hide their
    streams)."""
    last = versions.get(stream, 0)
    if type(version) is int and last + 1 <= version <= last + 1 + hidden:
        return None
    more = (
        f" (or up to {last + 1 + hidden}: {hidden} GM-only events before it may be on its "
        "stream)"
        if hidden
        else ""
    )
    return f"stream {stream!r} version {version} should be {last + 1}{more}"


def verify_rows(
    rows: Iterable[StoredEvent | dict[str, Any]],
    *,
    keep_hashes: set[int] | None = None,
    find_hash: str | None = None,
    rows_of: RowsOf | None = None,
    complete: bool = True,
    rules: bool = True,
) -> VerifyReport:
    """Verify a log given as stored events (a store's read), or as dicts of the envelope
    fields as an outside verifier parses an export (``data`` as canonical bytes, or None
    for a player's stub marked ``"redacted"``; any value may be hostile).

    :param complete: the rows are the whole log: a last roll against a character must be
        followed by their ``contest.opposed``. ``False`` for a log read up to a receipt's or
        an audited event's seq, which may end inside a batch.

    :param keep_hashes: seqs whose hashes to remember in ``report.hashes`` (receipts).
    :param find_hash: a hash to look for (a receipt's, or its first 16 or more hex digits):
        the seq of the event whose hash starts with it goes in ``report.found_at``.
    :param rows_of: where roll results' states are folded again after a correction (see
        :class:`ledger.rules.results.ResultCheck`; default: the rows read, kept in memory).
    :param rules: also check what needs the event kinds and the rule system: that each
        event's type is a core type or one of the campaign's rule system, and that each
        roll's result re-derives (``results_unchecked`` says so when ``False``). ``False``
        is exactly what the in-browser verifier checks (``static/verify.js``): the chain,
        the sessions' seeds and every engine draw, knowing no event kind.
    :returns: the report; it stops at the first problem.
    """
    report = VerifyReport()
    results: ResultCheck | None = None
    prev = ZERO_HASH
    expected_seq = 1
    versions: dict[str, int] = {}
    skipped = 0  # stream versions skipped so far (each explained by a stub before it)
    sessions = SessionSeeds()
    for given in rows:
        row_event: StoredEvent | None = None
        if isinstance(given, StoredEvent):  # from a store: whole, data as stored text
            row_event = given
            row = {**msgspec.structs.asdict(given), "data": given.data.encode()}
        else:
            row = given
        seq = row["seq"]
        if seq != expected_seq:
            return report.fail(expected_seq, f"seq {expected_seq} is missing (found {seq} next)")
        if row["prev_hash"] != prev:
            return report.fail(seq, "prev_hash does not match the previous event's hash")
        data = row["data"]
        if data is None:
            if not row.get("redacted"):
                return report.fail(seq, "data is missing")
            report.stubs += 1  # a player's stub: its stream and version are not shown
        else:
            stream = row["stream"]
            bad_version = _version_problem(stream, row["version"], versions, report.stubs - skipped)
            if bad_version:
                return report.fail(seq, bad_version)
            skipped += row["version"] - versions.get(stream, 0) - 1
            versions[stream] = row["version"]
            try:
                stored = row_event if row_event is not None else _stored(row, data)
                recomputed = hash_of(stored)
            except (ValueError, TypeError) as e:
                return report.fail(seq, f"malformed envelope: {e}")
            if recomputed != row["hash"]:
                return report.fail(
                    seq, "hash does not match the event's contents (changed after it was written)"
                )
            report.clock.feed(seq, row["recorded_at"])
            found = _check_payload(row, data, sessions, report, kinds=rules)
            if found:
                return report.fail(*found)
            if seq == 1 and rules:
                results = _result_check(row, data, rows_of, report)
            elif seq == 1:
                report.results_unchecked = RESULTS_LEFT
            if results is not None:
                bad = results.feed(stored)
                if bad:
                    return report.fail(seq, bad)
                report.results_checked = results.checked
        prev = row["hash"]
        report.head_seq, report.head_hash = seq, prev
        report.events += 1
        if keep_hashes is not None and seq in keep_hashes:
            report.hashes[seq] = prev
        if find_hash is not None and prev.startswith(find_hash):
            report.found_at = seq
        expected_seq += 1
    if results is not None and complete:
        unanswered = results.pending_problem()
        if unanswered:
            return report.fail(report.head_seq, unanswered)
    sessions.finish(report)
    return report


def _stored(row: dict[str, Any], data: bytes) -> StoredEvent:
    """An exported envelope (a dict, ``data`` as bytes) as the event it says was stored.

    :raises ValueError: ``data`` is not UTF-8. :raises TypeError: a field of the wrong type
        (checked when it is hashed).
    """
    return StoredEvent(
        seq=row["seq"],
        campaign=row["campaign"],
        stream=row["stream"],
        version=row["version"],
        type=row["type"],
        data=data if isinstance(data, str) else bytes(data).decode(),
        recorded_at=row["recorded_at"],
        actor=row["actor"],
        session=row["session"],
        visibility=row["visibility"],
        prev_hash=row["prev_hash"],
        hash=row["hash"],
    )


def _result_check(
    row: dict[str, Any], data: bytes, rows_of: RowsOf | None, report: VerifyReport
) -> ResultCheck | None:
    """The result check of a log whose first event is ``row`` (``None``, with the reason in
    ``report.results_unchecked``, when its rule system cannot be loaded here)."""
    from ledger.campaign.aggregate import load_system

    if row["type"] != "campaign.created":
        report.results_unchecked = "the first event is not campaign.created"
        return None
    try:
        created = msgspec.json.decode(data, type=CampaignCreated)
        system = load_system(created.system, created.options)
    except (msgspec.ValidationError, RuleError) as e:
        report.results_unchecked = f"its rule system cannot be loaded: {e}"
        return None
    return ResultCheck(system, Codec(system.event_types, system.upcasters), rows_of)


class _Tagged(msgspec.Struct):
    """Any event payload: a JSON object with a ``type`` and, on a roll, its ``source``
    (decoded, so ``"\\u0065ngine"`` is ``"engine"``; other keys checked, not kept)."""

    type: str
    source: Any = None


_tagged = msgspec.json.Decoder(_Tagged)


#: Why a check without the rules (``verify_rows(rules=False)``, the in-browser verifier)
#: leaves roll results unchecked.
RESULTS_LEFT = "checked by `campaign verify`, which has the rule system"


def _check_payload(
    row: dict[str, Any], data: bytes, sessions: SessionSeeds, report: VerifyReport,
    *, kinds: bool = True,
) -> tuple[int, str] | None:
    """Check one row's payload: JSON of its envelope's type; sessions and engine rolls.

    :returns: ``(first bad seq, problem)`` or ``None``. A bad engine roll found when its
        session's seed is revealed is reported at the roll's own seq.
    """
    seq, type_ = row["seq"], row["type"]
    try:
        tagged = _tagged.decode(data)
    except msgspec.ValidationError:
        return seq, f"data is not an event of type {type_!r}"
    except msgspec.DecodeError:
        return seq, "data is not JSON"
    if tagged.type != type_:
        return seq, f"data's type {tagged.type!r} does not match the envelope's type {type_!r}"
    return _timeline_problem(row, data, tagged, sessions, report, kinds=kinds)


#: The areas (type prefixes) of the core's event types: ``"session"`` of ``session.started``.
CORE_AREAS = frozenset(event_tag(cls).split(".", 1)[0] for cls in CORE_EVENT_TYPES)
CORE_TYPES = frozenset(event_tag(cls) for cls in CORE_EVENT_TYPES)


def _timeline_problem(
    row: dict[str, Any], data: bytes, tagged: _Tagged, sessions: SessionSeeds, report: VerifyReport,
    *, kinds: bool = True,
) -> tuple[int, str] | None:
    """The type's rule system (when ``kinds``), then sessions and engine rolls, on decoded
    values.

    :returns: ``(first bad seq, problem)`` or ``None``.
    """
    seq, type_ = row["seq"], row["type"]
    area = type_.split(".", 1)[0]
    if not kinds:
        pass
    elif area in CORE_AREAS:
        if type_ not in CORE_TYPES:
            return seq, f"{type_!r} is not an event type of the core"
    elif sessions.system is None:
        return seq, f"{type_!r} comes before the campaign.created that names the rule system"
    elif area != sessions.system:
        return seq, (
            f"{type_!r} is an event of rule system {area!r}, but this campaign plays "
            f"{sessions.system!r}"
        )
    if tagged.source is not None and tagged.source not in ("engine", "physical"):
        return seq, f"a roll's source must be \"engine\" or \"physical\", not {tagged.source!r}"
    if tagged.source != "engine" and area not in ("session", "campaign", "downtime"):
        return None
    try:
        payload = msgspec.json.decode(data)
        if type_ == "campaign.created":
            if seq != 1 or sessions.system is not None:
                return seq, "campaign.created must be the first event, and only once"
            sessions.system = str(payload["system"])
            return None
        if area == "session":
            return session_problem(row, payload, sessions, report)
        if area == "downtime":
            return downtime_problem(row, payload, sessions, report)
        return engine_roll_problem(row, payload, sessions, report)
    except (KeyError, TypeError, ValueError) as e:
        return seq, f"malformed {type_} data: {type(e).__name__} {e}"


def verify_store(
    store: EventStore,
    campaign: str,
    *,
    receipt: tuple[int, str] | None = None,
    progress: Any = None,
    integrity: bool = True,
) -> VerifyReport:
    """Verify one campaign of a :class:`ledger.store.sqlite.Store` (and optionally a receipt).

    :param receipt: ``(seq, hash)`` from an earlier receipt (``hash`` may be its first 16
        or more hex digits): the log up to ``seq`` must be unchanged (the stored chain to
        ``seq`` verifies and ends in a hash that starts with ``hash``).
    :param progress: ``fn(events)`` called every 1,000 events read (a progress bar).
    :param integrity: first run SQLite's integrity check (:meth:`Store.integrity`); any
        line but ``"ok"`` is a problem at seq 0 (the database, not an event).

    The rows are read in pages and checked as they come, outside the store's memory map
    where it has one (:meth:`ledger.store.sqlite.Store.unmapped`), so memory stays flat
    however long the log: what is kept per event is a few bytes (each seq's stream, for
    corrections).
    """
    with getattr(store, "unmapped", contextlib.nullcontext)():
        return _verify_store(store, campaign, receipt, progress, integrity)


def _verify_store(
    store: EventStore, campaign: str, receipt: tuple[int, str] | None, progress: Any, integrity: bool
) -> VerifyReport:
    """:func:`verify_store`'s checks, with the store's reads as they are."""
    if integrity:
        damage = store.integrity()
        if damage != ["ok"]:
            more = f" (and {len(damage) - 1} more)" if len(damage) > 1 else ""
            return VerifyReport().fail(
                0,
                f"the database file is damaged: SQLite's integrity check says {damage[0]!r}"
                f"{more}; an index may hide or misplace events: restore from a backup or "
                "an export (`campaign import`)",
            )

    def rows() -> Any:
        for i, e in enumerate(store.rows(campaign, upto=receipt[0] if receipt else None), 1):
            if progress is not None and i % 1000 == 0:
                progress(1000)
            yield e

    def rows_of(seq: int, stream: str) -> Any:
        return store.rows(campaign, upto=seq - 1, streams=[stream, CAMPAIGN_STREAM])

    report = verify_rows(
        rows(),
        keep_hashes={receipt[0]} if receipt else None,
        find_hash=receipt[1] if receipt else None,
        rows_of=rows_of,
        complete=receipt is None,
    )
    if report.ok and receipt is not None and not report.hashes.get(receipt[0], "").startswith(
        receipt[1]
    ):
        # the receipt does not hold: where is its hash, if anywhere (read up to its seq only)
        report.found_at = store.seq_of_hash(campaign, receipt[1])
    check_receipt(report, receipt, what="the log")
    if report.ok and receipt is None:
        _secrets_problem(store, campaign, report)
    return report


def _secrets_problem(store: EventStore, campaign: str, report: VerifyReport) -> None:
    """Fail ``report`` when a seed committed and not yet revealed in the log is missing from
    the secrets table or does not hash to its commitment: rolls drawn from it could never be
    verified. The problem is reported at the commitment's seq. A missing downtime seed
    is no problem (a ledger imported from an export has none): no roll was drawn from it, as
    every draw reveals it in the same batch, and the next ``session start`` closes it."""
    for kind, number, seq, commitment in report.open_commitments:
        seed = store.get_secret(campaign, number, kind)
        whose = (
            f"the seed of open session {number}"
            if kind == "session"
            else f"the downtime seed of session {number}"
        )
        fix = (
            "its engine rolls can never be verified: restore it from a GM backup, or close "
            f'the {"session" if kind == "session" else "downtime"} with '
            '`campaign session abandon --reason "..."`'
        )
        if seed is None and kind == "downtime":
            continue  # nothing was drawn from it (a draw reveals it): the next start closes it
        if seed is None:
            report.fail(seq, f"{whose} is missing from the secrets table: {fix}")
        elif hashlib.sha256(seed).hexdigest() != commitment:
            report.fail(seq, f"{whose} in the secrets table does not match its commitment: {fix}")


def verify_snapshots(store: EventStore, campaign: str, *, drop: bool = False) -> tuple[int, str] | None:
    """What ``campaign verify`` says of a campaign's snapshots: ``None`` when every snapshot
    in use matches a replay (or the rule system is not installed here: nothing to replay),
    else ``(seq, text)`` of the first problem, saying how many there are.

    :param drop: delete the bad ones (the next reads rebuild them).
    """
    from ledger.campaign.aggregate import open_campaign

    try:
        camp = open_campaign(store, campaign)
    except RuleError:
        return None
    problems = snapshot_problems(camp, drop=drop)
    if not problems:
        return None
    more = f"; {len(problems)} bad snapshots in all" if len(problems) > 1 else ""
    return problems[0].seq, (
        f"{problems[0]}{more} (snapshots are a cache: `campaign verify --drop-snapshots` "
        "deletes them and the next reads rebuild them)"
    )
