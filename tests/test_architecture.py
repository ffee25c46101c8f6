"""The house's shape (#25, docs/architecture.md): layers one way, no cycle, rooms of a size.

import-linter's ``layers`` contract (pyproject.toml, run by ``lint-imports`` in CI) keeps
the packages in their order; these tests add what it does not check: no cycle between any
two modules, inside a layer too.
"""

from __future__ import annotations

import grimp


def cycles(package: str) -> list[list[str]]:
    """The import cycles among ``package``'s modules (strongly connected components of more
    than one module), imports made only for type checking left out."""
    graph = grimp.build_graph(package, exclude_type_checking_imports=True)
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
