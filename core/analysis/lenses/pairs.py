"""Lens 3, pairs: BPE training by hand on a word-frequency corpus, pass by pass.

Each pass counts every adjacent pair of symbols inside each word, weighted by how often the word
occurs, merges the most frequent pair everywhere, and rewrites the corpus. Where several pairs share
the top count, the lexicographically greater pair (left bytes, then right bytes) wins: CS336's rule, the
one training here uses (:func:`core.reference.ranked_pairs`). Symbols are bytes, as in byte-level BPE.

A corpus is either a word-frequency list (``word count`` a line, ``#`` comments; the bundled
``samples/word_counts.txt``) or any text, cut into pre-tokens by the tokenizer's pattern and counted.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.errors import CorpusError
from core.reference import count_pairs, count_pretokens, merge_word, merge_words, ranked_pairs

Symbols = tuple[bytes, ...]
Pair = tuple[bytes, bytes]

_COUNT_LINE = re.compile(r"^(\S+)[ \t]+([0-9]+)$")

MAX_COUNT_DIGITS = 18
"""The most digits a word's count may have (Python refuses to read an int of more than 4,300)."""


def _text(token: bytes) -> str:
    return token.decode("utf-8", errors="replace")


def parse_word_counts(text: str) -> dict[str, int] | None:
    """``{word: count}`` if every line of ``text`` is ``word count``, a ``#`` comment or blank; else ``None``.

    Raises:
        CorpusError: a count is 0 (a word that never occurs, which would make pairs of count 0 and
            WordPiece's score 0/0) or has more than :data:`MAX_COUNT_DIGITS` digits.

    >>> parse_word_counts("# toy\\nlow 5\\nlower 2\\n")
    {'low': 5, 'lower': 2}
    >>> parse_word_counts("low low lower") is None
    True
    """
    counts: dict[str, int] = {}
    problem = None
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        match = _COUNT_LINE.match(line)
        if match is None:
            return None
        digits = match.group(2).lstrip("0")
        if problem is None and not 1 <= len(digits) <= MAX_COUNT_DIGITS:
            problem = f"line {number:,}: {line[:40]!r} gives a count of {'0' if not digits else 'over 18 digits'}; " \
                      f"each word's count must be from 1 to {10 ** MAX_COUNT_DIGITS - 1:,}"
        elif problem is None:
            counts[match.group(1)] = counts.get(match.group(1), 0) + int(digits)
    if problem is not None:  # a word-frequency list, but a count is wrong
        raise CorpusError(problem)
    return counts or None


def corpus_words(text: str, pattern: str, special_tokens: tuple[str, ...] = ()) -> dict[str, int]:
    """The word counts of a corpus file's ``text``: its own counts if it is a word-frequency list, else its
    pre-tokens under ``pattern`` (special tokens left out), counted.

    Raises:
        CorpusError: the corpus holds no word.

    >>> corpus_words("low 5\\nlower 2", r"\\S+")
    {'low': 5, 'lower': 2}
    >>> corpus_words("low low lower", r"\\S+| ")
    {'low': 2, ' ': 2, 'lower': 1}
    """
    counts = parse_word_counts(text)
    if counts is None:
        counts = dict(count_pretokens(text, list(special_tokens), pattern))
    if not counts:
        raise CorpusError("the corpus holds no words; give a text file or 'word count' lines")
    return counts


@dataclass(frozen=True)
class PairPass:
    """One pass: every pair's weighted count, the winner, the pairs it tied with, and the corpus after.

    Attributes:
        pair: the pair merged.
        count: its weighted count.
        tied_with: the other pairs with the same count, which the tie rule passed over (greatest first).
        counts: every pair with its count, in the order training prefers them (the winner first).
        words: the corpus after the merge, each word as its symbols with its frequency.
        symbols: the symbols in the corpus after the merge, each word counted as often as it occurs.
    """

    pair: Pair
    count: int
    tied_with: tuple[Pair, ...]
    counts: tuple[tuple[Pair, int], ...]
    words: tuple[tuple[Symbols, int], ...]
    symbols: int

    def to_json(self) -> dict[str, Any]:
        return {"pair": [_text(self.pair[0]), _text(self.pair[1])], "count": self.count,
                "tied_with": [[_text(a), _text(b)] for a, b in self.tied_with], "symbols": self.symbols,
                "counts": [[_text(a), _text(b), n] for (a, b), n in self.counts],
                "words": [[[_text(s) for s in word], n] for word, n in self.words]}


@dataclass(frozen=True)
class PairsResult:
    """The corpus before any merge, its symbol count, and each pass in order (fewer if pairs ran out)."""

    start: tuple[tuple[Symbols, int], ...]
    start_symbols: int
    passes: tuple[PairPass, ...]

    def to_json(self) -> dict[str, Any]:
        return {"passes": [p.to_json() for p in self.passes], "start_symbols": self.start_symbols,
                "words": [[[_text(s) for s in word], n] for word, n in self.start]}


def _symbols(words: Counter[Symbols]) -> int:
    return sum(len(word) * n for word, n in words.items())


def _listed(words: Counter[Symbols], order: list[Symbols]) -> tuple[tuple[Symbols, int], ...]:
    return tuple((word, words[word]) for word in order)


def pair_passes(word_counts: Mapping[str, int], passes: int) -> PairsResult:
    """Up to ``passes`` merges of BPE training on ``word_counts``, each with its full pair table.

    "we" occurs in lower (2) and newest (6); once merged, "lo" (7) beats "ow" (now 5):

    >>> result = pair_passes({"low": 5, "lower": 2, "newest": 6}, 2)
    >>> result.start_symbols, [(p.pair, p.count, p.tied_with, p.symbols) for p in result.passes]
    (61, [((b'w', b'e'), 8, (), 53), ((b'l', b'o'), 7, (), 46)])

    A tie goes to the greater pair:

    >>> pair_passes({"ab": 1, "cd": 1}, 1).passes[0].pair, pair_passes({"ab": 1, "cd": 1}, 1).passes[0].tied_with
    ((b'c', b'd'), ((b'a', b'b'),))
    """
    words: Counter[Symbols] = Counter()
    for word, n in word_counts.items():
        words[tuple(bytes([b]) for b in word.encode("utf-8"))] += n
    # Words keep the order they were given in, as they are rewritten, so a pass reads like the last.
    order = list(words)
    start = _listed(words, order)
    done: list[PairPass] = []
    for _ in range(passes):
        ranked = ranked_pairs(count_pairs(words))
        if not ranked:
            break
        left, right, count = ranked[0]
        ties = tuple((a, b) for a, b, n in ranked[1:] if n == count)
        merged = merge_words(words, (left, right))
        order = list(dict.fromkeys(merge_word(word, (left, right)) for word in order))
        words = merged
        done.append(PairPass((left, right), count, ties, tuple(((a, b), n) for a, b, n in ranked),
                             _listed(words, order), _symbols(words)))
    return PairsResult(start, _symbols(Counter(dict(start))), tuple(done))
