"""Shared by the export tests: an adversarial corpus text and a helper that exports and loads the ids."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from tests.core.formats.format_cases import SPECIAL, TEXTS

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
