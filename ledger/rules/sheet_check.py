"""Reading a character sheet into a typed ``msgspec.Struct``, every problem reported at once.

A rule system declares its sheet as a ``msgspec.Struct``: ``Annotated[int, Meta(ge=0,
le=5)]`` for a bounded number, ``Meta(min_length=1)`` or ``Meta(pattern=...)`` for text,
``Literal["pc", "npc"]`` for a closed choice, nested Structs for tables and arrays of
tables, a default for every optional field. :func:`check_sheet` reads the parsed TOML into
it. ``msgspec.convert`` stops at the first error; this walks the fields itself, so a sheet
with three mistakes gets three sentences, each led by its TOML path::

    skills.athletics: expected an integer from 0 to 5, got "five"
    equipment[2].name: missing (a sheet's equipment entry needs it)
    luck: not a field of the sheet (it has equipment, skills, stats)

Array entries are numbered from 1, as a person counts ``[[equipment]]`` tables. Rules that
depend on the campaign's options or on other fields (a stat range the GM sets, a parent
skill that must be on the sheet) go in the ``rules`` callback, which sees the sheet as far
as it could be read and adds its own sentences to the same list.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Callable, Iterable
from typing import Annotated, Any, Literal, TypeVar, get_args, get_origin

import msgspec
import msgspec.inspect as mi

from ledger.errors import RuleError

__all__ = ["check_sheet", "expected"]

S = TypeVar("S", bound=msgspec.Struct)

#: A value the walk could not read (its problem is already in the list).
_BAD = object()

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def check_sheet(
    sheet_type: type[S],
    data: Any,
    *,
    rules: Callable[[S], Iterable[str]] | None = None,
) -> S:
    """Read ``data`` (a parsed TOML table) into ``sheet_type``, reporting every problem.

    :param sheet_type: a ``msgspec.Struct`` whose fields carry the sheet's constraints
        (``msgspec.Meta`` ``ge``/``le``/``gt``/``lt``/``min_length``/``max_length``/
        ``pattern``, ``Literal`` choices, nested Structs, ``list``/``dict`` of them). Unknown
        keys are refused whatever the Struct's ``forbid_unknown_fields`` says.
    :param data: the sheet as parsed (dicts, lists, str, int, float, bool).
    :param rules: more checks, run on the sheet as far as it could be read (entries of a
        table or an array that were refused are left out; a refused field with a default
        takes its default), unless a required field could not be read at all: a sentence
        per problem, each best led by its TOML path (``stats.Might: ...``).
    :returns: the ``sheet_type`` instance.
    :raises RuleError: every problem found, one sentence each in ``problems`` (duplicates
        dropped): unknown keys first, then the fields' problems in the Struct's order, then
        the ``rules``' sentences.
    """
    problems: list[str] = []
    value = _walk(sheet_type, data, "", problems)
    if value is not _BAD and rules is not None:
        problems.extend(rules(value))
    if problems:
        raise RuleError(*dict.fromkeys(problems))
    return value  # type: ignore[no-any-return]


def expected(annotation: Any) -> str:
    """What a field of this type takes, in words: ``"an integer from 1 to 4"``, ``"one of
    'pc', 'npc'"``, ``"text"``, ``"a table"``, or the ``description`` of its
    ``msgspec.Meta`` when it has one. Used in :func:`check_sheet`'s sentences."""
    info = mi.type_info(annotation)
    bare = _strip(annotation)
    if not isinstance(info, mi.Metadata) and get_origin(bare) is Literal:  # declared order
        return "one of " + ", ".join(repr(v) for v in get_args(bare))
    return _words(info)


def _path(path: str, key: Any) -> str:
    text = str(key)
    part = text if _BARE_KEY.match(text) else msgspec.json.encode(text).decode()
    return f"{path}.{part}" if path else part


def _got(value: Any) -> str:
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return msgspec.json.encode(value).decode()
    return repr(value).lower() if isinstance(value, bool) else repr(value)


def _strip(annotation: Any) -> Any:
    """The type under ``Annotated[...]`` (its constraints are checked by converting)."""
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    return annotation


