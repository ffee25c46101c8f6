"""Export and import: the NDJSON format of docs/events.md "Checking an export by hand" (a public contract).

One envelope a line, oldest first, each line a JSON object with ``seq``, ``campaign``,
``stream``, ``version``, ``type``, ``data``, ``recorded_at``, ``actor``, ``session``,
``visibility``, ``prev_hash``, ``hash``. A player's export replaces a GM-only event by a
stub of only what the chain needs: ``seq``, ``campaign``, ``prev_hash``, ``hash`` and
``"redacted": true`` (no type, stream, session, version, actor or time); its stored hashes
still chain. Stubs of older exports (the whole envelope, ``data`` null) still parse.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import msgspec

from ledger.codec import SALT, SCHEMA, Codec, encode_canonical, encode_data
from ledger.errors import RuleError
from ledger.events import CampaignCreated, CharacterCreated, stream_of
from ledger.exchange.backup import BACKUP_VERSION, HOOK_SECRET_KINDS, BackupRecord, check_secrets
from ledger.exchange.trust_lines import CheckpointLine, TrustLine, trust_lines
from ledger.exchange.trust_lines import decode as decode_trust
from ledger.history.report import VerifyReport, check_receipt
from ledger.history.seeds import held_seeds_problem
from ledger.history.verify import verify_rows
from ledger.rules.projection import replay_strictly
from ledger.store.base import EventStore, StoredEvent

#: SQLite's INTEGER range: larger numbers in a hostile file are refused, not overflowed.
Int64 = Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)]
Hash = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")]
Text = Annotated[str, msgspec.Meta(max_length=1000)]


class ExportLine(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One exported envelope (field order as docs/events.md lists them).

    Decoding checks the envelope's shapes: integers in SQLite's range, ``visibility``
    ``"public"`` or ``"gm"``, hashes of 64 lower-case hex digits, text fields up to 1,000
    characters (a hostile file is refused with the line number, never half-imported).
    """

    seq: Int64
    campaign: Text
    stream: Text
    version: Int64
    type: Text
    data: msgspec.Raw
    recorded_at: Text
    actor: Text
    session: Int64 | None
    visibility: Literal["public", "gm"]
    prev_hash: Hash
    hash: Hash
    redacted: bool = False


class StubLine(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A GM-only event in a player's export: only what the chain needs (``redacted`` true).

    Its ``hash`` is taken as stored: the chain runs through it (the next ``prev_hash``), and
    the GM's own export recomputes it from the event.
    """

    seq: Int64
    campaign: Text
    prev_hash: Hash
    hash: Hash
    redacted: bool = True


#: One line of an export file.
Line = ExportLine | StubLine

_line_encoder = msgspec.json.Encoder()
_line_decoder = msgspec.json.Decoder(ExportLine)
_stub_decoder = msgspec.json.Decoder(StubLine)


def export_line(stored: StoredEvent) -> ExportLine:
    """A stored event as its export line: every envelope field, ``data`` raw (the stored
    canonical JSON, byte for byte)."""
    return ExportLine(
        seq=stored.seq,
        campaign=stored.campaign,
        stream=stored.stream,
        version=stored.version,
        type=stored.type,
        data=msgspec.Raw(stored.data),
        recorded_at=stored.recorded_at,
        actor=stored.actor,
        session=stored.session,
        visibility=stored.visibility,
        prev_hash=stored.prev_hash,
        hash=stored.hash,
    )


def stub_line(stored: StoredEvent) -> StubLine:
    """A GM-only event as a player's export shows it: only what the chain needs (its
    ``seq``, ``campaign`` and stored hashes), marked ``redacted``; no type, stream, version,
    session, actor, time or data (docs/trust.md "A player's view never holds a GM fact")."""
    return StubLine(
        seq=stored.seq, campaign=stored.campaign, prev_hash=stored.prev_hash, hash=stored.hash
    )


def export_lines(store: EventStore, campaign: str, *, as_gm: bool) -> Iterator[bytes]:
    """The campaign's export, one encoded line (with ``\\n``) per event, streamed; a
    player's (``as_gm=False``) has a :func:`stub_line` for each GM-only event."""
    encode = _line_encoder.encode
    last = 0
    for stored in store.rows(campaign):
        last = stored.seq
        if not as_gm and stored.visibility == "gm":
            yield encode(stub_line(stored)) + b"\n"
        else:
            yield encode(export_line(stored)) + b"\n"
    yield from trust_lines(store, campaign, last)  # signed checkpoints, cosignatures


