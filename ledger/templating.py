"""The one jinja2 environment of ``ledger``'s templates (recaps, sheets, the web view).

Autoescaping is on for every ``*.html.j2`` template (``select_autoescape(["html"])`` alone
matches only names ending in ``.html``); every ``{{ value }}`` that is text goes through
:func:`ledger.text.printable` (a newline shows as ``⏎``, no invisible character survives),
while a macro's output (``markupsafe.Markup``) is HTML already and passes as it is.
"""

from __future__ import annotations

import functools
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
