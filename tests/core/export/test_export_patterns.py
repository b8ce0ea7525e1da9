"""Export with any split pattern: the ids equal ``Tokenizer.encode`` of the whole text, however small the chunks.

The file is cut where the tokenizer's pattern allows (``core.pretokenize.cuts``): with one worker and with
two, in chunks of a byte or a few, over text with every kind of boundary.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from pathlib import Path

import pytest
from tests.core.export.export_cases import export_ids
from tests.core.formats.format_cases import encoder, train_small
from tests.core.pretokenize.cut_cases import BOUNDARY_TEXT, PATTERN_IDS, PATTERNS, SPECIAL

from core.export.run import chunk_ranges
from core.model import BPEModel
from core.pretokenize.cuts import pattern_rule


@functools.cache
def model_for(pattern: str, specials: tuple[str, ...]) -> BPEModel:
    return train_small(pattern=pattern, vocab_size=256 + len(specials) + 80, special_tokens=specials)


@pytest.mark.parametrize("chunk_bytes", [1, 13])
@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("specials", [(), (SPECIAL,)], ids=["no-specials", "specials"])
@pytest.mark.parametrize("pattern", PATTERNS, ids=PATTERN_IDS)
def test_export_equals_encoding_the_whole_text(
    tmp_path: Path, pattern: str, specials: tuple[str, ...], workers: int, chunk_bytes: int
) -> None:
    model = model_for(pattern, specials)
    assert model.pattern == pattern and len(model.merges) > 40
    text = BOUNDARY_TEXT * 4
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(text, encoding="utf-8", newline="")
    ids = export_ids(model, corpus, tmp_path / "ids.npy", workers=workers, chunk_bytes=chunk_bytes)
    assert ids.tolist() == encoder(model).encode(text)
    ranges = list(chunk_ranges(corpus, list(specials), pattern, chunk_bytes))
    if pattern_rule(pattern) is not None or specials:
        assert len(ranges) > 20  # really cut
    else:
        assert ranges == [(0, corpus.stat().st_size)]


@pytest.mark.parametrize("normalizer", ["NFC", "NFKC", "NFD", "NFKD"])
@pytest.mark.parametrize("pattern", PATTERNS, ids=PATTERN_IDS)
def test_export_of_a_normalizing_model_equals_encoding_the_whole_text(
    tmp_path: Path, pattern: str, normalizer: str
) -> None:
    """A Qwen2-style model normalizes before splitting; NFKC makes ``¨`` a space and U+0308, so a cut after the
    space before it would leave two runs of whitespace that the whole text's ``\\s+`` joins."""
    model = replace(model_for(pattern, (SPECIAL,)), normalizer=normalizer)
    text = (BOUNDARY_TEXT + "a ¨b ¨ cafe\u0301 か\u3099 ｶﾞ\u3000¨x\n") * 2
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(text, encoding="utf-8", newline="")
    for chunk_bytes in (1, 13):
        ids = export_ids(model, corpus, tmp_path / f"ids{chunk_bytes}.npy", workers=1, chunk_bytes=chunk_bytes)
        assert ids.tolist() == encoder(model).encode(text)
