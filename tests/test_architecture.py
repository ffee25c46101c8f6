"""The house's shape (docs/architecture.md): layers one way, no cycle, rooms of a size.

import-linter's ``layers`` contract (pyproject.toml, run by ``lint-imports`` in CI) keeps
the packages in their order; these tests add what it does not check: no cycle between any
two modules, inside a layer too. Every import that runs counts, at the top or inside a
function; one made only for type checking (``if TYPE_CHECKING:``) inside a layer does not
(a module of :mod:`ledger.campaign` annotates with the ``Campaign`` class that imports it:
nothing runs that import). Across layers import-linter counts those too, so a layer below
names a class above it through a Protocol of its own
(:class:`ledger.rules.hookspecs.WrittenCampaign`).
"""

from __future__ import annotations

import re
from pathlib import Path

import grimp

import ledger


def cycles(package: str, *, typing_imports: bool = False) -> list[list[str]]:
    """The import cycles among ``package``'s modules (strongly connected components of more
    than one module), each a sorted list of dotted names. Every import that runs counts,
    those inside functions too; those made only for type checking (``if TYPE_CHECKING:``)
    count with ``typing_imports``."""
    graph = grimp.build_graph(package, exclude_type_checking_imports=not typing_imports)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:  # Tarjan's algorithm
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for other in graph.find_modules_directly_imported_by(module):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in on_stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


def test_no_module_of_ledger_is_in_an_import_cycle():
    assert cycles("ledger") == []


def test_the_cycle_finder_finds_one(tmp_path, monkeypatch):
    package = tmp_path / "loopy"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from loopy import b\n")
    (package / "b.py").write_text("def f():\n    from loopy import a\n")
    (package / "c.py").write_text("from loopy import a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert cycles("loopy") == [["loopy.a", "loopy.b"]]


def test_a_back_import_for_type_checking_only_closes_no_cycle(tmp_path, monkeypatch):
    """``sessions`` annotates with the ``Campaign`` of the module that imports it: the
    import never runs, so no cycle (counted only when asked to count type-only imports)."""
    package = tmp_path / "typed"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "aggregate.py").write_text("from typed import sessions\n\nclass Campaign: ...\n")
    (package / "sessions.py").write_text(
        "from __future__ import annotations\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from typed.aggregate import Campaign\n"
        "def start(campaign: Campaign) -> None: ...\n"
    )
    (package / "ports.py").write_text("from typing import Protocol\n\nclass Port(Protocol): ...\n")
    (package / "rolling.py").write_text(  # a Protocol below both: no cycle
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from typed.ports import Port\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert cycles("typed") == []
    assert cycles("typed", typing_imports=True) == [["typed.aggregate", "typed.sessions"]]


# --- one envelope: no positional row access outside the SQL adapters ---------------

#: ``row[9]``, ``r[4]``, ``rows[-1][11]``: an event read by position (``rows[0]``, one of a
#: list, is not). Outside
#: ledger/store/ a stored event is a StoredEvent read by name, and a narrowed read's tuple
#: is unpacked by name (``for seq, data in store.rows(c, columns="seq, data")``).
POSITIONAL_ROW = re.compile(r"\b(?:(?:row|r|rec|stored)|rows\[-?\d+\])\[-?\d+\]")


def positional_row_accesses(root: Path) -> list[str]:
    """``path:line: text`` of every positional row access under ``root`` but ``store/``."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if "store" in path.relative_to(root).parts[:1]:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if POSITIONAL_ROW.search(line.split("#", 1)[0]):
                found.append(f"{path.relative_to(root.parent)}:{number}: {line.strip()}")
    return found


def test_no_positional_row_access_outside_the_store():
    assert positional_row_accesses(Path(ledger.__file__).parent) == []


def test_the_positional_row_finder_finds_one(tmp_path):
    package = tmp_path / "pkg"
    (package / "store").mkdir(parents=True)
    (package / "store" / "sqlite.py").write_text("head = row[0]\n")  # the adapters may
    (package / "verify.py").write_text(
        "ok = rows[0].seq\n"
        "if row[9] == 'gm':\n"
        "    pass\n"
        "h = rows[-1][11]\n"
        "# r[4] in a comment\n"
        "x = char[0]\n"
    )
    assert positional_row_accesses(package) == [
        "pkg/verify.py:2: if row[9] == 'gm':",
        "pkg/verify.py:4: h = rows[-1][11]",
    ]
