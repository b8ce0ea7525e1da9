"""Lens 8, unigram: every way to cut a word into vocabulary tokens, ranked by a unigram model's log-probability.

BPE gives one segmentation; a vocabulary allows many (GPT-2 cuts " tokenization" thousands of ways). A
unigram model scores each as the sum of its tokens' log-probabilities. The probabilities here are the
active tokenizer's own token frequencies on a corpus (the bundled samples by default), add-one smoothed
over the vocabulary's ordinary tokens, so that a token the corpus never used is unlikely but possible:
``p(t) = (count(t) + 1) / (N + V)``. The lens shows the best segmentations and where BPE's own ranks.

The number of segmentations is counted by dynamic programming (``ways[i]`` = the sum of ``ways[j]`` over
every token that spans bytes ``j..i``), never by listing them: a long word has more than anyone could
list. The best ones come from a k-best dynamic program over the same lattice, so a long word is as quick.
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from core.encode.tokenizer import Tokenizer, replace_surrogates
from core.errors import SettingsError
from core.model import BPEModel

MAX_WORD_BYTES = 1_000
"""The longest word :func:`unigram` takes: the k-best table keeps :data:`RANK_DEPTH` cuts at every byte,
so 10 KB took 12 s and 350 MB, and a pasted page gigabytes."""


def check_word(word: str) -> None:
    """Refuse a word longer than :data:`MAX_WORD_BYTES` in UTF-8 (a :class:`SettingsError` naming the limit).

    >>> check_word("a" * 1000); check_word("a" * 1001)
    Traceback (most recent call last):
    core.errors.SettingsError: the unigram lens segments one word: give at most 1,000 bytes, not 1,001
    """
    size = len(replace_surrogates(word).encode("utf-8"))
    if size > MAX_WORD_BYTES:
        raise SettingsError(f"the unigram lens segments one word: give at most {MAX_WORD_BYTES:,} bytes, not {size:,}")


RANK_DEPTH = 200
"""How deep the search for BPE's rank goes: beyond it the rank is reported as unknown (``None``)."""


def _text(token: bytes) -> str:
    return token.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class Segmentation:
    """One way to cut the word: its tokens and the sum of their log-probabilities (natural log)."""

    tokens: tuple[bytes, ...]
    logprob: float

    def to_json(self) -> dict[str, Any]:
        return {"tokens": [_text(t) for t in self.tokens], "logprob": self.logprob}


@dataclass(frozen=True)
class UnigramResult:
    """The word's segmentations: how many, the best ones, and BPE's.

    Attributes:
        word: the word.
        count: how many segmentations into vocabulary tokens it has (by dynamic programming).
        segmentations: the best ones, best first (at most the ``top`` asked for).
        bpe: BPE's segmentation, scored the same way.
        bpe_rank: BPE's place among all segmentations, 1 + how many are more probable (so tied
            segmentations share a place), ``None`` beyond :data:`RANK_DEPTH`.
        bpe_ties: how many other segmentations among the best :data:`RANK_DEPTH` are exactly as probable.
        corpus_tokens: how many tokens the corpus the probabilities come from had (N).
    """

    word: str
    count: int
    segmentations: tuple[Segmentation, ...]
    bpe: Segmentation
    bpe_rank: int | None
    corpus_tokens: int
    bpe_ties: int = 0

    @property
    def rank_text(self) -> str:
        """BPE's rank in words: ``#3``, ``#1, tied with 2 others``, or ``below the best 200``."""
        if self.bpe_rank is None:
            return f"below the best {RANK_DEPTH}"
        if self.bpe_ties:
            return f"#{self.bpe_rank}, tied with {self.bpe_ties} other{'s' if self.bpe_ties > 1 else ''}"
        return f"#{self.bpe_rank}"

    def to_json(self) -> dict[str, Any]:
        return {"word": self.word, "count": self.count,
                "segmentations": [s.to_json() for s in self.segmentations],
                "bpe": self.bpe.to_json() | {"rank": self.bpe_rank, "tied": self.bpe_ties},
                "corpus_tokens": self.corpus_tokens}


def token_counts(tokenizer: Tokenizer, texts: Iterable[str]) -> Counter[bytes]:
    """How often each token (by its bytes) occurs when ``tokenizer`` encodes ``texts``; special tokens are text.

    >>> tok = Tokenizer({i: bytes([i]) for i in range(256)} | {256: b"ab"}, [(b"a", b"b")])
    >>> token_counts(tok, ["abab a"])
    Counter({b'ab': 2, b' ': 1, b'a': 1})
    """
    counts: Counter[int] = Counter()
    for text in texts:
        counts.update(tokenizer.encode_ordinary(text))
    return Counter({tokenizer.decode_single_token_bytes(token_id): n for token_id, n in counts.items()})