class BadLine(RuleError):
    """A line of an export file that is not an exported event (:attr:`number`, from 1)."""

    def __init__(self, number: int, problem: str) -> None:
        super().__init__(f"line {number} {problem}")
        self.number = number


def parse_lines(lines: Iterable[bytes], trust: list[TrustLine] | None = None) -> list[Line]:
    """Parse an export file's lines (envelopes, and stubs of a player's export); its
    checkpoint and cosignature lines (:mod:`ledger.exchange.trust_lines`) go to ``trust``
    when given, else they are skipped.

    :raises BadLine: a line that is neither an envelope nor a stub, or nests JSON too
        deeply for the parser (names the line number).
    """
    parsed: list[Line] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            parsed.append(_line_decoder.decode(line))
        except msgspec.DecodeError as e:
            extra = decode_trust(line)
            if extra is not None:
                if trust is not None:
                    trust.append(extra)
                continue
            try:
                stub = _stub_decoder.decode(line)
            except (msgspec.DecodeError, RecursionError):
                stub = None
            if stub is None or not stub.redacted:
                raise BadLine(number, f"is not an exported event: {e}") from None
            parsed.append(stub)
        except RecursionError:
            raise BadLine(number, "nests JSON too deeply to be an exported event") from None
    return parsed


def verify_export(
    lines: list[Line],
    *,
    receipt: tuple[int, str] | None = None,
    rules: bool = True,
    backup: BackupRecord | None = None,
) -> tuple[str | None, VerifyReport]:
    """Verify an export file, a GM's or a player's copy, as ``campaign verify FILE`` does.

    Checks the chain (a redacted stub through its stored hashes), every session's reveal
    against its commitment, every engine roll whose data the file holds against its revealed
    seed, and every such roll's result through the campaign's rule system (when it is
    installed here; else ``report.results_unchecked`` says why); then, optionally, a
    receipt (:func:`ledger.history.verify.check_receipt`).

    :param rules: ``False``: only what the in-browser verifier checks
        (:func:`ledger.history.verify.verify_rows`'s ``rules``).
    :param backup: a GM backup's record: the engine rolls of the open session whose seed it
        holds are re-derived from that seed too (:func:`held_seeds`), as ``import`` does.
    :returns: ``(campaign id or None for an empty file, report)``.
    :raises RuleError: the file mixes campaigns.
    """
    campaigns = {line.campaign for line in lines}
    if len(campaigns) > 1:
        raise RuleError(
            f"the file mixes campaigns ({', '.join(sorted(campaigns))[:200]}); verify one at a time"
        )
    rows = []
    for line in lines:
        values = msgspec.structs.asdict(line)
        values["data"] = None if isinstance(line, StubLine) or line.redacted else bytes(line.data)
        rows.append(values)
    report = verify_rows(
        iter(rows),
        keep_hashes={receipt[0]} if receipt else None,
        find_hash=receipt[1] if receipt else None,
        rules=rules,
    )
    if report.ok and backup is not None and lines:
        forged = held_seeds_problem(
            report, lines[0].campaign, held_seeds(backup.secrets), "the backup"
        )
        if forged:
            report.fail(*forged)
    check_receipt(report, receipt, what="the file")
    return (lines[0].campaign if lines else None), report


def held_seeds(secrets: Iterable[dict[str, Any]]) -> dict[tuple[str, int], bytes]:
    """The session and downtime seeds among a backup's secrets, ``{(kind, number): seed}``
    (:func:`ledger.history.seeds.held_seeds_problem`); a row that is not a hex seed with a
    whole session number is left out (``import`` refuses it: :func:`check_secrets`)."""
    held: dict[tuple[str, int], bytes] = {}
    for secret in secrets:
        kind, number, seed = (
            secret.get("kind", "session"),
            secret.get("session"),
            secret.get("seed"),
        )
        if (
            kind not in ("session", "downtime")
            or type(number) is not int
            or not isinstance(seed, str)
        ):
            continue
        try:
            held[str(kind), number] = bytes.fromhex(seed)
        except ValueError:
            continue
    return held


