"""The budget lens: a small merge budget split between English and Japanese, and what each language pays.

Merges go to whatever pairs are most frequent, so the language that makes up more of the training text
takes most of the vocabulary. Train the same number of merges on mixes from all English to all
Japanese, and watch the merges move between scripts and the token cost of one sentence pair (the same
meaning in both languages) move the other way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

from core.analysis.compare import tokens_by_script
from core.analysis.lenses.encoded import EncodedText, encode_text
from core.analysis.lenses.token_strings import token_strings
from core.analysis.script_mix import SCRIPTS
from core.encode.tokenizer import Tokenizer
from core.errors import SettingsError
from core.pretokenize.patterns import GPT2_PATTERN
from core.reference import encode_pretoken, pretokenize
from core.train.events import MergeMade
from core.train.run import TrainingRun

SEPARATOR = "<|endoftext|>"
"""Separates the two languages in the training text and the two sentences of a pair file; a special
token in training, so no merge joins the end of one corpus to the start of the other."""

CURVE_POINTS = 33
"""How many budgets the token-cost curve samples, evenly from 0 merges to all."""

MIN_MERGES = 1
MAX_MERGES = 10_000
"""The budgets the lens trains (the pane's slider runs from 32 to a few thousand)."""


class _Extent(NamedTuple):
    byte_start: int
    byte_end: int


def parallel_pair(text: str) -> tuple[str, str]:
    """The English and Japanese sentences of a pair file: two texts separated by a ``<|endoftext|>`` line.

    Raises:
        SettingsError: the text does not hold exactly two non-empty parts.

    >>> parallel_pair("Good night.\\n<|endoftext|>\\nおやすみなさい。\\n")
    ('Good night.', 'おやすみなさい。')
    """
    parts = [part.strip() for part in text.split(SEPARATOR)]
    if len(parts) != 2 or not all(parts):
        raise SettingsError(f"a sentence pair file holds an English and a Japanese text separated by a {SEPARATOR} line")
    return parts[0], parts[1]


def _prefix(text: str, nbytes: int) -> str:
    """The longest start of ``text`` of at most ``nbytes`` UTF-8 bytes that ends on a whole character."""
    return text.encode("utf-8")[:nbytes].decode("utf-8", errors="ignore")


def training_mix(english: str, japanese: str, mix: float, size: int | None = None) -> tuple[str, str]:
    """The two parts of the training text: ``mix`` of ``size`` bytes from the start of ``english``, the
    rest from the start of ``japanese``, each cut to whole characters.

    ``size`` defaults to the smaller corpus's size, so every mix trains on the same amount of text.

    >>> training_mix("abcd", "あいう", 0.5, size=6)
    ('abc', 'あ')
    """
    if size is None:
        size = min(len(english.encode("utf-8")), len(japanese.encode("utf-8")))
    english_bytes = round(mix * size)
    return _prefix(english, english_bytes), _prefix(japanese, size - english_bytes)


def merge_script(token: bytes, corpus: bytes) -> str:
    """The script a merged token went to: the letter script holding most of its bytes where it first occurs.

    A token may be a piece of a character (two of a kana's three bytes), so it is looked up in the
    training text and widened to whole characters there; ``" the"`` is Latin despite its space, and a
    token of spaces, digits or punctuation is ``other``.

    >>> corpus = "the ねこ".encode()
    >>> merge_script(b" t", corpus), merge_script("ね".encode()[1:] + b"\\xe3", corpus), merge_script(b" ", corpus)
    ('latin', 'kana', 'other')
    """
    start = corpus.find(token)
    if start < 0:
        window, extent = token.decode("utf-8", errors="ignore"), None
    else:
        first, end = start, start + len(token)
        while first > 0 and corpus[first] & 0xC0 == 0x80:
            first -= 1
        while end < len(corpus) and corpus[end] & 0xC0 == 0x80:
            end += 1
        window, extent = corpus[first:end].decode("utf-8", errors="replace"), _Extent(start - first, start - first + len(token))
    if extent is None:
        extent = _Extent(0, len(window.encode("utf-8")))
    counts = tokens_by_script(window, [extent])
    return next(script for script in SCRIPTS if counts[script].tokens)


def tokens_with_merges(text: str, merges: list[tuple[bytes, bytes]], pattern: str = GPT2_PATTERN) -> int:
    """How many tokens ``text`` costs with ``merges`` alone (by the reference encoder: texts here are short).

    >>> tokens_with_merges("low lower", [(b"l", b"o"), (b"lo", b"w")]), tokens_with_merges("low lower", [])
    (5, 9)
    """
    ranks = {pair: rank for rank, pair in reversed(list(enumerate(merges)))}
    return sum(len(encode_pretoken(piece.encode("utf-8"), ranks)) for piece in pretokenize(text, (), pattern))


def budget_points(made: int, points: int = CURVE_POINTS) -> list[int]:
    """Up to ``points`` merge counts from 0 to ``made``, evenly spread, both ends included, no repeats.

    >>> budget_points(64, 5), budget_points(2, 5), budget_points(0)
    ([0, 16, 32, 48, 64], [0, 1, 2], [0])
    """
    if made == 0:
        return [0]
    return sorted({round(i * made / (points - 1)) for i in range(points)})


@dataclass(frozen=True, slots=True)
class MergeBudget:
    """One budget trained on one mix, and what the sentence pair costs under it.

    Attributes:
        mix: the English share of the training text, 0.0 to 1.0.
        budget: the merges asked for (fewer are made if the text runs out of pairs).
        merges: the merges made, in rank order.
        scripts: the script each merge went to, in rank order.
        training_bytes: ``{"en": n, "ja": n}``, the bytes of each language trained on.
        pair: the English and the Japanese sentence, encoded with the trained tokenizer.
        curve: ``(merges, English tokens, Japanese tokens)`` for the pair encoded with only the first
            ``merges`` merges, at up to :data:`CURVE_POINTS` budgets from 0 to every merge made.
    """

    mix: float
    budget: int
    merges: tuple[tuple[bytes, bytes], ...]
    scripts: tuple[str, ...]
    training_bytes: dict[str, int]
    pair: tuple[EncodedText, EncodedText]
    curve: tuple[tuple[int, int, int], ...] = ()

    @property
    def script_counts(self) -> dict[str, int]:
        """Merges per script (every class of ``SCRIPTS``)."""
        return {script: self.scripts.count(script) for script in SCRIPTS}

    @property
    def tokens(self) -> dict[str, int]:
        """Tokens the sentence pair costs: ``{"en": n, "ja": n}``."""
        return {"en": self.pair[0].count, "ja": self.pair[1].count}

    def to_json(self) -> dict[str, Any]:
        return {
            "mix": self.mix,
            "budget": self.budget,
            "merges": self.script_counts,
            "tokens": self.tokens,
            "scripts": list(self.scripts),
            "merged_tokens": token_strings(left + right for left, right in self.merges),
            "training_bytes": dict(self.training_bytes),
            "pair": {"en": self.pair[0].to_json(), "ja": self.pair[1].to_json()},
            "curve": [{"merges": merges, "en": en, "ja": ja} for merges, en, ja in self.curve],
        }


def merge_budget(
    english: str,
    japanese: str,
    pair: tuple[str, str],
    *,
    merges: int,
    mix: float,
    size: int | None = None,
    pattern: str = GPT2_PATTERN,
) -> MergeBudget:
    """Train ``merges`` merges on a mix of ``english`` and ``japanese`` and encode the sentence ``pair``.

    ``pattern`` is the pre-tokenisation regex (the lens passes the active tokenizer's). Training is in
    memory on one process: at the default size (the smaller sample, about 32 KB) even a
    few thousand merges take a fraction of a second.

    Raises:
        SettingsError: ``merges`` is outside 1 to 10,000, or ``mix`` outside 0 to 1.

    >>> result = merge_budget("aaa bbb " * 20, "ねこねこ" * 20, ("aaa", "ねこ"), merges=4, mix=1.0)
    >>> result.script_counts, result.tokens
    ({'latin': 4, 'kana': 0, 'kanji': 0, 'other': 0}, {'en': 1, 'ja': 6})
    """
    if type(merges) is not int or not MIN_MERGES <= merges <= MAX_MERGES:
        raise SettingsError(f"the merge budget must be a whole number from {MIN_MERGES} to {MAX_MERGES}, got {merges!r:.40}")
    if isinstance(mix, bool) or not isinstance(mix, (int, float)) or not (math.isfinite(mix) and 0 <= mix <= 1):
        raise SettingsError(f"the English share must be from 0 to 1 (0.3 for 30%), got {mix!r:.40}")
    english_part, japanese_part = training_mix(english, japanese, float(mix), size)
    text = english_part + SEPARATOR + japanese_part
    run = TrainingRun.from_text(text, 256 + 1 + merges, [SEPARATOR], workers=1, pattern=pattern)
    made = [event for event in run.events() if isinstance(event, MergeMade)]
    corpus = text.encode("utf-8")
    tokenizer = Tokenizer.from_model(run.result())
    pairs = [(event.left, event.right) for event in made]
    curve = tuple(
        (k, tokens_with_merges(pair[0], pairs[:k], pattern), tokens_with_merges(pair[1], pairs[:k], pattern))
        for k in budget_points(len(pairs))
    )
    return MergeBudget(
        mix=float(mix),
        budget=merges,
        merges=tuple(pairs),
        scripts=tuple(merge_script(event.token, corpus) for event in made),
        training_bytes={"en": len(english_part.encode("utf-8")), "ja": len(japanese_part.encode("utf-8"))},
        pair=(encode_text(tokenizer, pair[0]), encode_text(tokenizer, pair[1])),
        curve=curve,
    )
