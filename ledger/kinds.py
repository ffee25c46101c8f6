"""A declared type in words (``msgspec.inspect`` types): what a value must be, as the CLI
says it in errors and help (``record EVENT --help``, ``campaign systems ID``, a bad
``campaign new --option``).

``int`` is "an integer", ``Literal["ceil", "floor"]`` is "one of: ceil, floor", ``bool`` is
"true or false"; :func:`describe_type` gives the words, :func:`option_problem` a whole
sentence for a campaign option that does not fit its type.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import inspect as mi

_NOTHING = tuple(t for t in (getattr(mi, "NoneType", None), getattr(mi, "UnsetType", None)) if t)
_LISTS = (mi.ListType, mi.VarTupleType, mi.SetType, mi.FrozenSetType)


def describe_type(t: mi.Type, *, repeat: str = "") -> str:
    """A type in words: ``an integer``, ``text``, ``one of: bonus, penalty``, ``a list of
    text``, ``true or false``.

    :param repeat: words after a list's (``" (repeat the option)"`` for an option that
        repeats).
    """
    if isinstance(t, mi.UnionType):
        kinds = [describe_type(x, repeat=repeat) for x in t.types if not isinstance(x, _NOTHING)]
        return " or ".join(kinds) if kinds else "nothing"
    if isinstance(t, mi.LiteralType):
        return "one of: " + ", ".join(str(v) for v in t.values)
    if isinstance(t, mi.EnumType):
        return "one of: " + ", ".join(str(m.value) for m in t.cls)
    if isinstance(t, mi.BoolType):
        return "true or false"
    if isinstance(t, mi.IntType):
        low = t.ge if t.ge is not None else (t.gt + 1 if t.gt is not None else None)
        high = t.le if t.le is not None else (t.lt - 1 if t.lt is not None else None)
        if low is not None and high is not None:
            return f"an integer from {low} to {high}"
        if low is not None:
            return f"an integer >= {low}"
        return "an integer"
    if isinstance(t, mi.FloatType):
        return "a number"
    if isinstance(t, mi.StrType):
        return "text"
    if isinstance(t, _LISTS):
        return f"a list of {describe_type(t.item_type)}{repeat}"
    if isinstance(t, mi.DictType):
        return "a JSON object"
    if isinstance(t, mi.AnyType):
        return "any JSON value"
    return "a JSON value"


def option_problem(system: str, field: msgspec.structs.FieldInfo, value: Any) -> str:
    """Why ``value`` is not a campaign option ``field`` of rule system ``system``, and an
    example that is: ``bad option for wyrd-engine: --option stress_boxes takes an integer
    (not 'x'), e.g. --option stress_boxes=5``."""
    t = mi.type_info(field.type)
    words = f"a JSON list of {_plural(t.item_type)}" if isinstance(t, _LISTS) else describe_type(t)
    default = field.default
    if default is msgspec.NODEFAULT and field.default_factory is not msgspec.NODEFAULT:
        default = field.default_factory()
    example = _example(t, default)
    given = value if isinstance(value, str) else msgspec.json.encode(value).decode()
    shown = given if len(given) <= 40 else given[:40] + "…"
    name = field.encode_name
    return f"bad option for {system}: --option {name} takes {words} (not {shown!r})" + (
        f", e.g. --option {name}={example}" if example else ""
    )


def _plural(t: mi.Type) -> str:
    """The items of a list in words: ``integers``, ``texts``, ``values among: a, b``."""
    if isinstance(t, mi.IntType):
        return "integers"
    if isinstance(t, mi.StrType):
        return "texts"
    if isinstance(t, mi.BoolType):
        return "true/false values"
    if isinstance(t, mi.LiteralType):
        return "values among: " + ", ".join(str(v) for v in t.values)
    return "values"


def _example(t: mi.Type, default: Any) -> str:
    """A value of type ``t`` as ``--option KEY=VALUE`` takes it: the default when there is
    one (a list's first two items), else one made up."""
    if isinstance(t, _LISTS):
        items = list(default)[:2] if isinstance(default, list | tuple | set | frozenset) else []
        if not items:
            item = t.item_type
            items = [1, 2] if isinstance(item, mi.IntType) else ["…", "…"]
        return msgspec.json.encode(items).decode()
    if default is msgspec.NODEFAULT or default is None:
        if isinstance(t, mi.LiteralType):
            return str(t.values[0])
        return ""
    if isinstance(default, str):
        return default
    if isinstance(default, dict) and not default:
        return ""  # an empty object shows nothing of what one holds
    return msgspec.json.encode(default).decode()
