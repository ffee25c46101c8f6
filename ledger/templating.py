"""The one jinja2 environment of ``ledger``'s templates (recaps, sheets, the web view), and
:func:`fill` for a rule system's one-line templates (an event's ``line``).

Autoescaping is on for every ``*.html.j2`` template (``select_autoescape(["html"])`` alone
matches only names ending in ``.html``); every ``{{ value }}`` that is text goes through
:func:`ledger.text.printable` (a newline shows as ``⏎``, no invisible character survives),
while a macro's output (``markupsafe.Markup``) is HTML already and passes as it is.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any


def shown(value: Any) -> Any:
    """The ``finalize`` of every template: text made printable, ``Markup`` kept as it is."""
    import markupsafe

    from ledger.text import printable

    if isinstance(value, str) and not isinstance(value, markupsafe.Markup):
        return printable(value)
    return value


@functools.cache
def environment(*packages: str) -> Any:
    """The jinja2 environment over ``packages``' ``templates`` folders, then ``ledger``'s.

    :param packages: packages searched first (the web view passes ``"ledger.web"``).
    """
    import jinja2

    loaders = [jinja2.PackageLoader(p, "templates") for p in (*packages, "ledger")]
    return jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders) if packages else loaders[0],
        autoescape=jinja2.select_autoescape(["html", "html.j2", "htm", "xml"]),
        finalize=shown,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def fill(template: str, fields: Mapping[str, Any]) -> str:
    """A ``line`` template (or any sentence template of a rule system) filled in.

    A template holding ``{{`` or ``{%`` is a jinja2 template: ``{{ field }}`` for a value,
    ``{% if reason %} ({{ reason }}){% endif %}`` for a part said only when a field is set,
    ``{{ "%+d" % delta }}`` for a signed number, filters such as ``join``. Any other template
    is filled with :meth:`str.format` (``"{character} loses {item}"``, ``{dice[0]}``,
    ``{value:+d}``; a literal brace is then written ``{{``, which makes it jinja2: write such
    a template in jinja2 throughout). Nothing is escaped and whitespace is kept as written;
    the template is the plugin's own, the fields are values, never read as templates.

    :param template: the template.
    :param fields: the values it may name.
    :raises KeyError, AttributeError: str.format: a field the template names is missing.
    :raises jinja2.UndefinedError: jinja2: a field the template names is missing.
    """
    if "{{" in template or "{%" in template:
        return str(_jinja(template).render(fields))
    return template.format_map(fields)


@functools.lru_cache(maxsize=512)
def _jinja(template: str) -> Any:
    """``template`` compiled once (its environment undefined-strict, unescaped)."""
    import jinja2

    env = jinja2.Environment(
        autoescape=False, undefined=jinja2.StrictUndefined, keep_trailing_newline=True
    )
    return env.from_string(template)
