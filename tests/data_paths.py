"""Where the tests' data is: the bundled samples (GPT-2's files among them), and the shared data they skip without.

GPT-2's ``vocab.json`` + ``merges.txt`` ship in ``samples/gpt2``, so every comparison with GPT-2 and tiktoken
runs in any clone. What the repository cannot ship (the CS336 reference merges and vocab with their
``corpus.en``, the large corpora) is read from ``data/`` in the folder named by ``BPE_TUI_SHARED``, by
default ``../shared`` (see ``benchmarks/shared_data.py``); a test that needs a missing file skips and says
which file and how to get it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.shared_data import data_dir, missing_message

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
GPT2_DIR = SAMPLES / "gpt2"
GPT2_VOCAB = GPT2_DIR / "vocab.json"
GPT2_MERGES = GPT2_DIR / "merges.txt"


def shared_path(*parts: str) -> Path:
    """``data/<parts...>`` of the shared data; skips the calling test when it is missing, naming it."""
    path = data_dir().joinpath(*parts)
    if not path.exists():
        pytest.skip(missing_message(path))
    return path
