"""``campaign effort``: spend Effort after seeing a roll (seed 004_663ae3e4ecc71fd1.txt,
"Attributes and Effort", "Example: Opposed Roll").

Both worked examples spend Effort after the dice are seen. ``record effort-spent`` does the
same but cannot fill in the result; this command replays the character's state, applies the
Effort, and records the event with the bonus, the new successes and the new outcome, so the
log line says what happened ("jen spends 1 Effort on roll 10: +3 (Quickness) = 4 successes:
win"). Registered through the ``register_commands`` hook.
"""

from __future__ import annotations

from typing import Any

import click
import msgspec

from ledger import RuleError

from .events import ContestRolled, EffortSpent, TestRolled


def latest_roll_seq(campaign: Any, character: str) -> int | None:
    """The seq of the character's latest Spellwoven roll in the log, or ``None``."""
    tags = [TestRolled.__struct_config__.tag, ContestRolled.__struct_config__.tag]
    last = None
    for rec in campaign.records(stream=character, types=tags):
        last = rec.seq
    return last


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
    seq = roll if roll is not None else latest_roll_seq(campaign, cid)
    event = EffortSpent(character=cid, attribute=attribute, roll=seq)
    after = system.appliers()[EffortSpent](state, event)
    on = [r for r in after.scene_rolls if r.seq == seq] or [after.last_roll]
    was = [r for r in state.scene_rolls if r.seq == seq] or [state.last_roll]
    target, before = on[-1], was[-1]
    assert target is not None and before is not None
    used = target.attribute if attribute is None else attribute
    event = msgspec.structs.replace(
        event,
        attribute=next((a for a in state.attributes if a.casefold() == used.casefold()), used),
        bonus=target.successes - before.successes,
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
