"""``campaign plugin new NAME``: a small, working rule-system package to start from.

The files are the jinja2 templates under ``ledger/templates/plugin/`` (shipped inside the
``ledger`` package, so the command works from an installed core): ``pyproject.toml`` (its
own distribution, entry point in the ``ledger`` group, hatchling, no uv workspace settings:
``pip install -e '.[test]'`` works), ``README.md``, the package ``ledger_<name>/`` as ONE
module, ``__init__.py``: the events, the state and options, the system class (sheet,
resolve, appliers, advancement, words, odds and their chart) and the registration hook,
in that order, about 250 lines; and ``tests/test_<name>.py`` (the ``RuleSystemContract``,
worked examples and a session through the CLI), type-annotated so ``mypy`` checks it. A
system that grows splits the module by meaning when it wants to; docs/plugin-guide.md
walks through it.
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
