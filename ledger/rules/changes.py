"""What changed on a character, as sentences a person reads (issue 15).

:func:`sentences` is the generic wording :meth:`ledger.rules.system.RuleSystem.describe_changes`
falls back on: it compares two states field by field, names entries of a list by their
``name`` and never shows a field path, ``None`` or an empty value::

    >>> sentences({"stress": 0, "conditions": []},
    ...           {"stress": 2, "conditions": [{"name": "shaken", "penalty": 1}]})
    ['Stress 0 → 2', "New condition 'shaken' (penalty 1)"]

Rule systems write their own sentences in their book's words and pass the fields they did
not word themselves (``skip``) to this module, so nothing that changed goes unsaid. For a
collection of named entries (stats, skills, items, conditions) :func:`entry_changes` says
what came, changed and went in the system's own sentences::

    >>> entry_changes({"Might": 1}, {"Might": 2, "Grit": 0},
    ...               new="new stat {name} {now}", changed="{name} {moved} to {now}")
    ['Might rose to 2', 'new stat Grit 0']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import msgspec

from ledger.templating import fill

#: What :func:`entry_changes` says for one entry: a template (:func:`ledger.templating.fill`)
#: or a function of the entry's name and values returning a sentence or ``None``.
Said = str | Callable[..., str | None] | None


def sentences(before: Any, after: Any, *, skip: tuple[str, ...] = ()) -> list[str]:
    """Sentences for every field of ``after`` that differs from ``before``.

    :param before: a state (msgspec struct, dataclass-like dict) or ``None`` (no state yet:
        every non-empty field of ``after`` is new).
    :param after: the state now.
    :param skip: top-level field names to leave out (already worded by the caller).
    :returns: sentences, first letter capitalised, in the order of ``after``'s fields.
    """
    b = _builtins(before) if before is not None else {}
    a = _builtins(after)
    if not isinstance(a, dict):
        return [] if a == b else [f"{_show(b)} → {_show(a)}"]
    out: list[str] = []
    for key in list(dict.fromkeys([*a, *(b if isinstance(b, dict) else {})])):
        if key in skip:
            continue
        old = b.get(key) if isinstance(b, dict) else None
        out.extend(_field(str(key), old, a.get(key)))
    return [s[:1].upper() + s[1:] for s in out if s]


def entry_changes(
    before: Mapping[str, Any] | Iterable[Any],
    after: Mapping[str, Any] | Iterable[Any],
    *,
    new: Said = None,
    changed: Said = None,
    gone: Said = None,
    value: Callable[[Any], Any] | None = None,
) -> list[str]:
    """Sentences for the entries of a named collection that came, changed or went.

    :param before: the collection before: a mapping ``{name: entry}``, or entries named by
        their ``name`` attribute (text entries by themselves).
    :param after: the collection after, the same way.
    :param new: said of an entry only in ``after``: a template with the fields ``name`` and
        ``now``, or a function ``(name, now)``; ``None``: nothing is said.
    :param changed: said of an entry in both whose value differs: a template with ``name``,
        ``was``, ``now`` and ``moved`` (``"rose"`` or ``"fell"`` when both values are
        numbers, else ``"changed"``), or a function ``(name, was, now)``.
    :param gone: said of an entry only in ``before``: a template with ``name`` and ``was``,
        or a function ``(name, was)``.
    :param value: what of an entry is compared and given as ``was``/``now`` (default the
        entry itself).
    :returns: the new and changed entries' sentences in ``after``'s order, then the gone
        ones in ``before``'s; a function's ``None`` says nothing. Not capitalised.
    """

    def say(how: Said, name: str, **values: Any) -> list[str]:
        if how is None:
            return []
        if not isinstance(how, str):
            line = how(name, *values.values())
            return [] if line is None else [line]
        if "was" in values and "now" in values:
            was, now = values["was"], values["now"]
            numbers = all(
                isinstance(v, int | float) and not isinstance(v, bool) for v in (was, now)
            )
            values["moved"] = ("rose" if now > was else "fell") if numbers else "changed"
        return [fill(how, {"name": name, **values})]

    old, latest = _named(before, value), _named(after, value)
    out: list[str] = []
    for name, now in latest.items():
        if name not in old:
            out += say(new, name, now=now)
        elif old[name] != now:
            out += say(changed, name, was=old[name], now=now)
    for name, was in old.items():
        if name not in latest:
            out += say(gone, name, was=was)
    return out


def _named(
    entries: Mapping[str, Any] | Iterable[Any], value: Callable[[Any], Any] | None
) -> dict[str, Any]:
    pairs = (
        entries.items()
        if isinstance(entries, Mapping)
        else ((e if isinstance(e, str) else e.name, e) for e in entries)
    )
    return {name: value(e) if value else e for name, e in pairs}


def label(key: str) -> str:
    """A field name as words: ``"wounds_received"`` → ``"wounds received"``."""
    return key.replace("_", " ").strip()


def singular(key: str) -> str:
    """A list field's name for one entry: ``"conditions"`` → ``"condition"``."""
    word = label(key)
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _builtins(value: Any) -> Any:
    return _lists(msgspec.to_builtins(value))


