"""Commands that record play: roll, record, damage, correct, request, withdraw (the
table shell, ``campaign play``, is :mod:`ledger.cli.play`)."""

from __future__ import annotations

from typing import Any

import click
import msgspec

from ledger.cli.base import SEQ, App, cli, echo_json, json_option, now, pass_app
from ledger.cli.fields import recordable
from ledger.cli.options import SystemParamsCommand, pick_params
from ledger.cli.output import echo_changes, made_mark, states
from ledger.history.words import describe


def roll_output(app: App, rec: Any) -> dict[str, Any]:
    """The JSON of a roll: its data plus seq, session, character and name."""
    data = msgspec.to_builtins(rec.data)
    data.pop("type", None)
    names = app.campaign.characters()
    return {
        "seq": rec.seq,
        "session": rec.session,
        **data,
        "character": rec.stream,
        "name": names.get(rec.stream, rec.stream),
        "visibility": rec.visibility,
    }


@cli.command(cls=SystemParamsCommand)
@click.argument("character_name", metavar="CHARACTER")
@click.argument("skill", required=False)
@click.option(
    "--dice",
    "faces",
    help="Physical dice: the faces shown, in order (3,5 or ++-0). "
    "Without it the engine rolls, verifiably, from the session's committed seed.",
)
@click.option("--client-seed", default="", help="Text a player offers to mix into an engine roll.")
@click.option("--blind", is_flag=True, help="A blind GM roll: GM-only, hidden from players.")
@click.option(
    "--auto",
    "automatic_ok",
    is_flag=True,
    help="Record a result the rules give without rolling (an automatic failure or success) "
    "without asking; off a terminal such a roll is refused without it.",
)
@click.option(
    "--vs-character",
    "vs_character",
    metavar="NAME",
    help="A character on the ledger (PC or NPC) opposing the roll: the rules use their "
    "sheet as it stands, and the roll is recorded on both characters. Their dice follow "
    "the roller's (in --dice too).",
)
@click.option(
    "--vs-skill",
    "vs_skill",
    metavar="SKILL",
    help="With --vs-character: the skill they oppose with (default: the rule system's).",
)
@click.option(
    "--apply",
    "apply",
    is_flag=True,
    help="With --vs-character and an attack: put the harm of a hit on the character hit in "
    "the same record.",
)
@click.option(
    "--answer",
    "answer",
    type=SEQ,
    metavar="SEQ",
    help="Answer the roll request at SEQ (`campaign request`): its skill and options are "
    "the request's. Engine dice then draw with the roller's --entropy; or give --dice.",
)
@click.option(
    "--entropy",
    metavar="HEX",
    help="With --answer: 32 bytes of randomness from the roller's own device, as 64 hex "
    "digits, mixed into the draw so nobody could know it in advance.",
)
@json_option
@pass_app
def roll(
    app: App,
    character_name: str,
    skill: str | None,
    faces: str | None,
    client_seed: str,
    blind: bool,
    automatic_ok: bool,
    vs_character: str | None,
    vs_skill: str | None,
    apply: bool,
    answer: int | None,
    entropy: str | None,
    as_json: bool,
    **params: Any,
) -> None:
    """Roll for CHARACTER (id or name) using SKILL, and record it.

    Against another character on the ledger: --vs-character NAME (and --apply to record
    the harm of a hit at once). Options below marked [system] apply to campaigns of that
    rule system.
    """
    from ledger.campaign.entering import Controls, enter_roll
    from ledger.errors import Refused

    campaign = app.campaign
    given = pick_params(campaign.system, "roll_params", params)
    who = [campaign.find_character(character_name)]
    if vs_character is not None and not as_json:
        who.append(campaign.find_character(vs_character))
    before = {} if as_json else states(app, list(dict.fromkeys(who)))

    def record(automatic_ok: bool) -> Any:
        # the code of the web form and the API's POST /roll, with the GM's authority
        return enter_roll(
            campaign,
            character_name,
            skill,
            given,
            faces=faces,
            as_gm=True,
            actor=app.actor,
            at=now(),
            controls=Controls(),
            automatic_ok=automatic_ok,
            client_seed=client_seed,
            blind=blind,
            opponent=vs_character,
            opponent_skill=vs_skill,
            apply=apply,
            answer=answer,
            entropy=entropy.strip().lower() if entropy else None,
        )

    try:
        written = record(automatic_ok)
    except Refused as e:  # no silent surprises: show it, and ask
        from ledger.cli import table

        if e.reason != "automatic" or not table.can_ask(app):  # off a terminal, or in `play`
            raise
        click.confirm(f"{e.automatic[0].upper()}{e.automatic[1:]}. Record it?", abort=True)
        written = record(True)
    rec, batch = written.roll, written.records
    if as_json:
        out = roll_output(app, rec)
        if len(batch) > 1:  # the opponent's side and any harm applied, in the same batch
            out["batch"] = [_event_json(r) for r in batch[1:]]
        echo_json(out)
    else:
        click.echo(describe(campaign, rec) + made_mark(rec))
        for later in batch[1:]:
            click.echo("  " + describe(campaign, later) + made_mark(later))
        # what the roll changed (experience, an increase, Ego, harm applied...), in the
        # book's words; both characters of a contest
        echo_changes(
            app, before, states(app, list(before)), names=len(before) > 1, mark=made_mark(rec)
        )


