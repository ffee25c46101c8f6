"""``campaign effort``: spend Effort after seeing a roll (seed 004_663ae3e4ecc71fd1.txt,
"Attributes and Effort", "Example: Opposed Roll").

Both worked examples spend Effort after the dice are seen. ``record effort-spent`` does the
same but cannot fill in the result; this command replays the character's state, applies the
Effort, and records the event with the bonus, the new successes and the new outcome, so the
log line says what happened ("jen spends 1 Effort on roll 10: +3 (Quickness) = 4 successes:
win"). Registered through the ``register_commands`` hook.
"""

from __future__ import annotations

import click
import msgspec

from ledger import RuleError, event_tag

from .events import ContestRolled, EffortSpent, TestRolled
from .rules.mechanics import attribute_named


@click.command("effort")
@click.argument("character_name", metavar="CHARACTER")
@click.option("--attribute", help="The Attribute added, if the GM names another than the roll's.")
@click.option(
    "--roll",
    "roll",
    type=click.IntRange(1),
    default=None,
    help="The seq of the roll (one of the character's in this scene); default: the latest.",
)
@click.option("--json", "as_json", is_flag=True, help="Output one JSON document.")
@click.pass_context
def effort(
    ctx: click.Context,
    character_name: str,
    attribute: str | None,
    roll: int | None,
    as_json: bool,
) -> None:
    """[spellwoven] Spend 1 Effort on CHARACTER's latest roll (or --roll N): add the
    Attribute, judge again."""
    from ledger import App, describe, echo_json, now

    app = ctx.find_object(App)
    assert app is not None
    campaign = app.campaign
    system = campaign.system
    if system.id != "spellwoven":
        raise RuleError(f"campaign effort is a Spellwoven command; this campaign plays {system.id}")
    cid = campaign.find_character(character_name)
    state = campaign.state_of(cid)
    if roll is None:  # the character's latest roll in the log
        rolls = campaign.records(
            stream=cid, types=[event_tag(TestRolled), event_tag(ContestRolled)]
        )
        roll = max((rec.seq for rec in rolls), default=None)
    event = EffortSpent(character=cid, attribute=attribute, roll=roll)
    after = system.appliers()[EffortSpent](state, event)
    target = ([r for r in after.scene_rolls if r.seq == roll] or [after.last_roll])[-1]
    assert target is not None
    attribute = attribute_named(attribute or target.attribute)
    event = msgspec.structs.replace(
        event,
        attribute=attribute,
        bonus=state.attributes[attribute],
        successes=target.successes,
        outcome=target.outcome,  # type: ignore[arg-type]
    )
    rec = campaign.append([event], actor=app.actor, at=now())[0]
    if as_json:
        data = msgspec.to_builtins(rec.data)
        data.pop("type", None)
        echo_json({"seq": rec.seq, "session": rec.session, **data, "effort": after.effort})
    else:
        click.echo(describe(campaign, rec))
