"""Commands replayed from history: advance, recap, audit, verify."""

from __future__ import annotations

import sys
from typing import Any

import click
import msgspec

from ledger.cli.base import (
    SEQ,
    App,
    cli,
    echo_json,
    json_option,
    now,
    pass_app,
    progress_bar,
    view_option,
)
from ledger.events import Recorded
from ledger.history.words import describe


@cli.command()
@click.option("--session", "number", type=SEQ, required=True, help="The ended session to advance.")
@click.option(
    "--choice",
    "choices",
    multiple=True,
    metavar="KEY=VALUE",
    help="A choice the rules leave to the player (repeatable); see docs/rulings.",
)
@click.option("--dry-run", is_flag=True, help="Show what would be appended; write nothing.")
@json_option
@pass_app
def advance(app: App, number: int, choices: tuple[str, ...], dry_run: bool, as_json: bool) -> None:
    """End-of-session advancement for every character, replayed from session N's events.

    Appends what the rules give in one batch; running it again appends nothing.
    Advancement dice are engine dice from the downtime seed committed at session N's end
    (revealed at the end of the batch, so they verify). --dry-run shows the choices,
    targets and exact odds, never the outcome of dice not yet rolled ("?").
    """
    from ledger.history.advancement import HIDDEN, preview
    from ledger.history.advancement import advance as run_advance

    parsed: dict[str, Any] = {}
    for item in choices:
        if "=" not in item:
            raise click.BadParameter(f"{item!r}: write KEY=VALUE", param_hint="--choice")
        key, value = item.split("=", 1)
        parsed[key.strip()] = value
    campaign = app.campaign
    if dry_run:
        from ledger.campaign.timeline import passed_in_session
        from ledger.rules.spans import span_words

        with campaign.store.transaction():
            planned = preview(campaign, number, parsed)
            minutes = passed_in_session(campaign, number)
        if as_json:
            echo_json(
                {"session": number, "dry_run": True, "choices": parsed,
                 "time_passed_minutes": minutes,
                 "events": [{"seq": None, **p} for p in planned]}
            )
            return
        if minutes:  # in-fiction time of the session
            click.echo(f"In-fiction time in session {number}: {span_words(minutes)}.")
        if not planned:
            click.echo(f"Session {number}: nothing to advance (already applied, or nothing earned).")
            return
        if parsed:
            click.echo("Choices: " + ", ".join(f"{k}={v}" for k, v in parsed.items()))
        click.echo(
            f"Would append {len(planned)} advancement events for session {number} "
            f"({HIDDEN}: decided by dice not yet rolled):"
        )
        for p in planned:
            fields = ", ".join(
                f"{k}={v}" for k, v in p["data"].items() if k not in ("draws", "scheme")
            )
            odds = ""
            if p["odds"]:
                odds = "; odds " + ", ".join(f"{k} {v}" for k, v in p["odds"].items())
            click.echo(f"  {p['type']}: {fields}{odds}")
        return
    from ledger.cli.output import echo_changes, states

    before = {} if as_json else states(app)
    result = run_advance(campaign, number, parsed, actor=app.actor, at=now())
    items: list[dict[str, Any]] = []
    lines: list[str] = []
    for entry in result:
        assert isinstance(entry, Recorded)
        data = msgspec.to_builtins(entry.data)
        data.pop("type", None)
        items.append({"seq": entry.seq, "type": entry.type, "data": data})
        lines.append(describe(campaign, entry))
    if as_json:
        echo_json({"session": number, "dry_run": False, "events": items})
        return
    if not result:
        click.echo(f"Session {number}: nothing to advance (already applied, or nothing earned).")
        return
    click.echo(f"Appended {len(result)} advancement events for session {number}:")
    for line in lines:
        click.echo("  " + line)
    echo_changes(app, before, states(app))  # what rose, in the book's words


@cli.command()
@click.option("--session", "number", type=SEQ, required=True, help="Which session.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["md", "html"]),
    default="md",
    show_default=True,
    help="Markdown (pastes into a chat) or one self-contained HTML page.",
)
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write to a file.")
@json_option
@view_option
@pass_app
def recap(app: App, number: int, fmt: str, output: str | None, as_json: bool) -> None:
    """A recap of session N, replayed from the log: what happened, by whom, with which dice.

    The players' recap, safe to send to the group (no GM-only fact), unless --as gm: the
    GM's marks GM-only lines [GM].
    """
    import dataclasses

    from ledger.history.recap import build_recap, render

    if output:
        from ledger.cli.output import check_target

        check_target(output, db_path=app.db_path)
    data = build_recap(app.campaign, number, as_gm=app.as_gm())
    if as_json:
        echo_json(dataclasses.asdict(data))
        return
    text = render(data, fmt)
    if output:
        from ledger.cli.output import atomic_file

        with atomic_file(output, db_path=app.db_path, text=True) as f:
            f.write(text)
        click.echo(f"Wrote {output}")
    else:
        click.echo(text, nl=False)


