"""A rule system's roll and odds parameters, picked from what a caller gave and converted.

The CLI (click options), the table shell, the web forms and the JSON API all hand their
values to :func:`pick_params`; a bad value raises :class:`ParamError` naming the option by
its label, which each front end places its own way (the CLI as a usage error naming the
flag, exit 2; the web next to the field; the API at the field's JSON pointer).
"""

from __future__ import annotations

from typing import Any

from ledger.errors import RuleError
from ledger.rules.roll_inputs import RollParam


class ParamError(RuleError):
    """An option the system does not declare, given twice, or with a bad value: a
    :class:`RuleError` whose ``param`` is the option's declared name (``"dr"``, ``"dice"``).
    Its sentence names the option by its label; each front end words the field (the CLI as
    a usage error naming ``--dr``, exit 2; the web next to the field; the API at
    ``/params/dr``)."""

    def __init__(self, message: str, *, option: str) -> None:
        super().__init__(message, param=option)

    @property
    def option(self) -> str:
        """The option's declared name (the same as ``param``)."""
        return str(self.param)


def pick_params(system: Any, attr: str, given: dict[str, Any]) -> dict[str, Any]:
    """The given params the campaign's system declares for ``attr`` (``"roll_params"`` or
    ``"odds_params"``), converted to their types and checked against their range and
    choices: the one place every front end's values are checked.

    :raises ParamError: a param the system does not declare, or a bad value.
    """
    own = {p.name: p for p in getattr(system, attr)}
    out = {}
    for name, value in given.items():
        if value is None or value == () or value is False:
            continue
        if name not in own:
            what = "odds" if attr == "odds_params" else "rolls"
            raise ParamError(
                f"{system.name}'s {what} take no option {name.replace('_', ' ')!r}", option=name
            )
        param = own[name]
        if isinstance(value, tuple) and not param.multiple:
            if len(value) > 1:
                raise ParamError(f"“{param.title}” is given once", option=name)
            value = value[0]
        out[name] = _convert(param, value)
    return out


def from_text(system: Any, values: dict[str, str]) -> dict[str, Any]:
    """The text ``values`` of the system's roll params (a web form's fields, an API body's
    ``params``) as click would give them to :func:`pick_params`: a flag ``True`` when not
    empty, a repeatable value split on commas into a tuple, an empty value absent.

    Names the system's roll does not take are left out: each front end refuses them first,
    in its own words (a form field it does not show, an option the body may not name).
    """
    out: dict[str, Any] = {}
    for p in system.roll_params:
        value = str(values.get(p.name, "")).strip()
        if not value:
            continue
        if p.is_flag:
            out[p.name] = True
        elif p.multiple:
            out[p.name] = tuple(v.strip() for v in value.split(",") if v.strip())
        else:
            out[p.name] = value
    return out


def _convert(param: RollParam, value: Any) -> Any:
    if param.is_flag:
        return value
    label = f"“{param.title}”"
    raw = value if param.multiple else (value,)
    if param.type is str:
        values: tuple[Any, ...] = tuple(raw)
    else:
        try:
            values = tuple(param.type(v) for v in raw)
        except ValueError:
            kind = getattr(param.type, "__name__", "value")
            kind = {"int": "a whole number"}.get(kind, f"a {kind}")
            raise ParamError(f"{label} takes {kind}, not {str(value)[:40]!r}", option=param.name) from None
    for v in values:
        if isinstance(v, int) and param.out_of_range(v):
            raise ParamError(f"{label} takes a number{param.range_text()}, not {str(v)[:40]}", option=param.name)
        if param.choices and param.choice_of(v) is None:
            raise ParamError(
                f"{label} is one of {', '.join(param.choices)}, not {str(v)[:40]!r}", option=param.name
            )
    return values if param.multiple else values[0]
