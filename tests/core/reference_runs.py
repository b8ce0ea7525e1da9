"""Test helpers around ``core.reference``: a reference run with each merge's count and why it stopped.

``core.reference.train`` returns CS336's ``(vocab, merges)`` only; the fast trainer also reports each
merge's count and its stop reason, so the tests need those from the reference too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from core import reference
from core.pretokenize.patterns import GPT2_PATTERN
from core.reference import Pair, Word


@dataclass
class ReferenceRun:
    """What the reference made: the vocabulary, the merges in order, each merge's count, why it stopped."""

    vocab: dict[int, bytes]
    merges: list[Pair]
    counts: list[int]
    reason: str


def apply_merges(words: dict[Word, int], merges: Sequence[Pair]) -> dict[Word, int]:
    """The pre-tokens after merging each of ``merges`` in turn."""
    for pair in merges:
        words = reference.merge_words(words, pair)
    return words


def train_reference(
    text: str,
    vocab_size: int,
    special_tokens: Sequence[str],
    *,
    pattern: str = GPT2_PATTERN,
    min_frequency: int = 0,
) -> ReferenceRun:
    """Train with ``core.reference`` step by step, keeping what ``reference.train`` leaves out.

    The reason is the fast trainer's: ``vocab_size`` when every planned merge was made (even if no pair
    was left after the last), otherwise ``no_pairs`` or ``min_frequency``.
    """
    vocab = {i: bytes([i]) for i in range(256)}
    for token in special_tokens:
        vocab[len(vocab)] = token.encode("utf-8")
    planned = vocab_size - len(vocab)
    words = reference.count_words(text, special_tokens, pattern)
    steps = list(reference.learn_merges(words, planned, min_frequency))
    merges = [(left, right) for left, right, _ in steps]
    for left, right in merges:
        vocab[len(vocab)] = left + right
    if len(steps) == planned:
        reason = "vocab_size"
    elif reference.count_pairs(apply_merges(words, merges)):
        reason = "min_frequency"
    else:
        reason = "no_pairs"
    return ReferenceRun(vocab, merges, [count for _, _, count in steps], reason)
