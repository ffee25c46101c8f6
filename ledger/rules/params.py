"""A rule system's roll and odds parameters, picked from what a caller gave and converted.

The CLI (click options), the table shell and the web form all hand their values to
:func:`pick_params`; a bad value raises :class:`ParamError` naming the option, which each
front end words its own way (the CLI as a usage error, exit 2; the web next to the field).
"""

from __future__ import annotations

from typing import Any

from ledger.errors import RuleError
from ledger.rules.requests import RollParam


class ParamError(RuleError):
    """A parameter the system does not declare, given twice, or with a bad value.

    :ivar option: the parameter's name as the system declares it (``"dr"``, ``"dice"``).
    """

    def __init__(self, message: str, *, option: str) -> None:
        super().__init__(message)
        self.option = option


def pick_params(system: Any, attr: str, given: dict[str, Any]) -> dict[str, Any]:
    """The given params the campaign's system declares, converted to their types.

    :raises ParamError: a param the system does not declare, or a bad value.
    """
    own = {p.name: p for p in getattr(system, attr)}
    out = {}
    for name, value in given.items():
        if value is None or value == () or value is False:
            continue
        if name not in own:
            raise ParamError(f"--{name.replace('_', '-')} is not an option of {system.id}", option=name)
        param = own[name]
        if isinstance(value, tuple) and not param.multiple:
            if len(value) > 1:
                raise ParamError(f"--{name.replace('_', '-')} is given once for {system.id}", option=name)
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
    if param.is_flag or param.type is str:
        return value
    flag = f"--{param.name.replace('_', '-')}"
    try:
        values = tuple(param.type(v) for v in (value if param.multiple else (value,)))
    except ValueError:
        kind = getattr(param.type, "__name__", "value")
        raise ParamError(f"{flag} takes {'an' if kind == 'int' else 'a'} {kind}, not {str(value)[:40]!r}", option=param.name) from None
    for v in values:
        if isinstance(v, int) and param.out_of_range(v):
            raise ParamError(f"{flag} takes a number{param.range_text()}, not {str(v)[:40]}", option=param.name)
    return values if param.multiple else values[0]
