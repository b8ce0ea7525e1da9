"""The ``>>>`` examples of every module under ``core/`` and ``bpe_tui/`` run as tests, so they stay true.

Modules are found by walking the two packages, not listed by hand: a new module's examples run without
anyone remembering to add it here. Each module with examples is one test.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import tempfile
from pathlib import Path
from types import ModuleType

import pytest

import bpe_tui
import core

PACKAGES = (core, bpe_tui)
OPTIONS = doctest.ELLIPSIS


def module_names() -> list[str]:
    """Every module of ``core`` and ``bpe_tui``, packages included, sorted."""
    names = []
    for package in PACKAGES:
        names.append(package.__name__)
        names.extend(info.name for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."))
    return sorted(names)


def example_count(module: ModuleType) -> int:
    """How many ``>>>`` examples doctest finds in ``module`` (not those of objects it imports from elsewhere)."""
    return sum(len(test.examples) for test in doctest.DocTestFinder().find(module))


WITH_EXAMPLES = [name for name in module_names() if example_count(importlib.import_module(name))]


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_examples(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Examples that make files use tempfile.mkdtemp()/mkstemp(): keep them in pytest's own temporary
    # folder (cleaned up by pytest) rather than leave them in the system's.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=OPTIONS)
    assert result.failed == 0
    assert result.attempted > 0, f"{name} has no examples"


def test_every_source_file_is_walked() -> None:
    # A folder without __init__.py is skipped by walk_packages, and its examples with it.
    walked = set(module_names())
    for package in PACKAGES:
        root = Path(package.__file__).parent
        for path in root.rglob("*.py"):
            parts = path.relative_to(root.parent).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            assert name in walked, f"{path} is not reached by the doctest walk"