@cli.command(cls=SystemParamsCommand)
@click.argument("character_name", metavar="CHARACTER")
@click.argument("skill", required=False)
@click.option(
    "--player",
    "asked",
    metavar="NAME",
    help="The player asked to answer (default: the one who plays CHARACTER).",
)
@json_option
@pass_app
def request(
    app: App,
    character_name: str,
    skill: str | None,
    asked: str | None,
    as_json: bool,
    **params: Any,
) -> None:
    """Ask CHARACTER's player for a roll of SKILL: its inputs are fixed now, and it is
    answered once, from their device (`campaign roll CHARACTER --answer SEQ --entropy HEX`,
    or the web view's Roll button), with their own randomness mixed into the engine's draw:
    not even this laptop can know the result before the answer arrives. Options below
    marked [system] apply to campaigns of that rule system.
    """
    campaign = app.campaign
    given = pick_params(campaign.system, "roll_params", params)
    rec = campaign.request_roll(character_name, skill, given, asked=asked, actor=app.actor, at=now())
    if as_json:
        echo_json(_event_json(rec))
    else:
        click.echo(describe(campaign, rec))


@cli.command()
@click.argument("seq", type=SEQ)
@click.option("--reason", required=True, help="Why the request is withdrawn.")
@json_option
@pass_app
def withdraw(app: App, seq: int, reason: str, as_json: bool) -> None:
    """Withdraw the roll request at SEQ before it is answered (an answered one stands)."""
    campaign = app.campaign
    rec = campaign.withdraw_request(seq, reason, actor=app.actor, at=now())
    if as_json:
        echo_json(_event_json(rec))
    else:
        click.echo(describe(campaign, rec))


def _event_json(rec: Any) -> dict[str, Any]:
    """``{"seq", "type", "stream", ...data}`` of one recorded event."""
    data = msgspec.to_builtins(rec.data)
    data.pop("type", None)
    return {"seq": rec.seq, "type": rec.type, "stream": rec.stream, **data}