def _misread(event: Any, payload: Any) -> str | None:
    """Where a stored payload and the event it decodes to part ways, or ``None``.

    The payload is judged by its own bytes (the chain covers them), never against what this
    release would encode for the event: a field the payload lacks is read as its default,
    as every read of the log reads it (a ``campaign.created`` written before checkpoints has
    no ``checkpoint_key``). Every key the payload has must be a field of the event with the
    value the event gives back, byte for byte in canonical JSON (``1`` read into a float
    field is ``1.0``: refused). A payload of an older schema version is upcast to ``event``,
    whose shape differs by design: it only has to decode.

    :param payload: the stored payload, decoded as plain JSON (a dict).
    :returns: the first key that reads back differently (a sentence), else ``None``.
    """
    if not isinstance(payload, dict):
        return "it is not a JSON object"
    given = {k: v for k, v in payload.items() if k not in (SALT, SCHEMA)}
    if payload.get(SCHEMA, 1) != type(event).schema_version:
        return None
    back = msgspec.json.decode(encode_data(event))
    for key in sorted(given):
        if key not in back or encode_canonical(back[key]) != encode_canonical(given[key]):
            return f"its {key!r} reads back as {encode_canonical(back.get(key)).decode()[:80]}"
    return None


@dataclass(frozen=True)
class Imported:
    """What :func:`import_lines` did.

    :ivar campaign: the campaign id.
    :ivar events: events imported from the file.
    :ivar secrets: unrevealed seeds restored (a GM backup's).
    :ivar abandoned: the number of the open session closed as abandoned at import (its
        seed was not in the file: ``abandon_open_session``), else ``None``.
    :ivar unverifiable_rolls: that session's engine rolls, which can never be verified.
    :ivar open_without_seed: the number of a session left open without its seed (it has
        no engine roll: nothing is lost, but it can neither roll nor end until
        ``campaign session abandon`` closes it), else ``None``.
    """

    campaign: str
    events: int
    secrets: int = 0
    abandoned: int | None = None
    unverifiable_rolls: int = 0
    open_without_seed: int | None = None


#: The reason recorded in the ``session.abandoned`` of ``import --abandon-open-session``.
ABANDONED_AT_IMPORT = (
    "imported from a file without its seed (campaign import --abandon-open-session)"
)