def _walk(annotation: Any, value: Any, path: str, problems: list[str]) -> Any:
    """``value`` converted to ``annotation``, or :data:`_BAD` after adding its problems."""
    bare = _strip(annotation)
    origin = get_origin(bare)
    if isinstance(bare, type) and issubclass(bare, msgspec.Struct):
        return _struct(bare, value, path, problems)
    if origin is list and isinstance(value, list):
        (item,) = get_args(bare) or (Any,)
        items = [_walk(item, v, f"{path}[{i}]", problems) for i, v in enumerate(value, 1)]
        return _convert(annotation, [v for v in items if v is not _BAD], path, value, problems)
    if origin is dict and isinstance(value, dict):
        key_type, item = get_args(bare) or (str, Any)
        table = {}
        for key, v in value.items():
            checked = _walk(item, v, _path(path, key), problems)
            if checked is not _BAD:
                table[key] = checked
        return _convert(annotation, table, path, value, problems)
    return _convert(annotation, value, path, value, problems)


def _convert(annotation: Any, value: Any, path: str, given: Any, problems: list[str]) -> Any:
    try:
        return msgspec.convert(value, annotation)
    except msgspec.ValidationError:
        where = f"{path}: " if path else ""
        problems.append(f"{where}expected {expected(annotation)}, got {_got(given)}")
        return _BAD


@functools.cache
def _fields(cls: type[msgspec.Struct]) -> dict[str, msgspec.structs.FieldInfo]:
    """``{key as written in the sheet: field}`` of ``cls``, read once per class (msgspec
    evaluates the class's annotations each time it is asked)."""
    return {f.encode_name: f for f in msgspec.structs.fields(cls)}


def _struct(cls: type[msgspec.Struct], value: Any, path: str, problems: list[str]) -> Any:
    fields = _fields(cls)
    if not isinstance(value, dict):
        where = f"{path}: " if path else "the sheet: "
        problems.append(f"{where}expected a table of {', '.join(fields)}, got {_got(value)}")
        return _BAD
    out: dict[str, Any] = {}
    usable = True
    for key in value:
        if key not in fields:
            hint = difflib.get_close_matches(str(key), list(fields), n=1)
            near = f"; did you mean {hint[0]!r}?" if hint else ""
            problems.append(
                f"{_path(path, key)}: not a field of {path or 'the sheet'} "
                f"(it has {', '.join(sorted(fields))}){near}"
            )
    for name, field in fields.items():
        required = field.required
        if name not in value:
            if required:
                problems.append(f"{_path(path, name)}: missing, expected {expected(field.type)}")
                usable = False
            continue
        checked = _walk(field.type, value[name], _path(path, name), problems)
        if checked is _BAD:
            usable = usable and not required
        else:
            out[name] = checked
    if not usable:
        return _BAD
    try:
        return msgspec.convert(out, cls)
    except msgspec.ValidationError as e:  # a check of the Struct's own (__post_init__)
        problems.append(f"{path or 'the sheet'}: {e}")
        return _BAD


def _range(low: Any, high: Any, gt: Any, lt: Any, unit: str) -> str:
    low = low if low is not None else (gt + 1 if gt is not None else None)
    high = high if high is not None else (lt - 1 if lt is not None else None)
    if low is not None and high is not None:
        return f" {unit}from {low} to {high}"
    if low is not None:
        return f" {unit}of {low} or more"
    if high is not None:
        return f" {unit}of {high} or less"
    return ""


def _words(t: mi.Type) -> str:
    if isinstance(t, mi.Metadata):
        described = (t.extra_json_schema or {}).get("description")
        return str(described) if described else _words(t.type)
    if isinstance(t, mi.IntType):
        return "an integer" + _range(t.ge, t.le, t.gt, t.lt, "")
    if isinstance(t, mi.FloatType):
        return "a number" + _range(t.ge, t.le, t.gt, t.lt, "")
    if isinstance(t, mi.BoolType):
        return "true or false"
    if isinstance(t, mi.StrType):
        if t.pattern:
            return f"text matching {t.pattern}"
        if t.min_length == 1 and t.max_length is None:
            return "text, not empty"
        length = _range(t.min_length, t.max_length, None, None, "")
        return f"text{length} characters long" if length else "text"
    if isinstance(t, mi.LiteralType):
        return "one of " + ", ".join(repr(v) for v in t.values)
    if isinstance(t, mi.UnionType):
        kinds = [_words(x) for x in t.types if not isinstance(x, mi.NoneType)]
        return " or ".join(kinds)
    if isinstance(t, (mi.ListType, mi.SetType, mi.VarTupleType)):
        size = _range(t.min_length, t.max_length, None, None, "")
        return f"an array{' with' + size + ' entries' if size else ''}"
    if isinstance(t, (mi.DictType, mi.StructType, mi.TypedDictType, mi.DataclassType)):
        return "a table"
    return "a value of another kind"
