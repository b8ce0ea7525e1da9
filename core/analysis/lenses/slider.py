"""Lens 1, slider: a sentence re-tokenised after only the first k merges, k from 0 to all of them.

At k = 0 every byte is a token; each merge added joins some of them, and the count falls. The tokens
after k merges are all in the vocabulary (each is a byte or the product of one of the first k merges), so
their ids are the tokenizer's own; at k = all they are exactly ``encode(text)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.analysis.lenses.replay import replay_tokens
from core.analysis.lenses.tables import ModelTables
from core.encode.tokenizer import replace_surrogates
from core.errors import SettingsError
from core.model import BPEModel


@dataclass(frozen=True)
class SliderResult:
    """The text after ``merges`` merges: its tokens and their ids.

    Attributes:
        text: the sentence.
        merges: how many of the model's merges were applied (k).
        total_merges: how many the model has.
        tokens: the tokens, in order.
        ids: their ids.
        text_bytes: the sentence's length in UTF-8 bytes (the token count at k = 0).
    """

    text: str
    merges: int
    total_merges: int
    tokens: tuple[bytes, ...]
    ids: tuple[int, ...]
    text_bytes: int

    @property
    def count(self) -> int:
        return len(self.ids)

    def to_json(self) -> dict[str, Any]:
        return {"merges": self.merges, "tokens": [t.decode("utf-8", errors="replace") for t in self.tokens],
                "ids": list(self.ids), "count": self.count, "total_merges": self.total_merges,
                "text_bytes": self.text_bytes}


def slider(model: BPEModel, text: str, merges: int) -> SliderResult:
    """``text`` tokenised with the first ``merges`` merges of ``model`` only.

    Raises:
        SettingsError: ``merges`` is negative or more than the model has.

    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ow", 257: b"low"}
    >>> model = BPEModel(vocab, [(b"o", b"w"), (b"l", b"ow")])
    >>> [(k, slider(model, "low low", k).count) for k in range(3)]
    [(0, 7), (1, 5), (2, 3)]
    >>> slider(model, "low", 1).ids
    (108, 256)
    """
    total = len(model.merges)
    if not 0 <= merges <= total:
        raise SettingsError(f"merges {merges} is outside 0..{total}; this tokenizer has {total:,} merges")
    tables = ModelTables.of(model)
    tokens = replay_tokens(tables, text, limit=merges)
    return SliderResult(text, merges, total, tuple(tokens), tuple(tables.ids[t] for t in tokens),
                        len(replace_surrogates(text).encode("utf-8")))
