"""Shared by the export tests: an adversarial corpus text, a helper that exports and loads the ids, and a
way to run code ahead of each chunk in whichever process encodes it."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from tests.core.formats.format_cases import SPECIAL, TEXTS

import core.export.encoding
from core.export.run import export_corpus

ADVERSARIAL = (
    "".join(TEXTS)
    + "word  two   three    \n\n\n  \t\t x\r\n\r\ny"
    f"{SPECIAL}{SPECIAL} {SPECIAL}\n{SPECIAL}<|endoftext|<|endoftext|>>"
    "日本語\u3000の\u3000文 。 ！ 「かぎ」 かっこ"
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    " 12345 678 'll 've 're 's x'"
) * 3


def export_ids(model, corpus: Path, out: Path, **options) -> np.ndarray:
    finished = export_corpus(corpus, model, out, **options)
    array = np.load(out)
    assert array.shape == (finished.tokens,) and str(array.dtype) == finished.dtype
    return array


def patch_encode_range(monkeypatch: pytest.MonkeyPatch, before) -> None:
    """Run ``before(start)`` ahead of each chunk's encoding; forked workers inherit the patch."""
    encode_range = core.export.encoding.encode_range

    def patched(tokenizer, path: Path, start: int, end: int, dtype: str) -> bytes:
        before(start)
        return encode_range(tokenizer, path, start, end, dtype)

    monkeypatch.setattr(core.export.encoding, "encode_range", patched)


def in_a_worker(parent: int = os.getpid()) -> bool:
    return os.getpid() != parent