def at_defaults(cls: type, data: dict[str, Any]) -> set[str]:
    """The fields of ``data`` (an event of type ``cls`` as builtins, by encoded name) that
    hold the value the type gives when the field is not set: what ``audit`` leaves out of
    its ``fields:`` line (a roll's ``physical=False``, ``trait=None``)."""
    if not (isinstance(cls, type) and issubclass(cls, msgspec.Struct)):
        return set()
    usual = set()
    for f in msgspec.structs.fields(cls):
        if f.default is not msgspec.NODEFAULT:
            default = f.default
        elif f.default_factory is not msgspec.NODEFAULT:
            default = f.default_factory()
        else:
            continue
        if default is msgspec.UNSET or f.encode_name not in data:
            continue  # an unset field is not in ``data`` at all
        if data[f.encode_name] == msgspec.to_builtins(default):
            usual.add(f.encode_name)
    return usual


@cli.command()
@click.argument("seq", type=SEQ)
@json_option
@view_option
@pass_app
def audit(app: App, seq: int, as_json: bool) -> None:
    """Everything about event SEQ (a disputed roll): who, when, dice, band, rule, proof.

    Engine rolls of an ended session are recomputed from the revealed seed.
    Exit 1 when the roll or the log does not verify.
    """
    from ledger.history.audit import audit as run_audit

    result = run_audit(app.campaign, seq, as_gm=app.as_gm())
    bad = result["verdict"] in ("tampered", "mismatch")
    if as_json:
        echo_json(result)
    else:
        who = f"{result['name']} ({result['character']})" if result["name"] else result["character"]
        gm = " [GM]" if result.get("visibility") == "gm" else ""
        click.echo(f"Event {seq}: {result['type']} — {who}{gm}")
        if result["description"]:
            click.echo(f"  {result['description']}")
        session = result["session"] if result["session"] is not None else "none"
        click.echo(
            f"  recorded by {result['recorded_by']} at {result['recorded_at']}, session {session}"
        )
        d = result["data"]
        if "draws" in d:
            from ledger.dice.fairness import draws_words

            click.echo(f"  dice: {d['source']}; draws in order: {draws_words(d['draws'])}")
            if d.get("source") == "engine":
                click.echo(f"  nonce {d.get('nonce')}, client seed {d.get('client_seed')!r}")
                if "request" in d:
                    click.echo(f"  answers request {d['request']}, roller's entropy {d['entropy']}")
        from ledger.text import printable

        hidden: tuple[str, ...] = ("draws", "source", "nonce", "client_seed", "scheme", "request", "entropy")
        if "imported" in result:  # a roll from another tool's chat log
            src = result["imported"]
            click.echo(
                printable(
                    f"  source: imported from {src['tool']} ({src['message']}), said by "
                    f"{src['speaker']} at {src['at'] or 'an unknown time'}: {src['formula']}"
                    + (f" = {src['total']}" if src["total"] is not None else "")
                )
            )
            click.echo(f"  original text: {printable(src['text'])}")
            hidden += ("tool", "key", "speaker", "text", "at", "formula")
        if "predictable" in result:
            click.echo(f"  who could have known it: {result['predictable']['text']}")
        elif "no_dice" in result:
            click.echo(f"  dice: none, {result['no_dice']}")
        usual = at_defaults(type(app.campaign.record(seq).data), d)
        shown = {k: v for k, v in d.items() if k not in hidden and k not in usual}
        left_out = " (the others at their defaults)" if usual - set(hidden) else ""
        click.echo(
            printable("  fields: " + ", ".join(f"{k}={v}" for k, v in shown.items()) + left_out)
        )
        proof = result["proof"]  # its inclusion in the newest signed checkpoint
        if proof["checkpoint"] is None:
            click.echo(f"  checkpoint proof: none yet ({proof['problem']})")
        elif proof["verified"]:
            click.echo(
                f"  checkpoint proof: leaf {proof['index']} of the signed checkpoint of "
                f"{proof['checkpoint']} events (root {proof['root']}), {len(proof['proof'])} "
                "hashes: verifies"
            )
        else:
            click.echo(f"  checkpoint proof: FAILS — {proof['problem']}")
        click.echo(f"  checked: {result['checked']}")
        rule = result["rule"]
        click.echo(
            f"  rules: {rule['book']}"
            + (f', "{rule["section"]}"' if rule["section"] else "")
        )
        for c in result["corrections"]:
            click.echo(f"  correction {c['seq']} at {c['at']}: {printable(c['sentence'])}")
        if result["status"] != "standing":
            click.echo(f"  status: {result['status']} (the original stays in the log)")
        if result["corrections"]:
            click.echo(f"  original result: {printable(result['original'])}")
            corrected = result["corrected"]
            click.echo(
                f"  corrected result: {printable(corrected) if corrected else 'none (retracted)'}"
            )
        click.echo(f"  {result['detail']}")
    if bad:
        if not as_json:
            click.echo(f"error: event {seq} does not verify ({result['verdict']})", err=True)
        raise SystemExit(1)


