"""Lens 1, slider: a sentence re-tokenised after only the first k merges, k from 0 to all of them.

At k = 0 every byte is a token (every character with a token of its own, for a character-base model);
each merge added joins some of them, and the count falls. The tokens
after k merges are all in the vocabulary (each is a byte or the product of one of the first k merges), so
their ids are the tokenizer's own; at k = all they are exactly ``encode(text)``.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from core.analysis.lenses.replay import fragment_tokens, merge_run, start_tokens
from core.analysis.lenses.tables import Fragment, ModelTables
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


def _counts_at(tables: ModelTables, fragments: list[Fragment], limits: list[int]) -> list[int]:
    """The token count of ``fragments`` after the first k merges, for each k of ``limits``.

    BPE with only merges below k makes the same merges as with all of them, in the same order, up to the
    first merge of rank k or more, and then stops: at each step both take the lowest-ranked pair present,
    and once that is k or more the limited one has none left. So one run per distinct fragment gives every
    k: at k it has made the merges before the first one of rank k or more.
    """
    counts = [0] * len(limits)
    for fragment, n in Counter(fragments).items():
        start = start_tokens(tables, fragment)
        _, ranks = merge_run(start, tables.ranks) if not fragment.special else ([], [])
        highest = list(accumulate(ranks, max))
        for index, k in enumerate(limits):
            counts[index] += n * (len(start) - bisect_left(highest, k))
    return counts


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
    fragments = tables.fragments(text)
    tokens = [token for fragment in fragments for token in fragment_tokens(tables, fragment, merges)]
    steps = sorted({round(total * i / curve_points) for i in range(curve_points + 1)} | {merges})
    curve = tuple(zip(steps, _counts_at(tables, fragments, steps)))
    return SliderResult(text, merges, total, tuple(tokens), tuple(tables.ids[t] for t in tokens),
                        len(replace_surrogates(text).encode("utf-8")), curve)