def _lists(value: Any) -> Any:
    """Tuples as lists, all the way down (states hold tuples, sheets lists)."""
    if isinstance(value, list | tuple):
        return [_lists(v) for v in value]
    if isinstance(value, dict):
        return {k: _lists(v) for k, v in value.items()}
    return value


def _empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


def _show(value: Any) -> str:
    """A scalar for people: booleans as yes/no, lists joined, nothing as "none"."""
    if _empty(value):
        return "none"
    if value is True:
        return "yes"
    if value is False:
        return "no"
    if isinstance(value, list):
        return ", ".join(_show(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{label(str(k))} {_show(v)}" for k, v in value.items() if not _empty(v))
    return str(value)


def _name_of(entry: dict[str, Any]) -> str | None:
    for key in ("name", "skill", "title", "id"):
        if isinstance(entry.get(key), str) and entry[key]:
            return str(entry[key])
    return None


def _details(entry: dict[str, Any], name_key: str | None) -> str:
    parts = [
        f"{label(k)} {_show(v)}"
        for k, v in entry.items()
        if k != name_key and not _empty(v) and v is not False and v != 0
    ]
    return f" ({', '.join(parts)})" if parts else ""


def _field(key: str, old: Any, new: Any) -> list[str]:
    if old == new or (_empty(old) and _empty(new)):
        return []
    word = label(key)
    if isinstance(new, list) or isinstance(old, list):
        return _list(key, old or [], new or [])
    if isinstance(new, dict) or isinstance(old, dict):
        return _mapping(key, old or {}, new or {})
    if isinstance(new, bool) or isinstance(old, bool):
        return [f"now {word}" if new else f"no longer {word}"]
    if _empty(new):
        return [f"{word} cleared (was {_show(old)})"]
    if _empty(old):
        return [f"{word} {_show(new)}"]
    return [f"{word} {_show(old)} → {_show(new)}"]


def _mapping(key: str, old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """A dict field: named entries (``skills: {"Exploration": 1}``) or a record of fields."""
    out = []
    one = singular(key)
    for k in list(dict.fromkeys([*new, *old])):
        o, n = old.get(k), new.get(k)
        if o == n or (_empty(o) and _empty(n)):
            continue
        if isinstance(o, dict) or isinstance(n, dict):
            if not isinstance(o, dict) or not o:
                out.append(f"new {one} '{k}'{_details(n if isinstance(n, dict) else {}, None)}")
            elif not isinstance(n, dict) or not n:
                out.append(f"{one} '{k}' gone")
            else:
                for f in list(dict.fromkeys([*n, *o])):
                    out.extend(f"{one} '{k}': {s}" for s in _field(f, o.get(f), n.get(f)))
        elif isinstance(o, list) or isinstance(n, list):
            out.extend(f"{one} '{k}': {s}" for s in _field("", o, n))
        elif _empty(o):
            out.append(f"new {one} {k}: {_show(n)}" if n is not True else f"now {k}")
        elif _empty(n) or n is False:
            out.append(f"{one} {k} gone (was {_show(o)})" if o is not True else f"no longer {k}")
        else:
            out.append(f"{k} {_show(o)} → {_show(n)}")
    return out


def _list(key: str, old: list[Any], new: list[Any]) -> list[str]:
    one = singular(key)
    if all(isinstance(e, dict) for e in [*old, *new]):
        out = []
        before = {_name_of(e) or str(i): e for i, e in enumerate(old)}
        after = {_name_of(e) or str(i): e for i, e in enumerate(new)}
        for name, entry in after.items():
            was = before.get(name)
            name_key = next((k for k, v in entry.items() if v == name), None)
            if was is None:
                out.append(f"new {one} '{name}'{_details(entry, name_key)}")
            elif was != entry:
                for k in list(dict.fromkeys([*entry, *was])):
                    if k == name_key:
                        continue
                    out.extend(f"{one} '{name}': {s}" for s in _field(k, was.get(k), entry.get(k)))
        out.extend(f"{one} '{name}' gone" for name in before if name not in after)
        return out
    added = [x for x in new if x not in old]
    gone = [x for x in old if x not in new]
    return [f"new {one} {_show(x)}" for x in added] + [f"{one} {_show(x)} gone" for x in gone]


def flatten(value: Any, prefix: str = "") -> dict[str, str]:
    """A sheet view as ``{"wounds.mild.absorbed": "1", ...}`` (lists of scalars joined)."""
    out: dict[str, str] = {}
    if isinstance(value, dict):
        for k, v in value.items():
            out.update(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
    elif isinstance(value, list) and value and all(isinstance(x, dict) for x in value):
        for i, v in enumerate(value):
            out.update(flatten(v, f"{prefix}[{i}]"))
    elif isinstance(value, list):
        out[prefix] = ", ".join(str(x) for x in value) or "—"
    else:
        out[prefix] = "—" if value is None else str(value)
    return out
