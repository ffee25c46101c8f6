"""An event's fields as people enter them: their types in words, and each typed value parsed
by the field's declared type (``campaign record``, ``campaign systems SYSTEM``, the GM's page
of ``campaign serve``: :mod:`ledger.campaign.recording`). Moved here from ``ledger.cli.fields`` so that the web view parses a field exactly as the command line does;
``ledger.cli.fields`` keeps the old names.

``--description 2`` stays the text "2" because ``description`` is declared ``str``;
``--stress-boxes three`` is refused naming the option, the value and what it takes.
"""

from __future__ import annotations

import functools
from typing import Any

import msgspec
from msgspec import inspect as mi

from ledger import kinds
from ledger.events import Roll


class FieldError(ValueError):
    """A value a field does not take, or an event whose fields do not fit together; one
    sentence naming the field (as an option, ``--stress-boxes``) and what it takes. The
    command line shows it as a usage error (exit 2); the GM's page next to the form.

    :ivar field: the field's name (``stress_boxes``), ``""`` when no single field is to blame.
    """

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.field = field


_NOTHING = tuple(t for t in (getattr(mi, "NoneType", None), getattr(mi, "UnsetType", None)) if t)


def option_name(field: str) -> str:
    """``stress_boxes`` → ``--stress-boxes``."""
    return "--" + field.replace("_", "-")


def fields_of(cls: type) -> list[tuple[str, mi.Type, Any]]:
    """``[(field name, msgspec type info, default or msgspec.NODEFAULT)]`` of an event
    type, in declaration order (a ``default_factory`` gives its value)."""
    out = []
    for f in _struct_info(cls).fields:
        default = f.default
        if default is msgspec.NODEFAULT and f.default_factory is not msgspec.NODEFAULT:
            default = f.default_factory()
        out.append((f.encode_name, f.type, default))
    return out


@functools.cache
def _struct_info(cls: type) -> mi.StructType:
    """msgspec's type info of an event class, read once: the GM page and ``record`` ask for
    every event type's fields on each form, and reading them walks every field's type."""
    info = mi.type_info(cls)
    assert isinstance(info, mi.StructType)
    return info


def describe_type(t: mi.Type) -> str:
    """A field's type in words: ``an integer``, ``text``, ``one of: bonus, penalty``,
    ``a list of text (repeat the option)``, ``true or false`` (:func:`ledger.kinds.describe_type`)."""
    return kinds.describe_type(t, repeat=" (repeat the option)")


def is_list(t: mi.Type) -> bool:
    """Is the field a list (the option repeats)?"""
    if isinstance(t, mi.UnionType):
        return any(is_list(x) for x in t.types)
    return isinstance(t, mi.ListType | mi.VarTupleType | mi.SetType | mi.FrozenSetType)


def item_type(t: mi.Type) -> mi.Type:
    """The type of one typed value of the field (a list's item type)."""
    if isinstance(t, mi.UnionType):
        for x in t.types:
            if is_list(x):
                return item_type(x)
        return t
    if isinstance(t, mi.ListType | mi.VarTupleType | mi.SetType | mi.FrozenSetType):
        return t.item_type
    return t


def parse_value(field: str, t: mi.Type, text: str) -> Any:
    """One typed value, parsed by the field's declared type.

    :param t: the type of one value (:func:`item_type` of the field's type).
    :raises FieldError: the text is not a value of that type; the message names the
        option, the value and what the option takes.
    """
    kinds = t.types if isinstance(t, mi.UnionType) else (t,)
    if any(isinstance(k, mi.StrType) for k in kinds):
        return text  # declared text stays text: --description 2 is "2"
    for k in kinds:
        value = _parse_one(k, text)
        if value is not _NO:
            return value
    shown = text if len(text) <= 40 else text[:40] + "…"
    raise FieldError(f"{option_name(field)} takes {describe_type(t)}, not {shown!r}", field)


_NO = object()


def _parse_one(t: mi.Type, text: str) -> Any:
    if isinstance(t, mi.BoolType):
        return {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}.get(
            text.lower(), _NO
        )
    if isinstance(t, mi.IntType):
        try:
            value = int(text.strip())
        except ValueError:
            return _NO
        low_ok = (t.ge is None or value >= t.ge) and (t.gt is None or value > t.gt)
        high_ok = (t.le is None or value <= t.le) and (t.lt is None or value < t.lt)
        return value if low_ok and high_ok else _NO
    if isinstance(t, mi.FloatType):
        try:
            return float(text)
        except ValueError:
            return _NO
    if isinstance(t, mi.LiteralType):
        for v in t.values:
            if str(v).lower() == text.lower():
                return v
        return _NO
    if isinstance(t, mi.EnumType):
        for m in t.cls:
            if str(m.value).lower() == text.lower():
                return m.value
        return _NO
    if isinstance(t, _NOTHING):
        return _NO
    try:  # a dict, a struct, anything else: JSON
        return msgspec.json.decode(text)
    except msgspec.DecodeError:
        return _NO


def field_lines(cls: type) -> list[str]:
    """One line per field: ``--delta  an integer (required)``; the help of
    ``record EVENT --help`` and ``campaign systems SYSTEM``."""
    lines = []
    for name, t, default in fields_of(cls):
        if default is msgspec.NODEFAULT:
            extra = "required"
        elif default in ("", (), [], None, msgspec.UNSET):
            extra = "optional"
        else:
            extra = f"default {msgspec.json.encode(default).decode()}"
        lines.append(f"{option_name(name):<22} {describe_type(t)} ({extra})")
    return lines


def _short_names(system: Any) -> dict[str, type]:
    """``{short name: class}`` of every event type of ``system`` (``favour-changed`` for
    ``d20-world.favour_changed``)."""
    out = {}
    for cls in system.event_types:
        tag = cls.__struct_config__.tag  # type: ignore[attr-defined]
        if isinstance(tag, str):
            out[tag.split(".", 1)[1].replace("_", "-")] = cls
    return out


def recordable(system: Any) -> dict[str, type]:
    """The events ``campaign record`` writes for ``system``: ``{short name: class}``
    (``favour-changed`` for ``d20-world.favour_changed``); rolls go through ``roll``."""
    return {k: cls for k, cls in _short_names(system).items() if not issubclass(cls, Roll)}


def roll_events(system: Any) -> dict[str, type]:
    """The roll events of ``system`` (subclasses of :class:`ledger.events.Roll`) by short
    name: ``campaign roll`` writes them (an end-of-session roll, ``campaign advance``), so
    that their dice are drawn or checked; ``campaign record`` never does."""
    return {k: cls for k, cls in _short_names(system).items() if issubclass(cls, Roll)}
