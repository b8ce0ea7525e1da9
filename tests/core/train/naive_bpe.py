"""A slow, obviously correct byte-level BPE trainer: the reference the fast trainer must match merge for merge.

Written from the definition in issue 2 (CS336 assignment 1), not from ``core/train/run.py``, and sharing none of
its code: documents are split on the special tokens, each document is cut into pre-tokens by the GPT-2
pattern, equal pre-tokens are counted once with their frequency, and then every step

1. counts every adjacent pair from scratch, weighted by the pre-token's frequency,
2. picks the greatest ``(count, left_bytes, right_bytes)`` (ties go to the lexicographically greater pair),
3. rewrites every pre-token, left to right, replacing each non-overlapping occurrence of the pair.

The only concession to speed is counting unique pre-tokens instead of every occurrence. Nothing is cached
between steps, so there is no incremental bookkeeping that could drift.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import regex

from core.pretokenize.patterns import GPT2_PATTERN

Word = tuple[bytes, ...]
Pair = tuple[bytes, bytes]


def split_on_specials(text: str, special_tokens: list[str]) -> list[str]:
    """The documents of ``text``: the pieces between special tokens, the special tokens themselves dropped.

    >>> split_on_specials("a<|endoftext|>b", ["<|endoftext|>"])
    ['a', 'b']
    """
    if not special_tokens:
        return [text]
    # Longest first: where one special token contains another, the longer one is the token in the text.
    alternatives = sorted(special_tokens, key=len, reverse=True)
    return regex.split("|".join(regex.escape(token) for token in alternatives), text)


def pretoken_counts(text: str, special_tokens: list[str], pattern: str = GPT2_PATTERN) -> Counter[str]:
    """How often each pre-token occurs in ``text`` (documents split on special tokens first).

    >>> pretoken_counts("low low", [])
    Counter({'low': 1, ' low': 1})
    """
    counts: Counter[str] = Counter()
    for document in split_on_specials(text, special_tokens):
        for match in regex.finditer(pattern, document):
            counts[match.group()] += 1
    return counts


def words_of(text: str, special_tokens: list[str]) -> Counter[Word]:
    """Unique pre-tokens as tuples of one-byte strings, with their frequency."""
    words: Counter[Word] = Counter()
    for piece, n in pretoken_counts(text, special_tokens).items():
        words[tuple(bytes([b]) for b in piece.encode("utf-8"))] += n
    return words


def count_pairs(words: Counter[Word]) -> Counter[Pair]:
    """Every adjacent pair of every pre-token, weighted by the pre-token's frequency.

    >>> count_pairs(Counter({(b"a", b"b", b"a", b"b"): 2}))
    Counter({(b'a', b'b'): 4, (b'b', b'a'): 2})
    """
    pairs: Counter[Pair] = Counter()
    for word, freq in words.items():
        for left, right in zip(word, word[1:]):
            pairs[(left, right)] += freq
    return pairs


def ranked_pairs(pairs: Counter[Pair]) -> list[tuple[bytes, bytes, int]]:
    """All pairs, best first: higher count, then the lexicographically greater (left, right) bytes."""
    ordered = sorted(pairs.items(), key=lambda item: (item[1], item[0][0], item[0][1]), reverse=True)
    return [(left, right, count) for (left, right), count in ordered]


def merge_word(word: Word, pair: Pair) -> Word:
    """Replace each occurrence of ``pair`` in ``word``, scanning left to right (so ``a a a`` -> ``aa a``).

    >>> merge_word((b"a", b"a", b"a"), (b"a", b"a"))
    (b'aa', b'a')
    """
    out: list[bytes] = []
    i = 0
    while i < len(word):
        if i + 1 < len(word) and word[i] == pair[0] and word[i + 1] == pair[1]:
            out.append(word[i] + word[i + 1])
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)


def merge_all(words: Counter[Word], pair: Pair) -> Counter[Word]:
    """Every pre-token with ``pair`` merged."""
    merged: Counter[Word] = Counter()
    for word, freq in words.items():
        merged[merge_word(word, pair)] += freq
    return merged


def apply_merges(words: Counter[Word], merges: list[Pair]) -> Counter[Word]:
    """The pre-tokens after applying ``merges`` one after the other."""
    for pair in merges:
        words = merge_all(words, pair)
    return words


@dataclass
class NaiveResult:
    """What the naive trainer made: the vocabulary, the merges in order and each merge's count."""

    vocab: dict[int, bytes]
    merges: list[Pair] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)
    reason: str = "vocab_size"


def train_naive(text: str, vocab_size: int, special_tokens: list[str], min_frequency: int = 0) -> NaiveResult:
    """Train on ``text`` the slow way: recount every pair after every merge.

    >>> train_naive("low low low lower lower newest", 259, []).merges
    [(b'o', b'w'), (b'l', b'ow'), (b' ', b'low')]
    """
    vocab = {i: bytes([i]) for i in range(256)}
    for token in special_tokens:
        vocab[len(vocab)] = token.encode("utf-8")
    result = NaiveResult(vocab)
    words = words_of(text, special_tokens)
    while len(vocab) < vocab_size:
        pairs = count_pairs(words)
        if not pairs:
            result.reason = "no_pairs"
            break
        (left, right), count = max(pairs.items(), key=lambda item: (item[1], item[0][0], item[0][1]))
        if count < min_frequency:
            result.reason = "min_frequency"
            break
        vocab[len(vocab)] = left + right
        result.merges.append((left, right))
        result.counts.append(count)
        words = merge_all(words, (left, right))
    return result