@dataclass(frozen=True)
class UnigramModel:
    """Add-one smoothed token log-probabilities: ``log((count(t) + 1) / (N + V))`` for each ordinary token."""

    logprobs: dict[bytes, float]
    corpus_tokens: int

    @classmethod
    def build(cls, model: BPEModel, counts: Mapping[bytes, int]) -> UnigramModel:
        specials = {token.encode("utf-8") for token in model.special_tokens}
        tokens = {token for token in model.vocab.values() if token not in specials}
        total = sum(counts.get(token, 0) for token in tokens)
        denominator = total + len(tokens)
        return cls({t: math.log((counts.get(t, 0) + 1) / denominator) for t in tokens}, total)

    def score(self, tokens: Iterable[bytes]) -> float:
        return sum(self.logprobs[token] for token in tokens)


def count_segmentations(data: bytes, tokens: set[bytes] | Mapping[bytes, Any], longest: int) -> int:
    """How many ways ``data`` splits into entries of ``tokens`` (each at most ``longest`` bytes long).

    >>> count_segmentations(b"aaaa", {b"a", b"aa"}, 2)
    5
    """
    ways = [1] + [0] * len(data)
    for end in range(1, len(data) + 1):
        ways[end] = sum(ways[start] for start in range(max(0, end - longest), end) if data[start:end] in tokens)
    return ways[-1]


def best_segmentations(data: bytes, logprobs: Mapping[bytes, float], longest: int, k: int) -> list[Segmentation]:
    """The ``k`` most probable segmentations of ``data``, best first (k-best dynamic programming).

    Entry ``i`` of the table keeps the ``k`` best ways to cut the first ``i`` bytes, each as a score and
    a pointer back to the entry it extends, so no candidate list is ever copied.

    >>> lp = {b"a": math.log(0.5), b"aa": math.log(0.4), b"aaa": math.log(0.01)}
    >>> [(s.tokens, round(math.exp(s.logprob), 3)) for s in best_segmentations(b"aaa", lp, 3, 2)]
    [((b'a', b'aa'), 0.2), ((b'aa', b'a'), 0.2)]
    """
    # best[i]: list of (score, start, index into best[start]); best[0] is the empty cut.
    best: list[list[tuple[float, int, int]]] = [[(0.0, -1, -1)]] + [[] for _ in data]
    for end in range(1, len(data) + 1):
        candidates = []
        for start in range(max(0, end - longest), end):
            piece = logprobs.get(data[start:end])
            if piece is None:
                continue
            for index, (score, _, _) in enumerate(best[start]):
                candidates.append((score + piece, -start, -index))
        top = heapq.nlargest(k, candidates)
        best[end] = [(score, -start, -index) for score, start, index in top]
    out = []
    for score, start, index in best[len(data)]:
        tokens: list[bytes] = []
        end = len(data)
        while start >= 0:
            tokens.append(data[start:end])
            end, (_, start, index) = start, best[start][index]
        out.append(Segmentation(tuple(reversed(tokens)), score))
    return out


def unigram(model: BPEModel, word: str, counts: Mapping[bytes, int], top: int = 20,
            tokenizer: Tokenizer | None = None) -> UnigramResult:
    """Segmentations of ``word`` ranked under the unigram model of ``counts`` (token bytes -> frequency).

    Raises:
        SettingsError: ``word`` is longer than :data:`MAX_WORD_BYTES` in UTF-8.

    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab"}
    >>> result = unigram(BPEModel(vocab, [(b"a", b"b")]), "abab", {b"ab": 5, b"a": 1, b"b": 1})
    >>> result.count, [s.tokens for s in result.segmentations][:2], result.bpe_rank
    (4, [(b'ab', b'ab'), (b'a', b'b', b'ab')], 1)
    """
    check_word(word)
    tokenizer = tokenizer if tokenizer is not None else Tokenizer.from_model(model)
    word = replace_surrogates(word)
    scores = UnigramModel.build(model, counts)
    data = word.encode("utf-8")
    longest = max(map(len, scores.logprobs))
    total = count_segmentations(data, scores.logprobs, longest)
    bpe_tokens = tuple(tokenizer.decode_tokens_bytes(tokenizer.encode_ordinary(word)))
    bpe = Segmentation(bpe_tokens, scores.score(bpe_tokens))
    ranked = best_segmentations(data, scores.logprobs, longest, max(top, RANK_DEPTH))
    rank, ties = None, 0
    if any(s.tokens == bpe_tokens for s in ranked):
        # Sums of the same logs in another order can differ in the last bits: equal within 1e-9 is a tie.
        rank = 1 + sum(1 for s in ranked if s.logprob > bpe.logprob + 1e-9)
        ties = sum(1 for s in ranked if abs(s.logprob - bpe.logprob) <= 1e-9 and s.tokens != bpe_tokens)
    return UnigramResult(word, total, tuple(ranked[:top]), bpe, rank, scores.corpus_tokens, ties)

