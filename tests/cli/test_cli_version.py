"""``bpe-tui --version`` prints the version pyproject.toml declares, at once and without opening the app."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent


def declared_version() -> str:
    with open(ROOT / "pyproject.toml", "rb") as handle:
        return tomllib.load(handle)["project"]["version"]


@pytest.mark.parametrize("argv", [["--version"], ["-V"], ["--no-train", "--version"]])
def test_version_is_printed_from_any_start(argv: list[str], tmp_path: Path) -> None:
    # A real process, with no terminal: were the app opened instead, it would not print this line and exit.
    result = subprocess.run(
        [sys.executable, "-m", "bpe_tui", *argv],
        cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120,
        env=os.environ | {"PYTHONPATH": str(ROOT)},
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, f"bpe-tui {declared_version()}\n", "")


def test_the_overview_help_lists_version(capsys: pytest.CaptureFixture[str]) -> None:
    from bpe_tui.__main__ import main

    assert main(["--help"]) == 0
    assert "--version" in capsys.readouterr().out
