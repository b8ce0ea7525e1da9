"""Shared helpers for the encode/inspect/convert/export CLI tests: a small tokenizer file and a CLI runner."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from pathlib import Path

from core.train.events import TrainingFinished
from core.formats import save_tokenizer
from core.model import BPEModel
from core.train.run import TrainingRun

SPECIAL = "<|endoftext|>"
TEXT = (
    "The cat sat on the mat. The dog didn't.\n日本語のテキスト、猫と犬。\n"
    f"Numbers 123 and 4567.{SPECIAL}Another document\twith tabs\r\n"
) * 5


@functools.cache
def small_model() -> BPEModel:
    run = TrainingRun.from_text(TEXT, 330, [SPECIAL], workers=1)
    return [e for e in run.events() if isinstance(e, TrainingFinished)][-1].model


def tokenizer_file(folder: Path, fmt: str = "bpe-tui") -> Path:
    """Save the small tokenizer in ``fmt`` under ``folder`` and return the path to load it from."""
    target = {"bpe-tui": "tok.json", "gpt2": "gpt2", "hf": "tokenizer.json", "tiktoken": "tok.tiktoken"}[fmt]
    return save_tokenizer(small_model(), folder / target, format=fmt)[0]


def run_cli(*args: str | os.PathLike[str], cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m bpe_tui ...`` in a subprocess, output captured (so stderr is not a terminal)."""
    return subprocess.run(
        [sys.executable, "-m", "bpe_tui", *map(str, args)],
        cwd=cwd,
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )


def assert_one_line_error(result: subprocess.CompletedProcess[str] | tuple[int, str, str], *needles: str) -> str:
    """Exit code 2, nothing on stdout, exactly one line on stderr containing every needle, no traceback."""
    code, out, err = (result.returncode, result.stdout, result.stderr) if not isinstance(result, tuple) else result
    assert code == 2, (code, out, err)
    assert out == ""
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]