def import_lines(
    store: EventStore,
    given: list[Line],
    *,
    trust: list[TrustLine] | None = None,
    backup: BackupRecord | None = None,
    abandon_open_session: bool = False,
    actor: str = "gm",
    at: str | None = None,
) -> Imported:
    """Import one campaign's export (or a GM backup's events) into ``store``; all or nothing.

    A file whose last session is open must carry that session's seed (a GM backup does, a
    GM export never does). Without it the restored session could neither roll nor end, and
    its engine rolls could never be verified: such a file is refused when that session has
    engine rolls, unless ``abandon_open_session``, which imports it and closes the session
    with ``session.abandoned`` (:data:`ABANDONED_AT_IMPORT`) in the same transaction, its
    rolls reported unverifiable (``verify``: "session abandoned").

    Every payload is judged by its stored bytes, which its hash covers: they must be
    canonical JSON, and read through the event's own shape (and upcasters) they must give
    back every value they hold (:func:`_misread`); a field an older release did not write
    is read as its default, as every read of the log reads it. Every engine roll whose
    seed the file holds is recomputed before anything is written: a revealed session's by
    :func:`ledger.history.verify.verify_rows`, the open session's from the backup's seed
    (:func:`ledger.history.seeds.held_seeds_problem`, the words ``verify`` uses once the
    session ends).

    :param trust: the file's checkpoint and cosignature lines: each must hold against the
        events (:func:`ledger.history.checkpoint_checks.check_file`) and is kept with them.
    :param backup: a GM backup's record (:mod:`ledger.exchange.backup`): its secrets are checked
        against their commitments in the log and restored with the events.
    :param abandon_open_session: close an open session whose seed the file lacks.
    :param actor: who records that ``session.abandoned``.
    :param at: when (``recorded_at``, UTC text); required with ``abandon_open_session``.
    :raises RuleError: an empty file, several campaigns, redacted events (a player's
        export), a campaign or character id the CLI would refuse, a ``campaign.created``
        naming another campaign, payloads that are not canonical or do not decode or read
        back otherwise, an event on the wrong stream, a character sheet the rules refuse, a
        chain or roll that does not verify (an open session's roll its seed in the backup
        does not give, named by seq), a backup secret that matches no commitment (:func:`check_secrets`), an
        open session with engine rolls and no seed (names ``campaign backup`` and
        ``--abandon-open-session``), or a campaign already in this ledger.
    """
    from ledger.campaign.aggregate import ID_PATTERN, load_system

    if not given:
        raise RuleError("the file holds no events")
    campaigns = {line.campaign for line in given}
    if len(campaigns) > 1:
        raise RuleError(
            f"the file mixes campaigns ({', '.join(sorted(campaigns))}); import one at a time"
        )
    campaign = given[0].campaign
    if not ID_PATTERN.match(campaign):
        raise RuleError(
            f"campaign id {campaign[:80]!r} is not one this ledger makes "
            "(lower-case letters, digits, - or _)"
        )
    lines = [line for line in given if isinstance(line, ExportLine)]
    if len(lines) < len(given) or any(
        line.redacted or bytes(line.data) == b"null" for line in lines
    ):
        raise RuleError(
            "this is a player's export (GM-only events are redacted), which cannot be restored: "
            "import a GM backup, made with `campaign backup FILE` on the GM's ledger"
        )
    if backup is not None and backup.campaign != campaign:
        raise RuleError(
            f"the backup's secrets belong to campaign {backup.campaign[:80]!r}, its events to "
            f"{campaign!r}: the file was changed"
        )
    first = lines[0]
    if first.type != "campaign.created":
        raise RuleError("the first event must be campaign.created")
    try:
        created = msgspec.json.decode(first.data, type=CampaignCreated)
    except msgspec.ValidationError as e:
        raise RuleError(f"event 1 is not a campaign.created event: {e}") from None
    if created.id != campaign:
        raise RuleError(
            f"event 1 creates campaign {created.id[:80]!r} but the file's events belong to "
            f"{campaign!r}"
        )
    from ledger.text import check_name

    check_name(created.title, "event 1: the campaign title")
    system = load_system(created.system, created.options)
    codec = Codec(system.event_types, system.upcasters)
    rows: list[dict[str, Any]] = []
    for line in lines:
        data = bytes(line.data)
        try:
            payload = msgspec.json.decode(data)
        except (msgspec.DecodeError, RecursionError) as e:
            raise RuleError(f"event {line.seq} ({line.type}) does not decode: {e}") from None
        if encode_canonical(payload) != data:  # the stored bytes, which the hash covers
            raise RuleError(
                f"event {line.seq}'s data is not in canonical form (keys sorted, no spaces)"
            )
        try:
            event = codec.decode(data, line.type)
        except (msgspec.ValidationError, ValueError) as e:
            raise RuleError(f"event {line.seq} ({line.type}) does not decode: {e}") from None
        misread = _misread(event, payload)
        if misread:
            raise RuleError(
                f"event {line.seq}'s data does not read back as the {line.type[:80]} it "
                f"decodes to: {misread}"
            )
        if stream_of(event) != line.stream:
            raise RuleError(
                f"event {line.seq} is on stream {line.stream[:80]!r} but its data belongs to "
                f"{stream_of(event)!r}"
            )
        if isinstance(event, CharacterCreated):
            _check_character(system, event, line.seq, ID_PATTERN)
        values = msgspec.structs.asdict(line)
        values.pop("redacted")
        values["data"] = data
        rows.append(values)
    report = verify_rows(iter(rows))  # also checks each data's type is its envelope's
    if not report.ok:
        raise RuleError(f"the file does not verify: seq {report.bad_seq}: {report.problem}")
    stored = [StoredEvent(**{**r, "data": r["data"].decode()}) for r in rows]
    try:  # every event must be one the rules allowed when it was appended
        replay_strictly(system, codec, stored)
    except RuleError as e:
        raise RuleError(f"the file holds an event the rules refuse: {e}") from None
    from ledger.history.checkpoint_checks import check_file

    seen = check_file(lines, trust or [])
    if not seen.ok:
        raise RuleError(f"the file's checkpoints do not hold: {seen.problem}; nothing imported")
    secrets = (
        check_secrets(backup, (msgspec.json.decode(r["data"]) for r in rows))
        if backup is not None
        else []
    )
    forged = held_seeds_problem(report, campaign, held_seeds(secrets), "the backup")
    if forged:  # the rolls of the open session, re-derived from the seed the backup holds
        raise RuleError(f"the file does not verify: seq {forged[0]}: {forged[1]}")
    unseeded = _open_session_without_seed(report, secrets)
    rolls = report.unverifiable_rolls if unseeded is not None else 0
    if rolls and not abandon_open_session:
        raise RuleError(
            f"session {unseeded} is open in the file with {rolls} engine "
            f"roll{'s' if rolls != 1 else ''}, and the file does not hold its seed (a GM export "
            "never does): restored, that session could neither roll nor end, and its rolls "
            "could never be verified. Import the GM backup `campaign backup FILE` makes "
            "instead, or import it abandoning the open session to close that session as "
            "abandoned (its rolls then unverifiable); nothing imported",
            param="abandon_open_session",
        )
    abandon = abandon_open_session and unseeded is not None
    if abandon and at is None:
        raise RuleError("abandoning the open session at import needs its time (at=)")
    with store.transaction():
        if store.head(campaign).seq:
            raise RuleError(
                f"campaign {campaign!r} already exists in this ledger; import into another file"
            )
        store.insert_rows(stored)
        store.restore_secrets(secrets)
        for extra in trust or []:  # checked above (check_file)
            if isinstance(extra, CheckpointLine):
                store.add_checkpoint(
                    campaign, extra.size, _root(extra.note), extra.note, extra.made_at
                )
            else:
                store.add_cosignature(**msgspec.structs.asdict(extra))
        if abandon:
            from ledger.campaign.aggregate import open_campaign

            assert at is not None
            open_campaign(store, campaign).abandon_session(ABANDONED_AT_IMPORT, actor=actor, at=at)
    return Imported(
        campaign,
        len(rows),
        sum(1 for s in secrets if s.get("kind") != "checkpoint"),  # seeds, not the key
        abandoned=unseeded if abandon else None,
        unverifiable_rolls=rolls if abandon else 0,
        open_without_seed=None if abandon else unseeded,
    )


