"""Click options built from the installed rule systems' roll and odds parameters
(:class:`~ledger.rules.roll_inputs.RollParam`): `campaign roll` and `campaign odds` take the
options of the campaign's system, in the book's words, and convert what is given."""

from __future__ import annotations

from typing import Any

import click

from ledger.cli.base import App
from ledger.rules import params as rule_params
from ledger.rules.plugins import rule_systems
from ledger.rules.roll_inputs import RollParam

#: What :func:`merged_params` found two installed systems declaring differently (a flag in
#: one, a value in another): collected, not yet shown anywhere.
CLASHES: list[str] = []


def merged_params(
    attr: str, systems: dict[str, Any] | None = None
) -> dict[str, tuple[RollParam, list[str]]]:
    """Every installed system's params of kind ``attr`` (``roll_params``/``odds_params``).

    Two systems may declare one name: a switch and a valued option cannot share it (the
    later system's declaration is dropped, see ``campaign systems``); a single-valued and a
    repeatable one merge into a repeatable option.

    :param systems: ``{id: system}`` (default: every installed system).
    :returns: ``{name: (param, [system ids declaring it])}``.
    """
    merged: dict[str, tuple[RollParam, list[str]]] = {}
    for sid, system in sorted((systems if systems is not None else rule_systems()).items()):
        for p in getattr(system, attr):
            if p.name in merged:
                q, owners = merged[p.name]
                if q.is_flag != p.is_flag:
                    CLASHES.append(
                        f"--{p.name} of {sid} clashes with {owners[0]}'s and is unavailable"
                    )
                    continue
                if p.multiple and not q.multiple:
                    merged[p.name] = (p, owners)
                owners.append(sid)
            else:
                merged[p.name] = (p, [sid])
    return merged


def system_options(attr: str, systems: dict[str, Any] | None = None) -> list[click.Option]:
    """The merged system params as click options (help marked with each system's id)."""
    systems = systems if systems is not None else rule_systems()
    options = []
    for name, (p, owners) in sorted(merged_params(attr, systems).items()):
        declared = [q for s in owners for q in getattr(systems[s], attr) if q.name == name]
        flag = "--" + name.replace("_", "-")
        kinds = {q.type for q in declared}
        kind: Any = kinds.pop() if len(kinds) == 1 else str  # each system converts its own
        ranges = {(q.min, q.max) for q in declared}
        if kind is int and len(ranges) == 1 and ranges != {(None, None)}:
            low, high = ranges.pop()
            kind = click.IntRange(low, high)  # click shows the range in --help
        each_range = not isinstance(kind, click.IntRange)
        text = " ".join(
            (f"[{s}] " if len(systems) > 1 else "")  # one system: its help says enough
            + f"{q.help}{q.range_text() if each_range else ''}"
            + (f" One of: {', '.join(q.choices)}." if q.choices else "")
            for s, q in zip(owners, declared, strict=False)
        )
        if p.is_flag:
            options.append(click.Option([flag, name], is_flag=True, default=None, help=text))
        else:
            options.append(
                click.Option([flag, name], type=kind, multiple=p.multiple, default=None, help=text)
            )
    return options


class SystemParamsCommand(click.Command):
    """A command whose options are rule systems' params of ``params_attr``.

    When the command runs, only the one system it is for (the campaign's) is loaded and its
    options offered, so start-up stays lean. ``--help`` in a campaign shows that system's
    options and an example line from its book; without one, every installed system's.
    Built when used, not at import, so a system registered later (a test plugin) counts.
    """

    params_attr = "roll_params"

    def system_for(self, ctx: click.Context, args: list[str]) -> Any:
        """The one system these args are for, or ``None`` (then: every system)."""
        try:
            return ctx.find_object(App).campaign.system  # type: ignore[union-attr]
        except Exception:  # no ledger yet, a bad file: the callback reports it properly
            return None

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        system = self.system_for(ctx, args)  # --help too: it shows that system's options
        if system is not None:
            ctx.meta["ledger.system"] = system
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as e:
            system = ctx.meta.get("ledger.system")
            name = e.option_name.lstrip("-").replace("-", "_")
            owners = merged_params(self.params_attr).get(name, (None, []))[1]
            if system is None or not owners:
                raise
            raise click.UsageError(
                f"{e.option_name} is not an option of {system.id} (it is {', '.join(owners)}'s)",
                ctx,
            ) from None

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        system = ctx.meta.get("ledger.system")
        if system is not None:
            extra = system_options(self.params_attr, {system.id: system})
        else:
            key = id(rule_systems())
            if getattr(self, "_params_key", None) != key:
                self._extra = system_options(self.params_attr)
                self._params_key = key
            extra = self._extra
        base = super().get_params(ctx)
        return [*base[:-1], *extra, *base[-1:]]


    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_epilog(ctx, formatter)
        system = ctx.meta.get("ledger.system")
        example = getattr(system, "example_roll", "") if self.params_attr == "roll_params" else ""
        if example and system is not None:
            line, _, note = example.partition("  # ")
            with formatter.section(f"Example ({system.name}, from the book)"):
                formatter.write_text(f"campaign {line}")
                if note:
                    formatter.write_text(f"({note})")


class OddsCommand(SystemParamsCommand):
    """``campaign odds SYSTEM``: the options of the SYSTEM named on the command line."""

    params_attr = "odds_params"

    def system_for(self, ctx: click.Context, args: list[str]) -> Any:
        from ledger.rules.plugins import rule_system

        first = next((a for a in args if not a.startswith("-")), None)
        return rule_system(first) if first else None


def pick_params(system: Any, attr: str, given: dict[str, Any]) -> dict[str, Any]:
    """:func:`ledger.rules.params.pick_params`, a bad value worded as a usage error (exit 2).

    :raises click.UsageError: a param the system does not declare, or a bad value.
    """
    try:
        return rule_params.pick_params(system, attr, given)
    except rule_params.ParamError as e:
        from ledger.cli.base import flagged

        raise click.UsageError(flagged(e)) from None
