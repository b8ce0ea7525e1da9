"""The project's import graph has no cycle, not even one hidden in a function or a type-checking block.

Every module of the packages in :data:`CHECKED` is parsed with ``ast`` and every import statement in it,
at any depth, becomes an edge to the project module it names:

* ``import a.b.c`` and ``from a.b.c import name`` name ``a.b.c``; ``from a.b import c``, where ``c`` is a
  module, names ``a.b.c`` (and ``a.b`` only for the names that are not modules). Relative imports are
  resolved against the importing module's package.
* The parent packages Python runs on the way (``a`` and ``a.b`` for ``import a.b.c``) are not edges: a
  package's ``__init__`` may import its own modules (lazily, as ``core/__init__`` does) without that
  making every module of the package part of a cycle. An ``__init__`` that imports a module which imports
  the package back *by name* is still a cycle, and is caught.
* Imports under ``if TYPE_CHECKING:`` count. They never run, so such a cycle cannot break an import, but
  it still ties two modules to each other: each can only be read, tested or moved with the other. The
  stricter rule keeps the graph a DAG for readers too, and costs at most a ``Protocol``.
* Imports inside functions count: they only move a cycle from import time to call time.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

CHECKED = ("core", "bpe_tui")
"""The packages whose import graph must be a DAG."""

FORBIDDEN_IN_CORE = ("bpe_tui", "textual", "rich")
"""Top-level names no import under ``core`` may name: the core runs, and is tested, without the app."""

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ("core", "bpe_tui")
"""Every package of the project: an import naming one of their modules is an edge of the graph."""


@dataclass(frozen=True)
class Import:
    """One import statement's target as written (absolute, after resolving dots) and where it is."""

    importer: str
    target: str
    names: tuple[str, ...]  # the names after ``from ... import``; empty for ``import x``
    line: int


def module_files(root: Path, packages: Iterable[str]) -> dict[str, Path]:
    """Dotted module name -> source file, for every ``.py`` file under ``packages`` in ``root``."""
    modules = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)] = path
    return modules