@cli.command()
@click.argument("file", required=False, type=click.File("rb"))
@click.option(
    "--receipt",
    help="SEQ:HASH from an earlier receipt (all 64 hex digits, or the first 16 or more), or "
    "NOTE_FILE, a checkpoint note you kept (`campaign checkpoint`): prove the log up to SEQ "
    "(the note's size) is unchanged.",
)
@click.option(
    "--drop-snapshots",
    is_flag=True,
    help="Delete the campaign's snapshots (a cache of states; the next reads rebuild them).",
)
@json_option
@pass_app
def verify(app: App, file: Any, receipt: str | None, drop_snapshots: bool, as_json: bool) -> None:
    """Recompute the hash chain, every engine roll of every ended session and every roll's
    result (what its rule system gives for its recorded inputs and dice), and check every
    snapshot in use against a replay.

    With FILE, check an export instead of the ledger (a GM's or a player's copy, as
    `campaign export` writes it; --db is not read): players verify without Python. A
    player's copy is checked as far as it can be: GM-only events through their hashes. A GM
    backup's open-session engine rolls are recomputed from the seed it holds.
    Exit 0 and print a receipt (head seq and hash), or exit 1 naming the first bad seq.
    """
    from ledger.history import checkpoint_checks
    from ledger.history.report import ReceiptError, clock_note, parse_receipt, pending_lines
    from ledger.history.verify import verify_store

    parsed = None
    note = None
    if receipt is not None:
        note = _receipt_note(receipt)
        try:
            parsed = None if note is not None else parse_receipt(receipt)
        except ReceiptError as e:
            raise click.BadParameter(
                f"{e}, or the path of a checkpoint note file", param_hint="--receipt"
            ) from None
    trust: list[Any] = []
    if file is not None:
        from ledger.exchange.backup import split_backup
        from ledger.exchange.ndjson import BadLine, parse_lines, verify_export

        backup, rest = split_backup(file)
        try:
            lines = parse_lines(rest, trust)
        except BadLine as e:
            if not as_json:
                raise
            # --json answers in JSON even when the file is not an export at all
            echo_json({"ok": False, "campaign": None, "bad_seq": None,
                       "bad_line": e.number, "problem": str(e)})  # fmt: skip
            sys.exit(1)
        campaign_id, report = verify_export(lines, receipt=parsed, backup=backup)
        stubs = report.stubs
        seen = checkpoint_checks.check_file(lines, trust, receipt=note) if report.ok else None
    else:
        store = app.store()
        # verify reads the stored rows only: a damaged first event must be reported, not
        # stop the campaign from opening
        campaign_id = app.campaign_id
        if campaign_id is None:
            ids = store.campaign_ids()
            if len(ids) != 1:
                campaign_id = app.campaign.id  # the usual "no campaign" / "several" error
            else:
                campaign_id = ids[0]
        length = parsed[0] if parsed else store.head(campaign_id).seq
        with progress_bar(length, "Verifying") as update:
            report = verify_store(store, campaign_id, receipt=parsed, progress=update)
        stubs = 0
        if drop_snapshots:
            click.echo(f"Dropped {store.drop_snapshots(campaign_id)} snapshots.", err=True)
        elif report.ok:  # every snapshot in use must be what a replay gives (ledger.rules.snapshots)
            from ledger.history.verify import verify_snapshots

            problem = verify_snapshots(store, campaign_id)
            if problem:
                report.fail(*problem)
        seen = checkpoint_checks.check_store(store, campaign_id, receipt=note) if report.ok else None
        if report.ok and parsed is None and (seen is None or seen.ok):
            # chronicle entries and passports joined with, after the checkpoints the entries
            # rest on: a log rewritten under a checkpoint is named there, as a file's verify does
            from ledger.history.passports import check_log

            problem = check_log(app.campaign)
            if problem:
                report.fail(*problem)
        if report.ok and parsed is None and (seen is None or seen.ok) and report.head_seq:
            from ledger.history.audit_proof import record_verified

            # audit chains from here and never proves it twice
            record_verified(store, campaign_id, report.head_seq, report.head_hash, now())
    if seen is not None and not seen.ok:
        report.fail(seen.bad_size or 0, str(seen.problem))
    if as_json:
        echo_json(
            {
                "ok": report.ok,
                "campaign": campaign_id,
                "receipt": report.receipt,
                "events": report.events,
                "redacted": stubs,
                "engine_rolls_verified": report.engine_rolls,
                "engine_rolls_unverifiable": report.unverifiable_rolls,
                "engine_rolls_abandoned": report.abandoned_rolls,
                "results_rederived": report.results_checked,
                "results_unchecked": report.results_unchecked,
                "bad_seq": report.bad_seq,
                "problem": report.problem,
                "clock_back": report.clock.json(),
                "checkpoints": seen.checked if seen is not None else [],
            }
        )
    if not report.ok:
        if not as_json:
            from ledger.history.report import failure_words

            words = failure_words(report.bad_seq, str(report.problem), file=file is not None)
            click.echo(f"error: {words}", err=True)
        sys.exit(1)
    if not as_json:
        extra = f" (receipt {receipt.strip()} holds)" if receipt else ""
        if seen is not None and seen.checked:
            sizes = ", ".join(str(c["size"]) for c in seen.checked)
            cosigners = sorted({n for c in seen.checked for n in c["cosigners"]})
            extra += (
                f"; 1 signed checkpoint holds (size {sizes})"
                if len(seen.checked) == 1
                else f"; {len(seen.checked)} signed checkpoints hold (sizes {sizes})"
            )
            if cosigners:
                extra += f", cosigned by {', '.join(cosigners)}"
        hidden = f" ({stubs} GM-only, checked through their hashes)" if stubs else ""
        click.echo(
            f"OK: {report.events} events{hidden}, {report.engine_rolls} engine rolls verified, "
            f"{report.results_checked} roll results re-derived{extra}"
        )
        if report.results_unchecked:
            click.echo(f"Roll results not checked: {report.results_unchecked}")
        for line in pending_lines(report):
            click.echo(line)
        note = clock_note(report.clock)
        if note:
            click.echo(note)
        click.echo(f"Receipt: {report.receipt}")