def _open_session_without_seed(report: VerifyReport, secrets: list[dict[str, Any]]) -> int | None:
    """The number of the session open at the end of the file when no restored secret is its
    seed (checked against its commitment already: :func:`check_secrets`), else ``None``."""
    for kind, number, _seq, _commitment in report.open_commitments:
        if kind != "session":
            continue
        if not any(
            s.get("kind", "session") == "session" and s["session"] == number for s in secrets
        ):
            return number
    return None


def _check_character(system: Any, event: CharacterCreated, seq: int, pattern: Any) -> None:
    """Refuse a ``character.created`` the CLI could not have written.

    :raises RuleError: a bad id, or a sheet the rule system's creation rules refuse (the
        stored sheet is already normalised, and normalising is idempotent).
    """
    from ledger.text import check_sheet

    if not pattern.match(event.character):
        raise RuleError(f"event {seq}: character id {event.character[:80]!r} is not valid")
    who = {"name": event.name, "player": event.player or "", **event.sheet}
    check_sheet(who, f"event {seq}: the sheet's")
    try:
        system.create_sheet(dict(event.sheet))
    except RuleError as e:
        raise RuleError(f"event {seq}: {event.name}'s sheet breaks the rules: {e}") from None
    except (ValueError, TypeError, KeyError, AttributeError) as e:
        raise RuleError(
            f"event {seq}: {event.name}'s sheet is malformed: {type(e).__name__} {e}"
        ) from None


def backup_lines(store: EventStore, campaign: str) -> Iterator[bytes]:
    """The campaign's backup, line by line (call inside a transaction, so the secrets and
    the events are read at one moment)."""
    secrets = [  # a webhook's secret belongs to the hook, which a backup does not carry
        {k: v for k, v in row.items() if k != "campaign"}
        for row in store.secret_rows(campaign)
        if row.get("kind") not in HOOK_SECRET_KINDS
    ]
    record = BackupRecord(campaign_ledger_backup=BACKUP_VERSION, campaign=campaign, secrets=secrets)
    yield msgspec.json.encode(record) + b"\n"
    yield from export_lines(store, campaign, as_gm=True)


def _root(note: str) -> bytes:
    """The root a (checked) checkpoint note names."""
    from ledger.trust.notes import Checkpoint

    return Checkpoint.parse(note[: note.rfind("\n\n") + 1]).root
