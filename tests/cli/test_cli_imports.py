"""The headless commands never load Textual, and load rich only for the live display on a terminal.

``bpe-tui train`` on a server or in CI should start quickly and need nothing of the app. Each case runs
in a fresh interpreter (an import made by another test would hide one made here) and then looks at
``sys.modules``.
"""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest
from tests.cli.cli_cases import TEXT, tokenizer_file

import bpe_tui.cli

CLI_MODULES = ["bpe_tui.text", "bpe_tui.__main__", "bpe_tui.cli"] + [
    info.name for info in pkgutil.iter_modules(bpe_tui.cli.__path__, prefix="bpe_tui.cli.")
]

_REPORT = """
import sys
loaded = sorted({name.split(".")[0] for name in sys.modules} & {"textual", "rich"})
with open(sys.argv[1], "w", encoding="utf-8") as report:
    report.write(",".join(loaded))
"""


def loaded_ui(tmp_path: Path, code: str, *args: str | Path) -> list[str]:
    """Run ``code`` in a fresh interpreter (``sys.argv[2:]`` = ``args``); the UI packages it left loaded."""
    report = tmp_path / "loaded.txt"
    result = subprocess.run(
        [sys.executable, "-c", code + _REPORT, report, *map(str, args)],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return [name for name in report.read_text(encoding="utf-8").split(",") if name]


def test_cli_modules_are_all_listed() -> None:
    assert {"bpe_tui.cli.train", "bpe_tui.cli.train_display", "bpe_tui.cli.encode"} <= set(CLI_MODULES)


@pytest.mark.parametrize("module", CLI_MODULES)
def test_cli_module_imports_no_ui(tmp_path: Path, module: str) -> None:
    assert loaded_ui(tmp_path, f"import {module}\n") == []


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    path = tmp_path / "corpus.txt"
    path.write_text(TEXT, encoding="utf-8")
    return path


RUN_MAIN = """
import sys
from bpe_tui.__main__ import main
if main([str(arg) for arg in sys.argv[2:]]) != 0:
    sys.exit("the command failed")
"""


def test_train_loads_neither_textual_nor_rich_without_a_terminal(tmp_path: Path, corpus: Path) -> None:
    args = ("train", corpus, "--vocab-size", 300, "-o", tmp_path / "out.json", "--events", tmp_path / "ev.jsonl")
    assert loaded_ui(tmp_path, RUN_MAIN, *args) == []
    assert (tmp_path / "out.json").is_file() and (tmp_path / "ev.jsonl").is_file()


@pytest.mark.parametrize("command", ["encode", "inspect", "convert", "export", "decode", "verify"])
def test_other_commands_load_no_ui(tmp_path: Path, corpus: Path, command: str) -> None:
    tokenizer = tokenizer_file(tmp_path)
    ids = tmp_path / "ids.npy"
    if command in ("decode", "verify"):
        assert loaded_ui(tmp_path, RUN_MAIN, "export", corpus, tokenizer, "-o", ids) == []
    args = {
        "encode": ("encode", tokenizer, corpus, "--tokens"),
        "inspect": ("inspect", tokenizer),
        "convert": ("convert", tokenizer, tmp_path / "tokenizer.json", "--to", "hf"),
        "export": ("export", corpus, tokenizer, "-o", ids, "--estimate", "825GB"),
        "decode": ("decode", tokenizer, ids, "-o", tmp_path / "back.txt"),
        "verify": ("verify", ids, tokenizer, "--corpus", corpus),
    }[command]
    assert loaded_ui(tmp_path, RUN_MAIN, *args) == []


LIVE_TRAIN = """
import io, sys
from bpe_tui.cli import build_parser
from bpe_tui.cli.train import train_command
args = build_parser().parse_args(["train", sys.argv[2], "--vocab-size", "300", "-o", sys.argv[3]])
if train_command(args, stderr=io.StringIO(), interactive=True) != 0:
    sys.exit("the command failed")
"""


def test_live_train_display_loads_rich_but_not_textual(tmp_path: Path, corpus: Path) -> None:
    assert loaded_ui(tmp_path, LIVE_TRAIN, corpus, tmp_path / "out.json") == ["rich"]
