"""Lens 7, wordpiece: BPE's frequency score against WordPiece's likelihood score, each training its own way.

Both start from the same word-frequency corpus split into bytes and merge one pair at a time; they
differ only in which pair they pick. BPE takes the most frequent pair, ``count(ab)``. WordPiece takes the
pair whose merge most raises the corpus's likelihood under a unigram model, which comes to
``count(ab) / (count(a) · count(b))``: a pair of rare symbols that nearly always occur together beats a
frequent pair of symbols common everywhere. Counts are weighted by word frequency; ``count(a)`` is how
often symbol ``a`` occurs in the corpus as it stands. Ties go to the lexicographically greater pair in
both, as in training. (Real WordPiece also marks word-inner pieces with ``##``; the scores are the point
here, so both use the same byte symbols.) Scores are exact fractions: a float could tie wrongly.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from core.reference import count_pairs, merge_words

Symbols = tuple[bytes, ...]
Pair = tuple[bytes, bytes]


def _text(token: bytes) -> str:
    return token.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class ScoredMerge:
    """One merge of either method: the pair, ``count(ab)``, ``count(a)``, ``count(b)`` and the score it won on."""

    pair: Pair
    pair_count: int
    left_count: int
    right_count: int
    score: Fraction

    def score_text(self, likelihood: bool) -> str:
        """The score as worked: ``20`` for BPE, ``5/(20·5) = 0.0500`` for WordPiece.

        >>> ScoredMerge((b"g", b"s"), 5, 20, 5, Fraction(1, 20)).score_text(True)
        '5/(20·5) = 0.0500'
        """
        if not likelihood:
            return f"{self.pair_count:,}"
        return f"{self.pair_count}/({self.left_count}·{self.right_count}) = {float(self.score):.4f}"

    def to_json(self) -> dict[str, Any]:
        return {"pair": [_text(self.pair[0]), _text(self.pair[1])], "count": self.pair_count,
                "left_count": self.left_count, "right_count": self.right_count,
                "score": [self.score.numerator, self.score.denominator]}


@dataclass(frozen=True)
class WordpieceResult:
    """The merges each method makes, in order, and how many pairs both made (in any order)."""

    bpe: tuple[ScoredMerge, ...]
    wordpiece: tuple[ScoredMerge, ...]

    @property
    def shared(self) -> int:
        return len({m.pair for m in self.bpe} & {m.pair for m in self.wordpiece})

    def to_json(self) -> dict[str, Any]:
        return {"bpe": [[_text(a), _text(b)] for a, b in (m.pair for m in self.bpe)],
                "wordpiece": [[_text(a), _text(b)] for a, b in (m.pair for m in self.wordpiece)],
                "shared": self.shared, "bpe_scores": [m.to_json() for m in self.bpe],
                "wordpiece_scores": [m.to_json() for m in self.wordpiece]}


def symbol_counts(words: Counter[Symbols]) -> Counter[bytes]:
    """How often each symbol occurs, weighted by word frequency.

    >>> symbol_counts(Counter({(b"a", b"b", b"a"): 2}))
    Counter({b'a': 4, b'b': 2})
    """
    counts: Counter[bytes] = Counter()
    for word, n in words.items():
        for symbol in word:
            counts[symbol] += n
    return counts


def _train(words: Counter[Symbols], merges: int, likelihood: bool) -> tuple[ScoredMerge, ...]:
    made: list[ScoredMerge] = []
    for _ in range(merges):
        pairs = count_pairs(words)
        if not pairs:
            break
        symbols = symbol_counts(words)
        scored = [
            ScoredMerge(pair, n, symbols[pair[0]], symbols[pair[1]],
                        Fraction(n, symbols[pair[0]] * symbols[pair[1]]) if likelihood else Fraction(n))
            for pair, n in pairs.items()
        ]
        best = max(scored, key=lambda m: (m.score, m.pair))  # a tie goes to the greater pair
        made.append(best)
        words = merge_words(words, best.pair)
    return tuple(made)


def compare_scores(word_counts: Mapping[str, int], merges: int) -> WordpieceResult:
    """Up to ``merges`` merges by BPE's score and by WordPiece's on ``word_counts``.

    On hug ×10, pug ×5, pun ×12, bun ×4, hugs ×5 the symbols occur h 15, u 36, g 20, p 17, n 16, b 4,
    s 5 times. BPE takes the most frequent pair, "ug" (20). For WordPiece every pair with "u" scores
    1/36 (``ug``: 20 / (36·20)), but "gs" scores 5 / (20·5) = 1/20 and wins:

    >>> result = compare_scores({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, 1)
    >>> result.bpe[0].pair, result.bpe[0].score
    ((b'u', b'g'), Fraction(20, 1))
    >>> result.wordpiece[0].pair, result.wordpiece[0].score
    ((b'g', b's'), Fraction(1, 20))
    """
    words: Counter[Symbols] = Counter()
    for word, n in word_counts.items():
        words[tuple(bytes([b]) for b in word.encode("utf-8"))] += n
    return WordpieceResult(_train(words, merges, False), _train(words, merges, True))