@cli.group()
def proof() -> None:
    """Merkle proofs over the log (RFC 9162): that an event is in it, that it only grew."""


@proof.command("inclusion")
@click.argument("seq", type=SEQ)
@click.option("--size", type=SEQ, help="The tree of the first SIZE events (default: all).")
@json_option
@pass_app
def proof_inclusion(app: App, seq: int, size: int | None, as_json: bool) -> None:
    """Prove event SEQ is in the log's Merkle tree: its leaf hash and audit path to the
    root, which anyone checks with RFC 9162's algorithm alone (hashes in base64)."""
    from ledger.history.tree_proofs import inclusion

    found = inclusion(app.store(), app.campaign.id, seq, size)
    if as_json:
        echo_json(found.as_dict())
        return
    out = found.as_dict()
    click.echo(f"Event {seq} is leaf {out['index']} of the tree of {found.size} events.")
    click.echo(f"  root:      {out['root']}")
    click.echo(f"  leaf hash: {out['leaf_hash']}")
    for i, h in enumerate(out["proof"], start=1):
        click.echo(f"  proof {i:>2}:  {h}")


@proof.command("consistency")
@click.argument("old", type=SEQ)
@click.argument("new", type=SEQ, required=False)
@json_option
@pass_app
def proof_consistency(app: App, old: int, new: int | None, as_json: bool) -> None:
    """Prove the log of the first OLD events is a prefix of the log of the first NEW (default:
    all): nothing before OLD was rewritten. Hashes in base64."""
    from ledger.history.tree_proofs import consistency

    found = consistency(app.store(), app.campaign.id, old, new)
    if as_json:
        echo_json(found.as_dict())
        return
    out = found.as_dict()
    click.echo(f"The tree of {old} events is a prefix of the tree of {found.new}.")
    click.echo(f"  old root: {out['old_root']}")
    click.echo(f"  new root: {out['new_root']}")
    for i, h in enumerate(out["proof"], start=1):
        click.echo(f"  proof {i:>2}: {h}")


def _receipt_note(receipt: str) -> str | None:
    """The text of ``--receipt`` when it names a checkpoint note file (else ``None``: the
    ``SEQ:HASH`` form).

    :raises click.BadParameter: a file that is not a signed note (too big, not UTF-8).
    """
    import os

    if ":" in receipt and not os.path.exists(receipt):
        return None
    if not os.path.isfile(receipt):
        return None
    with open(receipt, "rb") as f:
        raw = f.read(20_001)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = ""
    if len(raw) > 20_000 or "\n\n" not in text:
        raise click.BadParameter(
            f"{receipt} is not a checkpoint note (the text `campaign checkpoint` prints)",
            param_hint="--receipt",
        )
    return text
