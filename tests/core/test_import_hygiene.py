"""The core must never load textual or rich: each module is imported in a fresh interpreter to prove it."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import pytest

import core

CORE_MODULES = sorted(
    ["core"] + [info.name for info in pkgutil.walk_packages(core.__path__, prefix="core.")]
)


def test_core_has_modules() -> None:
    assert "core.train.run" in CORE_MODULES
    assert "core.pretokenize.patterns" in CORE_MODULES


@pytest.mark.parametrize("module", CORE_MODULES)
def test_core_module_does_not_import_ui(module: str) -> None:
    code = (
        f"import sys, importlib; importlib.import_module({module!r}); "
        "bad = [m for m in ('textual', 'rich') if m in sys.modules]; "
        "print(','.join(bad)); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, f"{module} pulled in {result.stdout.strip() or result.stderr}"