def imports_of(module: str, path: Path) -> Iterator[Import]:
    """Every import statement in the file, at any depth, with relative targets made absolute."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(module, alias.name, (), node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".") if node.level else []
            if node.level > 1:
                base = base[: len(base) - (node.level - 1)]
            target = ".".join([*base, *([node.module] if node.module else [])])
            yield Import(module, target, tuple(alias.name for alias in node.names), node.lineno)


def resolved(statement: Import, known: set[str]) -> set[str]:
    """The project modules an import statement names (see the module docstring)."""
    if not statement.names:
        parts = statement.target.split(".")
        prefixes = (".".join(parts[:n]) for n in range(len(parts), 0, -1))
        return {next((p for p in prefixes if p in known), "")} - {""}
    targets = set()
    for name in statement.names:
        submodule = f"{statement.target}.{name}"
        if submodule in known:
            targets.add(submodule)
        elif statement.target in known:
            targets.add(statement.target)
    return targets


@dataclass
class Graph:
    """Modules and, for each, the modules it imports with the line of the first statement doing so."""

    edges: dict[str, dict[str, int]]
    files: dict[str, Path]
    root: Path

    def cycle(self) -> list[str] | None:
        """One cycle as ``[a, b, ..., a]``, or None when the graph is a DAG."""
        state: dict[str, int] = {}  # 1: on the current path, 2: done
        path: list[str] = []

        def visit(node: str) -> list[str] | None:
            state[node] = 1
            path.append(node)
            for child in sorted(self.edges.get(node, {})):
                if state.get(child) == 1:
                    return path[path.index(child) :] + [child]
                if child not in state:
                    found = visit(child)
                    if found:
                        return found
            path.pop()
            state[node] = 2
            return None

        for start in sorted(self.edges):
            if start not in state:
                found = visit(start)
                if found:
                    return found
        return None

    def describe(self, cycle: list[str]) -> str:
        """The cycle, one import a line, with the file and line of each."""
        lines = []
        for importer, imported in zip(cycle, cycle[1:]):
            where = self.files[importer].relative_to(self.root)
            lines.append(f"  {importer} -> {imported}  ({where}:{self.edges[importer][imported]})")
        return "\n".join(lines)


def import_graph(root: Path, checked: Iterable[str], project: Iterable[str]) -> tuple[Graph, list[Import]]:
    """The graph among the modules of ``checked``, and every import statement found in them."""
    known = set(module_files(root, project))
    files = module_files(root, checked)
    edges: dict[str, dict[str, int]] = {module: {} for module in files}
    statements = []
    for module, path in files.items():
        for statement in imports_of(module, path):
            statements.append(statement)
            for target in resolved(statement, known):
                if target in files and target != module:
                    edges[module].setdefault(target, statement.line)
    return Graph(edges, files, root), statements


def test_no_import_cycle() -> None:
    graph, _ = import_graph(ROOT, CHECKED, PROJECT)
    for package in CHECKED:
        assert any(module.startswith(f"{package}.") for module in graph.edges), f"no modules found for {package}"
    cycle = graph.cycle()
    assert cycle is None, "import cycle:\n" + graph.describe(cycle)


def forbidden(statements: Iterable[Import], names: Iterable[str]) -> list[str]:
    """The statements importing a package named in ``names`` (or a module of one), as ``module line N: target``."""
    return [f"{s.importer} line {s.line}: {s.target}" for s in statements if s.target.split(".")[0] in set(names)]


def test_core_imports_neither_the_app_nor_ui_libraries() -> None:
    _, statements = import_graph(ROOT, ("core",), PROJECT)
    assert statements
    bad = forbidden(statements, FORBIDDEN_IN_CORE)
    assert not bad, "core imports the app or a UI library:\n" + "\n".join(bad)


# -- the checker itself finds what it must ----------------------------------------------------------------


def write_package(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (  # hidden in a function
            {"pkg/__init__.py": "", "pkg/a.py": "import pkg.b\n",
             "pkg/b.py": "def f():\n    from pkg.a import x\n"},
            ["pkg.a", "pkg.b", "pkg.a"],
        ),
        (  # hidden behind TYPE_CHECKING, written relatively
            {"pkg/__init__.py": "", "pkg/a.py": "from .b import thing\n",
             "pkg/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import a\n"},
            ["pkg.a", "pkg.b", "pkg.a"],
        ),
        (  # a package that imports its modules, one of which imports a helper from the package
            {"pkg/__init__.py": "", "pkg/sub/__init__.py": "def load():\n    from pkg.sub import one\n",
             "pkg/sub/one.py": "from pkg.sub import helper\n"},
            ["pkg.sub", "pkg.sub.one", "pkg.sub"],
        ),
        (  # three modules, two levels up
            {"pkg/__init__.py": "", "pkg/x/__init__.py": "", "pkg/x/a.py": "from ..y import b\n",
             "pkg/y/__init__.py": "", "pkg/y/b.py": "import pkg.z.c as c\n",
             "pkg/z/__init__.py": "", "pkg/z/c.py": "try:\n    from pkg.x.a import name\nexcept ImportError:\n    pass\n"},
            ["pkg.x.a", "pkg.y.b", "pkg.z.c", "pkg.x.a"],
        ),
    ],
    ids=["function", "type-checking", "package-init", "three-modules"],
)
def test_the_checker_finds_hidden_cycles(tmp_path: Path, files: dict[str, str], expected: list[str]) -> None:
    write_package(tmp_path, files)
    graph, _ = import_graph(tmp_path, ("pkg",), ("pkg",))
    cycle = graph.cycle()
    assert cycle is not None
    # The same cycle, from whichever module the search met first.
    start = cycle.index(expected[0])
    assert cycle[start:-1] + cycle[:start] + [expected[0]] == expected
    assert expected[1] in graph.describe(cycle)


def test_the_checker_accepts_lazy_imports_of_a_package_by_its_init(tmp_path: Path) -> None:
    # core/__init__ reaches its modules lazily; they import each other but never the package itself.
    write_package(tmp_path, {
        "pkg/__init__.py": "def __getattr__(name):\n    from pkg.a import f\n    return f\n",
        "pkg/a.py": "from pkg.b import g\n", "pkg/b.py": "import os\n",
    })
    graph, _ = import_graph(tmp_path, ("pkg",), ("pkg",))
    assert graph.cycle() is None
    assert graph.edges["pkg"] == {"pkg.a": 2} and graph.edges["pkg.a"] == {"pkg.b": 1}


def test_the_checker_finds_forbidden_imports_anywhere(tmp_path: Path) -> None:
    write_package(tmp_path, {
        "pkg/__init__.py": "", "pkg/ok.py": "import richer\nfrom pkg import textual_helpers\n",
        "pkg/a.py": "def show():\n    from rich.text import Text\n",
        "pkg/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import textual.app\n",
    })
    _, statements = import_graph(tmp_path, ("pkg",), ("pkg",))
    assert forbidden(statements, FORBIDDEN_IN_CORE) == ["pkg.a line 2: rich.text", "pkg.b line 3: textual.app"]
