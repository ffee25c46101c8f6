"""Export and import: the NDJSON format of DESIGN.md "Export format" (a public contract).

One envelope a line, oldest first, each line a JSON object with ``seq``, ``campaign``,
``stream``, ``version``, ``type``, ``data``, ``recorded_at``, ``actor``, ``session``,
``visibility``, ``prev_hash``, ``hash``. A player's export replaces a GM-only event's
``data`` with ``null`` and adds ``"redacted": true``; its stored hashes still chain.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import msgspec

from .codec import Codec, encode_canonical
from .events import CampaignCreated
from .rulesystem import RuleError
from .store import COLUMNS, Store
from .verify import verify_rows


class ExportLine(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One exported envelope (field order as DESIGN.md lists them)."""

    seq: int
    campaign: str
    stream: str
    version: int
    type: str
    data: msgspec.Raw
    recorded_at: str
    actor: str
    session: int | None
    visibility: str
    prev_hash: str
    hash: str
    redacted: bool = False


_line_encoder = msgspec.json.Encoder()
_line_decoder = msgspec.json.Decoder(ExportLine)


def export_lines(store: Store, campaign: str, *, as_gm: bool) -> Iterator[bytes]:
    """The campaign's export, one encoded line (with ``\\n``) per event, streamed."""
    for row in store.rows(campaign):
        values = dict(zip(COLUMNS, row, strict=True))
        redacted = not as_gm and values["visibility"] == "gm"
        values["data"] = msgspec.Raw(b"null" if redacted else values["data"].encode())
        yield _line_encoder.encode(ExportLine(**values, redacted=redacted)) + b"\n"


def parse_lines(lines: Iterable[bytes]) -> list[ExportLine]:
    """Parse an export file's lines.

    :raises RuleError: a line that is not an envelope (names the line number).
    """
    parsed = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            parsed.append(_line_decoder.decode(line))
        except msgspec.DecodeError as e:
            raise RuleError(f"line {number} is not an exported event: {e}") from None
    return parsed


def import_lines(store: Store, lines: list[ExportLine]) -> tuple[str, int]:
    """Import one campaign's export into ``store``; all or nothing.

    :returns: ``(campaign id, events imported)``.
    :raises RuleError: an empty file, several campaigns, redacted events (a player's
        export), payloads that are not canonical or do not decode, a chain or roll that does
        not verify, or a campaign already in this ledger.
    """
    from .campaign import load_system

    if not lines:
        raise RuleError("the file holds no events")
    campaigns = {line.campaign for line in lines}
    if len(campaigns) > 1:
        raise RuleError(
            f"the file mixes campaigns ({', '.join(sorted(campaigns))}); import one at a time"
        )
    campaign = lines[0].campaign
    if any(line.redacted or bytes(line.data) == b"null" for line in lines):
        raise RuleError(
            "this is a player's export (GM-only events are redacted): import the GM's export"
        )
    first = lines[0]
    if first.type != "campaign.created":
        raise RuleError("the first event must be campaign.created")
    try:
        created = msgspec.json.decode(first.data, type=CampaignCreated)
    except msgspec.ValidationError as e:
        raise RuleError(f"event 1 is not a campaign.created event: {e}") from None
    system = load_system(created.system, created.options)
    codec = Codec(system.event_types, system.upcasters)
    rows: list[dict[str, Any]] = []
    for line in lines:
        data = bytes(line.data)
        try:
            event = codec.decode(data, line.type)
        except (msgspec.ValidationError, ValueError) as e:
            raise RuleError(f"event {line.seq} ({line.type}) does not decode: {e}") from None
        if encode_canonical(event) != data:
            raise RuleError(
                f"event {line.seq}'s data is not in canonical form (keys sorted, no spaces)"
            )
        values = msgspec.structs.asdict(line)
        values.pop("redacted")
        values["data"] = data
        rows.append(values)
    report = verify_rows(iter(rows))
    if not report.ok:
        raise RuleError(f"the file does not verify: seq {report.bad_seq}: {report.problem}")
    with store.transaction():
        if store.head(campaign).seq:
            raise RuleError(
                f"campaign {campaign!r} already exists in this ledger; import into another file"
            )
        store.insert_rows(
            [tuple(r["data"].decode() if c == "data" else r[c] for c in COLUMNS) for r in rows]
        )
    return campaign, len(rows)
