"""``campaign plugin new NAME``: a small, working rule-system package to start from.

The files are the jinja2 templates under ``ledger/templates/plugin/`` (shipped inside the
``ledger`` package, so the command works from an installed core): ``pyproject.toml`` (its
own distribution, entry point in the ``ledger`` group, hatchling, no uv workspace settings:
plain ``pip install -e`` works), ``README.md``, the package ``ledger_<name>/`` in the layout
every bundled plugin has (docs/architecture.md "A rule-system plugin"): ``__init__.py``
(registration), ``events.py``, ``state.py`` (state and options), ``rules.py`` (resolve,
request_of, rederive, harm, advance), ``appliers.py`` (``@applies``), ``words.py``
(``@describes``, changes, recap lines, verdict), ``sheet.py`` (creation, NPCs, the sheet's
layout), ``odds.py`` (exact odds and the chart ``chart = ".odds"`` names) and ``system.py``
(wiring: the class composed of the mixins, with ``sections`` and ``example_roll``), under
300 lines in all; and ``tests/test_<name>.py`` (the ``RuleSystemContract``, worked examples
and a session through the CLI). docs/plugin-guide.md walks through them.
"""

from __future__ import annotations

import re
from pathlib import Path

from ledger.errors import RuleError

TEMPLATES = Path(__file__).parents[1] / "templates" / "plugin"
#: a rule-system id the package, module and entry point can all be made from
NAME_PATTERN = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")


def names(system_id: str) -> dict[str, str]:
    """The template's variables for ``system_id`` (``"coin-flip"``): ``id``, ``module``
    (``coin_flip``), ``package`` (``ledger_coin_flip``), ``title`` (``Coin Flip``) and
    ``cls`` (``CoinFlip``).

    :raises RuleError: not lower-case letters and digits in words joined by ``-``, or
        longer than 40 characters.
    """
    if not NAME_PATTERN.match(system_id) or len(system_id) > 40:
        raise RuleError(
            f"plugin name {system_id[:60]!r} must be lower-case letters and digits, words "
            "joined by - (e.g. coin-flip), at most 40 characters"
        )
    words = system_id.split("-")
    module = "_".join(words)
    return {
        "id": system_id,
        "module": module,
        "package": f"ledger_{module}",
        "title": " ".join(w.capitalize() for w in words),
        "cls": "".join(w.capitalize() for w in words),
    }


def write_plugin(system_id: str, parent: Path) -> list[Path]:
    """Write the package ``parent/<system_id>/``.

    :returns: the files written, in order.
    :raises RuleError: a bad name (:func:`names`), a missing ``parent`` folder, or
        ``parent/<system_id>`` that already exists (nothing is written then).
    """
    import jinja2

    values = names(system_id)
    if not parent.is_dir():
        raise RuleError(f"the folder {parent} does not exist: create it, or give another folder")
    root = parent / system_id
    if root.exists():
        raise RuleError(f"{root} already exists: give another name or folder (nothing was written)")
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        autoescape=False,  # Python and TOML source, not HTML
    )
    renames = {"package": values["package"], "test_system.py": f"test_{values['module']}.py"}
    written: list[Path] = []
    for template in sorted(TEMPLATES.rglob("*.j2")):
        relative = template.relative_to(TEMPLATES).with_suffix("")
        target = root.joinpath(*(renames.get(part, part) for part in relative.parts))
        target.parent.mkdir(parents=True, exist_ok=True)
        text = env.get_template(template.relative_to(TEMPLATES).as_posix()).render(values)
        target.write_text(text, encoding="utf-8")
        written.append(target)
    return written
