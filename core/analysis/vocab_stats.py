"""Summary facts about a vocabulary: how it splits into bytes, merges and specials, and its longest tokens."""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from core.model import BPEModel


@dataclass(frozen=True, slots=True)
class VocabSplit:
    """Where a vocabulary's entries come from.

    Attributes:
        byte_tokens: single-byte entries (256 for a complete byte-level tokenizer).
        merges: merge rules.
        specials: special tokens.
        other: entries none of the above explain (files made by other tools may carry some).
    """

    byte_tokens: int
    merges: int
    specials: int
    other: int

    @property
    def total(self) -> int:
        return self.byte_tokens + self.merges + self.specials + self.other


def vocab_split(model: BPEModel) -> VocabSplit:
    """Split ``model.vocab_size`` into bytes + merges + specials (+ anything else).

    ``other`` is what is left once bytes, merges and specials are counted, and can be negative when a
    file lists more merges than it has tokens for, which the inspector shows as it is.

    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab", 257: b"<|endoftext|>"}
    >>> vocab_split(BPEModel(vocab=vocab, merges=[(b"a", b"b")], special_tokens=["<|endoftext|>"]))
    VocabSplit(byte_tokens=256, merges=1, specials=1, other=0)
    """
    byte_tokens = sum(1 for token in model.vocab.values() if len(token) == 1)
    merges = len(model.merges)
    specials = len(model.special_tokens)
    other = model.vocab_size - byte_tokens - merges - specials
    return VocabSplit(byte_tokens=byte_tokens, merges=merges, specials=specials, other=other)


def longest_tokens(model: BPEModel, n: int = 10, *, include_specials: bool = False) -> list[tuple[int, bytes]]:
    """The ``n`` longest tokens by byte length as ``(id, bytes)``; ties go to the lower id.

    Special tokens are left out by default: they are long by construction and say nothing about the corpus.

    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab", 257: b"abc", 258: b"xy"}
    >>> longest_tokens(BPEModel(vocab=vocab, merges=[]), 2)
    [(257, b'abc'), (256, b'ab')]
    """
    specials = set() if include_specials else {s.encode("utf-8") for s in model.special_tokens}
    candidates = ((token_id, token) for token_id, token in model.vocab.items() if token not in specials)
    return heapq.nsmallest(n, candidates, key=lambda item: (-len(item[1]), item[0]))