class RecordCommand(click.Command):
    """``record EVENT --help`` explains EVENT (its fields, their types and allowed values)
    instead of ``record`` itself; ``record --help`` is the command's help."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        helps = [a for a in args if a in ("-h", "--help")]
        named = [a for a in args if not a.startswith("-")]
        if helps and named and named[0] != "list":
            ctx.meta["ledger.event_help"] = True
            args = [a for a in args if a not in helps]
        return super().parse_args(ctx, args)


@cli.command(
    cls=RecordCommand,
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
)
@click.argument("event_type", metavar="EVENT")
@click.option("--blind", is_flag=True, help="Record it GM-only.")
@json_option
@click.pass_context
def record(ctx: click.Context, event_type: str, blind: bool, as_json: bool) -> None:
    """Record an event of the campaign's rule system: `record EVENT --field value ...`.

    EVENT is the event's name without the system prefix (favour-changed for
    d20-world.favour_changed); each field is an option, parsed by the field's type
    (text stays text); list fields repeat the option. `campaign record list` lists the
    events; `campaign record EVENT --help` lists EVENT's fields, types and allowed values.
    """
    from ledger.campaign import recording
    from ledger.cli.fields import field_lines, fields_of, is_list, item_type, option_name

    app: App = ctx.find_object(App)  # type: ignore[assignment]
    campaign = app.campaign
    system = campaign.system
    types = recordable(system)
    if event_type == "list":
        for short, cls in sorted(types.items()):
            names = " ".join(option_name(name) for name, _, _ in fields_of(cls))
            click.echo(f"{short:<24} {names}")
        return
    key = event_type.lower().replace("_", "-")
    try:
        cls = recording.event_class(system, event_type)
    except recording.FieldError as e:
        raise click.UsageError(e.message) from None
    if ctx.meta.get("ledger.event_help"):
        doc = " ".join((cls.__doc__ or "").split("\n\n")[0].split())
        click.echo(f"Usage: campaign record {key} [--blind] [--json] FIELDS...\n")
        if doc:
            click.echo(f"  {doc}\n")
        click.echo("Fields:")
        for line in field_lines(cls):
            click.echo(f"  {line}")
        return
    declared = {name: t for name, t, _ in fields_of(cls)}
    values: dict[str, Any] = {}
    args = list(ctx.args)
    while args:
        opt = args.pop(0)
        if not opt.startswith("--"):
            raise click.UsageError(f"{opt!r} is not a field: give fields as --name value")
        name, eq, inline = opt[2:].partition("=")
        name = name.replace("-", "_")
        if name not in declared:
            raise click.UsageError(
                f"{key} has no field {option_name(name)} (fields: "
                + ", ".join(option_name(f) for f in declared)
                + f"; see `campaign record {key} --help`)"
            )
        t = declared[name]
        if eq:
            text = inline
        elif args and not args[0].startswith("--"):
            text = args.pop(0)
        elif isinstance(item_type(t), msgspec.inspect.BoolType):
            text = "true"
        else:
            raise click.UsageError(f"{option_name(name)} needs a value")
        try:  # the same parsing as the GM's page (ledger.campaign.recording)
            value = recording.parse_field(campaign, cls, name, text)
        except recording.FieldError as e:
            raise click.UsageError(f"{e.message} (see `campaign record {key} --help`)") from None
        if is_list(t):
            values.setdefault(name, []).append(value)
        else:
            values[name] = value
    try:
        event = recording.build_event(cls, values)
    except recording.FieldError as e:
        raise click.UsageError(f"{e.message} (see `campaign record {key} --help`)") from None

    who = [values["character"]] if isinstance(values.get("character"), str) else []
    before = {} if as_json else states(app, who)
    rec = campaign.append([event], actor=app.actor, at=now(), visibility="gm" if blind else None)[0]
    if as_json:
        data = msgspec.to_builtins(rec.data)
        echo_json({"seq": rec.seq, "type": rec.type, "visibility": rec.visibility, **data})
    else:
        click.echo(describe(campaign, rec) + made_mark(rec))
        # what the event changed on the sheet, in the book's words
        echo_changes(app, before, states(app, who), names=False, mark=made_mark(rec))


def _scalar(text: str) -> Any:
    try:
        return msgspec.json.decode(text)
    except msgspec.DecodeError:
        return text


@cli.command()
@click.argument("character_name", metavar="CHARACTER")
@click.argument("amount", type=int)
@click.option(
    "--affects",
    "affects",
    multiple=True,
    metavar="SKILL",
    help="A skill a wound this damage inflicts affects (repeatable; systems whose wounds "
    "name skills, e.g. wyrd-engine).",
)
@json_option
@pass_app
def damage(
    app: App, character_name: str, amount: int, affects: tuple[str, ...], as_json: bool
) -> None:
    """Record AMOUNT of damage to CHARACTER (rule systems that declare harm: `campaign
    systems ID` says whether one does).

    --affects SKILL names the skills a wound it inflicts affects.
    """
    from ledger.campaign import recording

    campaign = app.campaign
    try:  # the same checks as the GM's page (ledger.campaign.recording)
        event = recording.harm(campaign, character_name, amount, affects)
    except recording.FieldError as e:
        raise click.UsageError(getattr(e, "command", e.message)) from None
    cid = event.character  # type: ignore[attr-defined]
    as_gm = app.as_gm()
    written = recording.write(campaign, event, actor=app.actor, at=now(), as_gm=as_gm)
    rec, old_state, new_state = written.rec, written.before, written.after
    # where the harm landed and what it does now, in the book's words
    sentences = written.sentences
    if as_json:
        before = campaign.system.sheet_view(old_state, as_gm=as_gm)
        after = campaign.system.sheet_view(new_state, as_gm=as_gm)
        changes = sheet_changes(before, after)
        echo_json(
            {
                "seq": rec.seq,
                "character": cid,
                "amount": amount,
                "changes": [{"field": f, "before": b, "after": a} for f, b, a in changes],
                "sentences": sentences,
                "sheet": after,
            }
        )
        return
    click.echo(describe(campaign, rec))
    for sentence in sentences:
        click.echo(f"  {sentence}")


def sheet_changes(before: dict[str, Any], after: dict[str, Any]) -> list[tuple[str, str, str]]:
    """``(field, before, after)`` for every flattened sheet field that changed."""
    from ledger.rules.changes import flatten

    flat_before, flat_after = flatten(before), flatten(after)
    keys = list(dict.fromkeys([*flat_before, *flat_after]))
    return [
        (k, flat_before.get(k, "—"), flat_after.get(k, "—"))
        for k in keys
        if flat_before.get(k, "—") != flat_after.get(k, "—")
    ]


@cli.command()
@click.argument("seq", type=SEQ)
@click.option("--reason", required=True, help="Why: kept in the log beside the correction.")
@click.option(
    "--set",
    "sets",
    multiple=True,
    metavar="FIELD=VALUE",
    help="Amend a field instead of retracting the event (repeatable). A roll's inputs only: "
    "its results are worked out again by the rules.",
)
@click.option(
    "--dice",
    "faces",
    metavar="FACES",
    help="Amend a physical roll's faces (as `roll --dice`); the rules resolve it again.",
)
@json_option
@pass_app
def correct(
    app: App, seq: int, reason: str, sets: tuple[str, ...], faces: str | None, as_json: bool
) -> None:
    """Correct event SEQ: retract it, or amend it with --set/--dice. The original stays.

    A correction is checked like a new event: if the corrected history holds an event the
    rules refuse, nothing is written and every such event is named. An engine roll's dice
    are never amended: retract it and roll again.
    """
    data = None
    if sets:
        data = {}
        for item in sets:
            if "=" not in item:
                raise click.BadParameter(f"{item!r}: write FIELD=VALUE", param_hint="--set")
            k, v = item.split("=", 1)
            data[k.strip()] = _scalar(v)
    campaign = app.campaign
    rec = campaign.correct(seq, reason, data=data, faces=faces, actor=app.actor, at=now())
    if as_json:
        echo_json(
            {"seq": rec.seq, "target": seq, "action": rec.data.action, "reason": rec.data.reason}
        )
    else:
        click.echo(describe(campaign, rec))
