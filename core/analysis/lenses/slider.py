"""Lens 1, slider: a sentence re-tokenised after only the first k merges, k from 0 to all of them.

At k = 0 every byte is a token (every character with a token of its own, for a character-base model);
each merge added joins some of them, and the count falls. The tokens
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
        text_bytes: the sentence's length in UTF-8 bytes (the token count at k = 0 for a byte base).
        curve: ``(k, token count)`` at evenly spaced k from 0 to all merges (and at ``merges``), for a
            plot of bytes per token against merges.
    """

    text: str
    merges: int
    total_merges: int
    tokens: tuple[bytes, ...]
    ids: tuple[int, ...]
    text_bytes: int
    curve: tuple[tuple[int, int], ...] = ()

    @property
    def count(self) -> int:
        return len(self.ids)

    def to_json(self) -> dict[str, Any]:
        return {"merges": self.merges, "tokens": [t.decode("utf-8", errors="replace") for t in self.tokens],
                "ids": list(self.ids), "count": self.count, "total_merges": self.total_merges,
                "text_bytes": self.text_bytes, "curve": [list(point) for point in self.curve]}


CURVE_POINTS = 40
"""How many values of k the curve samples (plus the k asked for)."""


def slider(model: BPEModel, text: str, merges: int, *, curve_points: int = CURVE_POINTS) -> SliderResult:
    """``text`` tokenised with the first ``merges`` merges of ``model`` only, and the count along the way.

    Raises:
        SettingsError: ``merges`` is negative or more than the model has.

    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ow", 257: b"low"}
    >>> model = BPEModel(vocab, [(b"o", b"w"), (b"l", b"ow")])
    >>> [(k, slider(model, "low low", k).count) for k in range(3)]
    [(0, 7), (1, 5), (2, 3)]
    >>> slider(model, "low", 1).ids
    (108, 256)
    >>> slider(model, "low low", 2).curve
    ((0, 7), (1, 5), (2, 3))
    """
    total = len(model.merges)
    if not 0 <= merges <= total:
        raise SettingsError(f"merges {merges} is outside 0..{total}; this tokenizer has {total:,} merges")
    tables = ModelTables.of(model)
    tokens = replay_tokens(tables, text, limit=merges)
    steps = sorted({round(total * i / curve_points) for i in range(curve_points + 1)} | {merges})
    curve = tuple((k, len(tokens) if k == merges else len(replay_tokens(tables, text, limit=k))) for k in steps)
    return SliderResult(text, merges, total, tuple(tokens), tuple(tables.ids[t] for t in tokens),
                        len(replace_surrogates(text).encode("utf-8")), curve)
